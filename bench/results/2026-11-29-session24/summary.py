"""Tables of session 24's runs (python3 summary.py > summary.txt), from the JSON files beside it.

A: the first op T product of vector-adaptive (plan of the windows, trial, product) less that of
   the same kernel with windows off (no plan), at the final sample code (239f49c: offsets written
   on the GPU, counted on the host), beside session 22's runs B (host sample, 8e31aa2) and C (GPU
   sample counted by CUB, c1094fc).
"""
import gzip
import json
from collections import defaultdict

S22 = "../2026-11-29-session22/"


def hmean(v):
    return len(v) / sum(1.0 / x for x in v)


def load(name):
    with gzip.open(name) as f:
        return json.load(f)


print("# First op T of vector-adaptive less that of vector-adaptive:win=0 (ms)")
runs = {"B": load(S22 + "B-first.json.gz"), "C": load(S22 + "C-first.json.gz"),
        "A": load("A-first.json.gz")}
for run, d in runs.items():
    print(f"{run}: commit {d['commit'][:7]}, {d['device']}")
table = defaultdict(dict)
for run, d in runs.items():
    for r in d["results"]:
        table[(r["matrix"], r["precision"])][(run, r["kernel"])] = r
print(f"\n{'matrix':62s} prec    product  plan B  plan C  plan A  windows (A)")
for (m, p), k in table.items():
    extra = {}
    for run in runs:
        va, w0 = k.get((run, "vector-adaptive")), k.get((run, "vector-adaptive:win=0"))
        extra[run] = va["first_run_ms"] - w0["first_run_ms"] if va and w0 else float("nan")
    va_a = k[("A", "vector-adaptive")]
    note = va_a["note"].split(", ", 1)[1] if ", " in va_a["note"] else "none"
    print(f"{m[:62]:62s} {p:6s} {va_a['time_ms']:8.3f} {extra['B']:7.2f} {extra['C']:7.2f} "
          f"{extra['A']:7.2f}  {note}")

# Run C: the anchors at the commit with one shared scaling pass, against session 18's run B
# (79cf2f4, same command), kernel by kernel; and op T with beta = 1 in place against beta = 0.
S18 = "../2026-11-29-session18/"
c = load("C-anchors.json.gz")
b18 = load(S18 + "B-anchors.json.gz")
c1 = load("C-anchors-beta1.json.gz")
print(f"\n# Run C: anchors, commit {c['commit'][:7]} against session 18 run B, commit "
      f"{b18['commit'][:7]}; {c['device']}")


def index(d):
    return {(r["matrix"], r["precision"], r["op"], r["kernel"]): r for r in d["results"]}


ic, ib, i1 = index(c), index(b18), index(c1)
print("\n## auto: x cuSPARSE (harmonic mean over the anchors) per precision and op, C and session 18 B")
for p in ("double", "float"):
    for op in ("N", "T"):
        vals = {}
        for name, ix in (("C", ic), ("B18", ib)):
            r = [ix[(m, pp, o, "cusparse")]["time_ms"] / ix[(m, pp, o, "auto")]["time_ms"]
                 for (m, pp, o, k) in ix if k == "auto" and pp == p and o == op]
            vals[name] = (hmean(r), min(r), len(r))
        print(f"{p:6s} {op}: C {vals['C'][0]:.3f}x (lowest {vals['C'][1]:.3f}, {vals['C'][2]} matrices), "
              f"session 18 {vals['B18'][0]:.3f}x (lowest {vals['B18'][1]:.3f})")
print("\n## Each kernel's time in C over its time in session 18 B (op T runs the scaling pass first)")
for k in ("cusparse", "hola", "merge", "vector-adaptive", "inode"):
    for op in ("N", "T"):
        r = [ic[key]["time_ms"] / ib[key]["time_ms"] for key in ic
             if key[3] == k and key[2] == op and key in ib]
        r.sort()
        print(f"{k:16s} {op}: median {r[len(r)//2]:.3f}, range {r[0]:.3f}-{r[-1]:.3f} ({len(r)} cases)")
print("\n## Op T with beta = 1 in place (no scaling pass) over beta = 0 (a memset), same commit")
for k in ("cusparse", "hola", "merge", "vector-adaptive", "inode"):
    r = sorted(i1[key]["time_ms"] / ic[key]["time_ms"] for key in i1 if key[3] == k and key in ic)
    print(f"{k:16s}: median {r[len(r)//2]:.3f}, range {r[0]:.3f}-{r[-1]:.3f} ({len(r)} cases)")

print("\n## Anchors (run C): the kernel auto ran, x cuSPARSE, % of the floor (docs/performance.md)")
order = []
for r in c["results"]:
    if r["matrix"] not in order:
        order.append(r["matrix"])
print("| matrix | nonzeros | double N | double T | float N | float T |")
print("|---|---:|---|---|---|---|")
ratios = {}
for m in order:
    cells = []
    nnz = None
    for p in ("double", "float"):
        for op in ("N", "T"):
            a, cu = ic[(m, p, op, "auto")], ic[(m, p, op, "cusparse")]
            nnz = a["nnz"]
            x = cu["time_ms"] / a["time_ms"]
            ratios.setdefault((p, op), []).append(x)
            ran = a["note"].replace("chose ", "").split(",")[0]
            cells.append(f"`{ran}` {x:.2f}x {a['pct_floor']:.0f} %")
    print(f"| {m} | {nnz / 1e6:.1f} M | " + " | ".join(cells) + " |")
print("| harmonic mean | | " + " | ".join(f"{hmean(ratios[(p, op)]):.2f}x" for p in ("double", "float")
                                     for op in ("N", "T")) + " |")
