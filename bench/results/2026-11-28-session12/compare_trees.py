# Trees of run B alone (259 corpus matrices, the committed ones) against trees of runs B + E (all
# 312), trained by train.py's own functions (same grid, seed and tie rule), both scored on the
# matrices held out of both trainings: python3 bench/results/2026-11-28-session12/compare_trees.py
import sys

import numpy as np

sys.path.insert(0, "bench/selector")
import train as T  # noqa: E402

B = "bench/selector/data/2026-11-28-h200.json.gz"
E = "bench/results/2026-11-28-session12/E-corpus-rest.json.gz"
grid = [
    (k, d, leaf, g)
    for k in T.TREE_KINDS
    for d in T.DEPTHS
    for leaf in T.MIN_LEAVES
    for g in T.MIN_GAPS
]
sweep = T.read_sweep(T.os.path.join(T.repo_root(), T.SWEEP_FEATURES))


def trees(files):
    ds = T.Dataset(files, None)
    names_all = sorted({n for names, _ in ds.tables.values() for n in names})
    trn, tst = T.split_matrices(names_all, 0.3, 0)
    ts = set(trn)
    out = {}
    for key, (names, times) in ds.tables.items():
        X = ds.features(names)
        nnz = ds.nnz(names)
        tr = np.array([i for i, n in enumerate(names) if n in ts])
        tied, _ = T.cross_validate(X[tr], times[tr], nnz[tr], 5, 0, grid, "alone", 3, None, 2)
        best, root, leaves = T.steadiest_tied_tree(
            tied,
            X.astype(np.float32)[tr],
            T.prepare(times)[tr],
            [names[i] for i in tr],
            times[tr],
            ds,
            sweep,
            "alone",
        )
        out[key] = root
    return ds, set(trn), set(tst), out


dsB, trB, teB, rB = trees([B])
dsF, trF, teF, rF = trees([B, E])
common = teF - trB
print("full test", len(teF), "common (not in B train)", len(common))
for key, (names, times) in dsF.tables.items():
    X32 = dsF.features(names).astype(np.float32)
    nnz = dsF.nnz(names)
    sel = np.array([i for i, n in enumerate(names) if n in common])
    res = []
    for lab, r in (("B-only", rB[key]), ("B+E", rF[key])):
        pairs = T.predict(r, X32)
        got = T.auto_times(pairs, times)
        alone = T.auto_times(pairs, times, trial=False)
        h, m, _, _ = T.metrics(got[sel], times[sel], nnz[sel])
        ha, ma, _, _ = T.metrics(alone[sel], times[sel], nnz[sel])
        res.append("%s race %.3f min %.2f | alone %.3f min %.2f" % (lab, h, m, ha, ma))
    print(key, len(sel), " || ".join(res))
