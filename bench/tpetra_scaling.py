#!/usr/bin/env python3
"""Tpetra + Belos CG scaling from tpetra_belos result files (scripts/device-tpetra.sh, step scaling).

Usage: python3 bench/tpetra_scaling.py FILE.json ... --out PREFIX [--strong-n 200] [--weak-n 200]
Each FILE is one `tpetra_belos --solver cg --output FILE` run (3D Poisson n^3, one MPI rank per
GPU). Runs of the grid --strong-n form the strong series, runs of n = weak-n * G^(1/3) (rounded)
on G ranks the weak one; runs that forced a kernel (-k / --kernel) are left out. Per series and
GPU count: the median CG solve time of CrsMatrix and of HolaOperator over the repeats, their
iterations, the ratio, and the parallel efficiency (strong: T1 / (G TG); weak: T1 / TG; also per
iteration). Writes PREFIX.json (the layout bench/plot_scaling.py reads), PREFIX.txt (a table) and
PREFIX.png (plot_scaling's figure; not with --no-plot).
"""
import argparse
import json
import os
import re
import statistics
import sys

HOLA, BASE = "HolaOperator", "CrsMatrix"
SOLVER = "jacobi"  # the preconditioner, plot_scaling's per-line key


def load_runs(paths):
    """(G, n, {operator: (seconds, iterations)}, file) of every plain CG run."""
    runs = []
    for path in paths:
        with open(path) as f:
            d = json.load(f)
        if re.search(r"(^|\s)(-k|--kernel)(\s|=)", d.get("command", "")):
            continue
        m = re.match(r"poisson3d:n=(\d+)$", str(d.get("problem", "")))
        cg = {s["operator"]: (s["seconds"], s["iterations"]) for s in d.get("solves", [])
              if s.get("solver") == "CG" and s.get("converged")}
        if m and HOLA in cg and BASE in cg:
            runs.append((int(d["processes"]), int(m.group(1)), cg, d))
    return runs


def series_of(runs, strong_n, weak_n):
    """{"strong": {G: [runs]}, "weak": {G: [runs]}}."""
    out = {"strong": {}, "weak": {}}
    for run in runs:
        g, n = run[0], run[1]
        if n == strong_n:
            out["strong"].setdefault(g, []).append(run)
        if n == int(weak_n * g ** (1 / 3) + 0.5):
            out["weak"].setdefault(g, []).append(run)
    return out


def summarize(by_gpus, strong):
    gpus = sorted(by_gpus)
    d = {"gpus": gpus, "grid_n": [], "repeats": [], "solve_s": {HOLA: [], BASE: []},
         "iterations": {HOLA: [], BASE: []}, "speedup": {HOLA: [], BASE: []},
         "efficiency": {HOLA: [], BASE: []}, "efficiency_per_iteration": {HOLA: [], BASE: []},
         "solve_ratio": []}
    for g in gpus:
        runs = by_gpus[g]
        d["grid_n"].append(runs[0][1])
        d["repeats"].append(len(runs))
        for op in (HOLA, BASE):
            d["solve_s"][op].append(round(statistics.median(r[2][op][0] for r in runs), 5))
            d["iterations"][op].append(runs[0][2][op][1])
        d["solve_ratio"].append(round(d["solve_s"][HOLA][-1] / d["solve_s"][BASE][-1], 4))
    for op in (HOLA, BASE):
        if 1 not in gpus:
            d["speedup"][op] = d["efficiency"][op] = d["efficiency_per_iteration"][op] = [None] * len(gpus)
            continue
        t1 = d["solve_s"][op][gpus.index(1)]
        it1 = d["iterations"][op][gpus.index(1)]
        for g, t, it in zip(gpus, d["solve_s"][op], d["iterations"][op]):
            d["speedup"][op].append(round(t1 / t, 4))
            scale = g if strong else 1
            d["efficiency"][op].append(round(t1 / (scale * t), 4))
            d["efficiency_per_iteration"][op].append(round((t1 / it1) / (scale * t / it), 4))
    return d


def table(data):
    lines = [f"Tpetra + Belos CG + Jacobi (Ifpack2), {HOLA} vs {BASE}: {data['device']}, commit "
             f"{data['commit']}", f"command: {data['command']}", "median CG solve time over the repeats (s); efficiency: strong "
             "T1 / (G TG), weak T1 / TG; per iteration in brackets", "",
             f"{'series':<7} {'GPUs':>4} {'grid':>5} {'reps':>4} {'iterations':>11} "
             f"{'CrsMatrix':>9} {'Hola':>8} {'ratio':>6} {'eff. CrsMatrix':>16} {'eff. Hola':>16}"]
    for series, solvers in data["scaling"].items():
        d = solvers.get(SOLVER)
        if not d:
            continue
        for i, g in enumerate(d["gpus"]):
            its = f"{d['iterations'][BASE][i]}/{d['iterations'][HOLA][i]}"

            def eff(op):
                e, ei = d["efficiency"][op][i], d["efficiency_per_iteration"][op][i]
                return "-" if e is None else f"{e:.3f} [{ei:.3f}]"

            lines.append(f"{series:<7} {g:>4} {d['grid_n'][i]:>4}^3 {d['repeats'][i]:>4} {its:>11} "
                         f"{d['solve_s'][BASE][i]:>9.4f} {d['solve_s'][HOLA][i]:>8.4f} "
                         f"{d['solve_ratio'][i]:>6.3f} {eff(BASE):>16} {eff(HOLA):>16}")
    return "\n".join(lines) + "\n"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", help="tpetra_belos --output files")
    ap.add_argument("--out", required=True, help="prefix of the .json, .txt and .png written")
    ap.add_argument("--strong-n", type=int, default=200)
    ap.add_argument("--weak-n", type=int, default=200)
    ap.add_argument("--no-plot", action="store_true", help="write the .json and .txt only")
    args = ap.parse_args(argv)
    runs = load_runs(args.files)
    if not runs:
        print("tpetra_scaling: no CG runs in the files", file=sys.stderr)
        return 1
    first = runs[0][3]
    command = "python3 bench/tpetra_scaling.py " + " ".join(
        os.path.basename(a) if a.endswith(".json") else a for a in (argv or sys.argv[1:]))
    data = {"commit": first.get("commit", "?"),
            "command": command,
            "device": re.sub(r", CUDA device per rank:.*", "", first.get("device", "?")),
            "types": {"hola": HOLA, "baseline": BASE},
            "title": "Tpetra + Belos CG", "solve_label": "CG solve", "problem": "3D Poisson",
            "strong_n": args.strong_n, "weak_n": args.weak_n,
            "gpu_aware_mpi": "0",
            "scaling": {}}
    for series, by_gpus in series_of(runs, args.strong_n, args.weak_n).items():
        if by_gpus:
            data["scaling"][series] = {SOLVER: summarize(by_gpus, series == "strong")}
    with open(args.out + ".json", "w") as f:
        json.dump(data, f, indent=2)
        f.write("\n")
    text = table(data)
    with open(args.out + ".txt", "w") as f:
        f.write(text)
    if not args.no_plot:
        # matplotlib only here: the summary itself needs none.
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import plot_scaling

        plot_scaling.plot(data, args.out + ".png")
    print(text, end="")
    print(f"tpetra_scaling: {args.out}.json, .txt" + ("" if args.no_plot else ", .png"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
