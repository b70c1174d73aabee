#!/usr/bin/env python3
"""Tables of session 18's runs (README.md), from the JSON files beside this script and session
17's run B (the same block-row command before this session's rules):
python3 summary.py > summary.txt"""
import collections
import gzip
import json
import pathlib

HERE = pathlib.Path(__file__).resolve().parent
SESSION17 = HERE.parent / "2026-11-29-session17"


def load(path):
    return json.load(gzip.open(path))


def results(path):
    """{(matrix, precision, op): {kernel: result row}} of the rows that were timed."""
    out = collections.defaultdict(dict)
    for r in load(path)["results"]:
        if r.get("time_ms"):
            out[(r["matrix"], r["precision"], r["op"])][r["kernel"]] = r
    return out


def hmean(values):
    return len(values) / sum(1.0 / v for v in values)


def chose(auto_row):
    return auto_row["note"].split("chose ")[-1]


def head(path):
    data = load(path)
    return f"commit {data['commit'][:10]}, {data['device']}"


def auto_against_kernels(path, label, show_below=0.95):
    """Per (precision, op): auto over cuSPARSE and the fastest other kernel over auto."""
    t = results(path)
    print(f"{label} ({head(path)})")
    by = collections.defaultdict(list)
    low = []
    for key, ks in sorted(t.items()):
        if "auto" not in ks or "cusparse" not in ks:
            continue
        a = ks["auto"]
        best_ms, best = min((r["time_ms"], k) for k, r in ks.items() if k != "auto")
        share = best_ms / a["time_ms"]
        by[key[1:]].append((share, ks["cusparse"]["time_ms"] / a["time_ms"]))
        if share < show_below:
            low.append(
                f"    {key[0].replace('elasticity:', ''):40s} {key[1]:6s} {key[2]}  {share:.3f} "
                f"(auto {chose(a)}, fastest {best})"
            )
    for (precision, op), v in sorted(by.items()):
        shares = [s for s, _ in v]
        speedups = [c for _, c in v]
        print(
            f"  {precision:6s} op {op}: {len(v)} matrices, auto / cuSPARSE hmean "
            f"{hmean(speedups):.3f} (lowest {min(speedups):.3f}), fastest / auto hmean "
            f"{hmean(shares):.3f} (lowest {min(shares):.3f}), below 0.97 of the fastest: "
            f"{sum(s < 0.97 for s in shares)}"
        )
    if low:
        print(f"  cases below {show_below} of the fastest:")
        print("\n".join(low))
    print()


def held_out(path, label):
    """Three ways to score auto against the fastest of nine kernels in the same run."""
    t = results(path)
    print(f"{label} ({head(path)})")
    print("  fastest / auto, harmonic mean over the matrices, per (precision, op): by medians; by")
    print("  minimum times; the kernel auto chose, by its own median beside auto's (selection")
    print("  alone). Then auto / cuSPARSE: cases below 0.97 (by medians, by minima) and lowest.")
    by = collections.defaultdict(lambda: collections.defaultdict(list))
    for key, ks in t.items():
        a, c = ks.get("auto"), ks.get("cusparse")
        if not a or not c:
            continue
        d = by[key[1:]]
        for field in ("time_ms", "min_ms"):
            d[field].append(min(r[field] for k, r in ks.items() if k != "auto") / a[field])
            d[field + " cusparse"].append(c[field] / a[field])
        if chose(a) in ks:
            d["pick"].append(
                min(r["time_ms"] for k, r in ks.items() if k != "auto") / ks[chose(a)]["time_ms"]
            )
        d["large"].append(a["nnz"] >= 300_000)
    for (precision, op), d in sorted(by.items()):
        below = sum(x < 0.97 for x in d["time_ms cusparse"])
        below_min = sum(x < 0.97 for x in d["min_ms cusparse"])
        large_below = sum(
            x < 0.97 and big for x, big in zip(d["time_ms cusparse"], d["large"])
        )
        print(
            f"  {precision:6s} op {op}: {len(d['time_ms'])} matrices; medians "
            f"{hmean(d['time_ms']):.3f} (lowest {min(d['time_ms']):.3f}), minima "
            f"{hmean(d['min_ms']):.3f}, selection {hmean(d['pick']):.3f}; below 0.97x cuSPARSE "
            f"{below} / {below_min} ({large_below} at >= 300k nonzeros, by medians), lowest "
            f"{min(d['time_ms cusparse']):.3f} / {min(d['min_ms cusparse']):.3f}"
        )
    pooled = [x for d in by.values() for x in d["time_ms"]]
    print(f"  pooled, by medians: {hmean(pooled):.3f}")
    # How far auto's median is from the median of the kernel it runs, measured beside it.
    small, large = [], []
    for ks in t.values():
        a = ks.get("auto")
        if a and chose(a) in ks:
            ratio = a["time_ms"] / ks[chose(a)]["time_ms"]
            (small if a["time_ms"] < 0.05 else large).append(ratio)
    for name, v in (("under 50 us", small), ("50 us or more", large)):
        v.sort()
        print(
            f"  auto / the same kernel timed beside it, products {name}: {len(v)} cases, "
            f"10th / 50th / 90th percentile {v[len(v) // 10]:.3f} / {v[len(v) // 2]:.3f} / "
            f"{v[9 * len(v) // 10]:.3f}"
        )
    print()


def hubs(path):
    t = results(path)
    print(f"Run D: op T on one-column, tall and hub matrices ({head(path)}); ms and x cuSPARSE")
    kernels = ["cusparse", "merge", "merge:hubs=0", "inode", "hola", "auto"]
    print(f"  {'matrix':46s} {'prec':6s}" + "".join(f"{k:>15s}" for k in kernels))
    for key, ks in sorted(t.items()):
        base = ks["cusparse"]["time_ms"]
        cells = []
        for k in kernels:
            r = ks.get(k)
            cells.append(f"{r['time_ms']:8.3f} {base / r['time_ms']:5.1f}x" if r else " " * 15)
        print(f"  {key[0]:46s} {key[1]:6s}" + "".join(f"{c:>15s}" for c in cells))
    print("  auto's picks: " + ", ".join(sorted({chose(ks["auto"]) for ks in t.values()})))
    print()


if __name__ == "__main__":
    auto_against_kernels(
        SESSION17 / "B-blocks.json.gz",
        "Session 17's run B, before: auto on 26 block-row matrices against cusparse, hola, merge,"
        " vector-adaptive, inode",
    )
    auto_against_kernels(HERE / "B-blocks.json.gz", "Run B, the same command with this session's rules")
    auto_against_kernels(HERE / "B-anchors.json.gz", "Run B, the anchor matrices (hola-bench's default set)")
    held_out(HERE / "C-heldout.json.gz", "Run C: auto on the 92 held-out matrices against nine kernels")
    held_out(HERE / "D-heldout.json.gz", "Run D: the same after the one-column fixes")
    hubs(HERE / "D-hubs.json.gz")
