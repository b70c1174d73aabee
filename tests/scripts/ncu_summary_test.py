"""bench/ncu_summary.py on a made-up profile file: the launches of the last product found after
setup launches and a warm-up, sums and time-weighted means over a two-launch product, units
converted, the floor from hola-bench's JSON, auto's pick, and a run without launches reported."""

import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
import ncu_summary  # noqa: E402

HEADER = ('"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream",'
          '"Block Size","Grid Size","Device","CC","Section Name","Metric Name","Metric Unit",'
          '"Metric Value"\n')


def launch_rows(launch_id, name, metrics):
    rows = []
    for metric, unit, value in metrics:
        rows.append(f'"{launch_id}","1","hola-bench","host","{name}","1","13","(256, 1, 1)",'
                    f'"(100, 1, 1)","0","9.0","Command line profiler metrics","{metric}",'
                    f'"{unit}","{value}"\n')
    return rows


def kernel_metrics(time_ns, read_bytes, dram_pct, occupancy):
    return [("gpu__time_duration.sum", "ns", f"{time_ns:,}"),
            ("dram__bytes_read.sum", "byte", f"{read_bytes:,}"),
            ("dram__bytes_write.sum", "Kbyte", "1.00"),
            ("dram__throughput.avg.pct_of_peak_sustained_elapsed", "%", str(dram_pct)),
            ("sm__warps_active.avg.pct_of_peak_sustained_active", "%", str(occupancy)),
            ("l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "sector", "400"),
            ("l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", "", "100"),
            ("launch__registers_per_thread", "register/thread", "40")]


SETUP = "void hola::cuda::features::row_stats_kernel<int>(const int *, long)"
SCALE = "void hola::cuda::scale_output_kernel<double>(double *, long)"
SPMV = "void hola::cuda::rowwise::scalar_rows_kernel<true, double, int, int>(RowArgs<double>)"


def profile_text():
    lines = ["== poisson3d:n=10 double auto T\n",
             "==PROF== Connected to process 1 (hola-bench)\n", HEADER]
    ids = iter(range(100))
    # Setup, then the warm-up product (scale + scatter), then the timed product.
    lines += launch_rows(next(ids), SETUP, kernel_metrics(5000, 10, 1, 10))
    for _ in range(2):
        lines += launch_rows(next(ids), SCALE, kernel_metrics(1000, 100, 20, 50))
        lines += launch_rows(next(ids), SPMV, kernel_metrics(3000, 900, 60, 90))
    lines.append("==PROF== Disconnected from process 1\n")
    lines += ["== circuit double cusparse N\n", "==ERROR== the program crashed\n"]
    return "".join(lines)


class NcuSummaryTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.csv = os.path.join(self.dir.name, "ncu.csv")
        with open(self.csv, "w", encoding="utf-8") as f:
            f.write(profile_text())
        bench = {"results": [
            {"kernel": "cusparse", "rows": 1000, "cols": 1000, "nnz": 7000, "note": ""},
            {"kernel": "auto", "rows": 1000, "cols": 1000, "nnz": 7000, "note": "chose scalar"}]}
        with open(os.path.join(self.dir.name, "profile-poisson3d_n_10-double-auto-T.json"), "w",
                  encoding="utf-8") as f:
            json.dump(bench, f)

    def tearDown(self):
        self.dir.cleanup()

    def test_product_of_the_last_repetition(self):
        table = ncu_summary.summarize(ncu_summary.parse(self.csv), self.dir.name)
        self.assertEqual(len(table), 2)
        row = table[0]
        self.assertEqual(row["launches"], ["scale_output_kernel", "scalar_rows_kernel"])
        self.assertAlmostEqual(row["gpu__time_duration.sum"], 4.0)  # µs: 1000 + 3000 ns
        self.assertAlmostEqual(row["dram__bytes_read.sum"], 1000.0)
        self.assertAlmostEqual(row["dram__bytes_write.sum"], 2000.0)  # 1 Kbyte per launch
        # Time-weighted: (20 * 1 + 60 * 3) / 4 and (50 * 1 + 90 * 3) / 4.
        self.assertAlmostEqual(row["dram__throughput.avg.pct_of_peak_sustained_elapsed"], 50.0)
        self.assertAlmostEqual(row["sm__warps_active.avg.pct_of_peak_sustained_active"], 80.0)
        self.assertEqual(row["main_kernel"], "scalar_rows_kernel")
        self.assertEqual(row["chose"], "scalar")
        # 7000 * (8 + 4) + 1001 * 4 + 2000 * 8
        self.assertEqual(row["floor_bytes"], 7000 * 12 + 1001 * 4 + 2000 * 8)

    def test_run_without_launches_is_an_error(self):
        table = ncu_summary.summarize(ncu_summary.parse(self.csv), None)
        self.assertIn("error", table[1])
        out = io.StringIO()
        ncu_summary.print_table(table, out)
        self.assertIn("no kernel launches profiled", out.getvalue())
        self.assertIn("scalar_rows_kernel", out.getvalue())

    def test_kernel_picked_by_auto_beforehand(self):
        # The same product, profiled by the name of the kernel auto chose in a plain run.
        with open(self.csv, "w", encoding="utf-8") as f:
            f.write(profile_text().replace("== poisson3d:n=10 double auto T",
                                           "== poisson3d:n=10 double scalar T auto"))
        with open(os.path.join(self.dir.name, "profile-poisson3d_n_10-double-scalar-T.json"), "w",
                  encoding="utf-8") as f:
            json.dump({"results": [{"kernel": "scalar", "rows": 1000, "cols": 1000, "nnz": 7000,
                                    "note": ""}]}, f)
        table = ncu_summary.summarize(ncu_summary.parse(self.csv), self.dir.name)
        self.assertEqual((table[0]["kernel"], table[0]["chose"]), ("auto", "scalar"))
        self.assertEqual(table[0]["nnz"], 7000)
        self.assertEqual(table[1]["kernel"], "cusparse")
        out = io.StringIO()
        ncu_summary.print_table(table, out)
        self.assertIn("auto->scalar", out.getvalue())

    def test_main_prints_and_records_the_meta(self):
        out_json = os.path.join(self.dir.name, "profile.json")
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            status = ncu_summary.main(
                [self.csv, "--bench-json-dir", self.dir.name, "--json", out_json,
                 "--meta", "commit=abc123", "--meta", "device=NVIDIA H200"]
            )
        self.assertEqual(status, 1)  # the second run profiled no launch
        lines = printed.getvalue().splitlines()
        self.assertEqual(lines[0], "# commit=abc123, device=NVIDIA H200")
        self.assertTrue(lines[1].startswith("matrix  prec  op"))
        with open(out_json, encoding="utf-8") as f:
            self.assertEqual(json.load(f)["meta"], {"commit": "abc123", "device": "NVIDIA H200"})

    def test_short_names(self):
        self.assertEqual(ncu_summary.short_name(SPMV), "scalar_rows_kernel")
        self.assertEqual(ncu_summary.short_name("csrmv_v3_kernel"), "csrmv_v3_kernel")


if __name__ == "__main__":
    unittest.main()
