#!/usr/bin/env python3
"""This folder's summaries. Run O: hola-spmspv-bench --quick with and without --deterministic,
per case the deterministic operator's times over the default one's. Run Q: auto against the per-matrix best kernel measured in the same hola-bench run
(every kernel, auto and auto:check=0 timed side by side on the committed trees' held-out
matrices), per (precision, op): harmonic mean of min(1, time(best) / time(auto)) (the issue's
"share of the per-matrix best"; the cap keeps a lucky auto measurement from counting as a gain)
and without the cap, cases below 0.97 of the best and below 0.97x cuSPARSE ALG1; then the same
through bench/selector/validate.py (the best taken from the trees' training run instead), as the
earlier runs were scored. No numpy needed. Usage, from the repository root:
  python3 bench/results/2026-11-27-h100-session4/summary.py > bench/results/2026-11-27-h100-session4/summary.txt
"""
import copy
import gzip
import json
import math
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "bench", "selector"))
import validate  # noqa: E402

EVAL = os.path.join(ROOT, "bench", "results", "selector-2026-11-27-8c3d0c1.json")
DATA = os.path.join(ROOT, "bench", "selector", "data", "2026-11-27-h100-80gb-hbm3-8c3d0c1.json.gz")
KERNELS = ["cusparse", "cusparse-alg2", "hola", "light", "merge", "scalar", "vector",
           "vector-adaptive"]
RUNS = ["Q1-heldout.json.gz", "Q2-heldout.json.gz"]
SWEEPS = ["O-spmspv-atomic.json.gz", "O-spmspv-deterministic.json.gz"]


def gmean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def deterministic_cost():
    runs = []
    for name in SWEEPS:
        with gzip.open(os.path.join(HERE, name)) as f:
            runs.append(json.load(f))
    atomic, det = runs
    print(f"== {SWEEPS[0]} / {SWEEPS[1]}: commits {atomic['commit']} / {det['commit']}, "
          f"{atomic['gpu']}; deterministic: {atomic['deterministic']} / {det['deterministic']}")
    key = lambda c: (c["matrix"], c["op"], c["output"], c["density_requested"])  # noqa: E731
    a = {key(c): c for c in atomic["cases"]}
    auto, vb, groups = [], [], {}
    for c in det["cases"]:
        k = key(c)
        if k not in a:
            continue
        ta, td = a[k]["times_ms"].get("auto"), c["times_ms"].get("auto")
        if ta and td:
            auto.append(td / ta)
            band = ("density >= 0.1" if k[3] >= 0.1 else
                    "density 1e-3..0.1" if k[3] >= 1e-3 else "density < 1e-3")
            groups.setdefault((k[2], band), []).append(td / ta)
        va, vd = a[k]["times_ms"].get("vector_balanced"), c["times_ms"].get("vector_balanced")
        if va and vd:
            vb.append(vd / va)
    auto_sorted = sorted(auto)
    print(f"  deterministic auto / default auto, time: {len(auto)} cases, geometric mean "
          f"{gmean(auto):.3f}, median {auto_sorted[len(auto) // 2]:.3f}, max {max(auto):.2f}")
    for (form, band), v in sorted(groups.items()):
        print(f"    {form} y, {band}: {len(v)} cases, geometric mean {gmean(v):.3f}, "
              f"max {max(v):.2f}")
    vb_sorted = sorted(vb)
    print(f"  vector_balanced sorted write-back / atomic, time: {len(vb)} cases, geometric mean "
          f"{gmean(vb):.3f}, median {vb_sorted[len(vb) // 2]:.3f}, range {min(vb):.2f}-"
          f"{max(vb):.2f}")
    for name, d in zip(SWEEPS, runs):
        s = d["summary"]
        key_auto = next(k for k in s if k == "auto" or k.startswith("auto"))
        print(f"  {name}: summary auto: {json.dumps(s[key_auto])}")


def hmean(xs):
    return len(xs) / sum(1 / x for x in xs)


def same_run(d):
    t = {}
    for r in d["results"]:
        if r["correct"] and r["time_ms"] > 0:
            t.setdefault((r["matrix"], r["precision"], r["op"]), {})[r["kernel"]] = r
    for label in ("auto", "auto:check=0"):
        capped, raw, below_best, below_cus = {}, {}, [], []
        for (m, p, o), row in sorted(t.items()):
            if label not in row or not all(k in row for k in KERNELS):
                continue
            best_k = min(KERNELS, key=lambda k: row[k]["time_ms"])
            best = row[best_k]["time_ms"]
            a = row[label]
            share = best / a["time_ms"]
            combo = f"{p}-{o}"
            capped.setdefault(combo, []).append(min(1.0, share))
            raw.setdefault(combo, []).append(share)
            if share < 0.97:
                below_best.append((share, f"{m} {p} {o} {share:.3f} of {best_k} ({a['note']}, "
                                          f"{a['time_ms'] * 1e3:.1f} us)"))
            s = row["cusparse"]["time_ms"] / a["time_ms"]
            if s < 0.97:
                below_cus.append((s, f"{m} {p} {o} {s:.3f}x ({a['note']}, "
                                     f"{a['time_ms'] * 1e3:.1f} us)"))
        allc = [x for v in capped.values() for x in v]
        allr = [x for v in raw.values() for x in v]
        per = ", ".join(f"{c} {hmean(v):.3f}" for c, v in sorted(capped.items()))
        print(f"  {label}: {len(allc)} cases; share of the same-run best {hmean(allc):.3f} "
              f"({per}); uncapped {hmean(allr):.3f}")
        print(f"    below 0.97 of the best: {len(below_best)}")
        for _, b in sorted(below_best)[:12]:
            print(f"      {b}")
        print(f"    below 0.97x cuSPARSE ALG1: {len(below_cus)}")
        for _, b in sorted(below_cus):
            print(f"      {b}")


def cross_run(d):
    data = validate.read_json(DATA)
    a = copy.deepcopy(d)
    a["results"] = [r for r in a["results"] if r["kernel"] in ("auto", "cusparse")]
    with tempfile.TemporaryDirectory() as tmp:
        e = os.path.join(tmp, "eval.json")
        with open(EVAL) as f, open(e, "w") as g:
            g.write(f.read())
        print("  auto scored as before (validate.py: the best from the trees' training run):")
        sys.stdout.flush()
        validate.score(e, data, a)


def main():
    print("# python3 bench/results/2026-11-27-h100-session4/summary.py: derived from runs O and "
          "Q's files named below (each names its commit, GPU and command)")
    deterministic_cost()
    for name in RUNS:
        with gzip.open(os.path.join(HERE, name)) as f:
            d = json.load(f)
        n = len({r["matrix"] for r in d["results"]})
        print(f"== {name}: commit {d['commit']}, {d['device']}, {n} matrices")
        same_run(d)
        cross_run(d)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
