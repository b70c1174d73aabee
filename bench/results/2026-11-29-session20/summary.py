"""Tables of session 20's runs from their result files (python3 summary.py > summary.txt)."""

import gzip
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def load(name):
    with gzip.open(os.path.join(HERE, name)) as f:
        return json.load(f)


def times(d):
    t = {}
    for r in d["results"]:
        if not r["correct"]:
            sys.exit(f"wrong result in {r}")
        key = (r["matrix"], r["precision"], r["op"])
        t.setdefault(key, {})[r["kernel"]] = (r["time_ms"], r["note"])
    return t


def hmean(xs):
    return len(xs) / sum(1.0 / x for x in xs)


def window_table(name, title):
    d = load(name)
    print(f"## {title}\n# {name}: commit {d['commit']}, {d['device']}\n# command: {d['command']}")
    print("# x cuSPARSE (op T): vector-adaptive with windows (default), without (win=0); auto")
    print(
        "# (the means at the end: banded matrices with windows; circuit-4M, where vector-adaptive"
    )
    print("# runs 100x slower than cuSPARSE with or without them, left out)")
    print(f"{'matrix':44s} {'prec':6s} {'win':>6s} {'win=0':>6s} {'auto':>6s}  auto ran / windows")
    t = times(d)
    on, off, auto = {}, {}, {}
    for (m, p, op), k in sorted(t.items()):
        if op != "T" or "vector-adaptive" not in k:
            continue
        cu = k["cusparse"][0]
        w, note = k["vector-adaptive"]
        w0 = k["vector-adaptive:win=0"][0]
        a, anote = k["auto"]
        windowed = "window" in note and m.startswith("banded")
        print(
            f"{m:44s} {p:6s} {cu / w:6.2f} {cu / w0:6.2f} {cu / a:6.2f}  "
            f"{anote.replace('chose ', '')} / {note.split(', ', 1)[1] if windowed else '-'}"
        )
        if windowed:
            on.setdefault(p, []).append(cu / w)
            off.setdefault(p, []).append(cu / w0)
            auto.setdefault(p, []).append(cu / a)
    for p in sorted(on):
        print(
            f"# {p}: {len(on[p])} matrices with windows: hmean x cuSPARSE with "
            f"{hmean(on[p]):.2f}, without {hmean(off[p]):.2f}, auto {hmean(auto[p]):.2f}; "
            f"with / without: min {min(a / b for a, b in zip(on[p], off[p])):.2f}, "
            f"max {max(a / b for a, b in zip(on[p], off[p])):.2f}"
        )
    print()


def hubfit_table():
    d = load("A-hubfit.json.gz")
    print("## merge op T: hub table fitted to the hubs (default) against 2 048 entries (hubs=2048)")
    print(f"# A-hubfit.json.gz: commit {d['commit']}, {d['device']}\n# command: {d['command']}")
    for (m, p, op), k in sorted(times(d).items()):
        cu = k["cusparse"][0]
        fit, note = k["merge"]
        fixed = k["merge:hubs=2048"][0]
        print(
            f"{m:48s} {p:6s} fitted {fit:.4f} ms ({cu / fit:5.2f}x)  2048 {fixed:.4f} ms "
            f"({cu / fixed:5.2f}x)  fitted / 2048 speed {fixed / fit:.2f}  {note}"
        )
    print()


if __name__ == "__main__":
    print("# python3 bench/results/2026-11-29-session20/summary.py\n")
    hubfit_table()
    window_table("A-windows.json.gz", "run A: windows on every band (first rule)")
    window_table("B-bands.json.gz", "run B: windows only off diagonals (the rule kept)")
    window_table(
        "C-bands.json.gz",
        "run C: run B's rule, tiles balanced to whole waves, auto weighing vector-adaptive from 4 a row",
    )
