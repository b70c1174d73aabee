"""Tables of session 25's runs (python3 summary.py > summary.txt), from the files beside it.

A, B: vector / vector-adaptive op N with every step of a lane predicated (experiment option
      loop=4|8, 5|9 with evict-first matrix loads) against the unrolled loop with its serial tail
      (loop=0): time ratios over the large matrices and the 90 generated held-out ones; Nsight
      Compute of the 27-point stencil 128^3.
C: the final form (predicated_row_steps, on by default below 32 lanes with at least one entry a
   lane): anchors against session 24's run C, and vector-adaptive with the steps forced off / on.
D: fuzz and scale outcomes (from the logs).
E: inode op N with 2 or 4 column steps a round (experiment option isteps=) against one step.
F: the suites' outcomes (from the logs).
G: vector-adaptive op N at its rule's width against every width forced.
"""
import csv
import gzip
import io
import json
import math
import re
from collections import defaultdict


def hmean(v):
    return len(v) / sum(1.0 / x for x in v)


def gmean(v):
    return math.exp(sum(math.log(x) for x in v) / len(v))


def load(name):
    with gzip.open(name) as f:
        return json.load(f)


def by_case(d):
    t = defaultdict(dict)
    for r in d["results"]:
        t[(r["matrix"], r["precision"])][r["kernel"]] = r
    return t


print("# Runs A and B: op N time of the unrolled loop over that of each variant (above 1: faster)")
for run in ("A", "B"):
    for part in ("large", "heldout"):
        d = load(f"{run}-{part}.json.gz")
        t = by_case(d)
        print(f"\n## {run}-{part}: commit {d['commit'][:7]}, {d['device']}, {len(t)} matrix x precision cases")
        variants = sorted({k.split(":")[1] for c in t.values() for k in c if ":loop=" in k})
        for base in ("vector-adaptive", "vector"):
            for v in variants:
                for p in ("double", "float"):
                    r = sorted((c[base]["time_ms"] / c[f"{base}:{v}"]["time_ms"], m)
                               for (m, pp), c in t.items() if pp == p and f"{base}:{v}" in c)
                    if not r:
                        continue
                    print(f"{base}:{v} {p:6s}: geometric mean {gmean([x for x, _ in r]):.3f}, "
                          f"lowest {r[0][0]:.3f} ({r[0][1]}), highest {r[-1][0]:.3f} ({r[-1][1]}), "
                          f"below 0.97: {sum(x < 0.97 for x, _ in r)} of {len(r)}")

print("\n# Runs A and B: the rule kept (predicated below 32 lanes where mean row length >= lanes),"
      "\n# vector-adaptive, loop=4 where the rule says so, over the unrolled loop")
allr = []
for run in ("A", "B"):
    for part in ("large", "heldout"):
        for (m, p), c in by_case(load(f"{run}-{part}.json.gz")).items():
            a = c["vector-adaptive"]
            w = int(re.search(r"(\d+) lanes", a["note"]).group(1))
            use = w < 32 and a["nnz"] >= w * max(1, a["rows"])
            x = a["time_ms"] / c["vector-adaptive:loop=4"]["time_ms"] if use else 1.0
            allr.append((x, run, m, p, w, a["nnz"] / max(1, a["rows"]), a["time_ms"]))
print(f"geometric mean {gmean([x[0] for x in allr]):.3f} over {len(allr)} cases; below 0.97:")
for x in sorted(allr):
    if x[0] < 0.97:
        print(f"  {x[0]:.3f} run {x[1]} {x[2]} {x[3]}, {x[4]} lanes, mean {x[5]:.1f}, {x[6] * 1000:.1f} us")

print("\n# Nsight Compute, 27-point 128^3, vector-adaptive (4 lanes) op N")
want = ["Duration", "DRAM Throughput", "L2 Cache Throughput", "L1/TEX Hit Rate", "L2 Hit Rate",
        "Achieved Occupancy", "Warp Cycles Per Issued Instruction", "Registers Per Thread"]
files = [(f"{run}-ncu-loop{lp}-{p}.csv.gz", f"loop={lp} {p}") for run, loops in (("A", (0, 4, 8)), ("B", (5, 9)))
         for lp in loops for p in ("double", "float")]
vals = defaultdict(dict)
for f, label in files:
    lines = gzip.open(f, "rt").read().splitlines()
    start = [i for i, l in enumerate(lines) if l.startswith('"ID"')][0]
    for r in csv.DictReader(io.StringIO("\n".join(lines[start:]))):
        if r["Metric Name"] in want:
            vals[label][r["Metric Name"]] = f"{r['Metric Value']} {r['Metric Unit']}".strip()
print(f"{'':16s}" + "".join(f"{w[:22]:>24s}" for w in want))
for _, label in files:
    print(f"{label:16s}" + "".join(f"{vals[label].get(w, '-'):>24s}" for w in want))

c = load("C-anchors.json.gz")
c24 = load("../2026-11-29-session24/C-anchors.json.gz")


def index(d):
    return {(r["matrix"], r["precision"], r["op"], r["kernel"]): r for r in d["results"]}


ic, i24 = index(c), index(c24)
print(f"\n# Run C: anchors, commit {c['commit'][:7]} against session 24 run C, commit {c24['commit'][:7]}; {c['device']}")
for p in ("double", "float"):
    for op in ("N", "T"):
        vals = {}
        for name, ix in (("C", ic), ("C24", i24)):
            r = [ix[(m, pp, o, "cusparse")]["time_ms"] / ix[(m, pp, o, "auto")]["time_ms"]
                 for (m, pp, o, k) in ix if k == "auto" and pp == p and o == op]
            vals[name] = (hmean(r), min(r))
        print(f"auto {p:6s} {op}: {vals['C'][0]:.3f}x cuSPARSE (lowest {vals['C'][1]:.3f}), "
              f"session 24 {vals['C24'][0]:.3f}x (lowest {vals['C24'][1]:.3f})")
print("\n## Each kernel's op N time in C over session 24 run C")
for k in ("cusparse", "hola", "merge", "vector-adaptive", "inode", "auto"):
    r = sorted(ic[key]["time_ms"] / i24[key]["time_ms"] for key in ic
               if key[3] == k and key[2] == "N" and key in i24)
    print(f"{k:16s}: median {r[len(r) // 2]:.3f}, range {r[0]:.3f}-{r[-1]:.3f} ({len(r)} cases)")

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
    for p in ("double", "float"):
        for op in ("N", "T"):
            a, cu = ic[(m, p, op, "auto")], ic[(m, p, op, "cusparse")]
            x = cu["time_ms"] / a["time_ms"]
            ratios.setdefault((p, op), []).append(x)
            ran = a["note"].replace("chose ", "").split(",")[0]
            cells.append(f"`{ran}` {x:.2f}x {a['pct_floor']:.0f} %")
    print(f"| {m} | {a['nnz'] / 1e6:.2f} M | " + " | ".join(cells) + " |")
print("| harmonic mean | | " + " | ".join(f"{hmean(ratios[(p, op)]):.2f}x" for p in ("double", "float")
                                     for op in ("N", "T")) + " |")

pr = load("C-pred.json.gz")
t = by_case(pr)
print(f"\n## Run C: vector-adaptive op N with the steps forced off (pred=0) over the default, commit {pr['commit'][:7]}")
for (m, p), k in t.items():
    a, off, on = k["vector-adaptive"], k["vector-adaptive:pred=0"], k["vector-adaptive:pred=1"]
    print(f"{m:16s} {p:6s} default {a['time_ms'] * 1000:8.1f} us {a['pct_floor']:5.1f} %  off {off['time_ms'] / a['time_ms']:.3f}  "
          f"on {on['time_ms'] / a['time_ms']:.3f}  ({a['note']})")

print("\n# Run D")
for f in ("D-fuzz.log", "D-scale.log"):
    lines = open(f).read().splitlines()
    print(f"{f}: {lines[0][:160]}")
    print("   " + [l for l in lines if "passed" in l][-1])

e = load("E-blocks.json.gz")
t = by_case(e)
print(f"\n# Run E: inode op N, one step's time over that with 2 / 4 steps a round; commit {e['commit'][:7]}, "
      f"{len(t)} matrix x precision cases")
for v in ("inode:isteps=2", "inode:isteps=4"):
    for p in ("double", "float"):
        r = sorted((c["inode"]["time_ms"] / c[v]["time_ms"], m) for (m, pp), c in t.items() if pp == p)
        print(f"{v} {p:6s}: geometric mean {gmean([x for x, _ in r]):.3f}, lowest {r[0][0]:.3f} ({r[0][1]}), "
              f"highest {r[-1][0]:.3f} ({r[-1][1]}), {len(r)} cases")

print("\n# Run F")
for name in ("device_conformance_test", "operator_gpu_test", "auto_check_gpu_test", "light_test"):
    lines = open(f"F-{name}.log").read().splitlines()
    print(f"{name}: {[l for l in lines if l.startswith('[  PASSED') or l.startswith('[  FAILED')][:2]} {lines[-1]}")
print("F commit: " + open("F-light_test.log").readline().split(",")[0])

total = wrong = 0
for f in ("A-large", "A-heldout", "B-large", "B-heldout", "C-anchors", "C-pred", "E-blocks", "G-large", "G-heldout"):
    for r in load(f + ".json.gz")["results"]:
        total += 1
        wrong += r.get("correct") is not True
print(f"\n# Benchmark results checked against the CPU reference: {total}, not right: {wrong}")

print("\n# Run G: vector-adaptive op N, the rule's width against the best of 2, 4, 8, 16 lanes forced")
for f in ("G-large", "G-heldout"):
    d = load(f + ".json.gz")
    fam = defaultdict(list)
    for (m, p), k in by_case(d).items():
        a = k["vector-adaptive"]
        times = {w: k[f"vector-adaptive:lanes={w}"]["time_ms"] for w in (2, 4, 8, 16)}
        best = min(times, key=times.get)
        family = a["family"] if f == "G-heldout" else m.split(":")[0].split("-")[0]
        if a["time_ms"] >= 0.02:  # products of 20 us and more (shorter: within the spread)
            fam[family].append((a["time_ms"] / times[best], best, a["time_ms"] / k["cusparse"]["time_ms"]))
    print(f"## {f}: commit {d['commit'][:7]}; per family, products of 20 us and more: rule over best "
          f"(geometric mean, highest), the best widths, rule over cuSPARSE (geometric mean)")
    for family, v in sorted(fam.items()):
        print(f"{family:16s} {len(v):3d} cases: {gmean([x[0] for x in v]):.3f} (highest {max(x[0] for x in v):.3f}), "
              f"best widths {sorted({x[1] for x in v})}, x cuSPARSE time {gmean([x[2] for x in v]):.2f}")
