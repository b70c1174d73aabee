"""bench/selector/train_spmspv.py: the selection rule (densify unless a sparse kernel is predicted
faster by the margin), the features against the committed generated header (a changed script
must be followed by a regenerated header), and a training run on made-up results (it writes a
header whose trees reproduce the Python's picks)."""

import json
import math
import os
import random
import re
import sys
import tempfile
import unittest

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "bench", "selector"))
try:
    import numpy  # noqa: F401
except ImportError:
    print("SKIPPED: numpy is not installed")
    sys.exit(77)
import train_spmspv as t  # noqa: E402


def made_up_results(path):
    """Four matrices, two with skewed rows (vector_direct slow there); the sparse kernels cost
    15 us plus work in proportion to x's density and beat densify below a density of about 0.2."""
    rng = random.Random(3)
    matrices, cases = [], []
    for name, n, nnz, max_len, densify_ms in (
        ("flat_a", 10000, 50000, 5, 0.030),
        ("flat_b", 40000, 200000, 9, 0.050),
        ("skewed_a", 20000, 300000, 4000, 0.080),
        ("skewed_b", 60000, 900000, 9000, 0.120),
    ):
        stats = {"rows": n, "nnz": nnz, "min": 0, "max": max_len, "std": max_len / 3.0}
        matrices.append(
            {
                "name": name,
                "precision": "double",
                "structure": {"rows_of_A": stats, "rows_of_At": stats},
                "densify_setup_ms": {"N": densify_ms, "T": densify_ms},
            }
        )
        for op in ("N", "T"):
            for k in range(13):
                nnz_x = max(1, round(10 ** (-k / 2) * n))
                density = nnz_x / n
                sparse = 0.015 + 3 * densify_ms * density
                times = {
                    "matrix_direct": densify_ms * 1.5,
                    "matrix_balanced": densify_ms * 2.0,
                    "vector_direct": sparse * (30 if max_len > 100 else 0.9),
                    "vector_balanced": sparse * 1.1,
                    "densify": densify_ms,
                }
                times = {key: v * rng.uniform(0.98, 1.02) for key, v in times.items()}
                features = {
                    "nnz_x": nnz_x,
                    "touched_nnz": int(nnz_x * nnz / n),
                    "matrix_nnz": nnz,
                    "n_in": n,
                    "n_out": n,
                    "density": density,
                    "allowed_fraction": 1.0,
                    "op": op,
                }
                cases.append(
                    {
                        "matrix": name,
                        "precision": "double",
                        "op": op,
                        "output": "dense",
                        "features": features,
                        "times_ms": times,
                    }
                )
    doc = {"benchmark": "hola-spmspv-bench", "gpu": "made up", "matrices": matrices}
    doc["cases"] = cases
    with open(path, "w") as f:
        json.dump(doc, f)


class SpmspvTrainTest(unittest.TestCase):
    def test_choose_is_densify_unless_predicted_faster_by_the_margin(self):
        rng = random.Random(1)
        for _ in range(2000):
            pred = [rng.uniform(-3, 3) for _ in range(4)]
            available = [rng.random() < 0.7 for _ in range(4)]
            densify = rng.random() < 0.8
            margin = rng.choice(t.MARGINS)
            if not any(available) and not densify:
                continue
            k = t.choose(pred, margin, available, densify)
            least = min((p for p, a in zip(pred, available) if a), default=math.inf)
            if k == len(t.SPARSE):
                self.assertTrue(densify)
                self.assertGreaterEqual(least, -math.log2(margin))
            else:
                self.assertTrue(available[k])
                self.assertEqual(pred[k], least)
                if densify:
                    self.assertLess(pred[k], -math.log2(margin))

    def test_committed_header_has_the_scripts_features(self):
        with open(os.path.join(ROOT, "plugin", "src", "spmspv_tree_generated.hpp")) as f:
            text = f.read()
        struct = re.search(r"struct SpmspvTreeFeatures \{(.*?)\};", text, re.S).group(1)
        fields = re.findall(r"double (\w+) = 0;", struct)
        self.assertEqual(fields, t.FEATURES)
        kernels = re.search(r"kSpmspvTreeKernels\[4\] = \{(.*?)\};", text).group(1)
        self.assertEqual(re.findall(r'"(\w+)"', kernels), t.SPARSE)

    def test_training_writes_trees_that_reproduce_its_picks(self):
        with tempfile.TemporaryDirectory() as d:
            results = os.path.join(d, "results.json")
            made_up_results(results)
            header, cases = os.path.join(d, "tree.hpp"), os.path.join(d, "cases.hpp")
            argv = sys.argv
            sys.argv = [
                "train_spmspv.py",
                results,
                "--out-header",
                header,
                "--out-cases",
                cases,
                "--out-json",
                os.path.join(d, "eval.json"),
                "--commit",
                "test",
            ]
            try:
                t.main()
            finally:
                sys.argv = argv
            with open(os.path.join(d, "eval.json")) as f:
                ev = json.load(f)["evaluation"]["double"]
            # Densify is the default: no held-out case slower than densify beyond the noise.
            self.assertEqual(ev["chosen"]["slower_than_densify_beyond_noise"], 0)
            self.assertGreater(
                ev["chosen"]["ratio_geomean"], ev["baselines"]["always densify"]["ratio_geomean"]
            )
            with open(header) as f:
                text = f.read()
            self.assertIn("spmspv_tree_double_vector_balanced", text)
            with open(cases) as f:
                picks = re.findall(r'"(\w+)"\},', f.read())
            self.assertIn("densify", picks)
            self.assertTrue(any(p != "densify" for p in picks))


if __name__ == "__main__":
    unittest.main()
