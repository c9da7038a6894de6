"""Benchmark: the report's curves with bootstrap bands (leaderboard/noise/curves.py).

ROC, precision-recall and CAP on a grid of 101 points plus the AUC, for the top 5 entries over
2,000 paired bootstrap replicates of the test rows: one compiled walk per entry and replicate
block. The naive baseline, run in this process on the same weights: per replicate, expand the
weights into repeated rows and call scikit-learn's roc_curve and precision_recall_curve, then
read them on the grid with numpy; timed on a few replicates and extrapolated. Both give the same
ROC on the replicates timed (checked).

    python benchmarks/bench_curves.py [--rows 100000] [--entries 5] [--replicates 2000]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.metrics import precision_recall_curve, roc_curve

from leaderboard.noise import curves as cv
from leaderboard.noise.weights import resampling, weight_block


def naive_roc(y, s, w):
    """One replicate the notebook way: rows repeated by their weights, scikit-learn's curves."""
    idx = np.repeat(np.arange(y.size), w.astype(int))
    f, t, _ = roc_curve(y[idx], s[idx], drop_intermediate=False)
    precision_recall_curve(y[idx], s[idx])
    out = []
    for g in cv.GRID:   # the top of a vertical run, then along the segment
        j = min(max(int(np.searchsorted(f, g, side="right")), 1), f.size - 1)
        x0, x1 = f[j - 1], f[j]
        out.append(t[j] if x1 == x0 else t[j - 1] + min(max((g - x0) / (x1 - x0), 0), 1)
                   * (t[j] - t[j - 1]))
    return np.array(out)


def main_benchmark() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--entries", type=int, default=5)
    parser.add_argument("--replicates", type=int, default=2000)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    y = (rng.random(args.rows) < 0.1).astype(int)
    preds = [y * (1 + 0.1 * k) + rng.normal(size=args.rows) for k in range(args.entries)]
    cv.resampled_curves(y[:500], [preds[0][:500]], replicates=32, seed=0)   # compile once
    start = time.perf_counter()
    out = cv.resampled_curves(y, preds, replicates=args.replicates, seed=1)
    ours = time.perf_counter() - start
    w = weight_block(resampling(y.astype(float), "plain"), 1, 0)
    start = time.perf_counter()
    timed = 3
    for r in range(timed):
        naive_roc(y, preds[0], w[r])
    per = (time.perf_counter() - start) / timed
    naive = per * args.replicates * args.entries
    from leaderboard.noise._curve_kernels import walk

    order, positive, ends = cv._prepared(y.astype(float), preds[0])
    mine = walk(w[:timed][:, order], w[:timed].sum(axis=1), w[:timed] @ y, positive, ends,
                cv.GRID)[0]
    assert np.allclose(mine, np.array([naive_roc(y, preds[0], w[r]) for r in range(timed)]),
                       atol=1e-12)
    print(f"{args.entries} entries x {args.rows:,} rows x {args.replicates:,} replicates; "
          f"leader AUC {out[0].auc:.4f} ({out[0].auc_interval[0]:.4f}-"
          f"{out[0].auc_interval[1]:.4f})")
    print(f"compiled walk (ROC, PR, CAP on the grid, AUC): {ours:.1f} s")
    print(f"naive scikit-learn per replicate: {per:.3f} s each, extrapolated {naive:,.0f} s")
    print(f"ratio naive / ours: {naive / ours:,.0f}x")


if __name__ == "__main__":
    main_benchmark()
