#!/usr/bin/env python3
"""Trains the per-call SpMSpV kernel selector (issue 17) on hola-spmspv-bench results and writes
it out as a C++ header.

Usage:
  python3 bench/selector/train_spmspv.py RESULT.json[.gz] [...]
      [--out-header plugin/src/spmspv_tree_generated.hpp] [--out-json EVAL.json]
      [--candidates a,b,...] [--max-depth 6] [--commit SHA]

Each case of the JSON (one product: matrix, precision, op, x density) gives a feature vector
(FEATURES, computed per call from nnz(x), the nonzeros of A that x touches, the sizes and the
op: O(nnz(x)) work, as hola::spmspv::vector_features) and every candidate's time; a candidate
that failed its check or was not timed counts as SLOWDOWN_CAP times the best. One tree per
precision (op is a feature). The tree is CART on the best candidate, each case weighted by what
a wrong pick costs it (mean slowdown of the candidates), leaves labelled with the candidate of
least total slowdown over their cases (x <= threshold goes left, as bench/selector/train.py).
Cross-validation leaves one matrix out at a time (a product of a matrix never helps to predict
another product of that matrix) and picks depth and leaf size: the best geometric mean of
time(best) / time(pick) over the held-out cases, within 0.002 the smallest tree. Printed and in
--out-json: that cross-validated ratio (geometric mean, minimum, share >= 0.95, cases slower
than densify-and-SpMV), the same for the rule of today (the JSON's "pick"), and the trees.

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

SLOWDOWN_CAP = 20.0
# Inputs of the tree, in the order of SpmspvTreeFeatures in the generated header; sizes in log2
# so that thresholds fall between sizes in relative terms.
FEATURES = [
    "log2_nnz_x",
    "log2_touched_nnz",
    "log2_matrix_nnz",
    "log2_n_in",
    "log2_n_out",
    "touched_fraction",  # touched_nnz / matrix_nnz
    "density",  # nnz_x / n_in
    "transpose",  # 1 for op T
]


def log2p(v):
    return math.log2(1.0 + float(v))


def case_features(f):
    matrix_nnz = max(1, f["matrix_nnz"])
    return [
        log2p(f["nnz_x"]),
        log2p(f["touched_nnz"]),
        log2p(f["matrix_nnz"]),
        log2p(f["n_in"]),
        log2p(f["n_out"]),
        f["touched_nnz"] / matrix_nnz,
        f["density"],
        1.0 if f["op"] == "T" else 0.0,
    ]


def read_results(paths):
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
        for c in doc["cases"]:
            c["_source"] = os.path.basename(path)
            c["_gpu"] = doc.get("gpu", "?")
        cases += doc["cases"]
    return cases


class Node:
    def __init__(self, feature=-1, threshold=0.0, left=None, right=None, pick=-1, count=0):
        self.feature, self.threshold, self.left, self.right = feature, threshold, left, right
        self.pick, self.count = pick, count

    def is_leaf(self):
        return self.left is None

    def leaves(self):
        return 1 if self.is_leaf() else self.left.leaves() + self.right.leaves()


def grow(X, slowdown, idx, depth, max_depth, min_leaf):
    """CART with a weighted Gini index on the fastest candidate; leaf = least total slowdown."""
    sd = slowdown[idx]
    node = Node(pick=int(np.argmin(sd.sum(axis=0))), count=len(idx))
    if depth >= max_depth or len(idx) < 2 * min_leaf:
        return node
    k = slowdown.shape[1]
    label = np.argmin(sd, axis=1)
    weight = sd.mean(axis=1) - 1.0 + 0.01
    Y = np.zeros((len(idx), k))
    Y[np.arange(len(idx)), label] = weight

    def impurity(S):
        total = S.sum(axis=-1)
        return total - (S * S).sum(axis=-1) / np.maximum(total, 1e-300)

    parent = float(impurity(Y.sum(0)))
    if parent <= 1e-12:
        return node
    best = None
    pos = np.arange(min_leaf, len(idx) - min_leaf + 1)
    for f in range(X.shape[1]):
        order = np.argsort(X[idx, f], kind="stable")
        v = X[idx[order], f]
        S = np.cumsum(Y[order], axis=0)
        L = S[pos - 1]
        gain = parent - impurity(L) - impurity(S[-1] - L)
        ok = v[pos - 1] < v[pos]
        gain = np.where(ok, gain, -np.inf)
        j = int(np.argmax(gain))
        if gain[j] > 1e-9 * parent and (best is None or gain[j] > best[0]):
            cut = pos[j]
            best = (gain[j], f, 0.5 * (v[cut - 1] + v[cut]), idx[order[:cut]], idx[order[cut:]])
    if best is None:
        return node
    _, f, t, left, right = best
    node.feature, node.threshold = f, float(t)
    node.left = grow(X, slowdown, left, depth + 1, max_depth, min_leaf)
    node.right = grow(X, slowdown, right, depth + 1, max_depth, min_leaf)
    if node.left.is_leaf() and node.right.is_leaf() and node.left.pick == node.right.pick:
        node.left = node.right = None
    return node


def predict(root, x):
    node = root
    while not node.is_leaf():
        node = node.left if x[node.feature] <= node.threshold else node.right
    return node.pick


def scores(chosen_t, times, densify_t):
    """geomean and min of best / chosen, share >= 0.95, count slower than densify-and-SpMV."""
    best = np.nanmin(times, axis=1)
    ratio = np.where(np.isfinite(chosen_t), best / chosen_t, 0.0)
    slower = int(np.sum(np.isfinite(densify_t) & ~(chosen_t <= densify_t)))
    return {
        "cases": int(len(ratio)),
        "ratio_geomean": float(np.exp(np.mean(np.log(np.maximum(ratio, 1e-12))))),
        "ratio_min": float(ratio.min()) if len(ratio) else float("nan"),
        "share_at_least_0_95": float(np.mean(ratio >= 0.95)) if len(ratio) else float("nan"),
        "slower_than_densify": slower,
    }


def cross_validate(X, slowdown, times, groups, densify_t, max_depth):
    """Leave-one-matrix-out over depth x min_leaf; returns (params, table)."""
    table = []
    names = sorted(set(groups))
    for depth in range(1, max_depth + 1):
        for min_leaf in (1, 2, 4, 8):
            chosen = np.full(len(X), np.nan)
            for g in names:
                train = np.where(groups != g)[0]
                test = np.where(groups == g)[0]
                if len(train) == 0:
                    continue
                root = grow(X, slowdown, train, 0, depth, min_leaf)
                for i in test:
                    chosen[i] = times[i, predict(root, X[i])]
            chosen = np.where(np.isfinite(chosen), chosen, np.inf)
            s = scores(chosen, times, densify_t)
            leaves = grow(X, slowdown, np.arange(len(X)), 0, depth, min_leaf).leaves()
            table.append({"depth": depth, "min_leaf": min_leaf, "leaves": leaves, **s})
    top = max(t["ratio_geomean"] for t in table)
    near = [t for t in table if t["ratio_geomean"] >= top - 0.002]
    best = min(near, key=lambda t: (t["leaves"], t["depth"], -t["min_leaf"]))
    return best, table


def cpp_double(v):
    text = repr(float(v))
    return text if ("." in text or "e" in text or "inf" in text) else text + ".0"


def emit(node, candidates, indent, out):
    pad = " " * indent
    if node.is_leaf():
        out.append(f'{pad}return "{candidates[node.pick]}";  // {node.count} training cases')
        return
    out.append(f"{pad}if (f.{FEATURES[node.feature]} <= {cpp_double(node.threshold)}) {{")
    emit(node.left, candidates, indent + 2, out)
    out.append(f"{pad}}}")
    emit(node.right, candidates, indent, out)


def comment(lines):
    return [f"// {part}" for line in lines for part in textwrap.wrap(line, 96)]


def write_header(path, trees, candidates, provenance):
    out = [
        "// clang-format off",
        "// GENERATED by bench/selector/train_spmspv.py from hola-spmspv-bench measurements: do",
        "// not edit, retrain. Per-call SpMSpV kernel selection (issue 17, docs/spmspv.md).",
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
        "// The tree's inputs (bench/selector/train_spmspv.py, FEATURES).",
        "struct SpmspvTreeFeatures {",
    ]
    out += [f"  double {name} = 0;" for name in FEATURES]
    out += [
        "};",
        "",
        "inline SpmspvTreeFeatures spmspv_tree_features(std::int64_t nnz_x, std::int64_t "
        "touched_nnz,",
        "                                               std::int64_t matrix_nnz, std::int64_t "
        "n_in,",
        "                                               std::int64_t n_out, bool transpose) {",
        "  auto l2 = [](std::int64_t v) { return std::log2(1.0 + static_cast<double>(v)); };",
        "  SpmspvTreeFeatures f;",
        "  f.log2_nnz_x = l2(nnz_x);",
        "  f.log2_touched_nnz = l2(touched_nnz);",
        "  f.log2_matrix_nnz = l2(matrix_nnz);",
        "  f.log2_n_in = l2(n_in);",
        "  f.log2_n_out = l2(n_out);",
        "  f.touched_fraction = static_cast<double>(touched_nnz) /",
        "                       static_cast<double>(matrix_nnz > 0 ? matrix_nnz : 1);",
        "  f.density = n_in > 0 ? static_cast<double>(nnz_x) / static_cast<double>(n_in) : 0.0;",
        "  f.transpose = transpose ? 1.0 : 0.0;",
        "  return f;",
        "}",
        "",
    ]
    out += comment(["Candidates: " + ", ".join(candidates) + "."])
    for precision, info in trees.items():
        out += comment([f"{precision}: {info['summary']}"])
        out.append(
            f"inline const char* spmspv_tree_pick_{precision}(const SpmspvTreeFeatures& f) {{"
        )
        emit(info["root"], candidates, 2, out)
        out += ["}", ""]
    out.append(
        "// The tree of the precision (nullptr when none was trained for it)."
        if trees
        else "// No tree was trained."
    )
    out.append(
        "inline const char* spmspv_tree_pick(bool single_precision, const SpmspvTreeFeatures& f) {"
    )
    if not trees:
        out += ["  (void)single_precision;", "  (void)f;"]
    for precision in trees:
        test = "single_precision" if precision == "float" else "!single_precision"
        out.append(f"  if ({test}) return spmspv_tree_pick_{precision}(f);")
    out += [
        "  return nullptr;",
        "}",
        "",
        "}  // namespace hola::spmspv::detail",
        "// clang-format on",
    ]
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def tree_json(node, candidates):
    if node.is_leaf():
        return {"pick": candidates[node.pick], "cases": node.count}
    return {
        "feature": FEATURES[node.feature],
        "threshold": node.threshold,
        "left": tree_json(node.left, candidates),
        "right": tree_json(node.right, candidates),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", nargs="+", help="hola-spmspv-bench JSON files (.json or .json.gz)")
    ap.add_argument(
        "--out-header", default=os.path.join(repo_root(), "plugin/src/spmspv_tree_generated.hpp")
    )
    ap.add_argument("--out-json", help="evaluation JSON (cross-validation table, trees)")
    ap.add_argument("--candidates", help="comma-separated candidates (default: all measured)")
    ap.add_argument("--max-depth", type=int, default=6)
    ap.add_argument("--commit", default=None, help="commit recorded in the header")
    args = ap.parse_args()

    cases = read_results(args.results)
    if args.candidates:
        candidates = args.candidates.split(",")
    else:
        candidates = list(dict.fromkeys(n for c in cases for n in c.get("times_ms", {})))
    if not candidates:
        sys.exit("train_spmspv: no timed candidates in the input")
    densify = [i for i, n in enumerate(candidates) if n.startswith("densify_")]
    trees, evaluation = {}, {}
    for precision in sorted({c["precision"] for c in cases}):
        sel = [c for c in cases if c["precision"] == precision and c.get("times_ms")]
        if len(sel) < 4:
            print(f"{precision}: {len(sel)} cases, too few to train; skipped")
            continue
        X = np.array([case_features(c["features"]) for c in sel])
        times = np.array(
            [[c["times_ms"].get(n, np.nan) for n in candidates] for c in sel], dtype=np.float64
        )
        keep = np.isfinite(times).any(axis=1)
        X, times, sel = X[keep], times[keep], [c for c, k in zip(sel, keep) if k]
        best = np.nanmin(times, axis=1, keepdims=True)
        slowdown = np.minimum(
            np.where(np.isfinite(times), times / best, SLOWDOWN_CAP), SLOWDOWN_CAP
        )
        groups = np.array([c["_source"] + ":" + c["matrix"] for c in sel])
        densify_t = np.nanmin(times[:, densify], axis=1) if densify else np.full(len(sel), np.nan)
        if len(set(groups)) < 2:
            print(f"{precision}: one matrix only; cross-validation needs two or more")
            continue
        params, table = cross_validate(X, slowdown, times, groups, densify_t, args.max_depth)
        root = grow(X, slowdown, np.arange(len(X)), 0, params["depth"], params["min_leaf"])
        # The rule of today (the JSON's pick), on the same cases.
        rule_t = np.array([c["times_ms"].get(c.get("pick"), np.inf) for c in sel], dtype=np.float64)
        rule = scores(rule_t, times, densify_t)
        always = {
            n: scores(np.where(np.isfinite(times[:, j]), times[:, j], np.inf), times, densify_t)
            for j, n in enumerate(candidates)
        }
        summary = (
            f"{len(sel)} cases, {len(set(groups))} matrices; depth {params['depth']}, "
            f"min leaf {params['min_leaf']}, {root.leaves()} leaves; leave-one-matrix-out "
            f"ratio to best: geomean {params['ratio_geomean']:.3f}, min {params['ratio_min']:.3f}"
            f", >= 0.95 in {100 * params['share_at_least_0_95']:.0f} %, slower than "
            f"densify-and-SpMV in {params['slower_than_densify']} cases"
        )
        print(f"{precision}: {summary}")
        print(
            f"  rule of today: geomean {rule['ratio_geomean']:.3f}, min {rule['ratio_min']:.3f}, "
            f">= 0.95 in {100 * rule['share_at_least_0_95']:.0f} %, slower than densify "
            f"{rule['slower_than_densify']}"
        )
        for n, s in always.items():
            print(f"  always {n}: geomean {s['ratio_geomean']:.3f}, min {s['ratio_min']:.3f}")
        trees[precision] = {"root": root, "summary": summary}
        evaluation[precision] = {
            "cases": len(sel),
            "matrices": sorted(set(groups)),
            "chosen": params,
            "cv_table": table,
            "rule_of_today": rule,
            "always": always,
            "tree": tree_json(root, candidates),
        }
    if not trees:
        sys.exit("train_spmspv: nothing trained")
    provenance = [
        f"Trained {datetime.date.today().isoformat()} at commit {args.commit or git_commit()} "
        f"from {', '.join(os.path.basename(p) for p in args.results)} "
        f"(GPU: {cases[0].get('_gpu', '?')}).",
    ]
    write_header(args.out_header, trees, candidates, provenance)
    print(f"wrote {args.out_header}")
    if args.out_json:
        with open(args.out_json, "w") as f:
            json.dump(
                {"candidates": candidates, "features": FEATURES, "evaluation": evaluation},
                f,
                indent=1,
            )
        print(f"wrote {args.out_json}")


if __name__ == "__main__":
    main()
