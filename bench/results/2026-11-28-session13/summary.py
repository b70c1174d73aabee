#!/usr/bin/env python3
"""Session 13 summary (summary.txt) from the JSON results of runs A, B and C in this folder and
of session 12's run C (auto before the block-row rule, same GPU kind)."""
import gzip
import json
import math
import os

HERE = os.path.dirname(os.path.abspath(__file__))
BEFORE = os.path.join(HERE, "..", "2026-11-28-session12", "C-final.json.gz")


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    doc = json.load(opener(path))
    table = {(r["matrix"], r["precision"], r["op"], r["kernel"]): r for r in doc["results"]}
    wrong = sum(1 for r in doc["results"] if not r["correct"])
    print(f"## {os.path.relpath(path, HERE)}: commit {doc['commit'][:7]}, {doc['device']}")
    print("command:", doc["command"])
    print(f"results: {len(doc['results'])}, wrong: {wrong}")
    return table


def cases(table):
    seen = []
    for m, p, o, _ in table:
        if (m, p, o) not in seen:
            seen.append((m, p, o))
    return seen


def x_cusparse(table, m, p, o, kernel):
    r = table.get((m, p, o, kernel))
    return table[(m, p, o, "cusparse")]["time_ms"] / r["time_ms"] if r else float("nan")


def geo(values):
    values = [v for v in values if v == v]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else float("nan")


def table_of(table, kernels, title, op_first=False):
    print(f"\n{title}")
    short = [k.replace("vector-adaptive", "va").replace("inode:lanes=", "in") for k in kernels]
    print(f"{'matrix':40s} {'prec':6s} op " + " ".join(f"{k:>10s}" for k in short))
    order = sorted(cases(table), key=lambda c: (c[2], c[0], c[1])) if op_first else cases(table)
    for m, p, o in order:
        print(f"{m[-40:]:40s} {p:6s} {o}  " +
              " ".join(f"{x_cusparse(table, m, p, o, k):10.2f}" for k in kernels))


print("# made by `python3 bench/results/2026-11-28-session13/summary.py > summary.txt`; each "
      "section names its commit, GPU and command; ratios are x cuSPARSE CSR ALG1 in the same run")

a = load(os.path.join(HERE, "A-combine.json.gz"))
table_of(a, ["hola", "scalar", "vector-adaptive", "vector-adaptive:comb=1"] +
         [f"vector-adaptive:lanes={w},comb=1" for w in (2, 4, 8, 16)],
         "run A, op T: the scatter with the products combined per column (comb=1) against without")
ratios = [x_cusparse(a, m, p, o, "vector-adaptive:comb=1") / x_cusparse(a, m, p, o, "vector-adaptive")
          for m, p, o in cases(a) if "column gather" not in a[(m, p, o, "vector-adaptive")]["note"]]
print(f"  comb=1 over comb=0 at the rule's width: geo {geo(ratios):.3f} "
      f"({min(ratios):.2f}-{max(ratios):.2f}, {len(ratios)} cases)")

b = load(os.path.join(HERE, "A-bound.json.gz"))
print("\nrun A: vector-adaptive with 2 and 4 lanes on banded rows of 6-18 entries "
      "(time with 2 lanes / time with 4: above 1, 4 lanes faster)")
for m, p, o in sorted(cases(b), key=lambda c: (c[2], c[1], c[0])):
    r = b[(m, p, o, "cusparse")]
    mean = r["nnz"] / r["rows"]
    t2 = b[(m, p, o, "vector-adaptive:lanes=2")]["time_ms"]
    t4 = b[(m, p, o, "vector-adaptive:lanes=4")]["time_ms"]
    print(f"{m:42s} {p:6s} {o} mean {mean:5.2f}  2 lanes {x_cusparse(b, m, p, o, 'vector-adaptive:lanes=2'):5.2f}"
          f"  4 lanes {x_cusparse(b, m, p, o, 'vector-adaptive:lanes=4'):5.2f}  2/4 {t2 / t4:5.2f}")

for bu in (0, 40):
    h = load(os.path.join(HERE, f"A-hepph-bu{bu}.json"))
    doc = json.load(open(os.path.join(HERE, f"A-hepph-bu{bu}.json")))
    for r in doc["results"]:
        print(f"  CA-HepPh double T, --block-us {bu}: {r['kernel']:9s} {1000 * r['time_ms']:6.2f} us "
              f"(min {1000 * r['min_ms']:6.2f}) {r['note']}")

bt = load(os.path.join(HERE, "B-inode.json.gz"))
table_of(bt, ["hola", "vector-adaptive", "inode"] + [f"inode:lanes={w}" for w in (4, 8, 16, 32)],
         "run B: inode at its rule's width and forced widths", op_first=True)

c = load(os.path.join(HERE, "C-auto.json.gz"))
before = load(BEFORE)
print("\nrun C: auto with the block-row rule (x cuSPARSE), % of the floor, its pick; "
      "'before' = session 12's run C (same matrix and op, where it has it)")
print(f"{'matrix':36s} {'prec':6s} op  inode   auto  %floor  before  pick")
groups = {}
for m, p, o in sorted(cases(c), key=lambda k: (k[2], k[0], k[1])):
    r = c[(m, p, o, "auto")]
    old = x_cusparse(before, m, p, o, "auto") if (m, p, o, "cusparse") in before else float("nan")
    print(f"{m[-36:]:36s} {p:6s} {o}  {x_cusparse(c, m, p, o, 'inode'):5.2f}  "
          f"{x_cusparse(c, m, p, o, 'auto'):5.2f}  {r['pct_floor']:6.1f}  {old:6.2f}  "
          f"{r['note'].replace('chose ', '')}")
    if m.startswith("elasticity"):
        groups.setdefault((o, p), []).append(x_cusparse(c, m, p, o, "auto"))
print("\nauto x cuSPARSE on the 8 block-row matrices (elasticity, 2-8 unknowns a node):")
for (o, p), v in sorted(groups.items()):
    print(f"  op {o} {p:6s}: geo {geo(v):.3f}, min {min(v):.2f}, max {max(v):.2f}")

# Run E: auto through the plugin on the trees' 78 held-out matrices, and PageRank.
ev = json.load(open(os.path.join(HERE, "E-selector-eval.json")))
e = load(os.path.join(HERE, "E-selector-eval-auto.json.gz"))
old = load(os.path.join(HERE, "..", "selector-2026-11-28-auto.json.gz"))
print("\nrun E: selector-validate's measured section (hmean of auto's time over the best of the "
      "corpus run, per precision and op; timed with the host's launch and auto's check in the reps)")
measured = ev["measured"]
for key, value in sorted(measured["combos"].items()):
    print(f"  {key}: {value['oracle_ratio_hmean']:.3f}, min x cuSPARSE at >= 300k nonzeros "
          f"{value['min_speedup_vs_cusparse_large']:.3f}")
print(f"  all: {measured['all']['oracle_ratio_hmean']:.3f} (session 12's run C: "
      f"{json.load(open(os.path.join(HERE, '..', 'selector-2026-11-28.json')))['measured']['all']['oracle_ratio_hmean']:.3f})")
print("auto's inode picks on the held-out matrices (x cuSPARSE, median / min-based), against "
      "session 12's validation run:")
for (m, p, o, k), r in sorted(e.items()):
    if k == "auto" and "inode" in r["note"]:
        c = e[(m, p, o, "cusparse")]
        r0, c0 = old[(m, p, o, "auto")], old[(m, p, o, "cusparse")]
        print(f"  {m} {p} {o}: {c['time_ms'] / r['time_ms']:.2f} / {c['min_ms'] / r['min_ms']:.2f}; "
              f"before {c0['time_ms'] / r0['time_ms']:.2f} ({r0['note']})")
for name, t in (("session 12", old), ("session 13", e)):
    rs = [t[(m, p, o, "cusparse")]["time_ms"] / r["time_ms"] for (m, p, o, k), r in t.items()
          if k == "auto" and (m, p, o, "cusparse") in t]
    print(f"  {name}: auto x cuSPARSE over {len(rs)} cases, geo {geo(rs):.3f}, "
          f"{sum(x < 0.97 for x in rs)} below 0.97")

print("\nrun E: hola-pagerank --backend gpu, time per applied iteration over one SpMV of auto "
      "(E-pagerank.txt)")
current = None
for line in open(os.path.join(HERE, "E-pagerank.txt")):
    if line.startswith("== "):
        current = line.split(":")[0][3:]
    elif "applied iteration / auto SpMV" in line and current:
        ratio = line.split("applied iteration / auto SpMV = ")[1].split(",")[0]
        kernel = line.split("Operator auto (")[1].split(")")[0]
        print(f"  {current:16s} {ratio}  (auto ran {kernel})")

print("\nrun E: auto below 0.97x cuSPARSE (median), with its pick and the ratio of the fastest runs")
for (m, p, o, k), r in sorted(e.items()):
    if k != "auto" or (m, p, o, "cusparse") not in e:
        continue
    c = e[(m, p, o, "cusparse")]
    if c["time_ms"] / r["time_ms"] < 0.97:
        print(f"  {m} {p} {o}: {c['time_ms'] / r['time_ms']:.3f} ({1000 * r['time_ms']:.1f} us, "
              f"{r['note']}), fastest runs {c['min_ms'] / r['min_ms']:.3f}")
