#!/usr/bin/env python3
"""This folder's summaries, with session 5's code (../2026-11-27-h100-session5/summary.py): auto
against the per-matrix best kernel measured in the same hola-bench run on the committed trees'
held-out matrices, blocked (--block-us 50) and plain, with run F of session 5 (the code before
the gated check) beside run H; then run I (trees retrained on GPU-alone timings, not adopted)
against run H on the held-out matrices the two runs share. Usage, from the repository root:
  python3 bench/results/2026-11-27-h100-session6/summary.py > bench/results/2026-11-27-h100-session6/summary.txt
"""
import importlib.util
import os

HERE = os.path.dirname(os.path.abspath(__file__))
SESSION5 = os.path.join(HERE, "..", "2026-11-27-h100-session5")
spec = importlib.util.spec_from_file_location("session5", os.path.join(SESSION5, "summary.py"))
s5 = importlib.util.module_from_spec(spec)
spec.loader.exec_module(s5)

RUNS = [(SESSION5, "F-blocked-heldout.json.gz"), (HERE, "H-blocked-heldout.json.gz"),
        (SESSION5, "F-plain-heldout.json.gz"), (HERE, "H-plain-heldout.json.gz")]


def main():
    print("# python3 bench/results/2026-11-27-h100-session6/summary.py: derived from the files "
          "named below (each names its commit, GPU and command)")
    for folder, name in RUNS:
        s5.HERE = folder
        d = s5.load(name)
        n = len({r["matrix"] for r in d["results"]})
        print(f"== {os.path.basename(folder)}/{name}: commit {d['commit']}, {d['device']}, "
              f"{n} matrices, block_us {d.get('block_us')}")
        s5.same_run(d)
    s5.HERE = HERE
    new, old = s5.load("I-blocked-heldout.json.gz"), s5.load("H-blocked-heldout.json.gz")
    shared = {r["matrix"] for r in new["results"]} & {r["matrix"] for r in old["results"]}
    print(f"== I-blocked-heldout.json.gz: commit {new['commit']} with run I's retrained trees, "
          f"{new['device']}, its own held-out set ({len({r['matrix'] for r in new['results']})} "
          f"matrices)")
    s5.same_run(new)
    for label, d in (("run I, retrained trees", new), ("run H, committed trees", old)):
        print(f"== {label}, on the {len(shared)} held-out matrices both runs timed")
        s5.same_run(dict(d, results=[r for r in d["results"] if r["matrix"] in shared]))


if __name__ == "__main__":
    main()
