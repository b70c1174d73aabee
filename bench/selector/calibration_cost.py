#!/usr/bin/env python3
"""GPU time of the SpMSpV operator's calibration at setup, estimated from a density sweep of
hola-spmspv-bench (each call's time taken from the sweep), per matrix and precision, for the
procedure of plugin/src/spmspv_operator.cpp (`calibrate_on_device`) and for cheaper variants.

Procedure, per op and output form: probes at the sweep densities nearest 1e-5, 1e-3, 1e-1 and 1
(equal nnz_x merged); at the first probe one untimed call of each candidate (the warm-up); at
each probe one timed call of each candidate not stopped, in the order vector_balanced,
vector_direct, matrix_balanced, matrix_direct, densify; a candidate whose call is not more than
SCREEN times the fastest so far (densify's setup time included) gets ROUNDS more calls; a sparse
kernel more than STOP times densify at a probe is not timed at the larger ones.

Variants: "repeat short": only calls under a threshold get the ROUNDS more calls; "warm once":
a kernel's warm-up only in the first (op, output form) of the matrix. Host costs (launches,
synchronisations) are not counted. Standard library only.

    python3 bench/selector/calibration_cost.py SWEEP.json[.gz] [--short-ms 0.1]
"""

import argparse
import gzip
import json
import math
import statistics
import sys

SPARSE_ORDER = ["vector_balanced", "vector_direct", "matrix_balanced", "matrix_direct"]
DENSIFY = "densify"
DENSIFY_LEGACY = "densify_hola_auto"
PROBE_DENSITIES = [1e-5, 1e-3, 1e-1, 1.0]
SCREEN = 4.0
STOP = 4.0
ROUNDS = 4


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def call_time(case, kernel):
    t = case["times_ms"]
    v = t.get(kernel, t.get(DENSIFY_LEGACY) if kernel == DENSIFY else None)
    return v if isinstance(v, (int, float)) and v > 0 and math.isfinite(v) else None


def groups_of(doc):
    """{(matrix, precision): {(op, output): {density: case}}} of the unmasked cases."""
    out = {}
    for c in doc["cases"]:
        if c.get("mask_allowed") is not None or call_time(c, DENSIFY) is None:
            continue
        m = (c["matrix"], c.get("precision", "double"))
        g = (c["op"], c.get("output") or "dense")
        out.setdefault(m, {}).setdefault(g, {})[c["density_requested"]] = c
    return out


def probes_of(by_density):
    densities = sorted(by_density)
    chosen, seen = [], set()
    for p in PROBE_DENSITIES:
        d = min(densities, key=lambda x: abs(math.log10(x) - math.log10(p)))
        nnz_x = by_density[d]["features"]["nnz_x"]
        if nnz_x not in seen:
            seen.add(nnz_x)
            chosen.append(by_density[d])
    return chosen


def group_cost(probes, densify_setup_ms, short_ms, warm, warmed):
    """GPU ms of one (op, output form). `warm`: warm-up calls at the first probe; `warmed`: the
    kernels already warmed in this matrix (updated)."""
    total = 0.0
    stopped = set()
    for p, case in enumerate(probes):
        fastest = densify_setup_ms if densify_setup_ms and densify_setup_ms > 0 else math.inf
        for k in SPARSE_ORDER + [DENSIFY]:
            t = call_time(case, k)
            if t is None or k in stopped:
                continue
            if p == 0 and warm and k not in warmed:
                total += t
                warmed.add(k)
            total += t
            fastest = min(fastest, t)
            if not t > SCREEN * fastest and (short_ms is None or t < short_ms):
                total += ROUNDS * t
        dt = call_time(case, DENSIFY)
        for k in SPARSE_ORDER:
            t = call_time(case, k)
            if t is not None and t > STOP * dt:
                stopped.add(k)
    return total


def estimate(doc, short_ms=None, warm_once=False):
    """{(matrix, precision): GPU ms of the whole calibration (both ops and output forms)}."""
    setup = {(m["name"], m.get("precision", "double")): m.get("densify_setup_ms") or {}
             for m in doc.get("matrices", [])}
    out = {}
    for m, groups in groups_of(doc).items():
        warmed = set()
        total = 0.0
        for g in sorted(groups):
            if not warm_once:
                warmed = set()
            total += group_cost(probes_of(groups[g]), setup.get(m, {}).get(g[0]), short_ms,
                                True, warmed)
        out[m] = total
    return out


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("sweep")
    ap.add_argument("--short-ms", type=float, default=0.1,
                    help="the 'repeat short' variants' threshold (ms)")
    args = ap.parse_args(argv[1:])
    doc = load(args.sweep)
    variants = [("implemented", estimate(doc)),
                (f"repeat short (< {args.short_ms:g} ms)", estimate(doc, args.short_ms)),
                ("warm once", estimate(doc, warm_once=True)),
                ("both", estimate(doc, args.short_ms, True))]
    print(f"# python3 bench/selector/calibration_cost.py {' '.join(argv[1:])}")
    print(f"# sweep: {args.sweep} (commit {doc.get('commit', '?')}, {doc.get('gpu', '?')})")
    print("# calibration GPU time per matrix and precision (ms), from the sweep's call times")
    names = [n for n, _ in variants]
    print(f"{'matrix':28s} {'prec':6s} " + " ".join(f"{n:>26s}" for n in names))
    base = variants[0][1]
    for m in sorted(base, key=lambda k: -base[k]):
        print(f"{m[0]:28s} {m[1]:6s} " + " ".join(f"{v[m]:26.1f}" for _, v in variants))
    for n, v in variants:
        xs = sorted(v.values())
        print(f"{n}: min {xs[0]:.1f}, median {statistics.median(xs):.1f}, max {xs[-1]:.1f} ms; "
              f"total {sum(xs):.0f} ms ({sum(xs) / max(1e-9, sum(base.values())):.2f} of "
              f"implemented)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
