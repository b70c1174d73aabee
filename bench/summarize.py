#!/usr/bin/env python3
"""Summarise a hola-bench results JSON against the targets of docs/architecture.md.

Usage: python3 bench/summarize.py bench/results/<file>.json [--kernel hola]
Prints, per kernel, the % of floor and speedup over cuSPARSE ALG1 of every matrix and the
harmonic means of the target groups (regular, irregular, small; N and T).
"""
import argparse
import json
import statistics

REGULAR = {"poisson3d-200", "stencil27-128", "banded-s10", "banded-s1000"}
IRREGULAR = {"banded-s40000", "uniform-22", "rmat-21-16", "circuit-4M"}
SMALL_MAX_NNZ = 300_000


def hmean(values):
    values = [v for v in values if v > 0]
    return statistics.harmonic_mean(values) if values else float("nan")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json")
    ap.add_argument("--kernel", action="append", help="kernels to summarise (default: all)")
    args = ap.parse_args()
    data = json.load(open(args.json))
    rows = [r for r in data["results"] if r["time_ms"] > 0]
    kernels = args.kernel or sorted({r["kernel"] for r in rows})
    print(f"{data['device']}, commit {data['commit'][:12]}, copy {data['copy_bandwidth_gbs']:.0f} GB/s")
    wrong = [r for r in data["results"] if not r["correct"] and r["note"] != "op not supported"]
    print(f"results: {len(data['results'])}, wrong: {len(wrong)}")
    for k in kernels:
        mine = [r for r in rows if r["kernel"] == k]
        if not mine:
            continue
        print(f"\n== {k}")
        for op in ("N", "T"):
            sel = [r for r in mine if r["op"] == op]
            if not sel:
                continue
            for prec in sorted({r["precision"] for r in sel}):
                s = [r for r in sel if r["precision"] == prec]
                reg = [r["speedup_vs_cusparse"] for r in s if r["matrix"] in REGULAR]
                irr = [r["speedup_vs_cusparse"] for r in s if r["matrix"] in IRREGULAR]
                small = [r["speedup_vs_cusparse"] for r in s if r["nnz"] < SMALL_MAX_NNZ]
                floor_reg = [r["pct_floor"] for r in s if r["matrix"] in REGULAR]
                everything = [r["speedup_vs_cusparse"] for r in s]
                print(
                    f"  op {op} {prec:6s}: hmean speedup all {hmean(everything):.2f}x, "
                    f"regular {hmean(reg):.2f}x (floor {min(floor_reg, default=0):.0f}-"
                    f"{max(floor_reg, default=0):.0f}%), irregular {hmean(irr):.2f}x, "
                    f"small {hmean(small):.2f}x"
                )


if __name__ == "__main__":
    main()
