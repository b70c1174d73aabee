"""bench/selector/calibration_cost.py on a made-up sweep whose calibration cost is worked out by
hand: warm-up calls at the first probe, the screen (4x the fastest so far, densify's setup time
included), 4 more calls for the survivors, the stop rule (4x densify), and the two variants."""

import gzip
import io
import json
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench", "selector"))
import calibration_cost as cc  # noqa: E402

TIMES = {"vector_balanced": 0.01, "vector_direct": 0.02, "matrix_balanced": 1.0,
         "matrix_direct": 5.0, "densify": 0.5}


def sweep(outputs=("dense",)):
    cases = []
    for output in outputs:
        for density, nnz_x in ((1e-5, 1), (1e-3, 10), (1e-1, 100), (1.0, 1000)):
            cases.append({"matrix": "m", "precision": "double", "op": "N", "output": output,
                          "density_requested": density, "features": {"nnz_x": nnz_x},
                          "times_ms": dict(TIMES)})
        # a masked case and one without densify: both left out
        cases.append(dict(cases[-1], mask_allowed=0.5))
        cases.append({**cases[-2], "density_requested": 0.5, "times_ms": {"matrix_direct": 1}})
    return {"commit": "abc", "gpu": "made up", "cases": cases,
            "matrices": [{"name": "m", "precision": "double", "densify_setup_ms": {"N": 0.5}}]}


class CalibrationCostTest(unittest.TestCase):
    def test_implemented(self):
        # First probe: warm-up + screen each (6.53 + 6.53), 4 more calls of the two vector
        # kernels (0.04 + 0.08); matrix_direct (5 > 4 x 0.5) is stopped there. Each later probe:
        # 0.05 + 0.10 + 1 + 0.5.
        self.assertAlmostEqual(cc.estimate(sweep())[("m", "double")], 13.18 + 3 * 1.65)

    def test_repeat_short(self):
        # vector_direct's 0.02 ms calls are no longer repeated.
        self.assertAlmostEqual(cc.estimate(sweep(), short_ms=0.015)[("m", "double")],
                               13.10 + 3 * 1.57)

    def test_warm_once(self):
        two = sweep(("dense", "sparse"))
        self.assertAlmostEqual(cc.estimate(two)[("m", "double")], 2 * 18.13)
        self.assertAlmostEqual(cc.estimate(two, warm_once=True)[("m", "double")], 18.13 + 11.60)

    def test_main_reads_gzip(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "sweep.json.gz")
            with gzip.open(path, "wt") as f:
                json.dump(sweep(), f)
            out = io.StringIO()
            with redirect_stdout(out):
                self.assertEqual(cc.main(["x", path, "--short-ms", "0.015"]), 0)
        text = out.getvalue()
        self.assertIn("implemented: min 18.1", text)
        self.assertIn("repeat short (< 0.015 ms): min 17.8", text)


if __name__ == "__main__":
    unittest.main()
