"""Benchmark: the paired bootstrap of submissions mode, 100 entries x 100,000 rows x 1000 replicates.

For ROC AUC and for log loss it prints, all measured in this process:

* the engine's wall time (weights drawn once per block and shared by every entry), with the time
  spent drawing the weights shown separately;
* the naive way: one scikit-learn call per entry per replicate on the resampled rows, timed on a
  few entries and replicates and extrapolated;
* a plain float64 matrix product of the same shape (weights (R, n) @ per-row values (n, E)), in the
  same batches of rows as the engine: the floor for a metric that is a sum over rows.

    python benchmarks/bench_submissions.py [--entries 100] [--rows 100000] [--replicates 1000]
"""
from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.metrics import log_loss, roc_auc_score

from leaderboard.metrics import get_metric
from leaderboard.noise.bootstrap import ResamplingPlan, paired_bootstrap, weight_block
from leaderboard.noise.rng import BLOCK


def make_data(entries: int, rows: int, seed: int = 0):
    """Binary labels (10% positive) and correlated predictions of varying skill."""
    rng = np.random.default_rng(seed)
    y = (rng.random(rows) < 0.1).astype(int)
    shared = rng.standard_normal(rows)
    skill = np.linspace(1.6, 0.8, entries)
    scores = [s * y + 0.7 * shared + 0.7 * rng.standard_normal(rows) for s in skill]
    probs = [1.0 / (1.0 + np.exp(-(x - 2.0))) for x in scores]
    return y, scores, probs


def naive_seconds(fn, y, preds, replicates: int, entries: int) -> float:
    """Seconds per (entry, replicate) of a scikit-learn call on resampled rows."""
    rng = np.random.default_rng(1)
    start = time.perf_counter()
    for _ in range(replicates):
        idx = rng.integers(0, len(y), len(y))
        for p in preds[:entries]:
            fn(y[idx], p[idx])
    return (time.perf_counter() - start) / (replicates * entries)


def weights_seconds(rows: int, replicates: int, batch: int, resample: str = "plain") -> float:
    plan = ResamplingPlan(resample, rows)
    blocks = -(-replicates // BLOCK)
    start = time.perf_counter()
    for first in range(0, blocks, batch // BLOCK):
        np.vstack([weight_block(plan, 0, b) for b in range(first, min(first + batch // BLOCK,
                                                                        blocks))])
    return time.perf_counter() - start


def matmul_seconds(rows: int, entries: int, replicates: int, batch: int) -> float:
    """A plain float64 product of the same shape, in the engine's batches of replicates."""
    rng = np.random.default_rng(2)
    values = np.asfortranarray(rng.random((rows, entries)))
    weights = rng.poisson(1.0, (batch, rows)).astype(float)
    start = time.perf_counter()
    for _ in range(-(-replicates // batch)):
        weights @ values
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=100)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--replicates", type=int, default=1000)
    args = parser.parse_args()
    E, n, R = args.entries, args.rows, args.replicates
    y, scores, probs = make_data(E, n)
    batch = max(BLOCK, (64 * 2**20) // (8 * n) // BLOCK * BLOCK)  # the engine's default
    print(f"{E} entries x {n:,} rows x {R:,} replicates (batches of {batch} replicates)")

    paired_bootstrap(get_metric("auc").impl, y[:2000], [s[:2000] for s in scores[:2]],
                     replicates=64)  # compile the rank kernels outside the timing
    t_weights = weights_seconds(n, R, batch)
    t_poisson = weights_seconds(n, R, batch, "poisson")
    t_matmul = matmul_seconds(n, E, R, batch)
    print(f"drawing the weights alone: {t_weights:.2f} s multinomial, {t_poisson:.2f} s Poisson "
          f"(regenerable by row block; ratio {t_poisson / t_weights:.2f}); plain float64 product "
          f"({R} x {n:,}) @ ({n:,} x {E}): {t_matmul:.2f} s")
    print(f"{'metric':<9}{'engine s':>10}{'minus weights':>15}{'naive s (extrap.)':>19}"
          f"{'x faster':>10}{'/ matmul':>10}")
    for name, fn, preds in (("auc", roc_auc_score, scores), ("logloss", log_loss, probs)):
        start = time.perf_counter()
        paired_bootstrap(get_metric(name).impl, y, preds, replicates=R, seed=0)
        t_engine = time.perf_counter() - start
        naive = naive_seconds(fn, y, preds, replicates=3, entries=5) * E * R
        compute = t_engine - t_weights
        print(f"{name:<9}{t_engine:>10.2f}{compute:>15.2f}{naive:>19.0f}"
              f"{naive / t_engine:>10.0f}{compute / t_matmul:>10.2f}")


if __name__ == "__main__":
    main()
