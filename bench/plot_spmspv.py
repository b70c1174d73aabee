#!/usr/bin/env python3
"""Plots a hola-spmspv-bench JSON: time against x density, one line per candidate, one panel per
matrix and op (one figure per precision), the selection rule's pick marked.

Usage: python3 bench/plot_spmspv.py RESULT.json [--out PREFIX]
Writes PREFIX-<precision>.png (default PREFIX: RESULT without .json). Needs matplotlib (Agg).
"""

import argparse
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

STYLE = {
    "matrix_direct": ("tab:blue", "-"),
    "matrix_balanced": ("tab:cyan", "-"),
    "vector_direct": ("tab:red", "-"),
    "vector_balanced": ("tab:orange", "-"),
    "densify_cusparse": ("black", "--"),
    "densify_hola_auto": ("tab:gray", "--"),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("result")
    ap.add_argument("--out", help="output prefix (default: the result's name without .json)")
    args = ap.parse_args()
    try:
        with open(args.result) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"plot_spmspv: cannot read {args.result}: {e}")
    cases = doc.get("cases")
    if not cases:
        sys.exit(f"plot_spmspv: {args.result} has no cases")
    prefix = args.out or os.path.splitext(args.result)[0]
    for precision in sorted({c["precision"] for c in cases}):
        sel = [c for c in cases if c["precision"] == precision]
        matrices = list(dict.fromkeys(c["matrix"] for c in sel))
        ops = sorted({c["op"] for c in sel})
        fig, axes = plt.subplots(
            len(matrices),
            len(ops),
            figsize=(5.5 * len(ops), 3.6 * len(matrices)),
            squeeze=False,
        )
        for r, name in enumerate(matrices):
            for k, op in enumerate(ops):
                ax = axes[r][k]
                pts = sorted(
                    (c for c in sel if c["matrix"] == name and c["op"] == op),
                    key=lambda c: c["features"]["density"],
                )
                candidates = list(dict.fromkeys(n for c in pts for n in c["times_ms"]))
                for cand in candidates:
                    xs = [c["features"]["density"] for c in pts if cand in c["times_ms"]]
                    ys = [c["times_ms"][cand] for c in pts if cand in c["times_ms"]]
                    color, ls = STYLE.get(cand, (None, ":"))
                    ax.plot(xs, ys, ls, color=color, marker=".", label=cand)
                xs = [c["features"]["density"] for c in pts if "pick_ms" in c]
                ys = [c["pick_ms"] for c in pts if "pick_ms" in c]
                ax.plot(xs, ys, "x", color="green", markersize=9, label="rule's pick")
                ax.set_xscale("log")
                ax.set_yscale("log")
                ax.set_title(f"{name}, op {op}", fontsize=9)
                ax.set_xlabel("nnz(x) / n")
                ax.set_ylabel("ms")
                ax.grid(True, which="both", alpha=0.3)
                if r == 0 and k == 0:
                    ax.legend(fontsize=7)
        fig.suptitle(f"SpMSpV density sweep, {precision}, {doc.get('gpu', '?')}", fontsize=10)
        fig.tight_layout()
        path = f"{prefix}-{precision}.png"
        fig.savefig(path, dpi=110)
        plt.close(fig)
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
