"""bench/plot.py on a made-up hola-bench file: the speedup distribution's numbers, the three
plots written, --kernels refusing a kernel the file does not have. Exits 77 (skipped) without
matplotlib."""
import gzip
import json
import os
import subprocess
import sys
import tempfile
import unittest

try:
    import matplotlib  # noqa: F401
except ImportError:
    print("plot_test: python3 has no matplotlib")
    sys.exit(77)

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "bench"))
import plot  # noqa: E402


def result(matrix, kernel, op, ms, nnz=10000):
    return {
        "matrix": matrix,
        "family": matrix.split("-")[0],
        "kernel": kernel,
        "op": op,
        "precision": "double",
        "time_ms": ms,
        "correct": True,
        "nnz": nnz,
        "pct_floor": 50.0,
        "speedup_vs_cusparse": 0.0,
    }


def made_up_file():
    times = {
        ("poisson-1", "N"): {"cusparse": 2.0, "auto": 1.0, "hola": 0.8},
        ("rmat-2", "N"): {"cusparse": 1.0, "auto": 2.0, "hola": 4.0},
        ("poisson-1", "T"): {"cusparse": 3.0, "auto": 1.5, "hola": 1.5},
        ("rmat-3", "T"): {"cusparse": 1.0, "hola": 0.5},
    }  # no auto: left out
    rows = []
    for (matrix, op), ks in times.items():
        for kernel, ms in ks.items():
            r = result(matrix, kernel, op, ms)
            r["speedup_vs_cusparse"] = ks["cusparse"] / ms
            rows.append(r)
    return {"device": "made-up GPU", "commit": "0123456789abcdef", "results": rows}


class PlotTest(unittest.TestCase):
    def test_distribution_of_auto_and_the_fastest(self):
        _, rows = plot.load_data(made_up_file())
        d = plot.speedup_distribution(rows)
        self.assertEqual(sorted(d), [("double", "N"), ("double", "T")])
        self.assertEqual(d[("double", "N")]["auto"], [0.5, 2.0])
        self.assertEqual(d[("double", "N")]["fastest"], [1.0, 2.5])
        self.assertEqual(d[("double", "T")]["auto"], [2.0])
        self.assertAlmostEqual(plot.hmean([0.5, 2.0]), 0.8)

    def test_writes_three_plots_and_refuses_unknown_kernels(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "bench.json.gz")
            with gzip.open(path, "wt") as f:
                json.dump(made_up_file(), f)
            script = os.path.join(ROOT, "bench", "plot.py")
            done = subprocess.run(
                [sys.executable, script, path, "--kernels", "auto"],
                capture_output=True,
                text=True,
                check=True,
            )
            for kind in ("speedup", "floor", "distribution"):
                png = os.path.join(tmp, f"bench-{kind}.png")
                self.assertIn(png, done.stdout)
                self.assertGreater(os.path.getsize(png), 1000)
            bad = subprocess.run(
                [sys.executable, script, path, "--kernels", "nosuch"],
                capture_output=True,
                text=True,
            )
            self.assertNotEqual(bad.returncode, 0)
            self.assertIn("no results of nosuch", bad.stderr)


if __name__ == "__main__":
    unittest.main()
