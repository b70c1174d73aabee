#!/usr/bin/env python3
"""Tables of session 17's runs (README.md), from the JSON files beside this script:
python3 summary.py > summary.txt"""
import collections
import gzip
import json
import pathlib

HERE = pathlib.Path(__file__).resolve().parent


def rows(name):
    data = json.load(gzip.open(HERE / name))
    return data["rows"] if "rows" in data else data["results"]


def times(name):
    """{(matrix, precision, op): {kernel: (median ms, note)}}"""
    out = collections.defaultdict(dict)
    for r in rows(name):
        if r.get("time_ms"):
            out[(r["matrix"], r["precision"], r["op"])][r["kernel"]] = (
                r["time_ms"],
                r.get("note", ""),
            )
    return out


def hmean(values):
    return len(values) / sum(1.0 / v for v in values)


def run_a():
    print("Run A: inode's column loop, four / two steps loaded together against one step a round")
    print("(best of the two rounds' medians, ms; ratio > 1: faster than before)")
    best = collections.defaultdict(dict)
    for variant in ("before", "steps4", "steps2"):
        for rnd in (1, 2):
            for key, ks in times(f"A-{variant}-{rnd}.json.gz").items():
                t = ks["inode"][0]
                best[key][variant] = min(best[key].get(variant, t), t)
    print(f"{'matrix':42s} {'prec':6s} op  before   steps4   steps2  before/4 before/2")
    ratios4, ratios2 = [], []
    for key in sorted(best):
        b = best[key]
        ratios4.append(b["before"] / b["steps4"])
        ratios2.append(b["before"] / b["steps2"])
        print(
            f"{key[0].replace('elasticity:', ''):42s} {key[1]:6s} {key[2]}  {b['before']:.4f}  "
            f"{b['steps4']:.4f}  {b['steps2']:.4f}  {ratios4[-1]:.3f}    {ratios2[-1]:.3f}"
        )
    means = f"before / steps4 {hmean(ratios4):.3f}, before / steps2 {hmean(ratios2):.3f}"
    print(f"harmonic means: {means}")
    print()


def run_b():
    print("Run B: auto on 26 block-row matrices (best of 5 = the fastest of cusparse, hola, merge,")
    print("vector-adaptive, inode timed beside it)")
    t = times("B-blocks.json.gz")
    for prec in ("double", "float"):
        for op in ("N", "T"):
            keys = [k for k in t if k[1] == prec and k[2] == op]
            vs_cusparse = [t[k]["cusparse"][0] / t[k]["auto"][0] for k in keys]
            vs_best = [
                min(v[0] for n, v in t[k].items() if n != "auto") / t[k]["auto"][0] for k in keys
            ]
            print(
                f"  {prec:6s} op {op}: {len(keys)} matrices, auto / cuSPARSE hmean "
                f"{hmean(vs_cusparse):.3f} (lowest {min(vs_cusparse):.3f}), best-of-5 / auto hmean "
                f"{hmean(vs_best):.3f} (lowest {min(vs_best):.3f}), below 0.97 of the best: "
                f"{sum(v < 0.97 for v in vs_best)}"
            )
    print("  cases below 0.95 of the best:")
    for k in sorted(t):
        ks = t[k]
        best = min((v[0], n) for n, v in ks.items() if n != "auto")
        ratio = best[0] / ks["auto"][0]
        if ratio < 0.95:
            print(
                f"    {k[0].replace('elasticity:', ''):40s} {k[1]:6s} {k[2]}  {ratio:.3f} "
                f"(auto {ks['auto'][1].replace('chose ', '')}, fastest {best[1]})"
            )
    print()


def versus(name, title, kernels):
    print(title)
    t = times(name)
    print(
        f"{'matrix':46s} {'prec':6s} op "
        + " ".join(f"{k:>16s}" for k in kernels)
        + "  (x cuSPARSE)"
    )
    for key in sorted(t):
        ks = t[key]
        c = ks["cusparse"][0]
        cells = [f"{c / ks[k][0]:16.2f}" if k in ks else f"{'-':>16s}" for k in kernels]
        picked = ks["auto"][1].replace("chose ", "auto: ") if "auto" in ks else ""
        print(f"{key[0]:46s} {key[1]:6s} {key[2]}  " + " ".join(cells) + f"  {picked}")
    print()


if __name__ == "__main__":
    commits = sorted(
        {json.load(gzip.open(f))["commit"][:7] for f in sorted(HERE.glob("*.json.gz"))}
    )
    listed = ", ".join(commits)
    print(f"# session 17 summary from the runs' JSON files (NVIDIA H200; commits {listed})")
    print("# command: python3 summary.py > summary.txt")
    print()
    run_a()
    run_b()
    versus(
        "C-hubs.json.gz",
        "Run C: hub columns in the row kernels' op T (slot array in global memory)",
        ["hola", "merge", "vector-adaptive", "vector-adaptive:hubs=1", "vector:hubs=1"],
    )
    versus(
        "D-hubs.json.gz",
        "Run D: hub columns in merge's op T (slot array in global memory)",
        ["merge", "merge:hubs=1", "merge:hubs=1024", "merge:hubs=4096", "merge:hubs=8192"],
    )
    versus(
        "E-hubs.json.gz",
        "Run E: hub columns in merge's op T (hash table in shared memory; " "hubs=N: N entries)",
        ["merge", "merge:hubs=1", "merge:hubs=4096", "merge:hubs=8192"],
    )
    versus(
        "F-hubs.json.gz",
        "Run F: merge with hubs by default, R-MAT a = 0.45 ... 0.65",
        ["merge", "merge:hubs=0", "auto"],
    )
    versus(
        "G-graphs.json.gz",
        "Run G: Graph500 R-MAT and arrow, before auto knew of the hubs",
        ["merge", "merge:hubs=0", "auto"],
    )
    versus(
        "H-auto.json.gz",
        "Run H: auto with merge in the op T check (check_merge_for_hub_columns)",
        ["merge", "auto"],
    )
