#!/usr/bin/env python3
"""Session 26's tables from this folder's files (run from the repository root or this folder):
python3 bench/results/2026-11-29-session26/summary.py > bench/results/2026-11-29-session26/summary.txt
"""
import gzip
import json
import math
import os
import re
import statistics
from collections import defaultdict

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.dirname(HERE)
ROOT = os.path.dirname(os.path.dirname(RESULTS))


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def geo(values):
    return math.exp(sum(map(math.log, values)) / len(values)) if values else float("nan")


def by_case(data):
    cases = defaultdict(dict)
    for r in data["results"]:
        if r["time_ms"] > 0:
            cases[(r["matrix"], r["precision"], r["op"])][r["kernel"]] = r
    return cases


def chosen(row):
    return row["note"].split("chose ")[-1].split(" ")[0].rstrip(",;") if "chose " in row["note"] else ""


def header(data, name):
    wrong = [r for r in data["results"] if not r["correct"] and r["note"] != "op not supported"]
    print(f"{name}: commit {data['commit'][:8]}, {data['device']}, {len(data['results'])} results, "
          f"{len(wrong)} wrong")


def run_a_threads():
    data = load(os.path.join(HERE, "A-tpb.json.gz"))
    print("== Run A: threads per block, op N (time over the default 256 of the same kernel)")
    header(data, "A-tpb")
    cases = by_case(data)
    print(f"{'matrix':18s} {'prec':6s} {'va ms':>7s} {'128':>6s} {'512':>6s} {'1024':>6s}"
          f" {'sc ms':>7s} {'512':>6s} {'1024':>6s} {'auto':>16s} {'%floor':>6s}")
    for (m, p, op), ks in cases.items():
        va, sc = ks["vector-adaptive"]["time_ms"], ks["scalar"]["time_ms"]
        cols = [ks[f"vector-adaptive:tpb={t}"]["time_ms"] / va for t in (128, 512, 1024)]
        cols += [ks[f"scalar:tpb={t}"]["time_ms"] / sc for t in (512, 1024)]
        a = ks["auto"]
        print(f"{m:18s} {p:6s} {va:7.4f} {cols[0]:6.3f} {cols[1]:6.3f} {cols[2]:6.3f} {sc:7.4f} "
              f"{cols[3]:6.3f} {cols[4]:6.3f} {chosen(a):>16s} {a['pct_floor']:5.1f}%")
    for k in ("vector-adaptive", "scalar"):
        for t in (128, 512, 1024):
            name = f"{k}:tpb={t}"
            r = [ks[name]["time_ms"] / ks[k]["time_ms"] for ks in cases.values() if name in ks]
            if r:
                print(f"  {name:26s} geometric mean over the default: {geo(r):.3f} "
                      f"(range {min(r):.3f}-{max(r):.3f}, {len(r)} cases)")


def heldout(path, label):
    data = load(path)
    header(data, label)
    cases = by_case(data)
    for key, what in (("time_ms", "medians"), ("min_ms", "minima")):
        cells = []
        for p in ("double", "float"):
            for op in ("N", "T"):
                ratios, below = [], 0
                for (m, pp, o), ks in cases.items():
                    if pp != p or o != op or "auto" not in ks:
                        continue
                    best = min(v[key] for k, v in ks.items() if k != "auto")
                    ratios.append(best / ks["auto"][key])
                    below += ks["cusparse"][key] / ks["auto"][key] < 0.97
                cells.append(f"{p} {op} {statistics.harmonic_mean(ratios):.3f} ({below} < 0.97x cuSPARSE)")
        print(f"  best / auto by {what}: " + "; ".join(cells))
    return cases


def run_a_heldout():
    print("\n== auto on the 92 held-out matrices, every candidate kernel (harmonic mean of the")
    print("   per-matrix best kernel's time over auto's; cases where auto is below 0.97x cuSPARSE)")
    cases = heldout(os.path.join(HERE, "A-heldout.json.gz"), "this session, run A")
    for run in ("C", "D"):
        heldout(os.path.join(RESULTS, "2026-11-29-session18", f"{run}-heldout.json.gz"),
                f"session 18, run {run}")
    print("\n  auto's time over the time of the kernel it chose, timed alone in the same run")
    print("  (geometric means; products under / over 20 us):")
    for key in ("time_ms", "min_ms"):
        cells = []
        for p in ("double", "float"):
            for op in ("N", "T"):
                small, large = [], []
                for (m, pp, o), ks in cases.items():
                    if pp != p or o != op:
                        continue
                    k = chosen(ks["auto"])
                    if k in ks:
                        (small if ks[k][key] < 0.02 else large).append(ks["auto"][key] / ks[k][key])
                cells.append(f"{p} {op} {geo(small):.3f} / {geo(large):.3f}")
        print(f"  {key}: " + "; ".join(cells))
    print("\n  the same by the kernel auto chose (medians / minima, geometric means):")
    per = defaultdict(list)
    for (m, p, op), ks in cases.items():
        k = chosen(ks["auto"])
        if k in ks:
            per[(k, op)].append((ks["auto"]["time_ms"] / ks[k]["time_ms"],
                                 ks["auto"]["min_ms"] / ks[k]["min_ms"]))
    for (k, op), v in sorted(per.items()):
        print(f"    {k:16s} op {op}: {geo([a for a, _ in v]):.3f} / {geo([b for _, b in v]):.3f}"
              f" ({len(v)} cases)")
    print("\n  cases where auto is below 0.97x the cuSPARSE timed beside it:")
    for key in ("time_ms", "min_ms"):
        for (m, p, op), ks in sorted(cases.items()):
            a = ks["auto"]
            ratio = ks["cusparse"][key] / a[key]
            if ratio < 0.97:
                print(f"    by {key:7s} {m:18s} {p:6s} {op}: {ratio:.3f}x, auto {a[key] * 1e3:6.1f} us,"
                      f" chose {chosen(a)}")


def heldout_tables():
    """docs/performance.md's held-out tables (session 19's definitions): auto / cuSPARSE by family
    (matrices above 200 k nonzeros, double and float pooled; in brackets the run's fastest
    kernel, auto included, / cuSPARSE) and by size; then fastest of the nine / auto."""
    data = load(os.path.join(HERE, "A-heldout.json.gz"))
    cases = by_case(data)
    print("\n== Held-out tables of docs/performance.md (run A)")
    fam, size = defaultdict(list), defaultdict(list)
    for (m, p, op), ks in cases.items():
        a = ks["auto"]
        s = ks["cusparse"]["time_ms"] / a["time_ms"]
        fastest = ks["cusparse"]["time_ms"] / min(r["time_ms"] for r in ks.values())
        size[("<= 200k" if a["nnz"] <= 200000 else "> 200k", p, op)].append(s)
        if a["nnz"] > 200000:
            fam[(a["family"], op)].append((s, fastest, a["nnz"]))
    for (band, p, op), v in sorted(size.items()):
        print(f"  {band:7s} {p:6s} {op}: {statistics.harmonic_mean(v):.2f} (lowest {min(v):.2f},"
              f" {len(v)} matrices)")
    for f in sorted({k[0] for k in fam}):
        cells = []
        for op in "NT":
            v = fam.get((f, op), [])
            cells.append(f"op {op} {statistics.harmonic_mean([x[0] for x in v]):.2f} "
                         f"({statistics.harmonic_mean([x[1] for x in v]):.2f})")
        n = len(fam[(f, "N")]) // 2
        print(f"  {f:14s} {n:2d} matrices, up to {max(x[2] for x in fam[(f, 'N')]) / 1e6:5.1f} M"
              f" nonzeros: " + ", ".join(cells))
    print("  fastest of the nine / auto (harmonic means): by medians (lowest); by minima; the")
    print("  kernel auto ran, timed beside it (by medians)")
    for p in ("double", "float"):
        for op in ("N", "T"):
            med, mins, pick = [], [], []
            for (m, pp, o), ks in cases.items():
                if (pp, o) != (p, op):
                    continue
                a = ks["auto"]
                med.append(min(r["time_ms"] for k, r in ks.items() if k != "auto") / a["time_ms"])
                mins.append(min(r["min_ms"] for k, r in ks.items() if k != "auto") / a["min_ms"])
                if chosen(a) in ks:
                    pick.append(min(r["time_ms"] for k, r in ks.items() if k != "auto")
                                / ks[chosen(a)]["time_ms"])
            print(f"    {p:6s} {op}: {statistics.harmonic_mean(med):.3f} ({min(med):.3f}); "
                  f"{statistics.harmonic_mean(mins):.3f}; {statistics.harmonic_mean(pick):.3f}")


def run_b_corpus():
    print("\n== Run B: the selector corpus at this code against the 2026-11-28 training data")
    new = load(os.path.join(HERE, "B-corpus.json.gz"))
    header(new, "B-corpus")
    print(f"  {len(new['matrices'])} of {new['matrices_requested']} matrices, hola-bench wall "
          f"{new['wall_s']:.0f} s, stopped early: {new['stopped_early']}")
    old = load(os.path.join(ROOT, "bench", "selector", "data", "2026-11-28-h200-inode.json.gz"))
    header(old, "2026-11-28-h200-inode")
    times = lambda d: {(r["matrix"], r["precision"], r["op"], r["kernel"]): r["time_ms"]
                       for d_ in [d] for r in d_["results"] if r["time_ms"] > 0}
    tn, to = times(new), times(old)
    print("  new / old time, geometric mean over the products of at least 20 us:")
    acc = defaultdict(list)
    for k, v in tn.items():
        if k in to and to[k] >= 0.02:
            acc[(k[3], k[2])].append(v / to[k])
    for (kernel, op) in sorted(acc):
        print(f"    {kernel:16s} op {op}: {geo(acc[(kernel, op)]):.3f} ({len(acc[(kernel, op)])} products)")


def tree_comparison():
    print("\n== Retrained trees (train.py on run B's data) against the installed ones, scored by")
    print("   bench/selector/compare_trees.py (harmonic mean of best / what auto runs, the")
    print("   plugin's rules after the tree)")
    for name in ("B-compare-trees-on-B.json", "B-compare-trees-on-A.json"):
        d = load(os.path.join(HERE, name))
        print(f"  {name} (data: {d['data']}):")
        for combo, sets in d["combos"].items():
            cells = [f"{s} {sets[s]['with_rules_oracle_ratio_hmean']:.3f} (tree alone "
                     f"{sets[s]['tree_alone_oracle_ratio_hmean']:.3f})" for s in ("old", "new")]
            print(f"    {combo:9s} " + "; ".join(cells))


def test_logs():
    print("\n== GPU tests (runs C, D, E)")
    log = open(os.path.join(HERE, "C-gpu-tests.log")).read()
    passed = re.findall(r"Test #\d+: (\S+) \.+\s+Passed\s+([\d.]+) sec", log)
    print(f"  run C, ctest -L gpu -j 4: {len(passed)} suites passed before the time limit: " +
          ", ".join(n for n, _ in passed))
    for name in ("D-auto_check_memory_full_test.log", "D-memcheck-rowwise.log", "E-rowwise_test.log"):
        text = open(os.path.join(HERE, name)).read()
        ok = len(re.findall(r"^\[       OK \]", text, re.M))
        failed = len(re.findall(r"^\[  FAILED  \]", text, re.M))
        errors = re.findall(r"ERROR SUMMARY: (\d+) errors", text)
        print(f"  {name}: {ok} tests passed, {failed} failed" +
              (f", sanitizer errors {errors[-1]}" if errors else ""))
    for line in open(os.path.join(HERE, "D-sanitize-summary.txt")):
        if line.startswith("sanitize:"):
            print("  run D " + line.strip())


if __name__ == "__main__":
    run_a_threads()
    run_a_heldout()
    heldout_tables()
    run_b_corpus()
    tree_comparison()
    test_logs()
