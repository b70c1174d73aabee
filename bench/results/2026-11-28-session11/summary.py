#!/usr/bin/env python3
"""Session 11 summary (summary.txt) from the JSON results of runs A-E in this folder."""
import gzip
import json
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
REGULAR = ("stencil27:n=128", "stencil27:n=100", "elasticity:n=64", "elasticity:n=48",
           "poisson3d:n=200", "banded:sigma=10", "banded:sigma=100")
IRREGULAR = ("banded:sigma=1000", "random:per_row=22", "rmat:scale=21,ef=16", "circuit",
             "powerlaw:rows=2000000,mean=16,tail=1.5", "poisson3d:n=160,perm=1")


def group(matrix):
    if matrix in REGULAR:
        return "regular"
    if matrix in IRREGULAR:
        return "irregular"
    return "small"


def load(*names):
    docs = [json.load(gzip.open(os.path.join(HERE, n))) for n in names]
    best = {}
    for d in docs:
        for r in d["results"]:
            key = (r["matrix"], r["precision"], r["op"], r["kernel"])
            best[key] = min(best.get(key, math.inf), r["time_ms"])
    return docs, best


def header(names, docs):
    d = docs[0]
    wrong = sum(1 for doc in docs for r in doc["results"] if not r["correct"])
    n = sum(len(doc["results"]) for doc in docs)
    print(f"## {', '.join(names)}: commit {d['commit'][:7]}, {d['device']}")
    for doc in docs:
        print("command:", doc["command"])
    print(f"results: {n}, wrong: {wrong}; times: best of the rounds")


def ratios(best, base, kernel, prec, op):
    out = {}
    for (m, p, o, k), t in best.items():
        if k == kernel and p == prec and o == op and (m, p, o, base) in best:
            out[m] = best[(m, p, o, base)] / t
    return out


def gm(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def by_group(r):
    parts = []
    for g in ("regular", "irregular", "small"):
        v = [x for m, x in r.items() if group(m) == g]
        if v:
            parts.append(f"{g} {gm(v):.3f} ({min(v):.3f}-{max(v):.3f})")
    return "; ".join(parts)


def compare(names, base, kernels, ops=("N",)):
    docs, best = load(*names)
    header(names, docs)
    print(f"time of `{base}` / time of the kernel (> 1: faster), geometric mean (range) per group")
    for op in ops:
        for prec in ("double", "float"):
            for k in kernels:
                r = ratios(best, base, k, prec, op)
                if r:
                    print(f"  {op} {prec:6s} {k:28s} {by_group(r)}")
    print()


def config_sweep():
    names = ["A-config.json.gz"]
    docs, best = load(*names)
    header(names, docs)
    print("hola's block shapes: time of the per-case fastest shape / time of the shape, geometric mean")
    for prec in ("double", "float"):
        cases = {(m, p, o) for (m, p, o, k) in best if p == prec and k.startswith("hola")}
        shapes = sorted({k for (m, p, o, k) in best if k.startswith("hola")})
        row = []
        for s in shapes:
            v = []
            for c in cases:
                fastest = min(best[c + (t,)] for t in shapes)
                v.append(fastest / best[c + (s,)])
            row.append(f"{s.replace('hola:tpb=', '').replace(',npt=', 'x')} {gm(v):.3f}")
        print(f"  {prec:6s} " + ", ".join(row))
    print()


def final():
    names = ["E-final.json.gz"]
    docs, best = load(*names)
    header(names, docs)
    rows = {}
    for r in docs[0]["results"]:
        rows[(r["matrix"], r["precision"], r["op"], r["kernel"])] = r
    print("% of the floor; last columns: hola and auto over cuSPARSE (same run), auto's pick")
    print(f"{'matrix':40s} {'prec':6s} op " + " ".join(f"{k:>8s}" for k in
          ("cusparse", "scalar", "merge", "hola", "auto")) + "  hola/cu  auto/cu  pick")
    seen = []
    for r in docs[0]["results"]:
        c = (r["matrix"], r["precision"], r["op"])
        if c in seen:
            continue
        seen.append(c)
        cells = [rows.get(c + (k,)) for k in ("cusparse", "scalar", "merge", "hola", "auto")]
        auto = cells[4]
        print(f"{c[0][:40]:40s} {c[1]:6s} {c[2]}  " +
              " ".join(f"{x['pct_floor']:8.1f}" if x else "       -" for x in cells) +
              f"  {cells[3]['speedup_vs_cusparse']:7.3f}  {auto['speedup_vs_cusparse']:7.3f}  "
              f"{auto['note'].replace('chose ', '')[:24]}")
    for op in ("N", "T"):
        for prec in ("double", "float"):
            for k in ("hola", "auto"):
                r = {m: x["speedup_vs_cusparse"] for (m, p, o, kk), x in rows.items()
                     if kk == k and p == prec and o == op}
                print(f"  {k} over cuSPARSE, {op} {prec:6s}: {by_group(r)}")
    print()


def floor_table(names, kernels):
    docs, _ = load(*names)
    header(names, docs)
    best = {}
    for d in docs:
        for r in d["results"]:
            k = (r["matrix"], r["precision"], r["kernel"])
            best[k] = max(best.get(k, 0.0), r["pct_floor"])
    print("% of the floor (best of the rounds), regular matrices and the circuit matrix")
    print(f"{'matrix':18s} {'prec':6s} " + " ".join(f"{k:>16s}" for k in kernels))
    for m in REGULAR + ("circuit",):
        for p in ("double", "float"):
            print(f"{m:18s} {p:6s} " + " ".join(f"{best[(m, p, k)]:16.1f}" for k in kernels))
    print()


if __name__ == "__main__":
    print("# made by `python3 bench/results/2026-11-28-session11/summary.py > summary.txt` from the"
          " JSON files of runs A-E; each section names its commit, GPU and command\n")
    config_sweep()
    compare(["B-exp-1.json.gz", "B-exp-2.json.gz"], "hola",
            ["hola:exp=1", "hola:exp=2", "hola:exp=3", "hola:exp=4", "hola:exp=7", "cusparse"])
    compare(["C-N-1.json.gz", "C-N-2.json.gz"], "hola",
            ["hola:exp=3", "hola:exp=3,pf=0", "merge", "merge:exp=2", "cusparse"])
    compare(["C-N-1.json.gz", "C-N-2.json.gz"], "merge", ["merge:exp=2"])
    compare(["C-N-1.json.gz", "C-N-2.json.gz"], "hola:exp=3", ["hola:exp=3,pf=0"])
    compare(["C-T-1.json.gz"], "hola", ["hola:exp=2", "cusparse"], ops=("T",))
    compare(["D-N-1.json.gz", "D-N-2.json.gz"], "hola",
            ["hola:exp=1", "hola:exp=3", "hola:exp=3,pf=0", "cusparse"])
    compare(["D-N-1.json.gz", "D-N-2.json.gz"], "merge", ["merge:exp=2"])
    compare(["D-N-1.json.gz", "D-N-2.json.gz"], "hola:exp=3", ["hola:exp=3,pf=0"])
    compare(["D-T-1.json.gz", "D-T-2.json.gz"], "hola", ["hola:exp=2", "cusparse"], ops=("T",))
    # hola:exp=3,pf=0 is the final code's op N (no sort, evict-first loads, no prefetch); `hola`
    # there is session 10's (sort, prefetch by the sector rule).
    floor_table(["D-N-1.json.gz", "D-N-2.json.gz"],
                ["cusparse", "merge", "merge:exp=2", "hola", "hola:exp=3,pf=0"])
    final()
