"""bench/selector/compare_trees.py: the plugin's rules as the script mirrors them (the constants
read from plugin/include/hola/selector.hpp, which kernels the check then races), the race's cost,
and a whole run on a made-up data file with two copies of the committed trees (built with g++),
which must score the same."""

import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

try:
    import numpy  # noqa: F401
except ImportError:
    print("SKIPPED: numpy is not installed")
    sys.exit(77)

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "bench", "selector"))
import compare_trees as ct  # noqa: E402
import train  # noqa: E402

K = ct.selector_constants()


def matrix(nnz, max_row, same):
    return {"nnz": nnz, "max_row": max_row, "neighbor_same": int(same * nnz)}


class RulesTest(unittest.TestCase):
    def test_constants_are_read(self):
        for name in ("kRowGroupsMinSameFraction", "kRowGroupsMinSameFractionN"):
            self.assertTrue(0 < K[name] <= 1, name)
        for name in ("kShortRowsTransposeMinNnz", "kRowGroupsTransposeMinNnz"):
            self.assertEqual(K[name] & (K[name] - 1), 0, name)  # 1 << n in the header
        self.assertGreaterEqual(K["kShortRowsTransposeMaxRow"], 1)

    def test_block_rows_take_inode_before_the_trees_pick(self):
        big = 4 * K["kRowGroupsTransposeMinNnz"]
        runs = ct.with_rules("hola", "merge", "N", matrix(big, 81, 0.9), K)
        self.assertEqual(runs, ["inode", "hola", "merge"])  # the tree's two stay, as in C++
        self.assertEqual(
            ct.with_rules("inode", "hola", "N", matrix(big, 81, 0.9), K), ["inode", "hola"]
        )
        # op N needs the larger fraction; op T needs enough nonzeros
        n_only = (K["kRowGroupsMinSameFraction"] + K["kRowGroupsMinSameFractionN"]) / 2
        self.assertEqual(ct.with_rules("hola", "merge", "N", matrix(big, 81, n_only), K)[0], "hola")
        self.assertEqual(
            ct.with_rules("hola", "merge", "T", matrix(big, 81, n_only), K)[0], "inode"
        )
        small = K["kRowGroupsTransposeMinNnz"] // 2
        self.assertEqual(ct.with_rules("hola", "merge", "T", matrix(small, 81, 0.9), K)[0], "hola")

    def test_short_row_transposes_take_scalar(self):
        big = 2 * K["kShortRowsTransposeMinNnz"]
        short = K["kShortRowsTransposeMaxRow"]
        self.assertEqual(
            ct.with_rules("hola", "merge", "T", matrix(big, short, 0), K),
            ["scalar", "hola", "merge"],
        )
        self.assertEqual(
            ct.with_rules("hola", "merge", "T", matrix(big, short + 1, 0), K), ["hola", "merge"]
        )
        self.assertEqual(
            ct.with_rules("hola", "merge", "N", matrix(big, short, 0), K), ["hola", "merge"]
        )
        # then block rows: inode, raced against scalar
        self.assertEqual(
            ct.with_rules("hola", "merge", "T", matrix(big, short, 0.9), K),
            ["inode", "scalar", "hola", "merge"],
        )

    def test_long_rows_add_merge_to_the_transpose_check(self):
        big = 2 * K["kHubCheckMinNnz"]
        rows = big // 16
        longest = max(K["kHubCheckMinMaxRow"], int(K["kHubCheckRowsOverMean"] * 16))
        long_rows = dict(matrix(big, longest, 0), rows=rows)
        self.assertEqual(
            ct.with_rules("cusparse", "hola", "T", long_rows, K), ["cusparse", "hola", "merge"]
        )
        self.assertEqual(ct.with_rules("cusparse", "hola", "N", long_rows, K), ["cusparse", "hola"])
        self.assertEqual(ct.with_rules("merge", "hola", "T", long_rows, K), ["merge", "hola"])
        even = dict(matrix(big, longest - 1, 0), rows=rows)
        self.assertEqual(ct.with_rules("cusparse", "hola", "T", even, K), ["cusparse", "hola"])
        small = dict(matrix(K["kHubCheckMinNnz"] - 1, longest, 0), rows=rows)
        self.assertEqual(ct.with_rules("cusparse", "hola", "T", small, K), ["cusparse", "hola"])
        one_column = dict(matrix(1000, 1, 0), rows=1000, cols=1)
        self.assertEqual(
            ct.with_rules("inode", "cusparse", "T", one_column, K), ["inode", "cusparse", "merge"]
        )
        square = dict(matrix(8000, 8, 0), rows=1000, cols=1000)
        self.assertEqual(ct.with_rules("inode", "cusparse", "T", square, K), ["inode", "cusparse"])

    def test_even_rows_add_vector_adaptive_to_the_check(self):
        big = 4 * K["kEvenRowsCheckMinNnz"]
        rows = big // 27
        stencil = dict(matrix(big, 27, 0), rows=rows)
        for op in ("N", "T"):
            self.assertEqual(
                ct.with_rules("hola", "cusparse", op, stencil, K),
                ["hola", "cusparse", "vector-adaptive"],
            )
            self.assertEqual(
                ct.with_rules("vector-adaptive", "hola", op, stencil, K),
                ["vector-adaptive", "hola"],
            )
        uneven = dict(matrix(big, int(K["kEvenRowsCheckMaxOverMean"] * 27) + 1, 0), rows=rows)
        self.assertEqual(ct.with_rules("hola", "cusparse", "N", uneven, K), ["hola", "cusparse"])
        short = dict(matrix(big, 7, 0), rows=big // 7)
        self.assertEqual(ct.with_rules("hola", "cusparse", "N", short, K), ["hola", "cusparse"])
        # Op T takes rows as short as kEvenRowsCheckMinMeanTranspose (the windows' bands); there
        # the short-rows rule puts scalar first.
        self.assertEqual(
            ct.with_rules("hola", "cusparse", "T", short, K),
            ["scalar", "hola", "cusparse", "vector-adaptive"],
        )
        shorter = dict(matrix(big, 3, 0), rows=big // 3)
        self.assertEqual(
            ct.with_rules("hola", "cusparse", "T", shorter, K), ["scalar", "hola", "cusparse"]
        )
        small_nnz = K["kEvenRowsCheckMinNnz"] - 27
        small = dict(matrix(small_nnz, 27, 0), rows=small_nnz // 27)
        self.assertEqual(ct.with_rules("hola", "cusparse", "N", small, K), ["hola", "cusparse"])


class WholeRunTest(unittest.TestCase):
    @unittest.skipUnless(shutil.which("g++"), "no g++")
    def test_same_trees_score_the_same(self):
        kernels = train.CANDIDATES
        matrices, results = [], []
        shapes = [  # rows, nnz, max_row, neighbor_same
            (1000, 5000, 5, 0),
            (200000, 5600000, 28, 4200000),
            (50000, 2000000, 900, 0),
        ]
        for i, (rows, nnz, max_row, same) in enumerate(shapes):
            name = f"m{i}"
            matrices.append(
                {
                    "matrix": name,
                    "spec": f"made-up:{i}",
                    "rows": rows,
                    "cols": rows,
                    "nnz": nnz,
                    "min_row": 1,
                    "max_row": max_row,
                    "empty_rows": 0,
                    "std_row": 1.5,
                    "gini": 0.1,
                    "group_slots": nnz + rows,
                    "row_near": nnz // 2,
                    "neighbor_near": nnz // 2,
                    "neighbor_mid": nnz // 2,
                    "neighbor_same": same,
                }
            )
            for precision in ("double", "float"):
                for op in ("N", "T"):
                    for j, k in enumerate(kernels):
                        results.append(
                            {
                                "matrix": name,
                                "precision": precision,
                                "op": op,
                                "kernel": k,
                                "correct": True,
                                "time_ms": 1.0 + 0.1 * ((i + j) % len(kernels)),
                            }
                        )
        work = tempfile.mkdtemp()
        try:
            data = os.path.join(work, "data.json.gz")
            with gzip.open(data, "wt") as f:
                json.dump(
                    {
                        "device": "made up",
                        "commit": "abc",
                        "command": "none",
                        "matrices": matrices,
                        "results": results,
                    },
                    f,
                )
            trees = os.path.join(ROOT, "plugin", "src", "selector_tree_generated.cpp")
            out = os.path.join(work, "out.json")
            subprocess.run(
                [
                    sys.executable,
                    os.path.join(ROOT, "bench", "selector", "compare_trees.py"),
                    data,
                    "--trees",
                    f"a={trees}",
                    "--trees",
                    f"b={trees}",
                    "--out",
                    out,
                ],
                check=True,
                capture_output=True,
            )
            with open(out) as f:
                report = json.load(f)
        finally:
            shutil.rmtree(work)
        self.assertEqual(sorted(report["combos"]), ["double-N", "double-T", "float-N", "float-T"])
        for combo in report["combos"].values():
            self.assertEqual(combo["a"], combo["b"])
            self.assertEqual(combo["differences"], [])
            self.assertTrue(0 < combo["a"]["with_rules_oracle_ratio_hmean"] <= 1)


if __name__ == "__main__":
    unittest.main()
