#!/usr/bin/env python3
"""Medians of hola-first-call's JSON lines per (commit, matrix, kernel, check, --pre-steps, fatbin
compression, module loading): the setup and its steps, the first product, the steady product and the check's extra
time, in ms (docs/performance-history.md, "First products of a process").

    python3 bench/first_call_summary.py FILE.jsonl [FILE.jsonl ...]
"""

import json
import statistics
import sys


def group_key(d):
    return (d.get("commit", "?")[:7], d["matrix"], d["kernel"], bool(d["check"]), bool(d.get("pre_steps", False)),
            d.get("fatbin_compression", ""), d.get("cuda_module_loading", ""))


def summarize(lines):
    """Rows of (key, runs, medians) in first-seen order of the keys."""
    groups = {}
    for line in lines:
        line = line.strip()
        if not line:
            continue
        d = json.loads(line)
        groups.setdefault(group_key(d), []).append(d)
    rows = []
    for key, runs in groups.items():
        def median(get):
            values = [get(d) for d in runs]
            values = [v for v in values if v is not None]
            return statistics.median(values) if values else None
        steps = lambda name: (lambda d: d.get("setup_steps_ms", {}).get(name))  # noqa: E731
        medians = {
            "setup": median(lambda d: d["setup_ms"]),
            "analyze": median(steps("analyze")),
            "choose": median(steps("choose")),
            "prepare": median(steps("prepare")),
            "first_product": median(lambda d: d["product_ms"][0]),
            "steady_product": median(lambda d: d["steady_product_ms"]),
            "check_excess": median(lambda d: d["check_excess_ms"]),
            "pool_first": median(lambda d: d.get("pre_pool_ms")),
        }
        rows.append((key, len(runs), medians))
    return rows


def fmt(v):
    return "-" if v is None else f"{v:.2f}"


def main(argv):
    if len(argv) < 2:
        sys.stderr.write(__doc__)
        return 2
    lines = []
    for path in argv[1:]:
        with open(path) as f:
            lines.extend(f.readlines())
    cols = ["setup", "analyze", "choose", "prepare", "first_product", "steady_product",
            "check_excess", "pool_first"]
    print("commit  matrix                kernel    check pre  fatbin   loading runs "
          + " ".join(f"{c:>14s}" for c in cols))
    for (commit, matrix, kernel, check, pre, fatbin, loading), n, m in summarize(lines):
        print(f"{commit:7s} {matrix:21s} {kernel:9s} {int(check):5d} {int(pre):3d}  "
              f"{fatbin or '-':8s} {loading or '-':7s} {n:4d} "
              + " ".join(f"{fmt(m[c]):>14s}" for c in cols))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
