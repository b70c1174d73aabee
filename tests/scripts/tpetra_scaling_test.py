"""bench/tpetra_scaling.py on made-up tpetra_belos result files: strong and weak series by grid
size, medians over repeats, efficiency (also per iteration), runs that forced a kernel or did not
converge left out, and the table."""

import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
import tpetra_scaling  # noqa: E402


def run_file(folder, name, ranks, n, crs, hola, command_extra="", converged=True):
    """One tpetra_belos --output file: CG with CrsMatrix and HolaOperator, (seconds, iterations)."""
    data = {
        "commit": "abc1234",
        "device": "Tpetra node Cuda, NVIDIA H200, CUDA device per rank: 0: 0 (0000:00:06.0)",
        "command": f"tpetra_belos -n {n} --solver cg{command_extra}",
        "problem": f"poisson3d:n={n}",
        "processes": ranks,
        "solves": [
            {"solver": "CG", "operator": "CrsMatrix", "iterations": crs[1], "seconds": crs[0],
             "converged": converged},
            {"solver": "CG", "operator": "HolaOperator", "iterations": hola[1], "seconds": hola[0],
             "converged": converged},
        ],
    }
    path = os.path.join(folder, name)
    with open(path, "w") as f:
        json.dump(data, f)
    return path


class TpetraScalingTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        d = self.tmp.name
        self.files = [
            run_file(d, "g1a.json", 1, 200, (1.0, 100), (0.8, 100)),
            run_file(d, "g1b.json", 1, 200, (1.2, 100), (0.9, 100)),
            run_file(d, "g1c.json", 1, 200, (1.1, 100), (1.0, 100)),
            run_file(d, "g2.json", 2, 200, (0.55, 100), (0.5, 100)),
            run_file(d, "w2.json", 2, 252, (1.1, 110), (1.0, 110)),
            run_file(d, "forced.json", 2, 200, (9.0, 100), (9.0, 100), " -k hola"),
            run_file(d, "diverged.json", 2, 252, (9.0, 999), (9.0, 999), converged=False),
        ]

    def tearDown(self):
        self.tmp.cleanup()

    def test_series_medians_and_efficiency(self):
        out = os.path.join(self.tmp.name, "s")
        self.assertEqual(tpetra_scaling.main(self.files + ["--out", out, "--no-plot"]), 0)
        with open(out + ".json") as f:
            data = json.load(f)
        strong = data["scaling"]["strong"]["jacobi"]
        self.assertEqual(strong["gpus"], [1, 2])
        self.assertEqual(strong["repeats"], [3, 1])  # the forced-kernel run is left out
        self.assertEqual(strong["solve_s"]["CrsMatrix"], [1.1, 0.55])
        self.assertEqual(strong["solve_s"]["HolaOperator"], [0.9, 0.5])
        self.assertAlmostEqual(strong["efficiency"]["CrsMatrix"][1], 1.0)  # 1.1 / (2 * 0.55)
        self.assertAlmostEqual(strong["efficiency"]["HolaOperator"][1], 0.9)
        self.assertAlmostEqual(strong["solve_ratio"][0], 0.8182, places=4)
        weak = data["scaling"]["weak"]["jacobi"]
        self.assertEqual(weak["gpus"], [1, 2])
        self.assertEqual(weak["grid_n"], [200, 252])
        self.assertEqual(weak["repeats"], [3, 1])  # the unconverged run is left out
        self.assertAlmostEqual(weak["efficiency"]["CrsMatrix"][1], 1.0)  # 1.1 / 1.1
        # Per iteration: (1.1 / 100) / (1.1 / 110) = 1.1.
        self.assertAlmostEqual(weak["efficiency_per_iteration"]["CrsMatrix"][1], 1.1)
        with open(out + ".txt") as f:
            text = f.read()
        self.assertIn("strong     2  200^3    1     100/100", text)
        self.assertIn("NVIDIA H200", text)
        self.assertNotIn("CUDA device per rank", text)

    def test_no_runs_is_an_error(self):
        out = os.path.join(self.tmp.name, "none")
        self.assertEqual(tpetra_scaling.main([self.files[5], "--out", out, "--no-plot"]), 1)
        self.assertFalse(os.path.exists(out + ".json"))


if __name__ == "__main__":
    unittest.main()
