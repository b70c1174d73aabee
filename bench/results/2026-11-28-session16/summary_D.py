#!/usr/bin/env python3
"""Run D's summary: auto with the trees before / after this session's retraining, same run.

Per (precision, op) and pooled over the 92 held-out matrices, for each trees and round:
- the harmonic mean of auto's speed-up over cuSPARSE ALG1 timed beside it;
- best / auto: cuSPARSE's same-run time divided by the corpus run's best speed-up over cuSPARSE
  (bench/selector/data/2026-11-28-h200-inode.json.gz), capped at 1, harmonic mean (as
  bench/selector/validate.py scores a run);
- cases below 0.97x cuSPARSE among matrices of >= 300 000 nonzeros, and the kernels auto ran.
Usage: python3 bench/results/2026-11-28-session16/summary_D.py > D-summary.txt
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, os.path.join(ROOT, "bench", "selector"))
import validate  # noqa: E402

CORPUS = os.path.join(ROOT, "bench/selector/data/2026-11-28-h200-inode.json.gz")
LARGE = 300_000


def hmean(xs):
    return len(xs) / sum(1 / x for x in xs) if xs else float("nan")


def main():
    best = validate.best_speedups(validate.read_json(CORPUS))
    print("# " + __doc__.splitlines()[0])
    for t in ("before", "after"):
        for rnd in (1, 2):
            run = validate.read_json(os.path.join(HERE, f"D-{t}-{rnd}.json.gz"))
            res = {(r["matrix"], r["precision"], r["op"], r["kernel"]): r for r in run["results"]}
            if rnd == 1 and t == "before":
                print(f"# commit {run.get('commit', '?')[:10]}, {run.get('device', '?')}")
            pooled_sp, pooled_ratio, lows = [], [], []
            line = []
            for prec in ("double", "float"):
                for op in ("N", "T"):
                    sp, ratio = [], []
                    for (m, p, o, k), r in res.items():
                        if (p, o, k) != (prec, op, "auto") or not r["correct"]:
                            continue
                        c = res[(m, p, o, "cusparse")]
                        s = c["time_ms"] / r["time_ms"]
                        sp.append(s)
                        ratio.append(min(1.0, s / best[(m, p, o)]))
                        if r["nnz"] >= LARGE and s < 0.97:
                            lows.append(f"{m} {p} {o} {s:.3f} ({r['note']})")
                    pooled_sp += sp
                    pooled_ratio += ratio
                    line.append(f"{prec} {op}: {hmean(sp):.3f}x / {hmean(ratio):.3f}")
            print(
                f"trees {t:6s} round {rnd}: speed-up over cuSPARSE (hmean) / best over auto: "
                + "; ".join(line)
                + f"; pooled {hmean(pooled_sp):.3f}x / {hmean(pooled_ratio):.3f}"
                + f"; below 0.97x at >= 300k nnz: {len(lows)}"
            )
            for low in lows:
                print(f"    {low}")


if __name__ == "__main__":
    main()
