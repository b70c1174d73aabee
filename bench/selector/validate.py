#!/usr/bin/env python3
"""Measures the trained "auto" on the held-out matrices, through the plugin (after train.py).

Usage:
  python3 bench/selector/validate.py list EVAL.json DATA.json[.gz] > heldout.txt
  python3 bench/selector/validate.py score EVAL.json DATA.json[.gz] AUTO.json

list: the held-out matrices of the evaluation (train.py's output) as a hola-bench spec list.
score: reads a hola-bench run of `-k auto` (cuSPARSE is always timed with it) on that list,
built with the new trees, and adds a "measured" section to EVAL.json: per (precision, op) and
pooled, the harmonic mean over the held-out matrices of auto's speedup over cuSPARSE in that
run divided by the best candidate's speedup over cuSPARSE in the corpus run (capped at 1: the
two runs' noise must not count as a gain), and the minimum of auto's speedup over cuSPARSE in
the same run on matrices with >= 300 k nonzeros; plus the kernel auto ran on each matrix. These
are what auto does on the GPU, setup race included, rather than train.py's offline estimate.
"""
import gzip
import json
import sys

LARGE_NNZ = 300_000


def read_json(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def held_out(evaluation):
    names = set()
    for entry in evaluation["combos"].values():
        names.update(row["matrix"] for row in entry.get("per_matrix", []))
    return sorted(names)


def list_specs(evaluation, data):
    specs = {m["matrix"]: m["spec"] for m in data["matrices"]}
    for name in held_out(evaluation):
        print(f"{name} {specs[name]}")


def best_speedups(data):
    """(matrix, precision, op) -> best candidate's speedup over cuSPARSE in the corpus run."""
    times = {}
    for r in data["results"]:
        if not r["correct"] or r["time_ms"] <= 0:
            continue
        key = (r["matrix"], r["precision"], r["op"])
        times.setdefault(key, {})[r["kernel"]] = r["time_ms"]
    out = {}
    for key, row in times.items():
        if "cusparse" in row:
            out[key] = row["cusparse"] / min(row.values())
    return out


def score(eval_path, data, auto):
    evaluation = read_json(eval_path)
    best = best_speedups(data)
    runs = {}
    for r in auto["results"]:
        runs.setdefault((r["matrix"], r["precision"], r["op"]), {})[r["kernel"]] = r
    wanted = set(held_out(evaluation))
    measured = {
        "command": auto.get("command", ""),
        "commit": auto.get("commit", ""),
        "device": auto.get("device", ""),
        "combos": {},
    }
    pooled_ratio, pooled_large, problems = [], [], []
    for combo in evaluation["combos"]:
        precision, op = combo.split("-")
        ratios, large_speedups, rows = [], [], []
        for (matrix, p, o), kernels in sorted(runs.items()):
            if p != precision or o != op or matrix not in wanted:
                continue
            a, c = kernels.get("auto"), kernels.get("cusparse")
            if not a or not c or (matrix, p, o) not in best:
                continue
            if not a["correct"]:
                problems.append(f"{matrix} {p} {o}: auto gave a wrong result")
                continue
            speedup = c["time_ms"] / a["time_ms"]
            ratio = min(1.0, speedup / best[(matrix, p, o)])
            ratios.append(ratio)
            if a["nnz"] >= LARGE_NNZ:
                large_speedups.append(speedup)
            note = a.get("note", "")
            ran = note.split("chose ")[-1] if "chose " in note else "?"
            rows.append(
                {
                    "matrix": matrix,
                    "nnz": a["nnz"],
                    "auto_ran": ran,
                    "speedup_vs_cusparse": speedup,
                    "best_over_auto": ratio,
                }
            )
        if not ratios:
            continue
        measured["combos"][combo] = {
            "n": len(ratios),
            "oracle_ratio_hmean": len(ratios) / sum(1.0 / max(r, 1e-12) for r in ratios),
            "min_speedup_vs_cusparse_large": min(large_speedups) if large_speedups else None,
            "n_large": len(large_speedups),
            "per_matrix": rows,
        }
        pooled_ratio += ratios
        pooled_large += large_speedups
    if pooled_ratio:
        measured["all"] = {
            "n": len(pooled_ratio),
            "oracle_ratio_hmean": len(pooled_ratio)
            / sum(1.0 / max(r, 1e-12) for r in pooled_ratio),
            "min_speedup_vs_cusparse_large": min(pooled_large) if pooled_large else None,
        }
    measured["problems"] = problems
    evaluation["measured"] = measured
    with open(eval_path, "w") as f:
        json.dump(evaluation, f, indent=1)
        f.write("\n")
    for combo, e in measured["combos"].items():
        print(
            f"measured {combo}: {e['oracle_ratio_hmean']:.3f} of the best (hmean, {e['n']} "
            f"matrices), min {e['min_speedup_vs_cusparse_large']}x cuSPARSE at >= {LARGE_NNZ}"
        )
    if "all" in measured:
        print(
            f"measured, all: {measured['all']['oracle_ratio_hmean']:.3f} of the best, min "
            f"{measured['all']['min_speedup_vs_cusparse_large']}x cuSPARSE at >= {LARGE_NNZ}"
        )
    for p in problems:
        print("PROBLEM:", p)
    return 1 if problems or not pooled_ratio else 0


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "list":
        list_specs(read_json(sys.argv[2]), read_json(sys.argv[3]))
        return 0
    if len(sys.argv) == 5 and sys.argv[1] == "score":
        return score(sys.argv[2], read_json(sys.argv[3]), read_json(sys.argv[4]))
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main())
