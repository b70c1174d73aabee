#!/usr/bin/env python3
"""This folder's summaries. Run B: auto against the per-matrix best kernel measured in the same
hola-bench run on the committed trees' held-out matrices (every kernel, auto and auto:check=0 side
by side), once with --block-us 50 (each product timed on the GPU alone) and once without, per
(precision, op): harmonic mean of min(1, time(best) / time(auto)) and the cases below 0.97 of the
best and below 0.97x cuSPARSE ALG1. Runs A and B, graph mode on 13 small matrices: auto's time per
product in a CUDA graph over cuSPARSE's, launches per product. No numpy needed. Usage, from the
repository root:
  python3 bench/results/2026-11-27-h100-session5/summary.py > bench/results/2026-11-27-h100-session5/summary.txt
"""
import gzip
import json
import os
from collections import Counter, defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
KERNELS = ["cusparse", "cusparse-alg2", "hola", "light", "merge", "scalar", "vector",
           "vector-adaptive"]
HELDOUT = ["B-blocked-heldout.json.gz", "B-plain-heldout.json.gz", "C-blocked-heldout.json.gz",
           "F-blocked-heldout.json.gz", "F-plain-heldout.json.gz"]
GRAPH = ["A-graph-small.json.gz", "B-graph-small-blocked.json.gz", "C-graph-small-blocked.json.gz"]
FUSE = ["D-fuse-blocked.json.gz", "D-fuse-plain.json.gz", "F-fuse-blocked.json.gz",
        "F-fuse-plain.json.gz"]


def hmean(xs):
    return len(xs) / sum(1 / x for x in xs)


def load(name):
    with gzip.open(os.path.join(HERE, name)) as f:
        return json.load(f)


def by_case(d):
    t = defaultdict(dict)
    for r in d["results"]:
        if r["correct"] and r["time_ms"] > 0:
            t[(r["matrix"], r["precision"], r["op"])][r["kernel"]] = r
    return t


def same_run(d):
    t = by_case(d)
    late = sum(r.get("late_runs", 0) for r in d["results"])
    print(f"  runs timed again with a longer block: {late}")
    for label in ("auto", "auto:check=0"):
        capped, below_best, below_cus = defaultdict(list), [], []
        for (m, p, o), row in sorted(t.items()):
            if label not in row or not all(k in row for k in KERNELS):
                continue
            best_k = min(KERNELS, key=lambda k: row[k]["time_ms"])
            a = row[label]
            share = row[best_k]["time_ms"] / a["time_ms"]
            capped[f"{p}-{o}"].append(min(1.0, share))
            if share < 0.97:
                below_best.append((share, f"{m} {p} {o} {share:.3f} of {best_k} ({a['note']}, "
                                          f"{a['time_ms'] * 1e3:.1f} us)"))
            s = row["cusparse"]["time_ms"] / a["time_ms"]
            if s < 0.97:
                below_cus.append((s, f"{m} {p} {o} {s:.3f}x ({a['note']}, "
                                     f"{a['time_ms'] * 1e3:.1f} us)"))
        allc = [x for v in capped.values() for x in v]
        per = ", ".join(f"{c} {hmean(v):.3f}" for c, v in sorted(capped.items()))
        print(f"  {label}: {len(allc)} cases; share of the same-run best {hmean(allc):.3f} ({per})")
        print(f"    below 0.97 of the best: {len(below_best)}")
        for _, b in sorted(below_best)[:12]:
            print(f"      {b}")
        print(f"    below 0.97x cuSPARSE ALG1: {len(below_cus)}")
        for _, b in sorted(below_cus):
            print(f"      {b}")
    sp = defaultdict(list)
    for (m, p, o), row in t.items():
        if "auto" in row and "cusparse" in row:
            sp[f"{p}-{o}"].append(row["cusparse"]["time_ms"] / row["auto"]["time_ms"])
    print("  auto over cuSPARSE ALG1 (harmonic mean): " +
          ", ".join(f"{c} {hmean(v):.3f}" for c, v in sorted(sp.items())))


def graph_mode(d):
    t = by_case(d)
    ratio, plain = defaultdict(list), defaultdict(list)
    launches = Counter()
    capturable = sum(1 for r in d["results"] if r.get("graph_capturable"))
    tried = sum(1 for r in d["results"] if "graph_capturable" in r)
    below = []
    for (m, p, o), row in sorted(t.items()):
        a, c = row.get("auto"), row.get("cusparse")
        if not a or not c or not a.get("graph_ms") or not c.get("graph_ms"):
            continue
        g = c["graph_ms"] / a["graph_ms"]
        ratio[f"{p}-{o}"].append(g)
        plain[f"{p}-{o}"].append(c["time_ms"] / a["time_ms"])
        launches[a.get("graph_kernels_per_product")] += 1
        if g < 0.97:
            below.append(f"{m} {p} {o}: graph {g:.3f}x ({a['graph_ms'] * 1e3:.2f} against "
                         f"{c['graph_ms'] * 1e3:.2f} us, {a['note']}, "
                         f"{a.get('graph_kernels_per_product')} launches)")
    print(f"  captured: {capturable} of {tried} GPU rows; auto's launches per product: "
          + ", ".join(f"{k}: {v} cases" for k, v in sorted(launches.items())))
    for c in sorted(ratio):
        print(f"  {c}: auto over cuSPARSE in a graph, harmonic mean {hmean(ratio[c]):.3f} "
              f"(min {min(ratio[c]):.3f}); timed per product {hmean(plain[c]):.3f} "
              f"(min {min(plain[c]):.3f})")
    print(f"  auto below 0.97x cuSPARSE in a graph: {len(below)}")
    for b in below:
        print(f"    {b}")
    per_kernel = defaultdict(set)
    for r in d["results"]:
        if r.get("graph_kernels_per_product") is not None:
            per_kernel[r["kernel"]].add(r["graph_kernels_per_product"])
    print("  launches per product by kernel: " +
          ", ".join(f"{k} {sorted(v)}" for k, v in sorted(per_kernel.items())))


def fuse_compare(d):
    """merge (the fused fix-up up to its bound) over merge:fuse=0 (the separate kernel), op N."""
    t = {}
    for r in d["results"]:
        t[(r["matrix"], r["precision"], r["kernel"])] = r
    groups = defaultdict(lambda: ([], []))
    for (m, p, k), r in sorted(t.items()):
        u = t.get((m, p, "merge:fuse=0"))
        if k != "merge" or not u or not r["time_ms"] or not u["time_ms"]:
            continue
        tiles = -(-(r["rows"] + r["nnz"]) // (128 * (7 if p == "double" else 11)))
        band = ("<= 128 tiles (fused at 12fe127)" if tiles <= 128 else
                "129-200 tiles" if tiles <= 200 else "> 200 tiles")
        alone, graph = groups[band]
        alone.append(r["time_ms"] / u["time_ms"])
        if r.get("graph_ms") and u.get("graph_ms"):
            graph.append(r["graph_ms"] / u["graph_ms"])
        launches = r.get("graph_kernels_per_product")
        print(f"  {m[:40]:40s} {p:6s} {tiles:4d} tiles, {launches} launch(es): merge / merge:fuse=0 "
              f"{r['time_ms'] / u['time_ms']:.3f} per product, "
              f"{(r['graph_ms'] / u['graph_ms']) if u.get('graph_ms') else 0:.3f} in a graph")
    for band, (alone, graph) in sorted(groups.items()):
        print(f"  {band}: {len(alone)} cases, per product {min(alone):.3f}-{max(alone):.3f} "
              f"(geometric mean {gmean(alone):.3f}), in a graph {min(graph):.3f}-{max(graph):.3f} "
              f"(geometric mean {gmean(graph):.3f})")


def gmean(xs):
    import math
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def main():
    print("# python3 bench/results/2026-11-27-h100-session5/summary.py: derived from runs A and "
          "B's files named below (each names its commit, GPU and command)")
    for name in HELDOUT:
        d = load(name)
        n = len({r["matrix"] for r in d["results"]})
        print(f"== {name}: commit {d['commit']}, {d['device']}, {n} matrices, block_us "
              f"{d.get('block_us')}")
        same_run(d)
    for name in GRAPH:
        d = load(name)
        print(f"== {name}: commit {d['commit']}, {d['device']}, block_us {d.get('block_us')}, "
              f"graph_products {d.get('graph_products')}")
        graph_mode(d)
    for name in FUSE:
        d = load(name)
        print(f"== {name}: commit {d['commit']}, {d['device']}, block_us {d.get('block_us')}")
        fuse_compare(d)


if __name__ == "__main__":
    main()
