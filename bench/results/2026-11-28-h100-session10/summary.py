#!/usr/bin/env python3
"""This folder's summaries: hola op N's L2 prefetch of the block ahead.
(1) Run A: fixed distances for merge and hola, N and T, double and float, % of the floor per
    matrix against pf=0 (the code before) in the same run.
(2) Runs B and C: the setup rule (the default `hola`: its note gives the sampled x sectors a
    nonzero and the decision) against pf=0 in the same run, with cuSPARSE, merge, scalar and auto.
Every JSON names its commit, GPU and command.
Usage: cd bench/results/2026-11-28-h100-session10 && python3 summary.py > summary.txt
"""
import gzip
import json
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))


def rows(name):
    with gzip.open(os.path.join(HERE, name), "rt") as f:
        d = json.load(f)
    print(f"## {name}: commit {d['commit'][:7]}, {d['device']}, copy bandwidth "
          f"{d['copy_bandwidth_gbs']:.0f} GB/s")
    print(f"command: {d['command']}")
    bad = [r for r in d["results"] if not r.get("correct", False)]
    print(f"results: {len(d['results'])}, wrong: {len(bad)}")
    table = {}
    for r in d["results"]:
        table[(r["matrix"], r["precision"], r["op"], r["kernel"])] = r
    return table


def cases(table):
    seen = []
    for (m, p, op, _) in table:
        if (m, p, op) not in seen:
            seen.append((m, p, op))
    return seen


def pct(table, key):
    r = table.get(key)
    return f"{r['pct_floor']:5.1f}" if r else "    -"


def run_a():
    t = rows("A-prefetch.json.gz")
    kernels = ["cusparse", "merge", "merge:pf=512", "merge:pf=1536", "merge:pf=3072", "hola",
               "hola:pf=256", "hola:pf=1024", "hola:pf=2048"]
    print("% of the floor; last columns: time with pf=0 / time with the distance (> 1: faster)")
    print(f"{'matrix':<22} {'prec':<6} op " + " ".join(f"{k:>13}" for k in kernels))
    for m, p, op in cases(t):
        print(f"{m:<22} {p:<6} {op:<2} " +
              " ".join(f"{pct(t, (m, p, op, k)):>13}" for k in kernels))
    print()
    for base, variants in (("merge", kernels[2:5]), ("hola", kernels[6:9])):
        for p in ("double", "float"):
            for op in ("N", "T"):
                ratios = []
                for m, pp, oo in cases(t):
                    if (pp, oo) != (p, op):
                        continue
                    b = t[(m, p, op, base)]["time_ms"]
                    ratios.append([b / t[(m, p, op, v)]["time_ms"] for v in variants])
                gm = [math.exp(sum(math.log(r[i]) for r in ratios) / len(ratios))
                      for i in range(len(variants))]
                lo = [min(r[i] for r in ratios) for i in range(len(variants))]
                hi = [max(r[i] for r in ratios) for i in range(len(variants))]
                print(f"{base} {p} {op}: " + ", ".join(
                    f"{v.split(':')[1]} {g:.3f} ({l:.3f}-{h:.3f})"
                    for v, g, l, h in zip(variants, gm, lo, hi)))
    print()


def run_rule(name, kernels):
    t = rows(name)
    print("% of the floor; `hola` / pf=0: time with pf=0 over time by the rule (> 1: faster)")
    print(f"{'matrix':<40} {'prec':<6} " + " ".join(f"{k:>12}" for k in kernels) +
          "  hola/pf=0  auto's pick; hola's note")
    on, off = [], []
    for m, p, op in cases(t):
        h, h0 = t[(m, p, op, "hola")], t[(m, p, op, "hola:pf=0")]
        ratio = h0["time_ms"] / h["time_ms"]
        a = t.get((m, p, op, "auto"))
        pick = a["note"].replace("chose ", "") if a else "-"
        print(f"{m:<40} {p:<6} " + " ".join(f"{pct(t, (m, p, op, k)):>12}" for k in kernels) +
              f"  {ratio:9.3f}  {pick}; {h['note']}")
        (on if h["note"].startswith("L2 prefetch") else off).append((m, p, ratio))
    for label, group in (("prefetch on", on), ("prefetch off", off)):
        if group:
            gm = math.exp(sum(math.log(r) for _, _, r in group) / len(group))
            print(f"{label}: {len(group)} cases, hola/pf=0 geometric mean {gm:.3f}, "
                  f"{min(r for *_, r in group):.3f}-{max(r for *_, r in group):.3f}")
    print()


run_a()
run_rule("B-prefetch-rule.json.gz", ["cusparse", "merge", "scalar", "hola:pf=0", "hola:pf=256",
                                     "hola:pf=512", "hola:pf=1024", "hola", "auto"])
run_rule("C-prefetch-final.json.gz", ["cusparse", "merge", "scalar", "hola:pf=0", "hola", "auto"])
