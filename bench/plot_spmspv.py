#!/usr/bin/env python3
"""Plots a hola-spmspv-bench JSON: time against x density, one line per candidate, one panel per
matrix and op, one figure per precision and output form (dense / sparse y; masked cases are left
out); the operator's selection ("auto", its measured time) and the 2f6d850 rule's pick marked.

Usage: python3 bench/plot_spmspv.py RESULT.json [--out PREFIX]
Writes PREFIX-<precision>[-sparse].png (default PREFIX: RESULT without .json). Needs matplotlib
(Agg).
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
    "densify": ("tab:gray", "--"),
    "densify_hola_auto": ("tab:gray", "--"),
    "densify_cusparse": ("black", "--"),
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
    cases = [c for c in doc.get("cases", []) if c.get("mask_allowed") is None]
    if not cases:
        sys.exit(f"plot_spmspv: {args.result} has no cases")
    prefix = args.out or os.path.splitext(args.result)[0]
    for precision in sorted({c["precision"] for c in cases}):
        for form in sorted({c.get("output", "dense") for c in cases}):
            sel = [
                c
                for c in cases
                if c["precision"] == precision and c.get("output", "dense") == form
            ]
            if not sel:
                continue
            plot(doc, sel, precision, form, prefix)


def plot(doc, sel, precision, form, prefix):
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
            candidates = list(dict.fromkeys(n for c in pts for n in c["times_ms"] if n != "auto"))
            for cand in candidates:
                xs = [c["features"]["density"] for c in pts if cand in c["times_ms"]]
                ys = [c["times_ms"][cand] for c in pts if cand in c["times_ms"]]
                color, ls = STYLE.get(cand, (None, ":"))
                ax.plot(xs, ys, ls, color=color, marker=".", label=cand)
            xs = [c["features"]["density"] for c in pts if "auto_ms" in c]
            ys = [c["auto_ms"] for c in pts if "auto_ms" in c]
            if xs:
                ax.plot(xs, ys, "o", mfc="none", color="green", markersize=9, label="auto")
            xs = [c["features"]["density"] for c in pts if "pick_ms" in c]
            ys = [c["pick_ms"] for c in pts if "pick_ms" in c]
            ax.plot(xs, ys, "x", color="purple", markersize=7, label="rule of 2f6d850")
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_title(f"{name}, op {op}", fontsize=9)
            ax.set_xlabel("nnz(x) / n")
            ax.set_ylabel("ms")
            ax.grid(True, which="both", alpha=0.3)
            if r == 0 and k == 0:
                ax.legend(fontsize=7)
    fig.suptitle(
        f"SpMSpV density sweep, {precision}, {form} y, {doc.get('gpu', '?')}", fontsize=10
    )
    fig.tight_layout()
    path = f"{prefix}-{precision}{'' if form == 'dense' else '-' + form}.png"
    fig.savefig(path, dpi=110)
    plt.close(fig)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
