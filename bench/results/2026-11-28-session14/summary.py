"""Session 14's tables, from the run files in this folder (and session 13's run B):
    python3 summary.py > summary.txt"""
import gzip
import json
import math
import re
from collections import defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
S13_B = HERE.parent / "2026-11-28-session13" / "B-inode.json.gz"


def load(path):
    with (gzip.open(path, "rt") if str(path).endswith(".gz") else open(path)) as f:
        return json.load(f)


def by_case(doc):
    t, meta = defaultdict(dict), {}
    for r in doc["results"]:
        t[(r["matrix"], r["precision"], r["op"])][r["kernel"]] = r
        meta[r["matrix"]] = (r["rows"], r["nnz"])
    return t, meta


def new_rule(mean, group_rows):  # kernels/cuda/inode/inode_width.hpp
    p = mean * group_rows
    return 2 if p < 8 else 4 if p < 32 else 8 if p < 128 else 16 if p < 512 else 32


def old_rule(mean):  # vector-adaptive's width, inode's default before this session
    for bound, w in ((16.97, 2), (33.94, 4), (67.88, 8), (135.76, 16)):
        if mean < bound:
            return w
    return 32


def block_of(matrix):
    params = dict(kv.split("=") for kv in matrix.split(":", 1)[1].split(",")) if ":" in matrix else {}
    return int(params.get("block", 3))


d = load(HERE / "D-short-blocks.json.gz")
print(f"run D: {d['command']}")
print(f"commit {d['commit']}, {d['device']}; every result correct: "
      f"{all(r.get('correct', True) for r in d['results'])} ({len(d['results'])} results)\n")
kernels = ["hola", "vector-adaptive", "inode", "inode:lanes=2", "inode:lanes=4", "inode:lanes=8",
           "inode:lanes=16", "auto:check=0", "auto"]
print("speed-up over cuSPARSE ALG1 (same run); 'inode' is the width rule of the run (vector-adaptive's)")
print(f"{'matrix':48s} {'p':1s} {'op':2s} " + " ".join(f"{k.replace('inode:lanes=', 'i'):>6s}" for k in kernels)
      + "  auto chose")
t, meta = by_case(d)
for (m, p, op), v in t.items():
    c = v["cusparse"]["time_ms"]
    chose = re.sub(r".*chose (\S+).*", r"\1", v["auto"]["note"])
    print(f"{m:48s} {p[0]} {op:2s} " + " ".join(f"{c / v[k]['time_ms']:6.2f}" for k in kernels)
          + f"  {chose}")

print("\ninode's width rule against every width forced, elasticity-like block rows of run D and of")
print("session 13's run B (best width's time / the rule's width's time; 1 = the rule found the best)")
scores = {"old (mean / 6)": [], "new (sqrt(mean x group rows))": []}
for path in (S13_B, HERE / "D-short-blocks.json.gz"):
    t, meta = by_case(load(path))
    for (m, p, op), v in t.items():
        if not m.startswith("elasticity"):
            continue
        rows, nnz = meta[m]
        mean = nnz / rows
        b = block_of(m)
        group_rows = {5: 2.5, 8: 4.0}.get(b, float(b))  # runs cut every 4 rows
        widths = {int(k.split("=")[1]): r["time_ms"] for k, r in v.items() if k.startswith("inode:lanes=")}
        widths.setdefault(old_rule(mean), v["inode"]["time_ms"])
        best = min(widths.values())
        o, n = old_rule(mean), new_rule(mean, group_rows)
        if o in widths and n in widths:
            scores["old (mean / 6)"].append(best / widths[o])
            scores["new (sqrt(mean x group rows))"].append(best / widths[n])
            print(f"  {m:48s} {p[0]} {op}  mean {mean:6.1f} x {group_rows:3.1f}: old {o:2d} lanes "
                  f"{best / widths[o]:.3f}, new {n:2d} lanes {best / widths[n]:.3f}")
for name, s in scores.items():
    geo = math.exp(sum(map(math.log, s)) / len(s))
    print(f"  {name}: {len(s)} cases, geometric mean {geo:.3f}, lowest {min(s):.3f}")

print("\nrun B: PETSc tutorials (B-tutorials/tutorials.txt)")
print((HERE / "B-tutorials" / "tutorials.txt").read_text())
print("run B: SNES ex19, auto's check at the first products (B-tutorials/tutorials/ex19_snes-holaaijcusparse-*.out)")
for f in sorted((HERE / "B-tutorials" / "tutorials").glob("ex19_snes-*.out")):
    text = f.read_text()
    its = re.findall(r"Linear solve converged due to \S+ iterations (\d+)", text)
    check = re.findall(r"op N runs (.*)", text)
    print(f"  {f.name}: linear iterations {' + '.join(its)}" + (f"; op N runs {check[0]}" if check else ""))
