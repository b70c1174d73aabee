#!/usr/bin/env python3
"""Tables of docs/performance.md's current-state sections, from committed result files:
session 18's runs B (anchors, block rows) and D (92 held-out matrices, tall / hub transposes)
and this folder's Nsight Compute profiles (runs B and C) and merge's launch shapes (run D).
python3 summary.py > summary.txt"""
import collections
import gzip
import json
import pathlib
import statistics

HERE = pathlib.Path(__file__).resolve().parent
S18 = HERE.parent / "2026-11-29-session18"
ORDER = [("double", "N"), ("double", "T"), ("float", "N"), ("float", "T")]


def load(path):
    return json.load(gzip.open(path))


def timed(data):
    """{(matrix, precision, op): {kernel: row}} of the timed, correct rows."""
    out = collections.defaultdict(dict)
    for r in data["results"]:
        if r.get("time_ms") and r.get("correct", True):
            out[(r["matrix"], r["precision"], r["op"])][r["kernel"]] = r
    return out


def hmean(v):
    return len(v) / sum(1.0 / x for x in v)


def chose(row):
    return row["note"].split("chose ")[-1].split(";")[0]


def head(data):
    return f"commit {data['commit'][:10]}, {data['device']}"


def anchors():
    data = load(S18 / "B-anchors.json.gz")
    t = timed(data)
    print(f"Anchors (session 18 run B, {head(data)}): auto's pick, ms, x cuSPARSE, % of floor")
    print(f"  {'matrix':16s} {'nnz':>10s}  " + "  ".join(f"{p} {o}".ljust(34) for p, o in ORDER))
    for m in sorted({k[0] for k in t}, key=lambda m: t[(m, "double", "N")]["auto"]["nnz"]):
        cells = []
        for p, o in ORDER:
            ks = t.get((m, p, o), {})
            a, c = ks.get("auto"), ks.get("cusparse")
            cells.append(
                f"{chose(a):15s} {a['time_ms']:.4f} {c['time_ms'] / a['time_ms']:4.2f}x"
                f" {a['pct_floor']:3.0f}%"
                if a and c
                else "-"
            )
        print(
            f"  {m:16s} {t[(m, 'double', 'N')]['auto']['nnz']:10d}  "
            + "  ".join(x.ljust(34) for x in cells)
        )
    for p, o in ORDER:
        v = [
            ks["cusparse"]["time_ms"] / ks["auto"]["time_ms"]
            for (m, pp, oo), ks in t.items()
            if (pp, oo) == (p, o)
        ]
        print(
            f"  {p} {o}: auto / cuSPARSE hmean {hmean(v):.2f} (lowest {min(v):.2f},"
            f" highest {max(v):.2f})"
        )


def heldout():
    data = load(S18 / "D-heldout.json.gz")
    t = timed(data)
    print(
        f"\nHeld-out 92 matrices (session 18 run D, {head(data)}): auto / cuSPARSE,"
        " harmonic means"
    )
    fam = collections.defaultdict(list)
    size = collections.defaultdict(list)
    for (m, p, o), ks in t.items():
        if "auto" not in ks or "cusparse" not in ks:
            continue
        a = ks["auto"]
        s = ks["cusparse"]["time_ms"] / a["time_ms"]
        fastest = ks["cusparse"]["time_ms"] / min(r["time_ms"] for r in ks.values())
        band = "<= 200k" if a["nnz"] <= 200000 else "> 200k"
        size[(band, p, o)].append(s)
        if a["nnz"] > 200000:
            fam[(a["family"], o)].append((s, fastest, p, a["nnz"]))
    print(
        "  by size: "
        + "; ".join(
            f"{band} {p} {o} {hmean(v):.2f} (lowest {min(v):.2f}, n={len(v)})"
            for (band, p, o), v in sorted(size.items())
        )
    )
    print(
        "  families, matrices > 200k nonzeros, double and float pooled: auto (fastest of the run)"
    )
    for f in sorted({k[0] for k in fam}):
        cells = []
        for o in "NT":
            v = fam.get((f, o), [])
            if v:
                cells.append(
                    f"op {o} {hmean([x[0] for x in v]):.2f} ({hmean([x[1] for x in v]):.2f})"
                )
        n = len(fam.get((f, "N"), [])) // 2
        nnz = max(x[3] for x in fam[(f, "N")])
        print(
            f"    {f:14s} {n:2d} matrices, up to {nnz / 1e6:5.1f} M nonzeros: " + ", ".join(cells)
        )


def checked():
    n = bad = 0
    for f in ("B-anchors", "D-heldout", "B-blocks", "D-hubs"):
        rows = load(S18 / f"{f}.json.gz")["results"]
        n += len(rows)
        bad += sum(1 for r in rows if not r["correct"])
    print(f"\nResults of session 18's runs B and D used here: {n}, wrong: {bad}")


def transpose_over_forward():
    """auto's op N time over its op T time (the target: op T >= 0.9x our own forward)."""
    print("\nauto op T against its own op N (N time / T time)")
    t = timed(load(S18 / "B-anchors.json.gz"))
    for m in ("poisson3d-200", "stencil27-128", "uniform-22", "rmat-21-16", "circuit-4M"):
        print(
            f"  anchors {m:14s} "
            + ", ".join(
                f"{p} {t[(m, p, 'N')]['auto']['time_ms'] / t[(m, p, 'T')]['auto']['time_ms']:.2f}"
                for p in ("double", "float")
            )
        )
    t = timed(load(S18 / "B-blocks.json.gz"))
    v = sorted(
        t[(m, p, "N")]["auto"]["time_ms"] / t[(m, p, "T")]["auto"]["time_ms"]
        for (m, p, o) in t
        if o == "N" and t[(m, p, "N")]["auto"]["nnz"] > 5e6
    )
    print(
        f"  block rows above 5 M nonzeros: {v[0]:.2f}-{v[-1]:.2f},"
        f" median {statistics.median(v):.2f}"
    )


def hub_shapes():
    data = load(HERE / "D-hubshape.json.gz")
    t = timed(data)
    shapes = [
        "merge:hubs=1024",
        "merge:tpb=256",
        "merge:tpb=256,hubs=1024",
        "merge:tpb=256,npt=5,hubs=1024",
    ]
    print(
        f"\nmerge op T, other launch shapes (run D, {head(data)}): default merge time / shape's"
        " time (above 1: the shape is faster); merge x cuSPARSE"
    )
    print(
        f"  {'matrix':48s} {'prec':6s} {'merge':>7s} " + " ".join(f"{k[6:]:>24s}" for k in shapes)
    )
    for (m, p, o), ks in sorted(t.items()):
        base = ks["merge"]["time_ms"]
        print(
            f"  {m:48s} {p:6s} {ks['cusparse']['time_ms'] / base:6.2f}x "
            + " ".join(f"{base / ks[k]['time_ms']:24.2f}" for k in shapes)
        )


def blocks():
    data = load(S18 / "B-blocks.json.gz")
    t = timed(data)
    print(
        f"\nBlock rows, 26 matrices (session 18 run B, {head(data)}): auto / cuSPARSE, % of floor"
    )
    for p, o in ORDER:
        autos = [ks for (m, pp, oo), ks in t.items() if (pp, oo) == (p, o) and "auto" in ks]
        s = [ks["cusparse"]["time_ms"] / ks["auto"]["time_ms"] for ks in autos]
        big = sorted(ks["auto"]["pct_floor"] for ks in autos if ks["auto"]["nnz"] > 5e6)
        print(
            f"  {p} {o}: hmean {hmean(s):.2f} (lowest {min(s):.2f}); % of floor at > 5 M nonzeros"
            f" ({len(big)} matrices) {big[0]:.0f}-{big[-1]:.0f},"
            f" median {statistics.median(big):.0f}"
        )


def us(r):
    return r["gpu__time_duration.sum"]


def pct(r):
    return (
        f"{r['dram__throughput.avg.pct_of_peak_sustained_elapsed']:.0f}/"
        f"{r['lts__throughput.avg.pct_of_peak_sustained_elapsed']:.0f}"
    )


def profile():
    print(
        "\nNsight Compute, H200, double (this folder: runs B and C, ncu --clock-control none,"
        " caches flushed per launch)"
    )
    rows = {}
    for f in ("B-profile/profile.json", "C-profile1/profile.json", "C-profile2/profile.json"):
        doc = json.load(open(HERE / f))
        for r in doc["rows"] if isinstance(doc, dict) and "rows" in doc else doc:
            if "error" in r:
                continue
            label = r["kernel"] + (f"->{r['chose']}" if r.get("chose") else "")
            if f.startswith("B-") and r["kernel"] == "auto":
                continue  # profiled with auto's check under ncu: run C has the plain run's pick
            rows[(r["matrix"], r["op"], "cusparse" if r["kernel"] == "cusparse" else "auto")] = (
                label,
                r,
            )
    print(
        f"  {'matrix':40s} op  {'auto: kernel':24s} {'us':>6s} {'DRAM/L2 %':>9s} {'hit':>4s}"
        f"  {'cuSPARSE us':>11s} {'DRAM/L2 %':>9s}  ratio"
    )
    for m, o, k in sorted(rows):
        if k != "auto" or (m, o, "cusparse") not in rows:
            continue
        label, a = rows[(m, o, "auto")]
        _, c = rows[(m, o, "cusparse")]
        print(
            f"  {m:40s} {o}   {label:24s} {us(a):6.1f} {pct(a):>9s} "
            f"{a['lts__t_sector_hit_rate.pct']:4.0f}  {us(c):11.1f} {pct(c):>9s}"
            f"  {us(c) / us(a):.2f}"
        )


if __name__ == "__main__":
    print("# python3 bench/results/2026-11-29-session19/summary.py (no GPU); each table names"
          " the commit and GPU of its file")
    anchors()
    heldout()
    checked()
    transpose_over_forward()
    blocks()
    profile()
    hub_shapes()
