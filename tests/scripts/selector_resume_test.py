"""bench/selector/resume.py: the matrices a cut-short corpus run lacks (corpus lines and real
matrix files), and the merge of the two runs (kept requested count, no matrix twice)."""

import gzip
import io
import json
import os
import sys
import tempfile
import unittest
from contextlib import redirect_stdout

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench", "selector"))
import resume  # noqa: E402


def run(names, commit, requested=None):
    return {
        "commit": commit,
        "command": f"hola-bench at {commit}",
        "device": "made up",
        "matrices": [{"matrix": n, "nnz": 10} for n in names],
        "results": [{"matrix": n, "kernel": "cusparse", "time_ms": 1.0} for n in names],
        "matrices_requested": requested if requested is not None else len(names),
    }


class ResumeTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        d = self.dir.name
        self.corpus = os.path.join(d, "corpus.txt")
        with open(self.corpus, "w") as f:
            f.write(
                "# corpus.py header\nbanded-001 banded:rows=10\n\npoisson2d-002 poisson2d:n=5\n"
            )
            f.write("rmat-003 rmat:scale=8  # comment\n")
        self.mtx = os.path.join(d, "mtx")
        os.mkdir(self.mtx)
        for name in ("a.mtx", "b.mtx", "notes.txt"):
            open(os.path.join(self.mtx, name), "w").close()
        self.partial = os.path.join(d, "partial.json.gz")
        with gzip.open(self.partial, "wt") as f:
            json.dump(run(["banded-001", "a"], "abc", requested=5), f)

    def tearDown(self):
        self.dir.cleanup()

    def test_missing_lists_corpus_lines_then_real_files(self):
        lines = resume.missing(self.corpus, self.partial, self.mtx)
        self.assertEqual(
            lines,
            [
                "poisson2d-002 poisson2d:n=5",
                "rmat-003 rmat:scale=8",
                f"b {os.path.join(self.mtx, 'b.mtx')}",
            ],
        )
        self.assertEqual(len(resume.missing(self.corpus, self.partial)), 2)  # no folder

    def test_nothing_missing_exits_3(self):
        full = os.path.join(self.dir.name, "full.json")
        with open(full, "w") as f:
            json.dump(run(["banded-001", "poisson2d-002", "rmat-003"], "abc"), f)
        with redirect_stdout(io.StringIO()) as out:
            self.assertEqual(resume.main(["resume.py", "missing", self.corpus, full]), 3)
        self.assertEqual(out.getvalue(), "")

    def test_merge_keeps_both_and_what_was_asked(self):
        partial = resume.read_json(self.partial)
        merged = resume.merge(partial, run(["poisson2d-002"], "def", requested=3))
        self.assertEqual(
            [m["matrix"] for m in merged["matrices"]], ["banded-001", "a", "poisson2d-002"]
        )
        self.assertEqual(len(merged["results"]), 3)
        self.assertEqual(merged["commit"], "abc")
        self.assertIn("hola-bench at abc", merged["command"])
        self.assertIn("hola-bench at def", merged["command"])
        # 2 measured before + 3 asked of the rest run, of which it measured 1: still partial
        self.assertEqual(merged["matrices_requested"], 5)
        self.assertEqual(merged["resumed"]["rest"], {"commit": "def", "matrices": 1})

    def test_merge_refuses_a_matrix_measured_twice(self):
        with self.assertRaisesRegex(ValueError, "banded-001"):
            resume.merge(resume.read_json(self.partial), run(["banded-001"], "def"))

    def test_merge_command_writes_one_file(self):
        rest = os.path.join(self.dir.name, "rest.json")
        out = os.path.join(self.dir.name, "out.json")
        with open(rest, "w") as f:
            json.dump(run(["rmat-003"], "def"), f)
        with redirect_stdout(io.StringIO()):
            self.assertEqual(resume.main(["resume.py", "merge", self.partial, rest, out]), 0)
        with open(out) as f:
            self.assertEqual(len(json.load(f)["matrices"]), 3)


if __name__ == "__main__":
    unittest.main()
