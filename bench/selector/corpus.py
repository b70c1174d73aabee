#!/usr/bin/env python3
"""Writes the training corpus of the kernel selector: one hola-bench generator spec per line.

Usage: python3 bench/selector/corpus.py [--count 300] [--seed 2026] [--out FILE]

Every generated family of docs/architecture.md, "Test matrices" (2D/3D stencils, banded from sigma = 10 to
uniform, R-MAT, circuit-like, arrow, rectangular wide and tall, random row lengths, single
row / column), finite-element-like block rows (elasticity: 27-point node coupling, 1-6 unknowns
a node; block_stencil: 7-point (3D) or 5-point (2D) node coupling, 2-6 unknowns a node, the
layout of multi-component finite-difference problems such as PETSc's SNES ex19), heavy-tailed
(Pareto) row lengths, and a quarter of the stencils and block matrices randomly renumbered
(perm=SEED: the same matrix without its banded order); sizes log-uniform between 10 k and 20 M
nonzeros plus a few up to 60 M. The same seed gives the same list. Lines are "name spec"; the order is shuffled so that a run cut
short by hola-bench's --time-budget-s still spans the families. The real matrices are not listed:
scripts/selector-device.sh passes HOLA_MATRICES_DIR to hola-bench as well.
"""
import argparse
import math
import random
import sys

MIN_NNZ = 10_000
MAX_NNZ = 20_000_000  # the bulk of the corpus
HUGE_NNZ = 60_000_000  # a few matrices between MAX_NNZ and this
HUGE_SHARE = 0.04
PERMUTED_SHARE = 0.25  # of the stencil and block families

# Share of the corpus per family (degenerate shapes get a few matrices each).
FAMILY_WEIGHTS = {
    "poisson2d": 1.0,
    "poisson3d": 1.0,
    "stencil27": 1.0,
    "elasticity": 1.0,
    "block_stencil": 1.0,
    "powerlaw": 1.0,
    "banded": 2.5,
    "rect": 1.5,
    "rmat": 1.5,
    "circuit": 1.5,
    "arrow": 0.4,
    "random_nnz": 1.0,
    "single_row": 0.15,
    "single_column": 0.15,
    "one_full_row": 0.2,
}


def log_uniform(rng, lo, hi):
    return math.exp(rng.uniform(math.log(lo), math.log(hi)))


def target_nnz(rng):
    if rng.random() < HUGE_SHARE:
        return log_uniform(rng, MAX_NNZ, HUGE_NNZ)
    return log_uniform(rng, MIN_NNZ, MAX_NNZ)


def stencil_spec(rng, family, nnz, per_row, dims):
    """Grid sides with a random aspect ratio whose product gives about nnz / per_row rows."""
    points = max(nnz / per_row, 4.0**dims)
    stretch = [math.exp(rng.uniform(-0.7, 0.7)) for _ in range(dims)]
    scale = (points / math.prod(stretch)) ** (1.0 / dims)
    sides = [max(4, round(scale * s)) for s in stretch]
    keys = ["nx", "ny", "nz"][:dims]
    spec = f"{family}:" + ",".join(f"{k}={v}" for k, v in zip(keys, sides))
    return spec, math.prod(sides) * per_row


def permuted(rng, spec, est, what, seed):
    """The same matrix renumbered by a random permutation, for a share of the calls."""
    if rng.random() < PERMUTED_SHARE:
        return f"{spec},perm={seed}", est, f"{what}, permuted"
    return spec, est, what


def make_spec(rng, family, nnz, seed):
    """(spec, estimated nnz, short description) of one matrix of `family` near `nnz`."""
    spec, est, what = make_unpermuted_spec(rng, family, nnz, seed)
    if family in ("poisson2d", "poisson3d", "stencil27", "elasticity", "block_stencil"):
        return permuted(rng, spec, est, what, seed)
    return spec, est, what


def make_unpermuted_spec(rng, family, nnz, seed):
    if family == "elasticity":
        block = rng.choice([1, 2, 3, 3, 4, 6])
        per_row = 27 * block
        spec, est = stencil_spec(rng, family, nnz / block, per_row, 3)
        return f"{spec},block={block}", est * block, f"{block} unknowns a node"
    if family == "block_stencil":
        block = rng.choice([2, 3, 4, 5, 6])
        if rng.random() < 0.5:
            spec, est = stencil_spec(rng, "elasticity", nnz / block, 7 * block, 3)
            what = f"7-point nodes, {block} unknowns a node"
        else:
            spec, est = stencil_spec(rng, "elasticity", nnz / block, 5 * block, 2)
            spec += ",nz=1"
            what = f"5-point nodes, {block} unknowns a node"
        return f"{spec},block={block},points=7", est * block, what
    if family == "powerlaw":
        mean = round(log_uniform(rng, 3, 48), 1)
        tail = rng.choice([1.3, 1.6, 2.0, 3.0])
        rows = max(1000, round(nnz / mean))
        spec = f"powerlaw:rows={rows},mean={mean},tail={tail},seed={seed}"
        return spec, rows * mean, f"tail {tail}"
    if family == "poisson2d":
        spec, est = stencil_spec(rng, family, nnz, 5, 2)
        return spec, est, "5-point"
    if family == "poisson3d":
        spec, est = stencil_spec(rng, family, nnz, 7, 3)
        return spec, est, "7-point"
    if family == "stencil27":
        spec, est = stencil_spec(rng, family, nnz, 27, 3)
        return spec, est, "27-point"
    if family == "banded":
        per_row = round(log_uniform(rng, 3, 64))
        rows = max(1000, round(nnz / per_row))
        sigma = rng.choice(["10", "100", "1000", "10000", "100000", "uniform"])
        spec = f"banded:rows={rows},per_row={per_row},sigma={sigma},seed={seed}"
        return spec, rows * per_row, f"sigma {sigma}"
    if family == "rect":
        per_row = round(log_uniform(rng, 2, 48))
        ratio = log_uniform(rng, 4, 64)
        if rng.random() < 0.5:  # wide: many more columns than rows
            rows = max(100, round(nnz / per_row))
            cols = max(per_row, round(rows * ratio))
            shape = "wide"
        else:  # tall
            rows = max(100, round(nnz / per_row))
            cols = max(per_row, round(rows / ratio))
            shape = "tall"
        spec = f"random:rows={rows},cols={cols},per_row={per_row},seed={seed}"
        return spec, rows * per_row, shape
    if family == "rmat":
        ef = rng.choice([4, 8, 16, 32])
        scale = max(8, min(24, round(math.log2(max(nnz / ef, 256)))))
        a = rng.choice([0.45, 0.57, 0.65])
        b = c = round((1 - a) / 3, 4)
        noise = rng.choice([0, 0.1])
        spec = f"rmat:scale={scale},ef={ef},a={a},b={b},c={c},noise={noise},seed={seed}"
        return spec, (2**scale) * ef, f"a {a}"
    if family == "circuit":
        mean = round(rng.uniform(2, 8), 2)
        empty = round(rng.uniform(0, 0.5), 2)
        rows = max(1000, round(nnz / ((1 - empty) * mean)))
        long_rows = rng.choice([0, 2, 8, 16])
        long_len = min(rows, round(log_uniform(rng, 1000, 400_000)))
        spec = (
            f"circuit:rows={rows},empty={empty},long_rows={long_rows},long_len={long_len},"
            f"mean={mean},seed={seed}"
        )
        return spec, rows * (1 - empty) * mean + long_rows * long_len, f"{long_rows} long rows"
    if family == "arrow":
        n = max(100, round(nnz / 3))
        return f"arrow:n={n}", 3 * n, "arrow"
    if family == "random_nnz":
        rows = max(10, round(nnz / log_uniform(rng, 2, 200)))
        cols = max(10, round(rows * log_uniform(rng, 0.25, 4)))
        total = min(round(nnz), rows * cols)  # small shapes cannot hold more
        return f"random_nnz:rows={rows},cols={cols},nnz={total},seed={seed}", total, "random"
    if family == "single_row":
        cols = round(nnz)
        return f"single_row:cols={cols},seed={seed}", cols, "1 row"
    if family == "single_column":
        rows = round(nnz)
        return f"single_column:rows={rows},seed={seed}", rows, "1 column"
    if family == "one_full_row":
        rows = max(100, round(math.sqrt(nnz) * 4))
        cols = round(nnz)
        row = rng.randrange(rows)
        spec = f"one_full_row:rows={rows},cols={cols},row={row},seed={seed}"
        return spec, cols, "1 full row"
    raise ValueError(family)


def corpus(count, seed):
    rng = random.Random(seed)
    total_weight = sum(FAMILY_WEIGHTS.values())
    families = []
    for family, weight in FAMILY_WEIGHTS.items():
        families += [family] * max(2, round(count * weight / total_weight))
    entries = []
    for i, family in enumerate(families):
        spec, est, _ = make_spec(rng, family, target_nnz(rng), seed=i + 1)
        entries.append((f"{family}-{i:03d}", spec, est))
    rng.shuffle(entries)
    return entries


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=300, help="about this many matrices")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", help="output file (default: stdout)")
    args = ap.parse_args()
    entries = corpus(args.count, args.seed)
    text = "".join(f"{name} {spec}\n" for name, spec, _ in entries)
    header = (
        f"# bench/selector/corpus.py --count {args.count} --seed {args.seed}: "
        f"{len(entries)} matrices, about {sum(e[2] for e in entries) / 1e6:.0f} M nonzeros\n"
    )
    if args.out:
        with open(args.out, "w") as f:
            f.write(header + text)
    else:
        sys.stdout.write(header + text)
    by_family = {}
    for name, _, est in entries:
        family = name.rsplit("-", 1)[0]
        n, total = by_family.get(family, (0, 0))
        by_family[family] = (n + 1, total + est)
    for family, (n, total) in sorted(by_family.items()):
        print(f"{family:14s} {n:4d} matrices, ~{total / 1e6:8.1f} M nnz", file=sys.stderr)


if __name__ == "__main__":
    main()
