#!/usr/bin/env python3
"""Resumes a selector corpus run that its time budget cut short (scripts/selector-device.sh with
SELECTOR_RESUME): what is left to measure, and the two runs as one data file.

Usage:
  python3 bench/selector/resume.py missing CORPUS.txt PARTIAL.json[.gz] [MATRICES_DIR] > rest.txt
  python3 bench/selector/resume.py merge PARTIAL.json[.gz] REST.json[.gz] OUT.json

missing: the lines of CORPUS (corpus.py's "name spec" list) whose name PARTIAL does not hold,
then one "name path" line for each .mtx file of MATRICES_DIR whose stem it does not hold (the
names hola-bench gives them), as a hola-bench matrix list (-m @rest.txt). Exit code 3 when
nothing is missing.
merge: PARTIAL's matrices and results followed by REST's (a matrix in both is an error: the list
was not made by `missing`), PARTIAL's header kept, both commands recorded, matrices_requested
PARTIAL's matrices plus what REST was asked for (a REST cut short leaves the merge partial).
train.py and validate.py read the result as one corpus run. Sessions 12 and 16 did this by hand
(their runs E and B).
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from validate import read_json  # noqa: E402


def missing(corpus_path, partial_path, matrices_dir=None):
    """The hola-bench list lines of what PARTIAL lacks."""
    have = {m["matrix"] for m in read_json(partial_path).get("matrices", [])}
    lines = []
    with open(corpus_path) as f:
        for line in f:
            text = line.split("#", 1)[0].strip()
            if text and text.split()[0] not in have:
                lines.append(text)
    if matrices_dir and os.path.isdir(matrices_dir):
        for name in sorted(os.listdir(matrices_dir)):
            stem, ext = os.path.splitext(name)
            if ext == ".mtx" and stem not in have:
                lines.append(f"{stem} {os.path.join(matrices_dir, name)}")
    return lines


def merge(partial, rest):
    """One data file of the two runs."""
    names = {m["matrix"] for m in partial["matrices"]}
    twice = sorted(names & {m["matrix"] for m in rest["matrices"]})
    if twice:
        raise ValueError(f"measured in both runs: {', '.join(twice[:5])}")
    out = dict(partial)
    out[
        "command"
    ] = f"{partial.get('command', '')} ;; the matrices its budget left: {rest.get('command', '')}"
    out["matrices"] = partial["matrices"] + rest["matrices"]
    out["results"] = partial["results"] + rest["results"]
    # What the rest run was asked for counts, so that a rest run cut short stays partial.
    out["matrices_requested"] = len(partial["matrices"]) + rest.get(
        "matrices_requested", len(rest["matrices"])
    )
    out["resumed"] = {
        "first": {"commit": partial.get("commit"), "matrices": len(partial["matrices"])},
        "rest": {"commit": rest.get("commit"), "matrices": len(rest["matrices"])},
    }
    return out


def main(argv):
    if len(argv) in (4, 5) and argv[1] == "missing":
        lines = missing(argv[2], argv[3], argv[4] if len(argv) == 5 else None)
        sys.stdout.write("".join(line + "\n" for line in lines))
        return 0 if lines else 3
    if len(argv) == 5 and argv[1] == "merge":
        merged = merge(read_json(argv[2]), read_json(argv[3]))
        with open(argv[4], "w") as f:
            json.dump(merged, f)
        print(f"merged: {len(merged['matrices'])} matrices, {len(merged['results'])} results")
        return 0
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
