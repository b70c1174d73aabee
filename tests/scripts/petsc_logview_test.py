"""bench/petsc_logview.py on made-up -log_view excerpts in PETSc 3.26's layout: events whose
time PETSc prints as n/a (GPU logging off), the solve event, per-call products, and the rule for
iteration counts that differ between the matrix types; the scaling summary (efficiency, ratios,
halo bytes, targets, failed and missing runs) and, where matplotlib is found, its plot."""

import importlib.util
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
        # The solve time per iteration is still given, in the case and in the table.
        ratio = out["cases"]["c"]["ratio"]["solve_s_per_iteration"]
        self.assertIsNotNone(ratio)
        self.assertTrue(any("solve time per iteration" in n for n in out["notes"]), out["notes"])
        table = petsc_logview.format_tutorials(out)
        self.assertIn("solve/it ratio", table)
        row = next(line for line in table.splitlines() if line.startswith("c "))
        self.assertIn(petsc_logview._fmt(ratio), row.split())


def event_line(name, count, time_s, messages=0.0, length=0.0):
    """One event row as PETSc prints it (a build without a device: no GPU columns); time_s None
    gives the n/a row of a GPU run without -log_view_gpu_time."""
    if time_s is None:
        return (
            f"{name:<16} {count:7d} 1.0  n/a     n/a   0.00e+00 0.0 {messages:2.1e} {length:2.1e}"
            " 0.0e+00  0  0  0  0  0   0  0  0  0  0  n/a\n"
        )
    return (
        f"{name:<16} {count:7d} 1.0 {time_s:5.4e} 1.0 1.00e+06 1.0 {messages:2.1e} {length:2.1e}"
        " 0.0e+00  1  2  3  4  5   1  2  3  4  5   100\n"
    )


def scaling_log_view(solve_s, its, ranks, face_bytes, gpu=False, total_s=5.0, hola=False):
    """ex45's events: KSPSolve, MatMult (its + 1 calls; with several ranks each sends one face
    per call), setup, scatters and, for Hola, HolaSetup. gpu: PETSc's n/a times."""
    t = (lambda v: None) if gpu else (lambda v: v)
    calls = its + 1
    messages = calls * ranks if ranks > 1 else 0.0
    rows = [
        event_line("MatMult", calls, t(0.5 * solve_s), messages, face_bytes if messages else 0),
        event_line("KSPSetUp", 1, t(0.01)),
        event_line("PCSetUp", 1, t(0.02)),
        event_line("KSPSolve", 1, solve_s, messages, face_bytes if messages else 0),
    ]
    if ranks > 1:
        rows += [
            event_line("VecScatterBegin", calls, t(0.003), messages, face_bytes),
            event_line("VecScatterEnd", calls, t(0.001)),
        ]
    if hola:
        rows.append(event_line("HolaSetup", 1, t(0.004)))
    return (
        "Using PETSc Release Version 3.26.1, unknown\n"
        f"Time (sec):           {total_s:5.3e}   1.000   {total_s:5.3e}\n"
        "--- Event Stage 0: Main Stage\n\n" + "".join(rows) + FOOTER
    )


class ScalingMetricsTest(unittest.TestCase):
    def test_cpu_times(self):
        m = petsc_logview.scaling_metrics(
            stdout(100), scaling_log_view(2.0, 100, 2, 4608, hola=True), wall_s=7.0, ranks=2
        )
        self.assertEqual(m["iterations"], 100)
        self.assertAlmostEqual(m["solve_s_per_iteration"], 0.02)
        self.assertAlmostEqual(m["outside_solve_s"], 3.0)
        self.assertAlmostEqual(m["setup_s"], 0.03)  # KSPSetUp + PCSetUp
        self.assertAlmostEqual(m["hola_setup_s"], 0.004)  # beside, not added
        self.assertAlmostEqual(m["scatter_s"], 0.004)
        self.assertEqual(m["scatter_count"], 101)
        self.assertEqual(m["matmult_count"], 101)
        self.assertAlmostEqual(m["halo_bytes_per_matmult_per_rank"], 4608.0, delta=0.02 * 4608)

    def test_gpu_times_are_unknown(self):
        m = petsc_logview.scaling_metrics(
            stdout(100), scaling_log_view(2.0, 100, 2, 4608, gpu=True), ranks=2
        )
        self.assertAlmostEqual(m["solve_s"], 2.0)
        for key in ("matmult_s", "setup_s", "scatter_s"):
            self.assertIsNone(m[key], key)
        self.assertAlmostEqual(m["halo_bytes_per_matmult_per_rank"], 4608.0, delta=0.02 * 4608)

    def test_one_rank_sends_nothing(self):
        m = petsc_logview.scaling_metrics(stdout(10), scaling_log_view(1.0, 10, 1, 0), ranks=1)
        self.assertEqual(m["halo_bytes_per_matmult_per_rank"], 0.0)
        self.assertIsNone(m["scatter_s"])


def layout(pci_ids):
    """-mat_hola_view's rank lines of the GPU type, rank r on the GPU with PCI id pci_ids[r]."""
    return "".join(
        f"[{r}] Hola (holaaijcusparse): node gpu07, node-local rank {r} of {len(pci_ids)}:"
        f" GPU {r} (PCI {p}) of {len(pci_ids)} visible; GPU-aware MPI: no\n"
        for r, p in enumerate(pci_ids)
    )


class RankLayoutTest(unittest.TestCase):
    def test_gpus_used(self):
        text = layout(["0000:1B:00.0", "0000:2A:00.0"]) + stdout(10)
        m = petsc_logview.scaling_metrics(text, scaling_log_view(1.0, 10, 2, 64), ranks=2)
        self.assertEqual(m["gpus_used"], 2)
        text = layout(["0000:1B:00.0", "0000:1B:00.0"]) + stdout(10)
        m = petsc_logview.scaling_metrics(text, scaling_log_view(1.0, 10, 2, 64), ranks=2)
        self.assertEqual(m["gpus_used"], 1)
        m = petsc_logview.scaling_metrics(stdout(10), scaling_log_view(1.0, 10, 2, 64), ranks=2)
        self.assertIsNone(m["gpus_used"])


class ScalingSummaryTest(unittest.TestCase):
    """Strong (N^3) and weak (iterations growing with G) series of one solver, two ranks on one
    GPU; hola's KSPSolve times are given per case, the baseline's are 1.25x (strong) or 1.1x."""

    HOLA = {
        "strong_jacobi_g1": (1.0, 100),
        "strong_jacobi_g2": (0.55, 100),
        "weak_jacobi_g1": (1.0, 100),
        "weak_jacobi_g2": (1.6, 150),
        "shared_jacobi_np2": (0.8, 100),
    }

    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def write(self, name, text):
        path = os.path.join(self.dir, name)
        with open(path, "w") as f:
            f.write(text)
        return path

    def tables(self, hola_its=None, failed=(), missing=(), base_factor=1.25, shared_gpu=False):
        cases, runs = [], []
        for name, (solve, its) in self.HOLA.items():
            series, solver, size = name.split("_")
            gpus = int(size[1:]) if size.startswith("g") else 1
            ranks = int(size[2:]) if size.startswith("np") else gpus
            grid = "32 32 32" if series != "weak" else f"32 32 {32 * gpus}"
            cases.append(
                {
                    "case": name,
                    "kind": "tutorial",
                    "ranks": str(ranks),
                    "gpus": str(gpus),
                    "description": name,
                    "command": "ex45 ...",
                    "series": series,
                    "solver": solver,
                    "grid": grid,
                }
            )
            for t, time_s in (("hola", solve), ("base", solve * base_factor)):
                if (name, t) in missing:
                    continue
                n = (hola_its or {}).get(name, its) if t == "hola" else its
                for r in (1, 2, 3):
                    tag = f"{name}-{t}-{r}"
                    # One slow outlier per type: the median must ignore it.
                    scale = 3.0 if r == 2 else 1.0
                    pci = [f"0000:{0 if shared_gpu else i}A:00.0" for i in range(gpus)]
                    text = layout(pci * (ranks // gpus)) if t == "hola" and ranks > 1 else ""
                    out = self.write(f"{tag}.out", f"cmd {tag}\n" + text + stdout(n))
                    view = self.write(
                        f"{tag}.view",
                        scaling_log_view(time_s * scale, n, ranks, 8 * 32 * 32, gpu=True),
                    )
                    rc = "1" if (name, t) in failed and r == 1 else "0"
                    runs.append(
                        {
                            "case": name,
                            "type": t,
                            "repeat": str(r),
                            "rc": rc,
                            "start": "0",
                            "end": "10",
                            "stdout": out,
                            "log_view": view,
                        }
                    )
        return cases, runs

    def summarize(self, allow_missing=False, **kwargs):
        cases, runs = self.tables(**kwargs)
        return petsc_logview.summarize_scaling(
            cases, runs, {"repeats": 3}, ("hola", "base"), allow_missing
        )

    def test_efficiency_and_ratios(self):
        out = self.summarize()
        self.assertTrue(out["ok"], out["failures"])
        strong = out["scaling"]["strong"]["jacobi"]
        self.assertEqual(strong["gpus"], [1, 2])
        self.assertAlmostEqual(strong["efficiency"]["hola"][1], 1.0 / (2 * 0.55), places=3)
        self.assertAlmostEqual(strong["speedup"]["hola"][1], 1.0 / 0.55, places=3)
        weak = out["scaling"]["weak"]["jacobi"]
        self.assertAlmostEqual(weak["efficiency"]["hola"][1], 1.0 / 1.6, places=3)
        # Per iteration: (1.0 / 100) / (1.6 / 150).
        self.assertAlmostEqual(weak["efficiency_per_iteration"]["hola"][1], 0.9375, places=3)
        self.assertEqual(weak["iterations"]["hola"], [100, 150])
        self.assertTrue(any("iterations grow" in n for n in out["notes"]))
        case = out["cases"]["strong_jacobi_g2"]
        self.assertAlmostEqual(case["ratio"]["solve_s"], 0.8)
        # 32 x 32 doubles per face, to two printed digits.
        halo = case["median"]["hola"]["halo_bytes_per_matmult_per_rank"]
        self.assertAlmostEqual(halo, 8192, delta=0.02 * 8192)
        self.assertTrue(case["same_iterations"])
        shared = out["shared"]["jacobi"]
        self.assertEqual(shared["ranks"], [1, 2])
        self.assertAlmostEqual(shared["speedup_vs_one_rank"]["hola"][1], 1.25)
        targets = {t["target"].split(":")[0]: t for t in out["targets"]}
        self.assertTrue(targets["KSPSolve hola / base at every G (strong and weak)"]["met"])
        weak_target = targets["weak jacobi"]
        self.assertAlmostEqual(weak_target["efficiency"]["hola"], 0.625)
        self.assertFalse(weak_target["met"])  # below 85 %
        self.assertTrue(targets["same iterations with both types (every case)"]["met"])
        text = petsc_logview.format_scaling(out)
        self.assertIn("strong_jacobi_g2", text)
        self.assertIn("KiB", text)

    def test_shared_gpu_is_noted(self):
        out = self.summarize()
        self.assertEqual(out["cases"]["strong_jacobi_g2"]["median"]["hola"]["gpus_used"], 2)
        self.assertEqual(out["cases"]["shared_jacobi_np2"]["median"]["hola"]["gpus_used"], 1)
        self.assertFalse(any("rank-to-GPU" in n for n in out["notes"]))
        out = self.summarize(shared_gpu=True)
        self.assertIn(
            "strong_jacobi_g2: the ranks ran on 1 distinct GPU(s), not 2 (-mat_hola_view):"
            " a wrong rank-to-GPU mapping",
            out["notes"],
        )

    def test_ratio_target_not_met(self):
        out = self.summarize(base_factor=1.05)
        t = out["targets"][0]
        self.assertFalse(t["met"])
        self.assertEqual(len(t["not_met_in"]), 4)

    def test_iterations_differ(self):
        out = self.summarize(hola_its={"weak_jacobi_g2": 170})
        self.assertFalse(out["ok"])
        self.assertIn("weak_jacobi_g2: iteration counts differ", out["failures"])
        self.assertFalse(out["cases"]["weak_jacobi_g2"]["same_iterations"])
        self.assertFalse(out["targets"][-1]["met"])

    def test_failed_run(self):
        out = self.summarize(failed={("strong_jacobi_g2", "hola")})
        self.assertFalse(out["ok"])
        self.assertIn("strong_jacobi_g2 hola repeat 1: exit 1", out["failures"])
        # The two good repeats (1.0x and the 3.0x outlier) give the median.
        self.assertAlmostEqual(out["cases"]["strong_jacobi_g2"]["median"]["hola"]["solve_s"], 1.1)

    def test_missing_type(self):
        out = self.summarize(allow_missing=True, missing={("weak_jacobi_g2", "hola")})
        self.assertTrue(out["ok"], out["failures"])
        self.assertIn("weak_jacobi_g2 hola: no runs", out["skipped"])
        self.assertIsNone(out["cases"]["weak_jacobi_g2"]["same_iterations"])
        self.assertIsNone(out["scaling"]["weak"]["jacobi"]["efficiency"]["hola"][1])
        self.assertFalse(out["targets"][-1]["met"])
        petsc_logview.format_scaling(out)
        out = self.summarize(missing={("weak_jacobi_g2", "hola")})
        self.assertFalse(out["ok"])

    @unittest.skipUnless(importlib.util.find_spec("matplotlib"), "matplotlib not installed")
    def test_plot_one_and_two_gpus(self):
        import plot_scaling

        out = self.summarize(allow_missing=True, missing={("weak_jacobi_g2", "hola")})
        png = os.path.join(self.dir, "scaling.png")
        plot_scaling.plot(out, png)
        self.assertGreater(os.path.getsize(png), 1000)


if __name__ == "__main__":
    unittest.main()
