#!/usr/bin/env python3
"""Trains the per-call SpMSpV kernel selection of the GPU SpmspvOperator (issue 17) on
hola-spmspv-bench results and writes it out as C++.

Usage:
  python3 bench/selector/train_spmspv.py RESULT.json[.gz] [...]
      [--structure bench/selector/data/spmspv-structure.json]
      [--out-header plugin/src/spmspv_tree_generated.hpp]
      [--out-cases plugin/src/spmspv_tree_cases.hpp] [--out-json EVAL.json]
      [--touched estimate|exact] [--max-depth 6] [--commit SHA] [--no-header]

Candidates of a call: the four GPU SpMSpV kernels (SPARSE) and densify-and-SpMV (DENSIFY: x
scattered into a dense vector, one SpMV with hola::Operator "auto", y compacted when sparse).
For each sparse kernel k a regression tree predicts log2(time(k) / time(densify)) from the
call's features (FEATURES: what the host knows without reading device memory: nnz(x), the
matrix's shape and nonzero count, the length statistics of the rows of the matrix the
vector-driven kernels walk (A^T for op N, A for op T; computed once per structure at setup), op,
output form, the mask's allowed fraction). Touched nonzeros (the sum of the lengths of the rows x
selects) would need a device reduction and a synchronising read per call; the trees use the
estimate nnz(x) x mean row length instead (--touched exact evaluates the measured count, for
comparison only: it writes no header). A leaf predicts an upper quantile of its cases' log
ratios, so a kernel whose time varies in the leaf is predicted by its slow cases. The selection
(choose(), the same rule as hola::spmspv::select_gpu_kernel in plugin/src/spmspv_select.cpp):
the sparse kernel of least prediction is taken only when it is predicted faster than densify by
the margin, else densify: densify is the default, a sparse kernel must earn its place.

Leave-one-matrix-out cross-validation (every product of a matrix is held out together) picks
the depth, the leaf size, the quantile and the margin: among the settings within SAFETY_SPAN of
the best held-out geometric mean of time(best) / time(chosen), the fewest held-out cases slower
than densify by more than NOISE, then the best geometric mean; within 0.002 of it the fewest
leaves (pick_setting). Printed and in --out-json: the chosen setting's held-out figures
(geometric mean and minimum of best / chosen, share >= 0.95, cases slower than densify, strictly
and by more than NOISE, also against the best densify-and-SpMV measured: cuSPARSE's included),
the same for the old rule (the JSON's "pick"), for always-densify and for the oracle; and, when
the results have it, the measured "auto" of the bench (the operator's own selection). The trees
are then grown on all cases with that setting and written as C++ (--out-header) with a sample of
cases and the Python's pick for each (--out-cases, checked by tests/unit/spmspv_test.cpp).

Results written before hola-spmspv-bench recorded the structure statistics (2f6d850) take them
from --structure (bench/selector/spmspv_structure.cpp's output for the same generated matrices).

Needs numpy only. Style: black -l 99, flake8 --max-line-length 99.
"""

import argparse
import datetime
import gzip
import json
import math
import os
import sys
import textwrap

import numpy as np

# repo_root and git_commit are train.py's (same folder; the folder is on sys.path when this
# script runs, the insert covers an import from elsewhere).
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train import git_commit, repo_root  # noqa: E402

SPARSE = ["matrix_direct", "matrix_balanced", "vector_direct", "vector_balanced"]
DENSIFY = "densify"
DENSIFY_LEGACY = "densify_hola_auto"  # the 2f6d850 bench's name of the same path
SLOWDOWN_CAP = 20.0  # a failed or missing sparse kernel counts as this much slower than the best
NOISE = 0.02  # "slower than densify" beyond timing noise: by more than 2 %
SAFETY_SPAN = 0.03  # settings this close to the best geometric mean compete on safety
MIN_GAP = 1e-6  # a split falls between two training values at least this far apart
DEPTHS = range(1, 7)
MIN_LEAVES = (1, 2, 4, 8)
QUANTILES = (0.5, 0.75, 0.9, 1.0)
MARGINS = (1.0, 1.05, 1.1, 1.25)

# The trees' inputs, in the order and with the formulas of spmspv_tree_features() in the
# generated header (call_features() below is the same computation). M is the matrix the
# vector-driven kernels walk (A^T for op N, A for op T): n_in rows, n_out columns. No feature
# names the matrix's size alone (nnz, rows): on few matrices such a feature tells the training
# matrices apart and the trees learn them, not the costs; densify-and-SpMV's time measured at
# setup carries the scale instead (what a sparse kernel must beat).
FEATURES = [
    "log2_touched",  # nnz(x) x mean row length of M (or the measured count: --touched exact)
    "density",  # nnz(x) / n_in
    "log2_mean_len",  # of M's rows: nnz / n_in
    "log2_skew",  # longest / mean row length of M (vector_direct: one thread per row of M)
    "cv_len",  # standard deviation / mean of M's row lengths
    "log2_out_per_nnz",  # (n_out + 1) / (nnz + 1): the dense output's share of the work
    "log2_densify_us",  # densify-and-SpMV's time on this op, measured at setup
    "transpose",
    "sparse_output",
    "allowed_fraction",  # of y, by the mask (1 without mask or when unknown)
]


def l2(v):
    return math.log2(1.0 + float(v))


def call_features(
    nnz_x, nnz, n_in, n_out, max_len, std_len, densify_ms, transpose, sparse, allowed
):
    """The feature vector of one call (spmspv_tree_features() in C++)."""
    mean = nnz / n_in if n_in > 0 else 0.0
    return [
        l2(nnz_x * mean),
        nnz_x / n_in if n_in > 0 else 0.0,
        l2(mean),
        l2(max_len / mean) if mean > 0 else 0.0,
        std_len / mean if mean > 0 else 0.0,
        math.log2((1.0 + n_out) / (1.0 + nnz)),
        l2(1000.0 * densify_ms),
        1.0 if transpose else 0.0,
        1.0 if sparse else 0.0,
        float(allowed),
    ]


# ---------------------------------------------------------------------------------------------
# Input


def read_structure(paths):
    table = {}
    for path in paths:
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            sys.exit(f"train_spmspv: cannot read {path}: {e}")
        for m in doc.get("matrices", []):
            if "structure" in m:
                table[m["name"]] = m
    return table


def read_results(paths, structure):
    """The cases of the result files, each with its matrix's structure statistics
    (c["_structure"]) and densify-and-SpMV's setup time for its op (c["_densify_ms"])."""
    cases = []
    for path in paths:
        opener = gzip.open if path.endswith(".gz") else open
        try:
            with opener(path, "rt") as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            sys.exit(f"train_spmspv: cannot read {path}: {e}")
        if doc.get("benchmark") != "hola-spmspv-bench" or "cases" not in doc:
            sys.exit(f"train_spmspv: {path} is not a hola-spmspv-bench result")
        own = {(m["name"], m.get("precision")): m for m in doc.get("matrices", [])}
        # Without the operator's setup measurement (2f6d850), densify's time at the sparsest x
        # of the (matrix, precision, op) with a dense y stands for it: the scatter of a few
        # entries is what the setup measurement adds to the SpMV too.
        sparsest = {}
        for c in doc["cases"]:
            key = (c["matrix"], c["precision"], c["op"])
            t = densify_time(c)
            if c.get("output", "dense") != "dense" or not np.isfinite(t):
                continue
            if key not in sparsest or c["features"]["nnz_x"] < sparsest[key][0]:
                sparsest[key] = (c["features"]["nnz_x"], t)
        missing = set()
        for c in doc["cases"]:
            m = own.get((c["matrix"], c["precision"]), {})
            st = m.get("structure") or structure.get(c["matrix"], {}).get("structure")
            setup = m.get("densify_setup_ms", {}).get(c["op"])
            if setup is None:
                setup = sparsest.get((c["matrix"], c["precision"], c["op"]), (0, None))[1]
            if st is None or setup is None:
                missing.add(c["matrix"])
                continue
            c["_structure"] = st
            c["_densify_ms"] = setup
            c["_source"] = os.path.basename(path)
            c["_gpu"] = doc.get("gpu", "?")
            cases.append(c)
        if missing:
            print(
                f"{os.path.basename(path)}: no structure statistics or densify time for "
                f"{sorted(missing)} (--structure): their cases are left out"
            )
    return cases


def raw_inputs(c, touched):
    """The arguments of call_features() for a case: (nnz_x, nnz, n_in, n_out, max_len, std_len,
    densify_ms, transpose, sparse, allowed)."""
    f = c["features"]
    transpose = f["op"] == "T"
    rows_of_m = c["_structure"]["rows_of_A" if transpose else "rows_of_At"]
    sparse = c.get("output", "dense") == "sparse"
    allowed = f.get("allowed_fraction", 1.0)
    nnz_x = f["nnz_x"]
    if touched == "exact" and f["n_in"] > 0 and f["matrix_nnz"] > 0:
        # The measured touched count through the estimate's formula: nnz_x' x mean = touched.
        nnz_x = f["touched_nnz"] * f["n_in"] / f["matrix_nnz"]
    return (
        nnz_x,
        f["matrix_nnz"],
        f["n_in"],
        f["n_out"],
        rows_of_m["max"],
        rows_of_m["std"],
        c["_densify_ms"],
        transpose,
        sparse,
        allowed,
    )


# ---------------------------------------------------------------------------------------------
# Regression trees


class Node:
    def __init__(self, values, count):
        self.values = values  # one prediction per entry of QUANTILES
        self.count = count
        self.feature, self.threshold, self.left, self.right = -1, 0.0, None, None

    def is_leaf(self):
        return self.left is None


def grow(X, y, idx, depth, max_depth, min_leaf):
    """CART on squared error; every node keeps the QUANTILES of its cases' targets."""
    v = y[idx]
    node = Node([float(np.quantile(v, q)) for q in QUANTILES], len(idx))
    if depth >= max_depth or len(idx) < 2 * min_leaf:
        return node
    total = float(((v - v.mean()) ** 2).sum())
    if total <= 1e-12:
        return node
    best = None
    n = len(idx)
    cut = np.arange(min_leaf, n - min_leaf + 1)
    for f in range(X.shape[1]):
        order = np.argsort(X[idx, f], kind="stable")
        xs, ys = X[idx[order], f], v[order]
        s1, s2 = np.cumsum(ys), np.cumsum(ys * ys)
        left1, left2 = s1[cut - 1], s2[cut - 1]
        right1, right2 = s1[-1] - left1, s2[-1] - left2
        sse = (left2 - left1 * left1 / cut) + (right2 - right1 * right1 / (n - cut))
        gap = xs[cut] - xs[cut - 1]
        sse = np.where(gap >= MIN_GAP, sse, np.inf)
        j = int(np.argmin(sse))
        if not sse[j] < total * (1 - 1e-9):
            continue
        # Features that split the node's cases alike tie; the widest gap (relative to the
        # feature's spread in the node) wins: a held-out case is then the least likely to fall
        # on the wrong side.
        c = cut[j]
        width = gap[j] / max(xs[-1] - xs[0], 1e-300)
        tol = 1e-9 * total
        if best is None or sse[j] < best[0] - tol or (sse[j] <= best[0] + tol and width > best[1]):
            best = (sse[j], width, f, 0.5 * (xs[c - 1] + xs[c]), idx[order[:c]], idx[order[c:]])
    if best is None:
        return node
    _, _, f, t, left, right = best
    node.feature, node.threshold = f, float(t)
    node.left = grow(X, y, left, depth + 1, max_depth, min_leaf)
    node.right = grow(X, y, right, depth + 1, max_depth, min_leaf)
    return node


def predict(node, x, depth, q):
    """The tree cut at `depth`, leaves predicting QUANTILES[q]."""
    d = 0
    while not node.is_leaf() and d < depth:
        node = node.left if x[node.feature] <= node.threshold else node.right
        d += 1
    return node.values[q]


def cut(node, depth, q):
    """A copy of the tree cut at `depth` with one value per leaf (siblings of one value merged)."""
    out = Node([node.values[q]], node.count)
    if node.is_leaf() or depth == 0:
        return out
    left, right = cut(node.left, depth - 1, q), cut(node.right, depth - 1, q)
    if left.is_leaf() and right.is_leaf() and left.values[0] == right.values[0]:
        return out
    out.feature, out.threshold, out.left, out.right = node.feature, node.threshold, left, right
    return out


def leaves(node):
    return 1 if node.is_leaf() else leaves(node.left) + leaves(node.right)


def choose(pred, margin, available=(True,) * 4, densify_available=True):
    """Index into SPARSE, or len(SPARSE) for densify (hola::spmspv::select_gpu_kernel)."""
    k, best = -1, math.inf
    for j, p in enumerate(pred):
        if available[j] and p < best:
            k, best = j, p
    if densify_available and (k < 0 or best >= -math.log2(margin)):
        return len(SPARSE)
    return k


# ---------------------------------------------------------------------------------------------
# Evaluation


def scores(chosen, times, densify_t, best_densify_t, best_all):
    """Figures of the chosen times against the per-case best (of the operator's candidates:
    columns of `times`; and of everything measured: best_all)."""
    best = times.min(axis=1)
    ratio = best / chosen
    ratio_all = best_all / chosen

    def geomean(r):
        return float(np.exp(np.mean(np.log(np.maximum(r, 1e-12))))) if len(r) else float("nan")

    return {
        "cases": int(len(ratio)),
        "ratio_geomean": geomean(ratio),
        "ratio_min": float(ratio.min()) if len(ratio) else float("nan"),
        "share_at_least_0_95": float(np.mean(ratio >= 0.95)) if len(ratio) else float("nan"),
        "slower_than_densify": int(np.sum(chosen > densify_t)),
        "slower_than_densify_beyond_noise": int(np.sum(chosen > densify_t * (1 + NOISE))),
        "slower_than_best_densify": int(np.sum(chosen > best_densify_t)),
        "slower_than_best_densify_beyond_noise": int(
            np.sum(chosen > best_densify_t * (1 + NOISE))
        ),
        "ratio_to_all_geomean": geomean(ratio_all),
        "ratio_to_all_min": float(ratio_all.min()) if len(ratio) else float("nan"),
    }


def brief(s):
    return (
        f"geomean {s['ratio_geomean']:.3f}, min {s['ratio_min']:.3f}, >= 0.95 in "
        f"{100 * s['share_at_least_0_95']:.0f} %, slower than densify in "
        f"{s['slower_than_densify']} ({s['slower_than_densify_beyond_noise']} by > "
        f"{100 * NOISE:.0f} %); against everything measured (cuSPARSE densify included) "
        f"{s['ratio_to_all_geomean']:.3f}, min {s['ratio_to_all_min']:.3f}, slower than the best "
        f"densify in {s['slower_than_best_densify']} "
        f"({s['slower_than_best_densify_beyond_noise']} by > {100 * NOISE:.0f} %)"
    )


class Data:
    """One precision's cases as arrays."""

    def __init__(self, cases, touched):
        self.cases = cases
        self.X = np.array([call_features(*raw_inputs(c, touched)) for c in cases])
        names = SPARSE + [DENSIFY]
        t = np.array(
            [
                [densify_time(c) if n == DENSIFY else c["times_ms"].get(n, np.nan) for n in names]
                for c in cases
            ],
            dtype=np.float64,
        )
        best = np.nanmin(t, axis=1)
        t = np.where(np.isfinite(t), t, SLOWDOWN_CAP * best[:, None])
        self.times = t  # the operator's candidates: SPARSE then densify
        self.Y = np.log2(t[:, : len(SPARSE)] / t[:, len(SPARSE)][:, None])
        measured = [
            min([v for n, v in c["times_ms"].items() if n != "auto"] + [best[i]])
            for i, c in enumerate(cases)
        ]
        self.best_all = np.array(measured)
        self.best_densify = np.array(
            [
                min(
                    [v for n, v in c["times_ms"].items() if n.startswith("densify")]
                    + [t[i, len(SPARSE)]]
                )
                for i, c in enumerate(cases)
            ]
        )
        self.groups = np.array([c["_source"] + ":" + c["matrix"] for c in cases])

    def score(self, choice):
        return self.score_times(self.times[np.arange(len(choice)), choice])

    def score_times(self, chosen):
        return scores(
            chosen,
            self.times,
            self.times[:, len(SPARSE)],
            self.best_densify,
            self.best_all,
        )


def densify_time(c):
    t = c["times_ms"]
    return t.get(DENSIFY, t.get(DENSIFY_LEGACY, np.nan))


def cross_validate(data, max_depth):
    """Leave one matrix out; every (depth, min_leaf, quantile, margin). Returns the table."""
    groups = sorted(set(data.groups))
    n = len(data.X)
    # choice[(depth, min_leaf, q, margin)] = per-case held-out choice
    choice = {}
    for min_leaf in MIN_LEAVES:
        preds = np.zeros((max_depth + 1, len(QUANTILES), n, len(SPARSE)))
        for g in groups:
            train = np.where(data.groups != g)[0]
            test = np.where(data.groups == g)[0]
            for k in range(len(SPARSE)):
                root = grow(data.X, data.Y[:, k], train, 0, max_depth, min_leaf)
                for d in range(1, max_depth + 1):
                    for q in range(len(QUANTILES)):
                        for i in test:
                            preds[d, q, i, k] = predict(root, data.X[i], d, q)
        for d in range(1, max_depth + 1):
            for q in range(len(QUANTILES)):
                for margin in MARGINS:
                    choice[(d, min_leaf, q, margin)] = np.array(
                        [choose(preds[d, q, i], margin) for i in range(n)]
                    )
    # Greedy growth: the tree of depth d is the deepest one cut at d.
    full = {
        min_leaf: [
            grow(data.X, data.Y[:, k], np.arange(n), 0, max_depth, min_leaf)
            for k in range(len(SPARSE))
        ]
        for min_leaf in MIN_LEAVES
    }
    table = []
    for (d, min_leaf, q, margin), ch in choice.items():
        size = sum(leaves(cut(r, d, q)) for r in full[min_leaf])
        table.append(
            {
                "depth": d,
                "min_leaf": min_leaf,
                "quantile": QUANTILES[q],
                "margin": margin,
                "leaves": size,
                **data.score(ch),
            }
        )
    return table


def pick_setting(table):
    """Of the settings within SAFETY_SPAN of the best held-out geometric mean, those with the
    fewest cases slower than densify beyond NOISE; of these the best geometric mean, and within
    0.002 of it the fewest leaves (then the widest margin, the shallowest, the largest leaves).
    The span keeps a single hard case from pushing the choice to trees that densify always."""
    best = max(t["ratio_geomean"] for t in table)
    good = [t for t in table if t["ratio_geomean"] >= best - SAFETY_SPAN]
    fewest = min(t["slower_than_densify_beyond_noise"] for t in good)
    safe = [t for t in good if t["slower_than_densify_beyond_noise"] == fewest]
    top = max(t["ratio_geomean"] for t in safe)
    near = [t for t in safe if t["ratio_geomean"] >= top - 0.002]
    return min(near, key=lambda t: (t["leaves"], -t["margin"], t["depth"], -t["min_leaf"]))


# ---------------------------------------------------------------------------------------------
# Output


def cpp_double(v):
    text = repr(float(v))
    return text if ("." in text or "e" in text or "inf" in text) else text + ".0"


def emit(node, indent, out):
    pad = " " * indent
    if node.is_leaf():
        out.append(f"{pad}return {cpp_double(node.values[0])};  // {node.count} cases")
        return
    out.append(f"{pad}if (f.{FEATURES[node.feature]} <= {cpp_double(node.threshold)}) {{")
    emit(node.left, indent + 2, out)
    out.append(f"{pad}}}")
    emit(node.right, indent, out)


def comment(lines):
    return [f"// {part}" for line in lines for part in textwrap.wrap(line, 96)]


def write_lines(path, lines):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def write_header(path, trained, provenance):
    out = [
        "// clang-format off",
        "// GENERATED by bench/selector/train_spmspv.py from hola-spmspv-bench measurements: do",
        '// not edit, retrain (docs/spmspv.md, "Selection on the GPU").',
    ]
    out += comment(provenance)
    out += [
        "#pragma once",
        "",
        "#include <cmath>",
        "#include <cstdint>",
        "",
        "namespace hola::spmspv::detail {",
        "",
        f'inline constexpr const char* kSpmspvTreeProvenance = "{provenance[0]}";',
        "",
        "// The sparse kernels the trees predict, in order (hola::spmspv::gpu::Kernel names).",
        "inline constexpr const char* kSpmspvTreeKernels[4] = {"
        + ", ".join(f'"{k}"' for k in SPARSE)
        + "};",
        "",
        "// The call's features (bench/selector/train_spmspv.py, FEATURES).",
        "struct SpmspvTreeFeatures {",
    ]
    out += [f"  double {name} = 0;" for name in FEATURES]
    out += [
        "};",
        "",
        "// M: the matrix the vector-driven kernels walk (A^T for op N, A for op T); n_in its",
        "// rows, max_len / std_len the longest and the standard deviation of its row lengths;",
        "// densify_ms: densify-and-SpMV's time on this op, measured at setup.",
        "inline SpmspvTreeFeatures spmspv_tree_features(std::int64_t nnz_x, std::int64_t nnz,",
        "                                               std::int64_t n_in, std::int64_t n_out,",
        "                                               std::int64_t max_len, double std_len,",
        "                                               double densify_ms, bool transpose,",
        "                                               bool sparse_output,",
        "                                               double allowed_fraction) {",
        "  auto l2 = [](double v) { return std::log2(1.0 + v); };",
        "  const double mean = n_in > 0 ? static_cast<double>(nnz) / static_cast<double>(n_in)"
        " : 0.0;",
        "  SpmspvTreeFeatures f;",
        "  f.log2_touched = l2(static_cast<double>(nnz_x) * mean);",
        "  f.density = n_in > 0 ? static_cast<double>(nnz_x) / static_cast<double>(n_in) : 0.0;",
        "  f.log2_mean_len = l2(mean);",
        "  f.log2_skew = mean > 0 ? l2(static_cast<double>(max_len) / mean) : 0.0;",
        "  f.cv_len = mean > 0 ? std_len / mean : 0.0;",
        "  f.log2_out_per_nnz = std::log2((1.0 + static_cast<double>(n_out)) /",
        "                                 (1.0 + static_cast<double>(nnz)));",
        "  f.log2_densify_us = l2(1000.0 * densify_ms);",
        "  f.transpose = transpose ? 1.0 : 0.0;",
        "  f.sparse_output = sparse_output ? 1.0 : 0.0;",
        "  f.allowed_fraction = allowed_fraction;",
        "  return f;",
        "}",
        "",
    ]
    margins = {}
    for precision, info in trained.items():
        s = info["setting"]
        margins[precision] = s["margin"]
        out += comment(
            [
                f"{precision}: {info['cases']} cases, {info['matrices']} matrices; depth "
                f"{s['depth']}, min leaf {s['min_leaf']}, leaves at quantile {s['quantile']} of "
                f"their cases, margin {s['margin']}; leave-one-matrix-out: {brief(s)}."
            ]
        )
        for k, root in zip(SPARSE, info["roots"]):
            out.append(
                f"inline double spmspv_tree_{precision}_{k}(const SpmspvTreeFeatures& f) {{"
            )
            emit(root, 2, out)
            out += ["}", ""]
    out += [
        "// Predicted log2(time / densify-and-SpMV time) of each kernel of kSpmspvTreeKernels,",
        "// and the margin a kernel must beat densify by; false when no tree was trained. A",
        "// precision without trees of its own uses the other's.",
        "inline bool spmspv_tree_predict(bool single_precision, const SpmspvTreeFeatures& f,",
        "                                double out[4], double& margin) {",
    ]
    if not trained:
        out += ["  (void)single_precision;", "  (void)f;", "  (void)out;", "  (void)margin;"]
        out += ["  return false;", "}"]
    else:
        for precision in ("double", "float"):
            use = precision if precision in trained else next(iter(trained))
            test = "single_precision" if precision == "float" else "!single_precision"
            out.append(f"  if ({test}) {{")
            for i, k in enumerate(SPARSE):
                out.append(f"    out[{i}] = spmspv_tree_{use}_{k}(f);")
            out.append(f"    margin = {cpp_double(margins[use])};")
            out.append("    return true;")
            out.append("  }")
        out += ["  return false;", "}"]
    out += ["", "}  // namespace hola::spmspv::detail", "// clang-format on"]
    write_lines(path, out)


def write_cases(path, rows, provenance):
    out = ["// clang-format off"]
    out += comment(
        [
            "GENERATED by bench/selector/train_spmspv.py with spmspv_tree_generated.hpp: inputs "
            "of training cases, the predictions of the Python trees and their pick "
            "(tests/unit/spmspv_test.cpp checks the C++ against them)."
        ]
        + provenance
    )
    out += [
        "#pragma once",
        "",
        "#include <cstdint>",
        "",
        "namespace hola::spmspv::detail {",
        "",
        "struct SpmspvTreeCase {",
        "  bool single_precision;",
        "  std::int64_t nnz_x, nnz, n_in, n_out, max_len;",
        "  double std_len, densify_ms;",
        "  bool transpose, sparse_output;",
        "  double allowed_fraction;",
        "  double predicted[4];",
        "  const char* pick;  // with every kernel and densify available",
        "};",
        "",
        "inline constexpr SpmspvTreeCase kSpmspvTreeCases[] = {",
    ]
    for r in rows:
        nnz_x, nnz, n_in, n_out, max_len, std_len, densify_ms, transpose, sparse, allowed = r[
            "raw"
        ]
        pred = ", ".join(cpp_double(p) for p in r["predicted"])
        out.append(
            f"    {{{str(r['single']).lower()}, {int(nnz_x)}, {nnz}, {n_in}, {n_out}, {max_len}, "
            f"{cpp_double(std_len)}, {cpp_double(densify_ms)}, {str(transpose).lower()}, "
            f"{str(sparse).lower()}, {cpp_double(allowed)}, {{{pred}}}, \"{r['pick']}\"}},"
        )
    if not rows:
        out.append(
            "    {false, 0, 0, 0, 0, 0, 0.0, 0.0, false, false, 1.0, {0.0, 0.0, 0.0, 0.0},"
            " nullptr},"
        )
    out += ["};", "", "}  // namespace hola::spmspv::detail", "// clang-format on"]
    write_lines(path, out)


# ---------------------------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="+", help="hola-spmspv-bench JSON files (.json or .json.gz)")
    ap.add_argument(
        "--structure",
        action="append",
        default=[],
        help="structure statistics of matrices the results lack (default: "
        "bench/selector/data/spmspv-structure.json)",
    )
    ap.add_argument(
        "--out-header", default=os.path.join(repo_root(), "plugin/src/spmspv_tree_generated.hpp")
    )
    ap.add_argument(
        "--out-cases", default=os.path.join(repo_root(), "plugin/src/spmspv_tree_cases.hpp")
    )
    ap.add_argument("--out-json", help="evaluation JSON (cross-validation table, trees)")
    ap.add_argument("--touched", choices=("estimate", "exact"), default="estimate")
    ap.add_argument("--no-header", action="store_true", help="evaluate only")
    ap.add_argument("--max-depth", type=int, default=max(DEPTHS))
    ap.add_argument("--cases-per-precision", type=int, default=120)
    ap.add_argument("--commit", default=None, help="commit recorded in the header")
    args = ap.parse_args()

    structure_files = args.structure or [
        os.path.join(repo_root(), "bench/selector/data/spmspv-structure.json")
    ]
    structure = read_structure(structure_files)
    cases = read_results(args.results, structure)
    cases = [c for c in cases if np.isfinite(densify_time(c)) and c.get("times_ms")]
    if not cases:
        sys.exit("train_spmspv: no case with a densify-and-SpMV time")
    write = not args.no_header and args.touched == "estimate"
    trained, evaluation, sample = {}, {}, []
    for precision in sorted({c["precision"] for c in cases}):
        data = Data([c for c in cases if c["precision"] == precision], args.touched)
        matrices = sorted(set(data.groups))
        if len(matrices) < 2:
            print(f"{precision}: {len(matrices)} matrix; cross-validation needs two or more")
            continue
        table = cross_validate(data, args.max_depth)
        s = pick_setting(table)
        q = QUANTILES.index(s["quantile"])
        roots = [
            cut(
                grow(data.X, data.Y[:, k], np.arange(len(data.X)), 0, s["depth"], s["min_leaf"]),
                s["depth"],
                q,
            )
            for k in range(len(SPARSE))
        ]
        print(
            f"{precision}: {len(data.X)} cases, {len(matrices)} matrices; depth {s['depth']}, "
            f"min leaf {s['min_leaf']}, quantile {s['quantile']}, margin {s['margin']}, "
            f"{sum(leaves(r) for r in roots)} leaves"
        )
        print(f"  leave-one-matrix-out: {brief(s)}")
        baselines = {}
        n = len(data.X)
        rule_names = [c.get("pick") for c in data.cases]
        names = SPARSE + [DENSIFY]
        if all(r in names for r in rule_names):
            baselines["rule of 2f6d850"] = data.score(
                np.array([names.index(r) for r in rule_names])
            )
        baselines["always densify"] = data.score(np.full(n, len(SPARSE)))
        baselines["oracle"] = data.score(np.argmin(data.times, axis=1))
        auto = [c.get("auto") for c in data.cases]
        if all(a in names for a in auto):
            baselines["bench's auto pick (its candidate's time)"] = data.score(
                np.array([names.index(a) for a in auto])
            )
        auto_ms = [c["times_ms"].get("auto") for c in data.cases]
        if all(t is not None for t in auto_ms):
            baselines["bench's auto (its own measured time)"] = data.score_times(
                np.array(auto_ms, dtype=np.float64)
            )
        for name, b in baselines.items():
            print(f"  {name}: {brief(b)}")
        full = [
            choose([predict(r, data.X[i], s["depth"], 0) for r in roots], s["margin"])
            for i in range(n)
        ]
        print(f"  trained on all (not held out): {brief(data.score(np.array(full)))}")
        counts = np.bincount(np.argmin(data.times, axis=1), minlength=len(names))
        print("  per-case best: " + ", ".join(f"{k} {v}" for k, v in zip(names, counts)))
        trained[precision] = {
            "setting": s,
            "roots": roots,
            "cases": n,
            "matrices": len(matrices),
        }
        evaluation[precision] = {
            "cases": n,
            "matrices": matrices,
            "chosen": s,
            "baselines": baselines,
            "per_case_best": dict(zip(names, map(int, counts))),
            "cv_table": table,
        }
        step = max(1, n // max(1, args.cases_per_precision))
        for i in range(0, n, step):
            pred = [predict(r, data.X[i], s["depth"], 0) for r in roots]
            k = choose(pred, s["margin"])
            sample.append(
                {
                    "single": precision == "float",
                    "raw": raw_inputs(data.cases[i], "estimate"),
                    "predicted": pred,
                    "pick": names[k],
                }
            )
    if not trained:
        sys.exit("train_spmspv: nothing trained")
    gpus = sorted({c["_gpu"] for c in cases})
    provenance = [
        f"Trained {datetime.date.today().isoformat()} at commit {args.commit or git_commit()} "
        f"from {', '.join(os.path.basename(p) for p in args.results)} (GPU: {', '.join(gpus)}); "
        f"structure statistics: {', '.join(os.path.basename(p) for p in structure_files)}.",
    ]
    if write:
        write_header(args.out_header, trained, provenance)
        write_cases(args.out_cases, sample, provenance)
        print(f"wrote {args.out_header} and {args.out_cases}")
    else:
        print("evaluation only: no header written")
    if args.out_json:
        with open(args.out_json, "w") as f:
            json.dump(
                {
                    "provenance": provenance,
                    "touched": args.touched,
                    "features": FEATURES,
                    "candidates": SPARSE + [DENSIFY],
                    "noise": NOISE,
                    "evaluation": evaluation,
                },
                f,
                indent=1,
            )
        print(f"wrote {args.out_json}")


if __name__ == "__main__":
    main()
