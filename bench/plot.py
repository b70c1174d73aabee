#!/usr/bin/env python3
"""Plots of a hola-bench results JSON (matplotlib).

Usage: python3 bench/plot.py bench/results/<file>.json [--out-prefix PREFIX]
Writes PREFIX-speedup.png (speedup over cuSPARSE ALG1 against nonzeros, one panel per op, like
Figure 4 of the Hola-SpMV paper) and PREFIX-floor.png (% of the bandwidth floor per matrix and
kernel). PREFIX defaults to the JSON path without its extension.
"""
import argparse
import json
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    with open(path) as f:
        data = json.load(f)
    rows = [r for r in data["results"] if r["time_ms"] > 0 and r["correct"]]
    return data, rows


def plot_speedup(data, rows, out):
    ops = sorted({r["op"] for r in rows})
    kernels = sorted({r["kernel"] for r in rows if r["kernel"] != "cusparse"})
    fig, axes = plt.subplots(1, len(ops), figsize=(6.5 * len(ops), 4.5), squeeze=False)
    for ax, op in zip(axes[0], ops):
        for k in kernels:
            pts = sorted((r["nnz"], r["speedup_vs_cusparse"]) for r in rows if r["kernel"] == k and r["op"] == op)
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], "o", label=k, alpha=0.8)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("nonzeros")
        ax.set_ylabel("speedup over cuSPARSE ALG1")
        ax.set_title(f"op {op}")
        ax.grid(True, which="both", alpha=0.3)
    axes[0][-1].legend(fontsize=8, loc="best")
    fig.suptitle(f"{data['device']}, commit {data['commit'][:10]}", fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def plot_floor(data, rows, out):
    matrices = []
    for r in rows:
        if r["matrix"] not in matrices:
            matrices.append(r["matrix"])
    kernels = sorted({r["kernel"] for r in rows})
    ops = sorted({r["op"] for r in rows})
    fig, axes = plt.subplots(len(ops), 1, figsize=(12, 3.8 * len(ops)), squeeze=False)
    width = 0.8 / max(len(kernels), 1)
    for ax, op in zip(axes[:, 0], ops):
        for i, k in enumerate(kernels):
            vals = []
            for m in matrices:
                hit = [r["pct_floor"] for r in rows if r["matrix"] == m and r["kernel"] == k and r["op"] == op]
                vals.append(hit[0] if hit else 0.0)
            ax.bar([j + i * width for j in range(len(matrices))], vals, width, label=k)
        ax.set_xticks([j + 0.4 - width / 2 for j in range(len(matrices))])
        ax.set_xticklabels(matrices, rotation=20, fontsize=8)
        ax.set_ylabel("% of bandwidth floor")
        ax.set_ylim(0, 100)
        ax.set_title(f"op {op}")
        ax.grid(True, axis="y", alpha=0.3)
    axes[0][0].legend(fontsize=7, ncol=5)
    fig.suptitle(f"{data['device']}, commit {data['commit'][:10]}", fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json")
    ap.add_argument("--out-prefix")
    args = ap.parse_args()
    prefix = args.out_prefix or os.path.splitext(args.json)[0]
    data, rows = load(args.json)
    plot_speedup(data, rows, prefix + "-speedup.png")
    plot_floor(data, rows, prefix + "-floor.png")
    print(prefix + "-speedup.png", prefix + "-floor.png")


if __name__ == "__main__":
    main()
