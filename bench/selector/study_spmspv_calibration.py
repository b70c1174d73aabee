#!/usr/bin/env python3
"""Offline study: a per-matrix calibration of the GPU SpMSpV selection (issue 17) against the
regression trees of train_spmspv.py, simulated on hola-spmspv-bench sweeps.

Usage:
  python3 bench/selector/study_spmspv_calibration.py [RESULT.json[.gz]]
      [--check RESULT.json[.gz] ...] [--out bench/results/...-spmspv-calibration-study.txt]
      [--no-trees]

The idea: at setup, besides densify-and-SpMV's time with an empty x (what the operator measured
before), time every available sparse kernel and densify-and-SpMV itself on a few probe x (nnz_x
= clamp(round(density x n_in), 1, n_in) random distinct sorted indices, as the sweep draws
them), per op (and per output form when the variant says so), and keep
r_k(p) = log2(time(k at probe p) / time(densify at probe p)). A call then predicts each kernel's
log ratio by interpolating r_k piecewise-linearly in log2(nnz_x) (below the smallest probe the
smallest probe's value; above the largest one the last segment's slope, or a clamp: see
EXTRAPOLATIONS) and takes the kernel of least prediction when it is below -log2(margin), else
densify (the rule of hola::spmspv::select_gpu_kernel, with calibrated predictions). Section 3b
adds a second margin: a direct kernel (its time depends on which rows x hits) competes only when
predicted faster than its balanced sibling by it. Section 7 scores the rule implemented in
plugin/src/spmspv_select.cpp (select_calibrated_kernel; IMPL_* below).

The simulation uses the sweep's own measurements as the probe timings: the probe densities are
among the sweep's density_requested values, and a probe's timings are the sweep case at that
density (same matrix, precision, op and output form, or the case another variant borrows it
from). Every variant is scored on all calls and on the non-probe calls only (density not among
the probes: the probes' own calls are in-sample). Scores: geometric mean of time(best) /
time(pick) (best of the operator's five candidates: the four sparse kernels and densify), calls
>= 0.95, calls slower than densify (strictly, and by more than 2 %), the minimum. Every placement
of 2..5 probes is also searched, and, to keep that search honest, chosen leaving one matrix out.

Baselines: always densify; the bench's own auto (the 56996ca trees, trained on the 6-matrix
H200 sweep) with its measured time and with its pick's candidate time; the trees of this sweep
with the committed setting per precision (TREE_SETTINGS), grown on all calls (in-sample: the
committed trees) and leave-one-matrix-out (grown without the held-out matrix: the honest figure
for a matrix the trees never saw).

Setup cost (section 8): per matrix and precision the kernel launches of the calibration and the
GPU time they take, estimated from the sweep's times, plain (WARMUP + REPS calls per
measurement) and screened as implemented (IMPL_SCREEN, IMPL_STOP), against densify's time at
setup (densify_setup_ms, N + T). Host overhead (launches, one event synchronisation per timed
call, drawing the probe indices) is not in it.

Needs numpy only. Style: black -l 99, flake8 --max-line-length 99.
"""

import argparse
import gzip
import itertools
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train_spmspv as ts  # noqa: E402

SPARSE = ts.SPARSE
DENSIFY = ts.DENSIFY
CANDS = SPARSE + [DENSIFY]
ND = len(SPARSE)  # index of densify in CANDS
NOISE = ts.NOISE
SLOWDOWN_CAP = ts.SLOWDOWN_CAP
# The setup timing of the implementation: warm-up calls and timed calls (median) per probe.
WARMUP, REPS = 1, 3
EXTRAPOLATIONS = ("linear", "clamp", "linear_up")
DEFAULT_H100 = "bench/results/2026-11-26-h100-56996ca/spmspv-bench.json.gz"
DEFAULT_OUT = "bench/results/2026-11-26-spmspv-calibration-study.txt"
# The settings of the committed trees (plugin/src/spmspv_tree_generated.hpp), per precision.
TREE_SETTINGS = {
    "double": {"depth": 6, "min_leaf": 8, "quantile": 0.9, "margin": 1.0},
    "float": {"depth": 5, "min_leaf": 8, "quantile": 1.0, "margin": 1.1},
}
# The rule implemented in plugin/src/spmspv_operator.cpp / spmspv_select.cpp (section 7).
IMPL_MARGIN = 1.2
IMPL_SIBLING = 1.1  # a direct kernel must be predicted faster than its balanced sibling by this
IMPL_STOP = 4.0  # a kernel this much slower than densify at a probe is not timed above it
IMPL_SCREEN = 4.0  # one timed call only when this much slower than the fastest so far
IMPL_ORDER = ["vector_balanced", "vector_direct", "matrix_balanced", "matrix_direct"]


# ---------------------------------------------------------------------------------------------
# Input


class Sweep:
    """The cases of one result file as arrays; groups[(matrix, precision, op, output)] maps
    density_requested to the case's row."""

    def __init__(self, path):
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt") as f:
            doc = json.load(f)
        self.path = path
        self.gpu = doc.get("gpu", "?")
        self.commit = doc.get("commit", "?")
        cases = [c for c in doc["cases"] if np.isfinite(ts.densify_time(c))]
        cases = [c for c in cases if c.get("mask_allowed") is None]
        self.cases = cases
        n = len(cases)
        t = np.array(
            [
                [
                    ts.densify_time(c) if k == DENSIFY else c["times_ms"].get(k, np.nan)
                    for k in CANDS
                ]
                for c in cases
            ],
            dtype=np.float64,
        )
        t = np.where(t > 0, t, np.nan)
        best = np.nanmin(t, axis=1)
        self.missing = int(np.sum(~np.isfinite(t)))
        self.times = np.where(np.isfinite(t), t, SLOWDOWN_CAP * best[:, None])
        self.best = self.times.min(axis=1)
        self.key = [
            (c["matrix"], c.get("precision", "double"), c["op"], c.get("output") or "dense")
            for c in cases
        ]
        self.density = np.array([c["density_requested"] for c in cases])
        self.nnzx = np.array([max(1, c["features"]["nnz_x"]) for c in cases], dtype=np.float64)
        self.groups = {}
        for i, k in enumerate(self.key):
            self.groups.setdefault(k, {})[self.density[i]] = i
        self.densities = sorted(set(self.density.tolist()))
        self.matrix = np.array([k[0] for k in self.key])
        self.precisions = sorted({k[1] for k in self.key})
        self.outputs = sorted({k[3] for k in self.key})
        self.setup_densify = {}
        for m in doc.get("matrices", []):
            self.setup_densify[(m["name"], m.get("precision", "double"))] = m.get(
                "densify_setup_ms"
            )
        self.auto = [c.get("auto") for c in cases]
        self.auto_ms = [c["times_ms"].get("auto") for c in cases]
        self.n = n


# ---------------------------------------------------------------------------------------------
# Calibration


def source_key(key, share):
    """The group whose probes a call of group `key` uses."""
    matrix, precision, op, output = key
    if "output" in share:
        output = "dense"
    if "precision" in share:
        precision = "double"
    return (matrix, precision, op, output)


def probe_table(sw, key, probes, stop):
    """(log2 nnz_x of each distinct probe, log2 times [probe, candidate]) of a group: probes of
    equal nnz_x merged (mean of their log times). `stop`: a sparse kernel slower than densify by
    this factor at a probe is not timed at the larger probes (NaN there)."""
    g = sw.groups[key]
    rows = [g[d] for d in probes if d in g]
    xs = np.log2(sw.nnzx[rows])
    lt = np.log2(sw.times[rows])
    ux = np.unique(xs)
    table = np.array([lt[xs == u].mean(axis=0) for u in ux])
    if stop is not None:
        for k in range(ND):
            slow = np.where(table[:, k] - table[:, ND] > math.log2(stop))[0]
            if len(slow):
                table[slow[0] + 1 :, k] = np.nan  # noqa: E203 (black's slice spacing)
    return ux, table


def interpolate(xs, ys, x, extrapolation):
    """Piecewise-linear ys(xs) at x (arrays); constant below xs[0]; above xs[-1] per
    `extrapolation`. NaN entries of ys (kernels not timed there) are dropped."""
    ok = np.isfinite(ys)
    xs, ys = xs[ok], ys[ok]
    if len(xs) == 0:
        return np.full_like(x, np.inf)
    out = np.interp(x, xs, ys)
    if len(xs) >= 2 and extrapolation != "clamp":
        slope = (ys[-1] - ys[-2]) / (xs[-1] - xs[-2])
        if extrapolation == "linear_up":
            slope = max(slope, 0.0)
        above = x > xs[-1]
        out[above] = ys[-1] + slope * (x[above] - xs[-1])
    return out


def fit_affine(n, t):
    """t ~ a + b n with a, b >= 0, least squares on relative error."""
    w = 1.0 / t
    A = np.stack([w, n * w], axis=1)
    sol, *_ = np.linalg.lstsq(A, np.ones_like(t), rcond=None)
    a, b = sol
    if a < 0 or b < 0:
        # One parameter at zero: the better of the two one-parameter fits.
        a0 = np.sum(w) / np.sum(w * w)
        b0 = np.sum(n * w) / np.sum((n * w) ** 2)
        e_a = np.sum((a0 * w - 1) ** 2)
        e_b = np.sum((b0 * n * w - 1) ** 2)
        a, b = (a0, 0.0) if e_a <= e_b else (0.0, b0)
    return a, b


def calibrated(
    sw, probes, share=(), extrapolation="linear", model="interp", densify="probe", stop=None
):
    """Predicted log2(time(k) / time(densify)) [case, sparse kernel] of every call.
    model: "interp" (piecewise-linear in log2 nnz_x of the log ratios) or "affine" (t = a + b
    nnz_x per candidate, densify included). densify: "probe" (densify timed at every probe) or
    "empty" (one densify time, the smallest probe's, for every call)."""
    pred = np.full((sw.n, ND), np.nan)
    cache = {}
    for key, g in sw.groups.items():
        src = source_key(key, share)
        if src not in sw.groups:
            continue
        if src not in cache:
            cache[src] = probe_table(sw, src, probes, stop)
        ux, table = cache[src]
        rows = np.array(list(g.values()))
        x = np.log2(sw.nnzx[rows])
        if model == "affine":
            n_p = 2.0**ux
            fits = []
            for k in range(ND + 1):
                ok = np.isfinite(table[:, k])
                fits.append(fit_affine(n_p[ok], 2.0 ** table[ok, k]) if ok.any() else None)
            n = 2.0**x
            d = fits[ND][0] + fits[ND][1] * n
            for k in range(ND):
                if fits[k] is None:
                    pred[rows, k] = np.inf
                    continue
                pred[rows, k] = np.log2(np.maximum(fits[k][0] + fits[k][1] * n, 1e-9) / d)
            continue
        if densify == "empty":
            ref = table[0, ND]
            for k in range(ND):
                pred[rows, k] = interpolate(ux, table[:, k], x, extrapolation) - ref
        else:
            for k in range(ND):
                pred[rows, k] = interpolate(ux, table[:, k] - table[:, ND], x, extrapolation)
    return pred


def choose(pred, margin, sibling=1.0):
    """Index into CANDS per call: the sparse kernel of least prediction when predicted faster
    than densify by `margin`, else densify (NaN predictions: not available). A direct kernel
    (matrix_direct, vector_direct: its time depends on which rows x hits) competes only when
    predicted faster than its balanced sibling by `sibling`."""
    p = np.where(np.isfinite(pred), pred, np.inf)
    if sibling > 1.0:
        p = p.copy()
        for direct, balanced in ((0, 1), (2, 3)):
            lose = np.isfinite(p[:, balanced]) & (
                p[:, direct] >= p[:, balanced] - math.log2(sibling)
            )
            p[lose, direct] = np.inf
    k = np.argmin(p, axis=1)
    best = p[np.arange(len(p)), k]
    return np.where(best < -np.log2(margin), k, ND)


# ---------------------------------------------------------------------------------------------
# Scores


def score(sw, chosen_t, rows):
    r = sw.best[rows] / chosen_t[rows]
    d = sw.times[rows, ND]
    c = chosen_t[rows]
    return {
        "n": int(len(rows)),
        "geomean": float(np.exp(np.mean(np.log(r)))) if len(r) else float("nan"),
        "ge95": int(np.sum(r >= 0.95)),
        "slower": int(np.sum(c > d)),
        "slower2": int(np.sum(c > d * (1 + NOISE))),
        "min": float(r.min()) if len(r) else float("nan"),
    }


def fmt(s):
    return (
        f"{s['geomean']:.3f} {s['ge95']:5d}/{s['n']:<5d} {s['slower']:4d} {s['slower2']:4d} "
        f"{s['min']:.3f}"
    )


HEADER = (
    f"{'variant':58s} | {'all calls: geo  >=0.95    slow >2%  min':40s} | "
    f"{'non-probe calls: geo >=0.95  slow >2% min'}"
)


def line(name, sw, chosen_t, probe_rows_mask):
    all_rows = np.arange(sw.n)
    rest = np.where(~probe_rows_mask)[0]
    return (
        f"{name:58s} | {fmt(score(sw, chosen_t, all_rows)):40s} | {fmt(score(sw, chosen_t, rest))}"
    )


def chosen_times(sw, choice):
    return sw.times[np.arange(sw.n), choice]


def probe_mask(sw, probes):
    return np.isin(sw.density, np.array(probes))


def dens_name(probes):
    return "{" + ",".join(f"{math.log10(p):.1f}" for p in probes) + "}"


# ---------------------------------------------------------------------------------------------
# Trees (train_spmspv.py's, chosen setting), in-sample and leave-one-matrix-out


def tree_predictions(path):
    """Predicted log2 ratios [case, kernel] of the trees, in-sample and leave-one-matrix-out, in
    the order of Sweep(path).cases (no masked cases), or None without structure statistics."""
    structure = ts.read_structure(
        [os.path.join(ts.repo_root(), "bench/selector/data/spmspv-structure.json")]
    )
    cases = ts.read_results([path], structure)
    cases = [c for c in cases if np.isfinite(ts.densify_time(c)) and c.get("mask_allowed") is None]
    out = {}
    for precision in sorted({c["precision"] for c in cases}):
        setting = TREE_SETTINGS[precision]
        q = ts.QUANTILES.index(setting["quantile"])
        depth, min_leaf = setting["depth"], setting["min_leaf"]
        data = ts.Data([c for c in cases if c["precision"] == precision], "estimate")
        n = len(data.X)
        ins = np.zeros((n, ND))
        lomo = np.zeros((n, ND))
        for k in range(ND):
            root = ts.grow(data.X, data.Y[:, k], np.arange(n), 0, depth, min_leaf)
            for i in range(n):
                ins[i, k] = ts.predict(root, data.X[i], depth, q)
        for g in sorted(set(data.groups)):
            train = np.where(data.groups != g)[0]
            test = np.where(data.groups == g)[0]
            for k in range(ND):
                root = ts.grow(data.X, data.Y[:, k], train, 0, depth, min_leaf)
                for i in test:
                    lomo[i, k] = ts.predict(root, data.X[i], depth, q)
        for j, c in enumerate(data.cases):
            key = (
                c["matrix"],
                precision,
                c["op"],
                c.get("output") or "dense",
                c["density_requested"],
            )
            out[key] = (ins[j], lomo[j], setting["margin"])
    return out


# ---------------------------------------------------------------------------------------------
# Setup cost


def setup_cost(sw, probes, share, plain, out, verbose=False):
    """Per (matrix, precision): kernel launches and the GPU time of the calibration's calls
    (both ops, the output forms that have their own probes), from the sweep's times; see
    section 8's title for the two procedures."""
    per = {}
    order = [SPARSE.index(k) for k in IMPL_ORDER] + [ND]
    for key in sw.groups:
        matrix, precision, op, output = key
        if source_key(key, share) != key:
            continue  # borrows another group's probes: nothing timed for it
        g = sw.groups[key]
        rows = [g[d] for d in probes if d in g]
        seen, uniq = set(), []  # distinct nnz_x only (probes of equal nnz_x are one x)
        for r in rows:
            if sw.nnzx[r] not in seen:
                seen.add(sw.nnzx[r])
                uniq.append(r)
        launches, total = 0, 0.0
        dn = (sw.setup_densify.get((matrix, precision)) or {}).get(op)
        if not plain:
            launches += ND + 1  # one untimed call each at the smallest probe (module loading)
            total += float(np.sum(sw.times[uniq[0]]))
        stopped = [False] * ND
        for r in uniq:
            t = sw.times[r]
            fastest = dn if (dn and dn > 0 and not plain) else math.inf
            for k in order:
                if k < ND and stopped[k]:
                    continue
                if plain:
                    launches += WARMUP + REPS
                    total += (WARMUP + REPS) * t[k]
                elif t[k] > IMPL_SCREEN * fastest:
                    launches += 1
                    total += t[k]
                else:
                    launches += 1 + REPS
                    total += (1 + REPS) * t[k]
                fastest = min(fastest, t[k])
            if not plain:
                for k in range(ND):
                    if t[k] > IMPL_STOP * t[ND]:
                        stopped[k] = True
        acc = per.setdefault((matrix, precision), [0, 0.0])
        acc[0] += launches
        acc[1] += total
    rows = []
    for (matrix, precision), (launches, total) in sorted(per.items()):
        dn = sw.setup_densify.get((matrix, precision)) or {}
        dens = sum(v for v in dn.values() if v and v > 0)
        rows.append((matrix, precision, launches, total, dens))
    if verbose:
        out.append(
            f"  {'matrix':26s} {'prec':6s} {'launches':>8s} {'GPU ms':>8s} "
            f"{'densify N+T ms':>14s} {'ratio':>7s}"
        )
        for m, p, launches, total, dens in rows:
            ratio = total / dens if dens > 0 else float("nan")
            out.append(f"  {m:26s} {p:6s} {launches:8d} {total:8.2f} {dens:14.4f} {ratio:7.0f}")
    timed = np.array([r[3] for r in rows])
    ratio = np.array([r[3] / r[4] for r in rows if r[4] > 0])
    lo, hi = min(r[2] for r in rows), max(r[2] for r in rows)
    out.append(
        f"  per matrix and precision: launches {lo}..{hi}, GPU time {timed.min():.1f}.."
        f"{timed.max():.1f} ms (median {np.median(timed):.1f}), {np.median(ratio):.0f}x "
        f"densify's N+T time (median; {ratio.min():.0f}..{ratio.max():.0f}x)"
    )


# ---------------------------------------------------------------------------------------------


def spread(densities, count):
    """`count` densities spread evenly over log scale across the sweep's range, end included."""
    idx = np.round(np.linspace(0, len(densities) - 1, count)).astype(int)
    return [densities[i] for i in idx]


def study(sw, out, trees, full):
    D = sw.densities
    n = sw.n
    out.append(
        f"{os.path.basename(sw.path)}: GPU {sw.gpu}, commit {sw.commit}; {n} calls "
        f"({len({k[0] for k in sw.key})} matrices x {len(D)} densities x op N/T x "
        f"{'/'.join(sw.outputs)} y x {'/'.join(sw.precisions)}), missing times filled with "
        f"{SLOWDOWN_CAP:.0f}x the best: {sw.missing}"
    )
    out.append("densities (log10): " + " ".join(f"{math.log10(d):.1f}" for d in D))
    out.append("")
    out.append(HEADER)
    none = np.zeros(n, dtype=bool)
    out.append(line("always densify", sw, sw.times[:, ND], none))
    out.append(line("oracle (per-call best of the five)", sw, sw.best, none))
    if all(a in CANDS for a in sw.auto):
        ch = np.array([CANDS.index(a) for a in sw.auto])
        out.append(
            line(
                "bench's auto (56996ca trees, 6-matrix H200 sweep): pick's time",
                sw,
                chosen_times(sw, ch),
                none,
            )
        )
    if all(t is not None for t in sw.auto_ms):
        out.append(
            line(
                "bench's auto (same): its own measured time",
                sw,
                np.array(sw.auto_ms, dtype=np.float64),
                none,
            )
        )
    tree_lomo = None
    if trees is not None:
        keys = [k + (sw.density[i],) for i, k in enumerate(sw.key)]
        if all(k in trees for k in keys):
            ins = np.array([trees[k][0] for k in keys])
            tree_lomo = np.array([trees[k][1] for k in keys])
            tree_margin = np.array([trees[k][2] for k in keys])
            out.append(
                line(
                    "trees of this sweep, in-sample (= the committed ones)",
                    sw,
                    chosen_times(sw, choose(ins, tree_margin)),
                    none,
                )
            )
            out.append(
                line(
                    "trees of this sweep, leave-one-matrix-out",
                    sw,
                    chosen_times(sw, choose(tree_lomo, tree_margin)),
                    none,
                )
            )
    out.append("")

    def run(name, probes, margin=1.0, sibling=1.0, **kw):
        pred = calibrated(sw, probes, **kw)
        ct = chosen_times(sw, choose(pred, margin, sibling))
        out.append(line(name, sw, ct, probe_mask(sw, probes)))
        return pred, ct

    # 1. Number and placement of probes (own probes per op, output form and precision).
    out.append(
        "1. Probes: count and placement (log10 density); own probes per op, output form, "
        "precision; margin 1.0, linear extrapolation above the top probe"
    )
    placements = {
        2: [[1e-4, 1.0], [1e-3, 1e-1], [1e-6, 1.0]],
        3: [[1e-4, 1e-2, 1.0], [1e-5, 1e-3, 1e-1], [1e-6, 1e-3, 1.0], [1e-3, 1e-2, 1e-1]],
        4: [[1e-5, 1e-3, 1e-1, 1.0], [1e-4, 1e-2, 1e-1, 1.0], [1e-6, 1e-4, 1e-2, 1.0]],
        5: [[1e-6, 1e-4, 1e-2, 1e-1, 1.0], [1e-5, 1e-3, 1e-2, 1e-1, 1.0], spread(D, 5)],
    }
    for count, plist in placements.items():
        for probes in plist:
            probes = [min(D, key=lambda d: abs(math.log10(d) - math.log10(p))) for p in probes]
            run(f"{count} probes {dens_name(probes)}", probes)
    out.append("")

    # Exhaustive placement search, and the honest version of it: the placement chosen on 15
    # matrices (best geomean of their non-probe calls), scored on the 16th.
    out.append(
        "   every placement of 2..5 probes among the sweep's densities (margin 1.0): best by "
        "non-probe geomean; then placement chosen leave-one-matrix-out"
    )
    matrices = sorted(set(sw.matrix.tolist()))
    for count in (2, 3, 4, 5):
        best = None
        per_matrix = {}
        for probes in itertools.combinations(D, count):
            probes = list(probes)
            pred = calibrated(sw, probes)
            ct = chosen_times(sw, choose(pred, 1.0))
            pm = probe_mask(sw, probes)
            logr = np.log(sw.best / ct)
            s = float(np.mean(logr[~pm]))
            if best is None or s > best[0]:
                best = (s, probes, ct, pm)
            for m in matrices:
                sel = (sw.matrix == m) & ~pm
                per_matrix.setdefault(tuple(probes), {})[m] = (logr[sel].sum(), sel.sum())
        s, probes, ct, pm = best
        out.append(line(f"{count} probes, best placement {dens_name(probes)}", sw, ct, pm))
        # Leave one matrix out: choose on the others, score the held-out matrix's calls.
        held_ct = np.zeros(n)
        held_pm = np.zeros(n, dtype=bool)
        picks = []
        for m in matrices:

            def others(pl):
                t = per_matrix[pl]
                a = sum(v[0] for mm, v in t.items() if mm != m)
                b = sum(v[1] for mm, v in t.items() if mm != m)
                return a / b

            pl = max(per_matrix, key=others)
            picks.append(pl)
            pred = calibrated(sw, list(pl))
            ct = chosen_times(sw, choose(pred, 1.0))
            sel = sw.matrix == m
            held_ct[sel] = ct[sel]
            held_pm[sel] = probe_mask(sw, list(pl))[sel]
        common = max(set(picks), key=picks.count)
        out.append(
            line(
                f"{count} probes, placement chosen LOMO (mostly {dens_name(common)})",
                sw,
                held_ct,
                held_pm,
            )
        )
    out.append("")

    def snap(pl):
        return [min(D, key=lambda d: abs(math.log10(d) - math.log10(p))) for p in pl]

    base = snap([1e-4, 1e-2, 1.0])
    # Implemented until bb31a09, when vector_direct still slowed down on long rows; then
    # kCalibrationDensities (chosen on the sweeps of bb31a09).
    previous = snap([10**-5.5, 10**-4.5, 10**-1.5, 10**-0.5])
    chosen = snap([1e-5, 1e-3, 1e-1, 1.0])
    mains = (base, previous, chosen)

    # 2. Sharing of probes.
    out.append("2. Sharing probes")
    for probes in mains:
        for share, name in [
            ((), "own"),
            (("output",), "sparse y uses dense y's"),
            (("precision",), "float uses double's"),
            (("output", "precision"), "both shared"),
        ]:
            run(f"{dens_name(probes)} {name}", probes, share=share)
    out.append("")

    # 3. Margins.
    out.append("3. Margin (a sparse kernel must be predicted faster than densify by it)")
    for probes in mains:
        for margin in (1.0, 1.05, 1.1, 1.15, 1.2, 1.3):
            run(f"{dens_name(probes)} margin {margin}", probes, margin=margin)
    out.append(
        "3b. A direct kernel competes only when predicted faster than its balanced sibling "
        "by a second margin (vector_direct's time depends on which rows x hits)"
    )
    for probes in (previous, chosen):
        for margin in (1.0, 1.1, 1.2):
            for sibling in (1.1, 1.2, 1.5):
                run(
                    f"{dens_name(probes)} margin {margin}, direct over balanced by {sibling}",
                    probes,
                    margin=margin,
                    sibling=sibling,
                )
    out.append("")

    # 4. Extrapolation, densify reference, model.
    out.append("4. Above the top probe / densify reference / model / probes skipped")
    for probes in ([1e-5, 1e-3, 1e-1], [1e-4, 1e-2], base, chosen):
        probes = snap(probes)
        for ex in EXTRAPOLATIONS:
            run(f"{dens_name(probes)} extrapolation {ex}", probes, extrapolation=ex)
    for probes in mains:
        run(f"{dens_name(probes)} densify once (smallest probe's time)", probes, densify="empty")
        run(
            f"{dens_name(probes)} affine model t = a + b nnz_x per candidate",
            probes,
            model="affine",
        )
        for stop in (4.0, 2.0):
            run(
                f"{dens_name(probes)} kernel not probed above a probe {stop:.0f}x slower than "
                "densify",
                probes,
                stop=stop,
                extrapolation="linear_up",
            )
    out.append("")

    # 5. With the trees.
    if tree_lomo is not None:
        out.append("5. Calibration combined with the leave-one-matrix-out trees")
        for probes in mains:
            pred = calibrated(sw, probes)
            pm = probe_mask(sw, probes)
            for name, p in [
                ("max(calibrated, tree)", np.maximum(pred, tree_lomo)),
                ("mean(calibrated, tree)", 0.5 * (pred + tree_lomo)),
                ("tree orders the sparse kernels, calibration decides densify", None),
            ]:
                if p is None:
                    k = np.argmin(tree_lomo, axis=1)
                    use = pred[np.arange(n), k] < 0
                    ch = np.where(use, k, ND)
                else:
                    ch = choose(p, 1.0)
                out.append(line(f"{dens_name(probes)} {name}", sw, chosen_times(sw, ch), pm))
        out.append("")

    # 6. By output form and precision.
    out.append("6. By output form and precision (margin 1.0)")
    tct = chosen_times(sw, choose(tree_lomo, tree_margin)) if tree_lomo is not None else None
    for probes in mains:
        pred = calibrated(sw, probes)
        ct = chosen_times(sw, choose(pred, 1.0))
        pm = probe_mask(sw, probes)
        for output in sw.outputs:
            for precision in sw.precisions:
                sel = np.array([k[3] == output and k[1] == precision for k in sw.key])
                rows = np.where(sel)[0]
                rest = np.where(sel & ~pm)[0]
                tl = f" | trees LOMO {fmt(score(sw, tct, rows))}" if tct is not None else ""
                out.append(
                    f"  {dens_name(probes)} {output:6s} {precision:6s} all "
                    f"{fmt(score(sw, ct, rows))} | non-probe {fmt(score(sw, ct, rest))}" + tl
                )
    out.append("")

    # 7. The rule implemented (plugin/src/spmspv_select.cpp, select_calibrated_kernel).
    out.append(
        f"7. The rule implemented: probes {dens_name(chosen)}, own per op and output form, "
        f"margin {IMPL_MARGIN}, direct over balanced by {IMPL_SIBLING}, linear extrapolation "
        "never decreasing above the top probe, "
        f"a kernel {IMPL_STOP:.0f}x slower than densify at a probe not probed above it"
    )
    pred = calibrated(sw, chosen, extrapolation="linear_up", stop=IMPL_STOP)
    ch = choose(pred, IMPL_MARGIN, IMPL_SIBLING)
    ct = chosen_times(sw, ch)
    pm = probe_mask(sw, chosen)
    out.append(HEADER)
    out.append(line("implemented rule", sw, ct, pm))
    if tree_lomo is not None:
        out.append(line("trees of this sweep, leave-one-matrix-out", sw, tct, np.zeros(n, bool)))
    for output in sw.outputs:
        sel = np.array([k[3] == output for k in sw.key])
        out.append(
            f"  {output} y: implemented all {fmt(score(sw, ct, np.where(sel)[0]))} | "
            f"non-probe {fmt(score(sw, ct, np.where(sel & ~pm)[0]))}"
        )
    out.append("")

    if not full:
        return
    # 8. Setup cost.
    out.append(
        f"8. Setup cost per matrix (both ops; probe times from the sweep). Plain: each "
        f"measurement {WARMUP} warm-up + {REPS} timed calls. Screened (implemented): one "
        f"untimed call of each kernel per op and output form at the smallest probe, then "
        f"per measurement one timed call, {REPS} more only when it is under "
        f"{IMPL_SCREEN:.0f}x the fastest time so far at the probe (densify's setup time "
        f"included), candidates in the order vector_balanced, vector_direct, "
        f"matrix_balanced, matrix_direct, densify; a kernel {IMPL_STOP:.0f}x slower than "
        f"densify at a probe not probed above it"
    )
    for probes, share, plain, name in [
        (previous, (), True, "plain, own per output form"),
        (chosen, (), True, "plain, own per output form"),
        (chosen, ("output",), True, "plain, dense y's probes for sparse y too"),
        (previous, (), False, "screened, own per output form"),
        (chosen, (), False, "screened, own per output form (implemented)"),
    ]:
        out.append(f" {dens_name(probes)} {name}:")
        setup_cost(sw, probes, share, plain, out, verbose=not plain and probes is chosen)
    out.append("")

    # 9. Where the implemented rule still loses most.
    r = sw.best / ct
    out.append("9. Worst non-probe calls of the implemented rule (ratio, call, pick, best)")
    order = [i for i in np.argsort(r) if not pm[i]][:12]
    for i in order:
        k = sw.key[i]
        out.append(
            f"  {r[i]:.3f} {k[0]:26s} {k[1]:6s} op {k[2]} {k[3]:6s} density "
            f"{sw.density[i]:.1e} nnz_x {int(sw.nnzx[i]):8d}: {CANDS[ch[i]]} "
            f"{ct[i]:.4f} ms, best {CANDS[int(np.argmin(sw.times[i]))]} "
            f"{sw.best[i]:.4f} ms, densify {sw.times[i, ND]:.4f} ms"
        )
    slow = [i for i in range(n) if ct[i] > sw.times[i, ND] * (1 + NOISE)]
    out.append(
        f"   calls slower than densify by > 2 %: {len(slow)}; their slowdowns: "
        + ", ".join(
            f"{ct[i] / sw.times[i, ND]:.2f}"
            for i in sorted(slow, key=lambda i: -ct[i] / sw.times[i, ND])
        )
    )


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("result", nargs="?", default=os.path.join(ts.repo_root(), DEFAULT_H100))
    ap.add_argument(
        "--check",
        action="append",
        default=[],
        help="another sweep (e.g. the H200 one): the main variants only",
    )
    ap.add_argument("--out", default=None, help="also write the report here")
    ap.add_argument("--no-trees", action="store_true", help="skip the trees (faster)")
    args = ap.parse_args()
    out = []
    cmd = "python3 " + " ".join(
        [os.path.relpath(os.path.abspath(__file__), ts.repo_root())] + sys.argv[1:]
    )
    out.append(f"# {cmd}")
    out.append(
        "# SpMSpV selection: per-matrix calibration at setup vs the trees (issue 17); "
        "bench/selector/study_spmspv_calibration.py's docstring tells the method."
    )
    out.append(
        "# Columns: geomean of time(best)/time(pick); calls >= 0.95 of the best / calls; "
        "calls slower than densify (strictly, by > 2 %); min."
    )
    out.append(
        "# 'non-probe calls': calls whose density is not a probe density (the probes' own "
        "calls are in-sample)."
    )
    out.append("")
    sw = Sweep(args.result)
    trees = None if args.no_trees else tree_predictions(args.result)
    study(sw, out, trees, full=True)
    for path in args.check:
        out.append("")
        out.append("=" * 100)
        sw = Sweep(path)
        study(sw, out, None, full=False)
    text = "\n".join(out) + "\n"
    sys.stdout.write(text)
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
