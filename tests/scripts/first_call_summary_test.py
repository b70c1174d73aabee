"""bench/first_call_summary.py on made-up hola-first-call lines: runs grouped by commit, matrix,
kernel, check and pre-steps; medians of the setup, its steps and the products; lines without the
setup steps (older tool) and blank lines accepted."""

import io
import json
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
import first_call_summary  # noqa: E402


def line(commit, kernel, setup, analyze=None, pre=False, products=(5.0, 0.3, 0.2, 0.2)):
    d = {"commit": commit + "0" * 33, "matrix": "poisson3d:n=22", "kernel": kernel,
         "check": True, "setup_ms": setup, "product_ms": list(products),
         "steady_product_ms": 0.2, "check_excess_ms": 4.9, "pre_steps": pre}
    if analyze is not None:
        d["setup_steps_ms"] = {"analyze": analyze, "choose": 1.0, "prepare": 0.0}
    if pre:
        d["pre_pool_ms"] = 12.0
    return json.dumps(d) + "\n"


class FirstCallSummaryTest(unittest.TestCase):
    def test_groups_and_medians(self):
        lines = [line("aaaaaaa", "auto", 13.0, 11.0), line("aaaaaaa", "auto", 15.0, 12.0),
                 line("aaaaaaa", "auto", 14.0, 30.0), "\n",
                 line("bbbbbbb", "auto", 2.0, 0.4), line("aaaaaaa", "scalar", 9.0),
                 line("aaaaaaa", "auto", 3.0, 0.5, pre=True)]
        rows = first_call_summary.summarize(lines)
        self.assertEqual(len(rows), 4)
        key, runs, m = rows[0]
        self.assertEqual(key[:3], ("aaaaaaa", "poisson3d:n=22", "auto"))
        self.assertEqual(runs, 3)
        self.assertEqual(m["setup"], 14.0)
        self.assertEqual(m["analyze"], 12.0)
        self.assertEqual(m["first_product"], 5.0)
        self.assertIsNone(m["pool_first"])
        self.assertEqual(rows[1][0][0], "bbbbbbb")
        self.assertIsNone(rows[2][2]["analyze"])  # no setup steps in that line
        self.assertTrue(rows[3][0][4])  # pre-steps apart
        self.assertEqual(rows[3][2]["pool_first"], 12.0)

    def test_main_prints_a_row_per_group(self):
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
            f.write(line("aaaaaaa", "auto", 13.0, 11.0))
            f.write(line("bbbbbbb", "auto", 2.0, 0.4))
        out = io.StringIO()
        try:
            with redirect_stdout(out):
                self.assertEqual(first_call_summary.main(["x", f.name]), 0)
        finally:
            os.unlink(f.name)
        text = out.getvalue().splitlines()
        self.assertEqual(len(text), 3)
        self.assertIn("13.00", text[1])
        self.assertIn("0.40", text[2])

    def test_no_file_is_a_usage_error(self):
        with redirect_stdout(io.StringIO()):
            self.assertEqual(first_call_summary.main(["x"]), 2)


if __name__ == "__main__":
    unittest.main()
