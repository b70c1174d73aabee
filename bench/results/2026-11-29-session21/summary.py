"""Tables of session 21's runs from their result files (python3 summary.py > summary.txt)."""

import gzip
import json
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def load(name):
    with gzip.open(os.path.join(HERE, name)) as f:
        d = json.load(f)
    print(f"# {name}: commit {d['commit']}, {d['device']}\n# command: {d['command']}")
    return d


def results(d):
    t = {}
    for r in d["results"]:
        if not r["correct"]:
            sys.exit(f"wrong result in {r}")
        t.setdefault((r["matrix"], r["precision"], r["op"]), {})[r["kernel"]] = r
    return t


def hmean(xs):
    return len(xs) / sum(1.0 / x for x in xs)


def gmean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


def x_cusparse(row, kernel):
    return row["cusparse"]["time_ms"] / row[kernel]["time_ms"]


def rect_table():
    print("## Run A: rectangular bands and trilinear interpolation, x cuSPARSE")
    t = results(load("A-rect.json.gz"))
    ks = ["vector-adaptive", "vector-adaptive:win=0", "hola", "auto"]
    print(f"{'matrix':56s} {'prec':6s} op " + " ".join(f"{k[:9]:>9s}" for k in ks) + "  windows")
    for (m, p, op), row in t.items():
        cells = " ".join(f"{x_cusparse(row, k):9.2f}" for k in ks)
        note = row["vector-adaptive"]["note"]
        print(f"{m:56s} {p:6s} {op}  {cells}  {note[note.find(',') + 2:] if ',' in note else '-'}")
    print("# auto's op N time over its op T time (>= 0.9 is issue 16's target)")
    for (m, p, op), row in t.items():
        if op == "T":
            n = t[(m, p, "N")]["auto"]["time_ms"]
            print(f"{m:56s} {p:6s} {n / row['auto']['time_ms']:.2f}")


def budget_table():
    print("\n## Run A: vector-adaptive op T with 32 / 24 / 16 KiB of windows, time at 48 KiB over it")
    t = results(load("A-budget.json.gz"))
    ks = ["vector-adaptive:wkib=32", "vector-adaptive:wkib=24", "vector-adaptive:wkib=16"]
    per = {}
    for (m, p, op), row in t.items():
        base = row["vector-adaptive"]["time_ms"]
        r = [base / row[k]["time_ms"] for k in ks]
        for k, x in zip(ks, r):
            per.setdefault((p, k), []).append(x)
        print(f"{m:44s} {p:6s} " + " ".join(f"{x:6.3f}" for x in r))
    for (p, k), xs in sorted(per.items()):
        print(f"# {p:6s} {k:24s} geometric mean {gmean(xs):.3f}, {min(xs):.3f}-{max(xs):.3f}")


def trial_table():
    print("\n## Run B: op T, the timed choice (default) against 48 / 24 KiB untimed, no windows")
    t = results(load("B-trial.json.gz"))
    ks = ["vector-adaptive", "vector-adaptive:wkib=48", "vector-adaptive:wkib=24"]
    ks += ["vector-adaptive:win=0", "auto"]
    print("# x cuSPARSE; 'best': default's time over the best of 48, 24 and win=0; 'first': the")
    print("# first product's ms (plan, and for the default the trial) default / 48 KiB")
    print(f"{'matrix':56s} {'prec':6s} " + " ".join(f"{k[-7:]:>7s}" for k in ks) + "   best  first")
    groups = {}
    for (m, p, op), row in t.items():
        if "window" not in row["vector-adaptive:wkib=48"]["note"] or m.startswith("circuit"):
            continue
        best = min(row[k]["time_ms"] for k in ks[1:4])
        cells = " ".join(f"{x_cusparse(row, k):7.2f}" for k in ks)
        first = f"{row[ks[0]]['first_run_ms']:.1f}/{row[ks[1]]['first_run_ms']:.1f}"
        print(f"{m:56s} {p:6s} {cells} {row[ks[0]]['time_ms'] / best:6.3f} {first}")
        g = "rectangular" if "cols=" in m else "square bands"
        for k in ks:
            groups.setdefault((g, p, k), []).append(x_cusparse(row, k))
    print("# harmonic means over the matrices with windows (circuit-4M left out: vector-adaptive")
    print("# runs 100x slower than cuSPARSE there, with or without windows)")
    for (g, p, k), xs in sorted(groups.items()):
        print(f"# {g:12s} {p:6s} {k:24s} {hmean(xs):.3f} (n {len(xs)}, lowest {min(xs):.2f})")
    print("# anchors, auto op T x cuSPARSE")
    for p in ("double", "float"):
        xs = [(m, x_cusparse(row, "auto")) for (m, pp, op), row in t.items()
              if pp == p and not m.startswith("banded:")]
        print(f"# {p}: hmean {hmean([x for _, x in xs]):.3f}, lowest {min(x for _, x in xs):.3f}: "
              + ", ".join(f"{m} {x:.2f}" for m, x in xs))


def heldout_table():
    print("\n## Run D: the held-out set, op T, auto x cuSPARSE (harmonic means), against session 18")
    new = results(load("D-heldout-T.json.gz"))
    with gzip.open(os.path.join(HERE, "../2026-11-29-session18/D-heldout.json.gz")) as f:
        d = json.load(f)
    print(f"# ../2026-11-29-session18/D-heldout.json.gz: commit {d['commit']}, {d['device']}")
    old = results(d)
    windows = [m for (m, p, op), row in new.items() if "window" in row["vector-adaptive"]["note"]]
    print(f"# matrices where vector-adaptive took windows: {len(windows)}")
    for p in ("double", "float"):
        for large in (False, True):
            keys = [k for k, row in new.items() if k[1] == p and k in old
                    and (row["cusparse"]["nnz"] > 200000) == large]
            now = [x_cusparse(new[k], "auto") for k in keys]
            then = [x_cusparse(old[k], "auto") for k in keys]
            size = "> 200 k" if large else "<= 200 k"
            print(f"# {p:6s} {size:8s} n {len(keys)}: {hmean(now):.3f} (session 18: {hmean(then):.3f}),"
                  f" lowest {min(now):.3f}")
    for k, row in new.items():
        if x_cusparse(row, "auto") < 0.97:
            print(f"# below 0.97: {k[0]} {k[1]} {x_cusparse(row, 'auto'):.3f}, "
                  f"{row['auto']['note']}, cuSPARSE {row['cusparse']['time_ms'] * 1000:.0f} us")


def budget96_table():
    print("\n## Run E: 96 KiB windows (opted in) against 48 KiB and the trial of 48 / 24 / 96 KiB")
    t = results(load("E-budget96.json.gz"))
    print("# x cuSPARSE, op T; matrices where vector-adaptive:wkib=96 took windows (circuit-4M out)")
    ks = ["vector-adaptive", "vector-adaptive:wkib=48", "vector-adaptive:wkib=96"]
    slower = []
    for (m, p, op), row in t.items():
        if "window" not in row[ks[2]]["note"] or m.startswith("circuit"):
            continue
        cells = " ".join(f"{x_cusparse(row, k):6.2f}" for k in ks)
        took_96 = row[ks[0]]["note"] == row[ks[2]]["note"]
        print(f"{m:56s} {p:6s} {cells}  trial took 96 KiB: {took_96}")
        if "window" in row[ks[1]]["note"]:
            slower.append(row[ks[1]]["time_ms"] / row[ks[2]]["time_ms"])
    print(f"# 48 KiB time over 96 KiB time: {min(slower):.2f}-{max(slower):.2f} (n {len(slower)})")


rect_table()
budget_table()
trial_table()
heldout_table()
budget96_table()
