#!/usr/bin/env python3
"""Session 16's summary (summary.txt): run C's short block rows (auto with the retrained trees,
auto:check=0, inode and cuSPARSE), speed-up over cuSPARSE ALG1 in the same run, double / float,
with the kernel auto ran; then run D's summary (summary_D.py).
Usage: python3 bench/results/2026-11-28-session16/summary.py > summary.txt
"""
import gzip
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    with gzip.open(os.path.join(HERE, "C-short-blocks.json.gz"), "rt") as f:
        run = json.load(f)
    print(f"# run C: commit {run['commit'][:10]}, {run['device']}")
    print(f"# {run['command']}")
    rows = {(r["matrix"], r["op"], r["kernel"], r["precision"]): r for r in run["results"]}
    assert all(r["correct"] for r in run["results"])
    print(f"# {len(run['results'])} results, all right")
    matrices = list(dict.fromkeys(r["matrix"] for r in run["results"]))
    kernels = ["inode", "auto:check=0", "auto"]
    print("matrix | op | " + " | ".join(kernels) + " (double / float; auto's kernel)")
    for m in matrices:
        for op in ("N", "T"):
            cells = []
            for k in kernels:
                d, f = rows[(m, op, k, "double")], rows[(m, op, k, "float")]
                cell = f"{d['speedup_vs_cusparse']:.2f} / {f['speedup_vs_cusparse']:.2f}"
                if k.startswith("auto"):
                    picks = [r["note"].replace("chose ", "") for r in (d, f)]
                    cell += f" ({picks[0]} / {picks[1]})"
                cells.append(cell)
            floor = [rows[(m, op, "auto", p)]["pct_floor"] for p in ("double", "float")]
            print(
                f"{m} | {op} | "
                + " | ".join(cells)
                + f" | auto {floor[0]:.1f} / {floor[1]:.1f} % of the floor"
            )
    sys.stdout.flush()
    subprocess.run([sys.executable, os.path.join(HERE, "summary_D.py")], check=True)


if __name__ == "__main__":
    main()
