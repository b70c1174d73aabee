"""Tables of session 24's runs (python3 summary.py > summary.txt), from the JSON files beside it.

A: the first op T product of vector-adaptive (plan of the windows, trial, product) less that of
   the same kernel with windows off (no plan), at the final sample code (239f49c: offsets written
   on the GPU, counted on the host), beside session 22's runs B (host sample, 8e31aa2) and C (GPU
   sample counted by CUB, c1094fc).
"""
import gzip
import json
from collections import defaultdict

S22 = "../2026-11-29-session22/"


def load(name):
    with gzip.open(name) as f:
        return json.load(f)


print("# First op T of vector-adaptive less that of vector-adaptive:win=0 (ms)")
runs = {"B": load(S22 + "B-first.json.gz"), "C": load(S22 + "C-first.json.gz"),
        "A": load("A-first.json.gz")}
for run, d in runs.items():
    print(f"{run}: commit {d['commit'][:7]}, {d['device']}")
table = defaultdict(dict)
for run, d in runs.items():
    for r in d["results"]:
        table[(r["matrix"], r["precision"])][(run, r["kernel"])] = r
print(f"\n{'matrix':62s} prec    product  plan B  plan C  plan A  windows (A)")
for (m, p), k in table.items():
    extra = {}
    for run in runs:
        va, w0 = k.get((run, "vector-adaptive")), k.get((run, "vector-adaptive:win=0"))
        extra[run] = va["first_run_ms"] - w0["first_run_ms"] if va and w0 else float("nan")
    va_a = k[("A", "vector-adaptive")]
    note = va_a["note"].split(", ", 1)[1] if ", " in va_a["note"] else "none"
    print(f"{m[:62]:62s} {p:6s} {va_a['time_ms']:8.3f} {extra['B']:7.2f} {extra['C']:7.2f} "
          f"{extra['A']:7.2f}  {note}")
