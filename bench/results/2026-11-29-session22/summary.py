"""Tables of session 22's runs (python3 summary.py > summary.txt), from the JSON files beside it.

A: auto (with its check, the default; and without it, auto:check=0) against cuSPARSE on the
   held-out matrices where sessions 18 and 21 measured auto below 0.97x cuSPARSE, 200 timed
   runs, the host's launch inside the events (launch) and the GPU alone (--block-us 40, gpu).
   (-k cusparse was given twice; hola-bench timed it once.)
B, C: the first op T product of vector-adaptive (plan of the windows, trial, product) less that
   of the same kernel with windows off (no plan): what the plan costs, with the host's sample
   (B, 8e31aa2) and with the sample sorted and counted on the GPU by CUB (C, c1094fc).
"""
import gzip
import json
from collections import defaultdict


def load(name):
    with gzip.open(name) as f:
        return json.load(f)


def hmean(v):
    return len(v) / sum(1.0 / x for x in v)


print("# Run A: auto against cuSPARSE, small held-out matrices (times in us, median of 200)")
for mode in ("launch", "gpu"):
    d = load(f"A-small-{mode}.json.gz")
    print(f"\n## {mode}: {d['commit'][:7]}, {d['device']}")
    cases = defaultdict(list)
    for r in d["results"]:
        cases[(r["matrix"], r["precision"], r["op"])].append(r)
    worst = {"auto": 1e9, "auto:check=0": 1e9}
    ratios = defaultdict(list)
    print(f"{'matrix':44s} prec   op cuSPARSE    auto (x)   runs             auto:check=0 (x)")
    for (m, p, op), rows in cases.items():
        ref = next(r for r in rows if r["kernel"] == "cusparse")["time_ms"]
        a = next(r for r in rows if r["kernel"] == "auto")
        a0 = next(r for r in rows if r["kernel"] == "auto:check=0")
        for k, t in (("auto", a["time_ms"]), ("auto:check=0", a0["time_ms"])):
            worst[k] = min(worst[k], ref / t)
            ratios[k].append(ref / t)
        print(f"{m[:44]:44s} {p[:6]:6s} {op}  {ref*1e3:7.1f} {a['time_ms']*1e3:7.1f} ({ref/a['time_ms']:.3f}) "
              f"{a['note'].replace('chose ', ''):16s} {a0['time_ms']*1e3:7.1f} ({ref/a0['time_ms']:.3f})")
    for k in worst:
        below = sum(1 for x in ratios[k] if x < 0.97)
        print(f"{k}: lowest {worst[k]:.3f}x cuSPARSE, harmonic mean {hmean(ratios[k]):.3f}x, "
              f"{below} of {len(ratios[k])} below 0.97x")

print("\n# Runs B, C: the first op T product of vector-adaptive less that of vector-adaptive:win=0 (ms)")
runs = {}
for run in ("B", "C"):
    d = load(f"{run}-first.json.gz")
    runs[run] = d
    print(f"{run}: commit {d['commit'][:7]}, {d['device']}")
table = defaultdict(dict)
for run, d in runs.items():
    for r in d["results"]:
        table[(r["matrix"], r["precision"])][(run, r["kernel"])] = r
print(f"\n{'matrix':62s} prec    product  plan B  plan C  windows (C)")
for (m, p), k in table.items():
    va_b, w0_b = k[("B", "vector-adaptive")], k[("B", "vector-adaptive:win=0")]
    va_c, w0_c = k[("C", "vector-adaptive")], k[("C", "vector-adaptive:win=0")]
    extra_b = va_b["first_run_ms"] - w0_b["first_run_ms"]
    extra_c = va_c["first_run_ms"] - w0_c["first_run_ms"]
    note = va_c["note"].split(", ", 1)[1] if ", " in va_c["note"] else "none"
    print(f"{m[:62]:62s} {p:6s} {va_c['time_ms']:8.3f} {extra_b:7.2f} {extra_c:7.2f}  {note}")
print("\nThe first matrix of each run (poisson3d-64, double) carries the process's first op T of the"
      "\nrow kernels' module (B) and, in C, about 20 ms more: CUB's first sort or the stream-ordered"
      "\npool's first 7 MB (not told apart).")
