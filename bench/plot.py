#!/usr/bin/env python3
"""Plots of a hola-bench results JSON (matplotlib).

Usage: python3 bench/plot.py bench/results/<file>.json[.gz] [--out-prefix PREFIX]
Writes PREFIX-speedup.png (speedup over cuSPARSE ALG1 against nonzeros, log x, one panel per
precision and op, like Figure 4 of the Hola-SpMV paper), PREFIX-floor.png (% of the bandwidth
floor per matrix family and kernel: median bar, lowest to highest as a line) and, when the file
times `auto`, PREFIX-distribution.png (per precision and op, the speedups over cuSPARSE of
`auto` and of the per-matrix fastest kernel, each sorted: the share of matrices at or below a
speedup, with harmonic means in the legend). --kernels draws only the named kernels in the first
two (the distribution's "fastest" still takes every kernel of the file). PREFIX defaults to the
JSON path without its extension, so the PNGs land next to the JSON.
"""
import argparse
import gzip
import json
import statistics

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from summarize import hmean  # noqa: E402  (bench/, the script's own folder)


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return load_data(json.load(f))


def load_data(data):
    """The file's timed, correct results, each with its matrix family."""
    rows = [r for r in data["results"] if r["time_ms"] > 0 and r["correct"]]
    families = {m["matrix"]: m.get("family", "") for m in data.get("matrices", [])}
    for r in rows:
        # Older files have no family: the matrix name up to its first '-' (poisson3d-64).
        r["family"] = r.get("family") or families.get(r["matrix"]) or r["matrix"].split("-")[0]
    return data, rows


def panels(rows):
    """(precision, op) pairs present, double first."""
    return sorted({(r["precision"], r["op"]) for r in rows})


def title(data):
    return f"{data['device']}, commit {data['commit'][:10]}"


def plot_speedup(data, rows, out):
    combos = panels(rows)
    kernels = sorted({r["kernel"] for r in rows if r["kernel"] != "cusparse"})
    many = len({r["matrix"] for r in rows}) > 40
    fig, axes = plt.subplots(1, len(combos), figsize=(6 * len(combos), 4.5), squeeze=False)
    for ax, (precision, op) in zip(axes[0], combos):
        for k in kernels:
            pts = sorted(
                (r["nnz"], r["speedup_vs_cusparse"])
                for r in rows
                if r["kernel"] == k and r["op"] == op and r["precision"] == precision
            )
            if pts:
                ax.plot(
                    [p[0] for p in pts],
                    [p[1] for p in pts],
                    "." if many else "o",
                    markersize=3 if many else 6,
                    label=k,
                    alpha=0.6 if many else 0.8,
                )
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("nonzeros")
        ax.set_ylabel("speedup over cuSPARSE ALG1")
        ax.set_title(f"{precision}, op {op}")
        ax.grid(True, which="both", alpha=0.3)
    axes[0][-1].legend(fontsize=8, loc="best")
    fig.suptitle(title(data), fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def plot_floor(data, rows, out):
    families = sorted({r["family"] for r in rows})
    kernels = sorted({r["kernel"] for r in rows})
    combos = panels(rows)
    fig, axes = plt.subplots(
        len(combos),
        1,
        figsize=(max(10, 1.1 * len(families) + 3), 3.6 * len(combos)),
        squeeze=False,
    )
    width = 0.8 / max(len(kernels), 1)
    for ax, (precision, op) in zip(axes[:, 0], combos):
        for i, k in enumerate(kernels):
            xs, med, lo, hi = [], [], [], []
            for j, fam in enumerate(families):
                vals = [
                    r["pct_floor"]
                    for r in rows
                    if r["family"] == fam
                    and r["kernel"] == k
                    and r["op"] == op
                    and r["precision"] == precision
                ]
                if vals:
                    xs.append(j + i * width)
                    med.append(statistics.median(vals))
                    lo.append(min(vals))
                    hi.append(max(vals))
            bars = ax.bar(xs, med, width, label=k)
            ax.vlines(xs, lo, hi, color=bars.patches[0].get_facecolor() if bars else "k", lw=0.8)
        ax.set_xticks([j + 0.4 - width / 2 for j in range(len(families))])
        ax.set_xticklabels(families, rotation=20, fontsize=8)
        ax.set_ylabel("% of bandwidth floor")
        ax.set_ylim(0, 100)
        ax.set_title(f"{precision}, op {op}: median per family (line: lowest to highest)")
        ax.grid(True, axis="y", alpha=0.3)
    axes[0][0].legend(fontsize=7, ncol=5)
    fig.suptitle(title(data), fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def speedup_distribution(rows):
    """{(precision, op): {"auto": [...], "fastest": [...]}}: over the matrices where cuSPARSE and
    auto were both timed, cuSPARSE's time over auto's and over the fastest kernel's (cuSPARSE
    and auto included), each list sorted."""
    times = {}
    for r in rows:
        times.setdefault((r["precision"], r["op"], r["matrix"]), {})[r["kernel"]] = r["time_ms"]
    out = {}
    for (precision, op, _), t in sorted(times.items()):
        if "cusparse" not in t or "auto" not in t:
            continue
        d = out.setdefault((precision, op), {"auto": [], "fastest": []})
        d["auto"].append(t["cusparse"] / t["auto"])
        d["fastest"].append(t["cusparse"] / min(t.values()))
    for d in out.values():
        d["auto"].sort()
        d["fastest"].sort()
    return out


def plot_distribution(data, rows, out):
    dist = speedup_distribution(rows)
    if not dist:
        return False
    fig, axes = plt.subplots(1, len(dist), figsize=(4.5 * len(dist), 4), squeeze=False)
    for ax, ((precision, op), d) in zip(axes[0], sorted(dist.items())):
        for name, style in (("fastest", "--"), ("auto", "-")):
            v = d[name]
            share = [(i + 1) / len(v) for i in range(len(v))]
            ax.step(
                v,
                share,
                style,
                where="post",
                label=f"{name}: hmean {hmean(v):.2f}x, lowest {v[0]:.2f}x",
            )
        ax.axvline(1.0, color="black", linewidth=0.8)
        ax.set_xscale("log")
        ax.set_xlabel("speedup over cuSPARSE ALG1")
        ax.set_ylabel("share of matrices at or below")
        ax.set_title(f"{precision}, op {op} ({len(d['auto'])} matrices)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7, loc="lower right")
    fig.suptitle(title(data), fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json")
    ap.add_argument("--out-prefix")
    ap.add_argument(
        "--kernels", help="comma-separated kernels drawn in the speedup and floor plots"
    )
    args = ap.parse_args()
    prefix = args.out_prefix or args.json.removesuffix(".gz").removesuffix(".json")
    data, rows = load(args.json)
    drawn = rows
    if args.kernels:
        wanted = set(args.kernels.split(",")) | {"cusparse"}
        drawn = [r for r in rows if r["kernel"] in wanted]
        missing = wanted - {r["kernel"] for r in rows}
        if missing:
            raise SystemExit(f"plot.py: no results of {', '.join(sorted(missing))} in {args.json}")
    written = [prefix + "-speedup.png", prefix + "-floor.png"]
    plot_speedup(data, drawn, written[0])
    plot_floor(data, drawn, written[1])
    if plot_distribution(data, rows, prefix + "-distribution.png"):
        written.append(prefix + "-distribution.png")
    print(*written)


if __name__ == "__main__":
    main()
