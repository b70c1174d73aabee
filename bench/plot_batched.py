#!/usr/bin/env python3
"""Plots of hola-batched-bench's JSON (issue 18; matplotlib).

Usage: python3 bench/plot_batched.py batched-bench.json [--out batched-bench.png]
One PNG, a column per precision: time per matrix (us, log scale) against the batch size for the
`mixed` cases (top; marker = size class) and against the mean matrix size (rows) for the cases of
10^4 matrices (bottom), for the best Hola plan, Hola `auto`, one cuSPARSE SpMV on the
block-diagonal CSR, looped cuSPARSE (scaled from a subset on large batches) and the CPU OpenMP
backend. Cases that failed verification are drawn hollow.
"""
import argparse
import json
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

# (label, colour, line style, function of a case giving its time in us)
SERIES = (
    ("Hola best plan", "tab:blue", "-", lambda c: c["best"]["time_us"]),
    ("Hola auto", "tab:cyan", ":", lambda c: c["auto"]["time_us"]),
    ("cuSPARSE block-diagonal", "tab:orange", "--", lambda c: c["blockdiag_cusparse"]["time_us"]),
    ("cuSPARSE looped", "tab:red", "-.", lambda c: c["looped_cusparse"]["time_us"]),
    ("CPU OpenMP", "tab:gray", "-", lambda c: c["cpu_omp"]["time_us"]),
)
MARKERS = ("o", "s", "^", "D", "v", "P")


def _per_matrix(case, time_of):
    t = time_of(case)
    return t / case["count"] if t and case["count"] else None


def _size_class(case):
    return "%d..%d rows" % (case["min_size"], case["max_size"])


def _draw(ax, groups, x_of, title, xlabel):
    """groups: {group label: [cases]}; one line per (series, group), marker per group."""
    # Size classes ("16..64 rows") in size order, patterns by name.
    order = sorted(groups, key=lambda g: (int(g.split(".")[0]) if g[0].isdigit() else 0, g))
    for gi, group in enumerate(order):
        cases = sorted(groups[group], key=x_of)
        for label, colour, style, time_of in SERIES:
            pts = [(x_of(c), _per_matrix(c, time_of), c.get("ok", True)) for c in cases]
            pts = [p for p in pts if p[1]]
            if not pts:
                continue
            xs, ys, oks = zip(*pts)
            ax.plot(xs, ys, style, color=colour, linewidth=1.2, label=label if gi == 0 else None)
            marker = MARKERS[gi % len(MARKERS)]
            for x, y, ok in zip(xs, ys, oks):
                face = colour if ok else "none"
                ax.plot([x], [y], marker, color=colour, markerfacecolor=face, markersize=5)
        ax.plot([], [], MARKERS[gi % len(MARKERS)], color="black", label=group)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_title(title, fontsize=10)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("time per matrix (us)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)


def plot(data, out):
    cases = data.get("cases", [])
    precisions = [p for p in ("double", "float") if any(c["precision"] == p for c in cases)]
    if not precisions:
        raise SystemExit("plot_batched.py: no cases in the results")
    fig, axes = plt.subplots(2, len(precisions), figsize=(7 * len(precisions), 10), squeeze=False)
    for col, prec in enumerate(precisions):
        mine = [c for c in cases if c["precision"] == prec]
        by_class = {}
        for c in mine:
            if c["pattern"] == "mixed":
                by_class.setdefault(_size_class(c), []).append(c)
        _draw(
            axes[0][col],
            by_class,
            lambda c: c["count"],
            "%s: mixed patterns, time per matrix vs batch size" % prec,
            "matrices in the batch",
        )
        by_pattern = {}
        for c in mine:
            if c["count"] == 10000:
                by_pattern.setdefault(c["pattern"], []).append(c)
        _draw(
            axes[1][col],
            by_pattern,
            lambda c: c["mean_rows"],
            "%s: 10^4 matrices, time per matrix vs matrix size" % prec,
            "mean rows per matrix",
        )
    fig.suptitle(
        "hola-batched-bench on %s (commit %s)"
        % (data.get("device", "?"), str(data.get("commit", "?"))[:12]),
        fontsize=11,
    )
    fig.tight_layout()
    fig.savefig(out, dpi=120)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", help="JSON written by hola-batched-bench --output")
    ap.add_argument("--out", help="PNG to write (default: next to the results)")
    args = ap.parse_args()
    with open(args.results) as f:
        data = json.load(f)
    out = args.out or os.path.splitext(args.results)[0] + ".png"
    plot(data, out)
    print(out)


if __name__ == "__main__":
    main()
