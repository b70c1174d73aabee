#!/usr/bin/env python3
"""Summary of this folder's hola-bench runs: auto (with its check at the first products) and
auto:check=0 against cuSPARSE ALG1 in the same run, and on the held-out matrices the share of the
per-matrix best (bench/selector/validate.py's score, the best from the corpus run the trees were
trained on). Usage, from the repository root:
  python3 bench/results/2026-11-27-h100-auto-check/summary.py > bench/results/2026-11-27-h100-auto-check/summary.txt
"""
import copy
import gzip
import json
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench", "selector"))
import validate  # noqa: E402

EVAL = os.path.join(ROOT, "bench", "results", "selector-2026-11-27-8c3d0c1.json")
DATA = os.path.join(ROOT, "bench", "selector", "data", "2026-11-27-h100-80gb-hbm3-8c3d0c1.json.gz")
RUNS = ["G-anchors.json.gz", "J-anchors.json.gz", "K-anchors.json.gz", "H-heldout.json.gz",
        "J-heldout.json.gz", "K-heldout.json.gz", "L-j16-1.json", "L-j16-2.json", "L-j1-1.json",
        "L-j1-2.json"]


def load(name):
    path = os.path.join(HERE, name)
    return json.load(gzip.open(path) if name.endswith(".gz") else open(path))


def hmean(xs):
    return len(xs) / sum(1 / x for x in xs)


def same_run(d):
    t = {(r["matrix"], r["precision"], r["op"], r["kernel"]): r for r in d["results"]}
    cases = sorted({k[:3] for k in t})
    for label in ("auto", "auto:check=0"):
        ratios, cols, below = [], {}, []
        for m, p, o in cases:
            if (m, p, o, label) not in t or (m, p, o, "cusparse") not in t:
                continue
            r = t[(m, p, o, label)]
            s = t[(m, p, o, "cusparse")]["time_ms"] / r["time_ms"]
            ratios.append(s)
            cols.setdefault(f"{p} {o}", []).append(s)
            if s < 0.97:
                below.append(f"{m} {p} {o} {s:.3f} ({r['note']}, {r['time_ms'] * 1e3:.1f} us)")
        per = ", ".join(f"{c} {hmean(v):.3f}" for c, v in sorted(cols.items()))
        print(f"  {label}: {len(ratios)} cases, harmonic mean {hmean(ratios):.3f}x cuSPARSE "
              f"({per}); below 0.97x: {len(below)}")
        for b in sorted(below, key=lambda s: float(s.split()[3])):
            print(f"      {b}")
    print(f"  every result correct: {all(r['correct'] for r in d['results'])} "
          f"({len(d['results'])} rows)")


def oracle(d):
    data = validate.read_json(DATA)
    for label in ("auto", "auto:check=0"):
        a = copy.deepcopy(d)
        a["results"] = [dict(r, kernel="auto") if r["kernel"] == label else r
                        for r in a["results"] if r["kernel"] in (label, "cusparse")]
        with tempfile.TemporaryDirectory() as tmp:
            e = os.path.join(tmp, "eval.json")
            with open(EVAL) as f, open(e, "w") as g:
                g.write(f.read())
            print(f"  share of the per-matrix best, {label}:")
            sys.stdout.flush()
            validate.score(e, data, a)


def main():
    print("# python3 bench/results/2026-11-27-h100-auto-check/summary.py: derived from the runs'"
          " files named below (each names its commit, GPU and hola-bench command)")
    for name in RUNS:
        d = load(name)
        print(f"== {name}: commit {d['commit']}, {d['device']}")
        same_run(d)
        if "heldout" in name:
            oracle(d)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
