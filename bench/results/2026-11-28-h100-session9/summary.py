#!/usr/bin/env python3
"""This folder's summaries. (1) `auto` against the per-matrix best kernel of the same run and
against cuSPARSE on the committed trees' held-out matrices (run B, timed on the GPU alone), beside
run B of ../2026-11-28-h100-session8/ (b28e808: the check's one margin, 1.03), with session 5's
summary code. (2) The SpMSpV sweeps (run B) beside run Q of ../2026-11-27-h100-spmspv-rounds/
(e1f4046, every surviving candidate repeated): the selection's share of the per-call best, calls
slower than densify, and the operator's setup time (calibration included) per matrix. (3) Densify
into a sparse y with the warp finishing long rows in the presence pass (runs D and E) against run
B: per matrix and op, densify's sparse-y time over its dense-y time in each run, and its sparse-y
time after / before (geometric means over the unmasked densities).
Usage: cd bench/results/2026-11-28-h100-session9 && python3 summary.py > summary.txt
"""
import gzip
import importlib.util
import json
import math
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.dirname(HERE)
spec = importlib.util.spec_from_file_location(
    "session5", os.path.join(RESULTS, "2026-11-27-h100-session5", "summary.py")
)
s5 = importlib.util.module_from_spec(spec)
spec.loader.exec_module(s5)


def load(folder, name):
    with gzip.open(os.path.join(folder, name), "rt") as f:
        return json.load(f)


def heldout():
    for folder, name in (
        (os.path.join(RESULTS, "2026-11-28-h100-session8"), "B-blocked-heldout.json.gz"),
        (HERE, "B-blocked-heldout.json.gz"),
    ):
        s5.HERE = folder
        d = s5.load(name)
        n = len({r["matrix"] for r in d["results"]})
        print(
            f"== {os.path.basename(folder)}/{name}: commit {d['commit']}, {d['device']}, "
            f"{n} matrices, block_us {d.get('block_us')}"
        )
        s5.same_run(d)


SUMMARY_KEYS = (
    ("auto (picked candidate's time)", "pick"),
    ("auto", "own call"),
)


def sweep(label, folder, name):
    d = load(folder, name)
    s = d["summary"]
    setup = {
        (os.path.basename(m["name"]), m["precision"]): m["operator_setup_s"] * 1e3
        for m in d["matrices"]
    }
    print(f"== {label}: {os.path.basename(folder)}/{name}: commit {d['commit']}, {d['gpu']}")
    print(f"   command: {d['command']}")
    for key, what in SUMMARY_KEYS:
        a = s[key]
        print(
            f"   {what:9s}: {a['cases']} calls, time(best) / time geomean {a['ratio_geomean']:.3f}, "
            f"min {a['ratio_min']:.3f}, >= 0.95 in {a['at_least_0_95']}, slower than densify "
            f"{a['slower_than_densify']} (by > 2 %: {a['slower_than_densify_beyond_2_percent']})"
        )
    v = list(setup.values())
    print(
        f"   operator setup (calibration included), {len(v)} matrix x precision: min {min(v):.1f}, "
        f"median {statistics.median(v):.1f}, max {max(v):.1f}, total {sum(v):.0f} ms"
    )
    return setup


def main():
    print(
        "# python3 bench/results/2026-11-28-h100-session9/summary.py: derived from the files "
        "named below (each names its commit, GPU and command)"
    )
    heldout()
    q = os.path.join(RESULTS, "2026-11-27-h100-spmspv-rounds")
    for what, qname, bname in (
        ("generated set", "Q-spmspv-bench.json.gz", "B-spmspv-bench.json.gz"),
        ("corpus set", "Q-spmspv-real.json.gz", "B-spmspv-real.json.gz"),
    ):
        before = sweep(f"{what}, run Q (every surviving candidate repeated)", q, qname)
        after = sweep(f"{what}, run B (only calls under 0.1 ms repeated)", HERE, bname)
        later = "D-spmspv-real.json.gz" if what == "corpus set" else "E-spmspv-bench.json.gz"
        sweep(f"{what}, run {later[0]} (B's calibration, the presence pass by warp)", HERE, later)
        print(f"   setup per matrix and precision, ms: Q -> B (B / Q)")
        for key in sorted(after, key=lambda k: -before.get(k, 0)):
            if key in before:
                m, p = key
                print(
                    f"     {os.path.basename(m):36s} {p:6s} {before[key]:7.1f} -> "
                    f"{after[key]:7.1f} ({after[key] / before[key]:.2f})"
                )
        common = [k for k in after if k in before]
        print(
            f"   total over {len(common)}: {sum(before[k] for k in common):.0f} -> "
            f"{sum(after[k] for k in common):.0f} ms "
            f"({sum(after[k] for k in common) / sum(before[k] for k in common):.2f})"
        )
        print()
    presence("B-spmspv-real.json.gz", "D-spmspv-real.json.gz")
    presence("B-spmspv-bench.json.gz", "E-spmspv-bench.json.gz")


def densify_times(d):
    """{(matrix, op, precision, density): {output: densify ms}} of the unmasked cases."""
    out = {}
    for c in d["cases"]:
        if c.get("mask_allowed") is not None:
            continue
        key = (os.path.basename(c["matrix"]), c["op"], c["precision"], c["density_requested"])
        out.setdefault(key, {})[c["output"]] = c["times_ms"]["densify"]
    return out


def gmean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values))


def presence(before_name, after_name):
    before, after = load(HERE, before_name), load(HERE, after_name)
    print(
        f"== densify into a sparse y: {before_name} (commit {before['commit'][:7]}) -> "
        f"{after_name} (commit {after['commit'][:7]}), {after['gpu']}"
    )
    print(f"   after: {after['command']}")
    tb, ta = densify_times(before), densify_times(after)
    per = {}
    for key, b in tb.items():
        a = ta.get(key)
        if not a or not all(f in x for x in (a, b) for f in ("sparse", "dense")):
            continue
        r = per.setdefault(key[:2], ([], [], []))
        r[0].append(b["sparse"] / b["dense"])
        r[1].append(a["sparse"] / a["dense"])
        r[2].append(a["sparse"] / b["sparse"])
    print(f"   {'matrix':28s} op  sparse/dense before -> after   sparse after/before (min, max)")
    for (m, op), (rb, ra, ab) in sorted(per.items()):
        print(
            f"   {m:28s} {op}   {gmean(rb):6.2f} -> {gmean(ra):5.2f}        {gmean(ab):5.2f} "
            f"({min(ab):.2f}, {max(ab):.2f})"
        )
    print()


if __name__ == "__main__":
    main()
