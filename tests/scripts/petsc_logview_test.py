"""bench/petsc_logview.py on made-up -log_view excerpts in PETSc 3.26's layout: events whose
time PETSc prints as n/a (GPU logging off), the solve event, per-call products, and the rule for
iteration counts that differ between the matrix types."""

import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
import petsc_logview  # noqa: E402

HEADER = """Using PETSc Release Version 3.26.1, unknown
Time (sec):           1.000e+01   1.000   1.000e+01
--- Event Stage 0: Main Stage

"""
FOOTER = "-" * 90 + "\n"


def log_view(solve_s, matmult_count, matmult_s="n/a"):
    na = matmult_s == "n/a"
    matmult = (
        f"MatMult              {matmult_count} 1.0  {matmult_s}     {'n/a' if na else '1.0'}   "
        "1.82e+10 1.0 6.5e+02 3.2e+05 0.0e+00  4 52 99 100  0   4 52 99 100  0  n/a    n/a     "
        "330 4.72e+02  327 1.05e+02 100\n"
    )
    return (
        HEADER + "HolaSetup              2 1.0  n/a     n/a   0.00e+00 0.0 0.0e+00 0.0e+00 0.0e+00"
        "  0  0  0  0  0   0  0  0  0  0  n/a    n/a       0 0.00e+00    0 0.00e+00  0\n"
        + matmult
        + f"KSPSolve               1 1.0 {solve_s:.4e} 1.0 3.52e+10 1.0 6.5e+02 3.2e+05"
        " 9.8e+02 13 100 98 99 95  13 100 98 99 97 74016    n/a     333 5.99e+02  327 1.36e+02"
        " 100\n" + FOOTER
    )


def stdout(its):
    return f"  Linear solve converged due to CONVERGED_RTOL iterations {its}\n"


class LogViewTest(unittest.TestCase):
    def test_na_times_stay_unknown(self):
        m = petsc_logview.run_metrics(stdout(326), log_view(0.95, 327), wall_s=8.0)
        self.assertAlmostEqual(m["solve_s"], 0.95)
        self.assertEqual(m["matmult_count"], 327)
        self.assertIsNone(m["matmult_s"])
        self.assertIsNone(m["matmult_us_per_call"])
        self.assertIsNone(m["setup_s"]["HolaSetup"])
        self.assertEqual(m["linear_iterations"], [326])

    def test_times_when_printed(self):
        m = petsc_logview.run_metrics(stdout(10), log_view(0.5, 100, "2.0000e-01"))
        self.assertAlmostEqual(m["matmult_us_per_call"], 2000.0)


class TutorialSummaryTest(unittest.TestCase):
    def summarize(self, hola_its, base_its):
        d = tempfile.mkdtemp()
        cases = [
            {
                "case": "c",
                "kind": "ksp",
                "ranks": "1",
                "gpus": "1",
                "description": "d",
                "command": "cmd",
            }
        ]
        runs = []
        for t, its_list in (("hola", hola_its), ("base", base_its)):
            for r, its in enumerate(its_list, 1):
                out, view = os.path.join(d, f"{t}{r}.out"), os.path.join(d, f"{t}{r}.view")
                with open(out, "w") as f:
                    f.write(stdout(its))
                with open(view, "w") as f:
                    f.write(log_view(1.0, its + 1))
                runs.append(
                    {
                        "case": "c",
                        "type": t,
                        "repeat": str(r),
                        "rc": "0",
                        "start": "0",
                        "end": "2",
                        "stdout": out,
                        "log_view": view,
                    }
                )
        return petsc_logview.summarize_tutorials(cases, runs, {}, types=("hola", "base"))

    def test_same_iterations(self):
        out = self.summarize([100, 100, 100], [100, 100, 100])
        self.assertTrue(out["ok"])
        self.assertTrue(out["cases"]["c"]["same_iterations"])

    def test_small_difference_is_a_note(self):
        out = self.summarize([1010, 1010, 1010], [1000, 1000, 1000])
        self.assertTrue(out["ok"], out["failures"])
        self.assertFalse(out["cases"]["c"]["same_iterations"])
        self.assertEqual(len(out["notes"]), 1)

    def test_large_difference_fails(self):
        out = self.summarize([1100, 1100, 1100], [1000, 1000, 1000])
        self.assertFalse(out["ok"])
        self.assertIn("c: iteration counts differ", out["failures"])


if __name__ == "__main__":
    unittest.main()
