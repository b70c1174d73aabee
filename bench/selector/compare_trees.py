#!/usr/bin/env python3
"""Compares generated selector trees on the same measurements: what `auto` would run with each.

Usage:
  python3 bench/selector/compare_trees.py DATA.json[.gz] --eval EVAL.json \
      --trees old=git:HEAD~1 --trees new=plugin/src/selector_tree_generated.cpp \
      [--unseen-by OLD_DATA.json.gz ...] [--out OUT.json]

DATA: a hola-bench run of every candidate (train.py's input). EVAL: a train.py evaluation whose
held-out matrices are scored (without --eval: every matrix of DATA). Each --trees names a
selector_tree_generated.cpp, as a path or as git:REV (that commit's plugin/src copy); it is
built with bench/selector/tree_picks.cpp (g++) and asked for its picks. --unseen-by leaves out
the matrices of another data file (same generator spec, or the same real matrix file name): the
matrices the other trees were trained on, so that neither set of trees is scored on its own
training data.

For each tree set and (precision, op), as train.py scores a tree (harmonic mean of best time /
time of what auto runs; min speedup over cuSPARSE on matrices of >= LARGE_NNZ nonzeros), two
ways: the tree alone (its pair raced with cuSPARSE), and with the plugin's rules after the tree
(plugin/src/selector.cpp: short-row transposes -> scalar, block rows -> inode, merge checked
for the op T of matrices with long rows or long columns, vector-adaptive checked on rows of even length; their
constants read from
plugin/include/hola/selector.hpp), whose kernels all join the check. DATA's merge times of op T
may predate merge's hub columns (session 17). Times come from
DATA only, so the comparison has no run-to-run noise; it says nothing about kernels DATA lacks.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import train  # noqa: E402

ROOT = train.repo_root()
COUNTS = ["rows", "cols", "nnz", "min_row", "max_row", "empty_rows", "std_row", "gini"]
COUNTS += train.STRUCTURE_COUNTS


def selector_constants():
    """kRowGroups... and kShortRowsTranspose... from plugin/include/hola/selector.hpp."""
    text = open(os.path.join(ROOT, "plugin/include/hola/selector.hpp")).read()
    out = {}
    for name, value in re.findall(r"constexpr \w+(?:::\w+)? (k\w+) = ([^;]+);", text):
        shift = re.fullmatch(r"std::int64_t\(1\) << (\d+)", value.strip())
        out[name] = 1 << int(shift.group(1)) if shift else float(value)
    return out


def matrix_key(m):
    """A generated matrix by its spec, a real one by its file name."""
    spec = m.get("spec", m["matrix"])
    return os.path.basename(spec) if "/" in spec else spec


def tree_source(spec, workdir):
    if not spec.startswith("git:"):
        return os.path.abspath(spec)
    rev = spec[4:]
    text = subprocess.run(
        ["git", "-C", ROOT, "show", f"{rev}:plugin/src/selector_tree_generated.cpp"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    path = os.path.join(workdir, f"trees-{re.sub(r'[^A-Za-z0-9]', '_', rev)}.cpp")
    with open(path, "w") as f:
        f.write(text)
    return path


def tree_picks(source, matrices, workdir, label):
    exe = os.path.join(workdir, f"tree_picks_{label}")
    subprocess.run(
        [
            "g++",
            "-O1",
            "-std=c++17",
            f"-I{ROOT}/plugin/src",
            f"-I{ROOT}/kernels/include",
            f"{ROOT}/bench/selector/tree_picks.cpp",
            source,
            "-o",
            exe,
        ],
        check=True,
    )
    # Matrices by their position (names may hold spaces), picks by name.
    names = list(matrices)
    lines = "".join(
        " ".join([str(i)] + [repr(matrices[n][k]) for k in COUNTS]) + "\n"
        for i, n in enumerate(names)
    )
    out = subprocess.run([exe], input=lines, check=True, capture_output=True, text=True).stdout
    picks = {}
    for line in out.splitlines():
        i, precision, op, first, second = line.split()
        picks[(names[int(i)], precision, op)] = (first, second)
    return picks


def with_rules(first, second, op, m, k):
    """The kernels the plugin's check races (first is what runs without it), after the rules."""
    runs = [first, second]
    same = m["neighbor_same"] / m["nnz"] if m["nnz"] else 0.0
    if (
        op == "T"
        and first != "scalar"
        and m["max_row"] <= k["kShortRowsTransposeMaxRow"]
        and m["nnz"] >= k["kShortRowsTransposeMinNnz"]
    ):
        runs = ["scalar"] + runs
    min_same = k["kRowGroupsMinSameFractionN"] if op == "N" else k["kRowGroupsMinSameFraction"]
    if (
        same >= min_same
        and runs[0] != "inode"
        and (op == "N" or m["nnz"] >= k["kRowGroupsTransposeMinNnz"])
    ):
        runs = ["inode"] + runs  # the tree's pick and runner-up stay in the check
    rows, cols = m.get("rows", 0), m.get("cols", 0)
    long_rows = (
        rows > 0
        and m["nnz"] >= k["kHubCheckMinNnz"]
        and m["max_row"] >= k["kHubCheckMinMaxRow"]
        and m["max_row"] >= k["kHubCheckRowsOverMean"] * m["nnz"] / rows
    )
    long_columns = (
        rows > 0
        and cols > 0
        and m["nnz"] / cols >= k["kHubCheckMinMaxRow"]
        and m["nnz"] / cols >= k["kHubCheckRowsOverMean"] * m["nnz"] / rows
    )
    if op == "T" and (long_rows or long_columns):
        runs = runs + ["merge"]  # checked beside the pick (hub columns), never first
    if (
        rows > 0
        and m["nnz"] >= k["kEvenRowsCheckMinNnz"]
        and m["nnz"] / rows
        >= k["kEvenRowsCheckMinMeanTranspose" if op == "T" else "kEvenRowsCheckMinMean"]
        and m["max_row"] <= k["kEvenRowsCheckMaxOverMean"] * m["nnz"] / rows
    ):
        runs = runs + ["vector-adaptive"]  # rows of even length: checked beside the pick
    return list(dict.fromkeys(r for r in runs if r in train.CANDIDATES))


def score(names, times, nnz, runs_of):
    """(hmean, min large, per-matrix time) of the race of each matrix's runs and cuSPARSE."""
    got = []
    for i, name in enumerate(names):
        idx = [train.CANDIDATES.index(r) for r in runs_of(name)]
        fastest = min(times[i, j] for j in idx)
        got.append(train.race(np.array(fastest), np.array(times[i, train.BASE_INDEX])))
    got = np.array(got, dtype=np.float64)
    hmean, min_large, _, _ = train.metrics(got, times, nnz)
    return hmean, min_large, got


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data")
    ap.add_argument("--eval", help="train.py evaluation: score its held-out matrices only")
    ap.add_argument("--trees", action="append", required=True, help="LABEL=PATH or LABEL=git:REV")
    ap.add_argument("--unseen-by", action="append", default=[], help="leave out its matrices")
    ap.add_argument("--out", help="write the comparison as JSON")
    args = ap.parse_args()
    dataset = train.Dataset([args.data])
    held = None
    if args.eval:
        ev = json.load(open(args.eval))
        held = {r["matrix"] for c in ev["combos"].values() for r in c.get("per_matrix", [])}
    seen = set()
    for path in args.unseen_by:
        seen |= {matrix_key(m) for m in train.read_json(path)["matrices"]}
    if seen:
        unseen = {n for n, m in dataset.matrices.items() if matrix_key(m) not in seen}
        held = unseen if held is None else held & unseen
    k = selector_constants()
    report = {
        "data": os.path.basename(args.data),
        "eval": args.eval,
        "unseen_by": [os.path.basename(p) for p in args.unseen_by],
        "trees": {},
        "combos": {},
    }
    with tempfile.TemporaryDirectory() as workdir:
        picks = {}
        for spec in args.trees:
            label, _, source = spec.partition("=")
            report["trees"][label] = source
            picks[label] = tree_picks(
                tree_source(source, workdir), dataset.matrices, workdir, label
            )
    for (precision, op), (names, times) in sorted(dataset.tables.items()):
        keep = [i for i, n in enumerate(names) if held is None or n in held]
        names = [names[i] for i in keep]
        times = times[keep]
        nnz = dataset.nnz(names)
        combo = {}
        per_label = {}
        for label, p in picks.items():
            alone = score(names, times, nnz, lambda n: list(p[(n, precision, op)]))
            ruled = score(
                names,
                times,
                nnz,
                lambda n: with_rules(*p[(n, precision, op)], op, dataset.matrices[n], k),
            )
            per_label[label] = ruled[2]
            combo[label] = {
                "tree_alone_oracle_ratio_hmean": alone[0],
                "tree_alone_min_speedup_vs_cusparse_large": alone[1],
                "with_rules_oracle_ratio_hmean": ruled[0],
                "with_rules_min_speedup_vs_cusparse_large": ruled[1],
            }
            print(
                f"{precision}-{op} {label:8s} n {len(names)}: tree alone {alone[0]:.3f} "
                f"(min {alone[1]:.3f}x cuSPARSE large), with the rules {ruled[0]:.3f} "
                f"(min {ruled[1]:.3f}x)"
            )
        labels = list(picks)
        if len(labels) == 2:
            a, b = (per_label[x] for x in labels)
            ratio = a / b
            diff = [
                {"matrix": names[i], "nnz": int(nnz[i]), f"{labels[0]}_over_{labels[1]}": ratio[i]}
                for i in np.argsort(ratio)
                if abs(ratio[i] - 1) > 0.02
            ]
            combo["differences"] = diff
            print(
                f"  matrices where {labels[0]}'s time differs by > 2 %: {len(diff)} "
                f"({sum(d[f'{labels[0]}_over_{labels[1]}'] < 1 for d in diff)} faster)"
            )
        report["combos"][f"{precision}-{op}"] = combo
    if args.out:
        with open(args.out, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
