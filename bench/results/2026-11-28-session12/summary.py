#!/usr/bin/env python3
"""Session 12 summary (summary.txt) from the JSON results of runs A and C in this folder and of
session 11's run E (same GPU kind, the kernels before this session)."""
import gzip
import json
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
BEFORE = os.path.join(HERE, "..", "2026-11-28-session11", "E-final.json.gz")
REGULAR = ("stencil27:n=128", "stencil27:n=100", "stencil27:n=64", "elasticity:n=64",
           "elasticity:n=48", "elasticity:n=32", "poisson3d:n=200", "poisson2d:n=3000",
           "banded:sigma=10", "banded:sigma=100", "banded:sigma=1000")
IRREGULAR = ("random:per_row=22", "rmat:scale=21,ef=16", "circuit",
             "powerlaw:rows=2000000,mean=16,tail=1.5", "poisson3d:n=160,perm=1",
             "random:rows=2000000,per_row=5")
GROUPS = (("regular", REGULAR), ("irregular", IRREGULAR))


def group(matrix):
    for name, members in GROUPS:
        if matrix in members:
            return name
    return "small"


def load(path):
    doc = json.load(gzip.open(path))
    table = {(r["matrix"], r["precision"], r["op"], r["kernel"]): r for r in doc["results"]}
    wrong = sum(1 for r in doc["results"] if not r["correct"])
    print(f"## {os.path.relpath(path, HERE)}: commit {doc['commit'][:7]}, {doc['device']}")
    print("command:", doc["command"])
    print(f"results: {len(doc['results'])}, wrong: {wrong}")
    return table


def speedup(table, kernel, m, p, o, base="cusparse"):
    return table[(m, p, o, base)]["time_ms"] / table[(m, p, o, kernel)]["time_ms"]


def means(values):
    """Geometric mean, harmonic mean, min, max."""
    g = math.exp(sum(math.log(v) for v in values) / len(values))
    h = len(values) / sum(1 / v for v in values)
    return f"geo {g:.3f} harm {h:.3f} ({min(values):.3f}-{max(values):.3f}, {len(values)})"


def cases(table):
    return sorted({(m, p, o) for m, p, o, _ in table}, key=lambda c: (c[2], c[0], c[1]))


def widths(table):
    print("\nrun A: x cuSPARSE of scalar, hola, vector-adaptive with CUSP's rule (the kernel at "
          "f13b01c) and every width forced; best width; the new rule's width")
    lanes = (2, 4, 8, 16, 32)
    print(f"{'matrix':40s} {'prec':6s} op  scalar  hola  cusp " +
          " ".join(f"{w:5d}" for w in lanes) + "  best rule")
    for m, p, o in cases(table):
        row = [speedup(table, k, m, p, o) for k in ("scalar", "hola", "vector-adaptive")]
        forced = [speedup(table, f"vector-adaptive:lanes={w}", m, p, o) for w in lanes]
        nnz, rows = table[(m, p, o, "cusparse")]["nnz"], table[(m, p, o, "cusparse")]["rows"]
        mean = nnz / rows
        rule = next(w for w, b in zip(lanes, (16.97, 33.94, 67.88, 135.76, math.inf)) if mean < b)
        best = lanes[forced.index(max(forced))]
        print(f"{m[:40]:40s} {p:6s} {o}  " + " ".join(f"{v:5.2f}" for v in row) + " " +
              " ".join(f"{v:5.2f}" for v in forced) + f"  {best:4d} {rule:4d}")
    print("\nrun A: the new rule's width over CUSP's rule (time of CUSP's / time of the rule's)")
    for o in ("N", "T"):
        for gname in ("regular", "irregular", "small"):
            v = []
            for m, p, oo in cases(table):
                if oo != o or group(m) != gname:
                    continue
                mean = table[(m, p, o, "cusparse")]["nnz"] / table[(m, p, o, "cusparse")]["rows"]
                rule = next(w for w, b in zip(lanes, (16.97, 33.94, 67.88, 135.76, math.inf))
                            if mean < b)
                v.append(table[(m, p, o, "vector-adaptive")]["time_ms"] /
                         table[(m, p, o, f"vector-adaptive:lanes={rule}")]["time_ms"])
            print(f"  {o} {gname:9s} {means(v)}")


def final(table, before):
    print("\nrun C (final code and trees) against session 11's run E (the kernels and trees "
          "before), each x its own run's cuSPARSE; auto's pick")
    print(f"{'matrix':40s} {'prec':6s} op  %floor(cu) %floor(auto)  hola   v-a  auto  "
          "auto before  pick")
    for m, p, o in cases(table):
        prev = (f"{speedup(before, 'auto', m, p, o):11.3f}" if (m, p, o, "auto") in before
                else f"{'-':>11s}")
        print(f"{m[:40]:40s} {p:6s} {o}  {table[(m, p, o, 'cusparse')]['pct_floor']:9.1f} "
              f"{table[(m, p, o, 'auto')]['pct_floor']:12.1f} "
              f"{speedup(table, 'hola', m, p, o):5.2f} "
              f"{speedup(table, 'vector-adaptive', m, p, o):5.2f} "
              f"{speedup(table, 'auto', m, p, o):5.2f} {prev}  "
              f"{table[(m, p, o, 'auto')]['note'].replace('chose ', '')}")
    print("\nauto x cuSPARSE by group (run C); 'same 19' = the matrices both runs have, for the "
          "before / after comparison")
    for o in ("N", "T"):
        for p in ("double", "float"):
            for gname in ("regular", "irregular", "small"):
                now = [speedup(table, "auto", m, pp, oo) for m, pp, oo in cases(table)
                       if pp == p and oo == o and group(m) == gname]
                same = [(m, pp, oo) for m, pp, oo in cases(table) if pp == p and oo == o and
                        group(m) == gname and (m, pp, oo, "auto") in before]
                after = [speedup(table, "auto", *c) for c in same]
                prev = [speedup(before, "auto", *c) for c in same]
                print(f"  {o} {p:6s} {gname:9s} now {means(now)}; same {len(same)}: before "
                      f"{means(prev)} after {means(after)}")
    low = sorted((speedup(table, "auto", *c), c) for c in cases(table))[:6]
    print("\nauto's lowest x cuSPARSE (run C):",
          "; ".join(f"{c[0]} {c[1]} {c[2]} {v:.3f}" for v, c in low))


if __name__ == "__main__":
    print("# made by `python3 bench/results/2026-11-28-session12/summary.py > summary.txt`; "
          "each section names its commit, GPU and command")
    widths(load(os.path.join(HERE, "A-lanes.json.gz")))
    print()
    before = load(BEFORE)
    print()
    final(load(os.path.join(HERE, "C-final.json.gz")), before)
