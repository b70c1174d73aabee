#!/usr/bin/env python3
"""Plots of the scaling stage's scaling.json (scripts/device-petsc-scaling.sh; matplotlib).

Usage: python3 bench/plot_scaling.py OUT/scaling.json [--out scaling.png]
(bench/tpetra_scaling.py writes the same layout for Tpetra, with the optional keys title,
problem and solve_label that name the program, the problem and the timed phase.)
One PNG, a column per series (strong, weak): KSPSolve time (top) and parallel efficiency on
KSPSolve time (bottom, dashed: per iteration) against the GPU count, a line per matrix type and
preconditioner. Series or points that did not run are left out; one GPU count alone gives points.
"""
import argparse
import json
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SERIES = ("strong", "weak")


def _points(gpus, values):
    return [(g, v) for g, v in zip(gpus, values) if v is not None]


def _ideal(solvers, base):
    """Perfect strong scaling from the first solver's one-GPU baseline time: the solver and the
    points (G, T1 / G)."""
    for solver, d in sorted(solvers.items()):
        if 1 in d["gpus"] and d["solve_s"][base][d["gpus"].index(1)]:
            t1 = d["solve_s"][base][d["gpus"].index(1)]
            return solver, [(g, t1 / g) for g in d["gpus"]]
    return None


def plot(data, out):
    hola, base = data["types"]["hola"], data["types"]["baseline"]
    scaling = data.get("scaling", {})
    fig, axes = plt.subplots(2, len(SERIES), figsize=(6 * len(SERIES), 8), squeeze=False)
    all_gpus = sorted({g for s in scaling.values() for d in s.values() for g in d["gpus"]})
    for col, series in enumerate(SERIES):
        top, bottom = axes[0][col], axes[1][col]
        drawn = False
        for solver, d in sorted(scaling.get(series, {}).items()):
            for t, color in ((hola, "tab:blue"), (base, "tab:orange")):
                marker = "o" if solver == "jacobi" else "s"
                label = f"{t}, CG + {solver}"
                pts = _points(d["gpus"], d["solve_s"][t])
                if pts:
                    drawn = True
                    top.plot(*zip(*pts), marker=marker, color=color, label=label)
                pts = _points(d["gpus"], d["efficiency"][t])
                if pts:
                    bottom.plot(*zip(*pts), marker=marker, color=color, label=label)
                pts = _points(d["gpus"], d["efficiency_per_iteration"][t])
                if pts:
                    bottom.plot(*zip(*pts), marker=marker, color=color, linestyle="--", alpha=0.5)
        ideal = _ideal(scaling.get(series, {}), base) if series == "strong" else None
        if ideal:
            solver, pts = ideal
            top.plot(*zip(*pts), color="gray", linestyle=":", label=f"T1 / G ({base}, {solver})")
        if series == "strong":
            grid = f"{data.get('strong_n', '?')}^3 in all"
        else:
            grid = f"{data.get('weak_n', '?')}^3 per GPU"
        top.set_title(f"{series} scaling, {data.get('problem', 'ex45')} {grid}")
        top.set_ylabel(f"{data.get('solve_label', 'KSPSolve')} (s, median)")
        bottom.set_ylabel("parallel efficiency (dashed: per iteration)")
        bottom.axhline(1.0, color="gray", linewidth=0.8)
        if series == "weak":
            bottom.axhline(0.85, color="gray", linewidth=0.8, linestyle=":")
        for ax in (top, bottom):
            ax.set_xlabel("GPUs (one MPI rank each)")
            if all_gpus:
                ax.set_xscale("log", base=2)
                ax.set_xticks(all_gpus)
                ax.set_xticklabels([str(g) for g in all_gpus])
                ax.set_xlim(min(all_gpus) / 1.3, max(all_gpus) * 1.3)
            ax.grid(True, alpha=0.3)
        bottom.set_ylim(bottom=0)
        if drawn:
            top.legend(fontsize=8)
        else:
            top.text(0.5, 0.5, "no runs", ha="center", transform=top.transAxes)
    fig.suptitle(
        f"{data.get('title', 'PETSc ex45')}, {hola} vs {base}: {data.get('device', '?')},"
        f" commit {str(data.get('commit', '?'))[:10]}, -use_gpu_aware_mpi"
        f" {data.get('gpu_aware_mpi', '?')}"
    )
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json", help="scaling.json")
    ap.add_argument("--out", help="PNG path (default: the JSON's path with .png)")
    args = ap.parse_args(argv)
    with open(args.json) as f:
        data = json.load(f)
    out = args.out or os.path.splitext(args.json)[0] + ".png"
    plot(data, out)
    print(f"plot_scaling: {out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
