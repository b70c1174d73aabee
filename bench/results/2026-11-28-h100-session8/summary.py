#!/usr/bin/env python3
"""This folder's summaries. (1) hola's fused fix-up (runs A and D): per matrix and precision, the
separate fix-up's time over the fused one's (hola:fuse=0 / hola), always fused over separate,
the same in CUDA graphs, and hola against cuSPARSE, with geometric means for products of 2-256
and of more blocks (256 blocks: the default bound). (2) `auto` against the per-matrix best kernel
of the same run on the committed trees' held-out matrices (runs B and E), beside run H of
../2026-11-27-h100-session6/ (the code before the fused fix-up), with session 5's summary code.
Usage, from the repository root:
  cd bench/results/2026-11-28-h100-session8 && python3 summary.py > summary.txt
"""
import gzip
import importlib.util
import json
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.dirname(HERE)
spec = importlib.util.spec_from_file_location(
    "session5", os.path.join(RESULTS, "2026-11-27-h100-session5", "summary.py")
)
s5 = importlib.util.module_from_spec(spec)
spec.loader.exec_module(s5)


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def fuse_table(name):
    with gzip.open(os.path.join(HERE, name), "rt") as f:
        d = json.load(f)
    print(f"== {name}: commit {d['commit'][:7]}, {d['device']}, block_us {d['block_us']}")
    by = {}
    for r in d["results"]:
        by.setdefault((r["matrix"], r["precision"]), {})[r["kernel"]] = r
    print(
        f"{'matrix':52s} {'prec':6s} {'nnz':>8s} {'blocks':>6s} {'sep/fused':>9s} "
        f"{'sep/always':>10s} {'graph sep/fused':>15s} {'cusp/hola':>9s} {'cusp/sep':>8s}"
    )
    rows = []
    for (m, p), k in by.items():
        h, s, a, c = k["hola"], k["hola:fuse=0"], k["hola:fuse=100000"], k["cusparse"]
        per_block = 1024 if p == "double" else 2048  # 256 threads x 4 (double) or 8 (float)
        blocks = (h["nnz"] + per_block - 1) // per_block
        r = (
            s["time_ms"] / h["time_ms"],
            s["time_ms"] / a["time_ms"],
            s["graph_ms"] / h["graph_ms"],
            c["time_ms"] / h["time_ms"],
            c["time_ms"] / s["time_ms"],
        )
        rows.append((blocks, r))
        print(
            f"{m:52s} {p:6s} {h['nnz']:8d} {blocks:6d} {r[0]:9.3f} {r[1]:10.3f} {r[2]:15.3f} "
            f"{r[3]:9.3f} {r[4]:8.3f}"
        )
    for lo, hi, label in ((2, 256, "2-256 blocks"), (257, None, "257 blocks and more")):
        sel = [r for b, r in rows if b >= lo and (hi is None or b <= hi)]
        print(
            f"  {label} ({len(sel)} cases), geometric means: separate / fused "
            f"{geomean([r[0] for r in sel]):.3f}, separate / always fused "
            f"{geomean([r[1] for r in sel]):.3f}, in graphs {geomean([r[2] for r in sel]):.3f}; "
            f"hola vs cuSPARSE {geomean([r[3] for r in sel]):.3f} "
            f"(with the separate fix-up {geomean([r[4] for r in sel]):.3f})"
        )
    print()


def main():
    print(
        "# python3 bench/results/2026-11-28-h100-session8/summary.py: derived from the files "
        "named below (each names its commit, GPU and command)"
    )
    for name in (
        "A-fuse-blocked.json.gz",
        "A-fuse-plain.json.gz",
        "D-fuse-blocked.json.gz",
        "D-fuse-plain.json.gz",
    ):
        fuse_table(name)
    session6 = os.path.join(RESULTS, "2026-11-27-h100-session6")
    for folder, name in (
        (session6, "H-blocked-heldout.json.gz"),
        (HERE, "B-blocked-heldout.json.gz"),
        (session6, "H-plain-heldout.json.gz"),
        (HERE, "B-plain-heldout.json.gz"),
        (HERE, "E-plain-heldout.json.gz"),
    ):
        s5.HERE = folder
        d = s5.load(name)
        n = len({r["matrix"] for r in d["results"]})
        print(
            f"== {os.path.basename(folder)}/{name}: commit {d['commit']}, {d['device']}, "
            f"{n} matrices, block_us {d.get('block_us')}"
        )
        s5.same_run(d)


if __name__ == "__main__":
    main()
