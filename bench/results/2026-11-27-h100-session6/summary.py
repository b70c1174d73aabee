#!/usr/bin/env python3
"""This folder's summaries, with session 5's code (../2026-11-27-h100-session5/summary.py): auto
against the per-matrix best kernel measured in the same hola-bench run on the committed trees'
held-out matrices, blocked (--block-us 50) and plain, with run F of session 5 (the code before
the gated check) beside run H. Usage, from the repository root:
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


if __name__ == "__main__":
    main()
