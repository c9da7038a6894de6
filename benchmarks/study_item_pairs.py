"""Known-truth check of the pairwise table's "all pairs at once" (``--items-policy pairwise``).

Null benchmarks (every model equally good, each lacking a random share of the items): a pair
declared different is a family-wise error, so the share of benchmarks without one must be at
least 1 - alpha. Compared: the table's wild bootstrap-t (:func:`~leaderboard.pipelines.item_pairs.
pairwise_on_shared`, issue 39) and the bootstrap it replaced (max over pairs of ``|d* - d| / sd``
with the bootstrap's own SD, reimplemented here for the comparison). Rows also give the mean
interval width of the new method relative to the old.

Usage::

    nice -n 10 python benchmarks/study_item_pairs.py [--boards 200] [--replicates 1000]

docs/calibration.md ("The pairwise table") quotes its output.
"""
from __future__ import annotations

import argparse
import math

import numpy as np
from scipy.special import expit

from leaderboard.metrics.per_item import MeanOwnItems
from leaderboard.noise.bootstrap import replicate_scores
from leaderboard.noise.weights import resampling
from leaderboard.pipelines.item_pairs import MIN_SHARED, pairwise_on_shared

SHAPES = ((5, 300, 0.2, "bin"), (20, 60, 0.2, "bind"), (40, 40, 0.1, "con"),
          (80, 30, 0.1, "bind"), (30, 120, 0.3, "con"), (60, 200, 0.2, "bind"))


def old_table(values: np.ndarray, replicates: int, seed: int, alpha: float):
    """The bootstrap table before issue 39: (lows, highs) of every pair."""
    k, n = values.shape
    first, second = np.triu_indices(k, 1)
    diffs = values[first] - values[second]
    impl = MeanOwnItems()
    prepared = impl.prepare(np.zeros(n), list(diffs))
    point = impl.point(prepared, n)
    reps = replicate_scores(impl, prepared, resampling(np.zeros(n), "plain"), replicates, seed)
    shared = np.isfinite(diffs).sum(axis=1)
    sd = np.nanstd(reps, axis=1, ddof=1)
    ok = (shared >= MIN_SHARED) & (sd > 0)
    t = np.abs(reps[ok] - point[ok, None]) / sd[ok, None]
    c = float(np.quantile(np.nanmax(t, axis=0), 1 - alpha))
    return np.where(ok, point - c * sd, np.nan), np.where(ok, point + c * sd, np.nan)


def board(rng, models: int, items: int, missing: float, kind: str) -> np.ndarray:
    diff = rng.normal(0, 1.5, items) if kind.endswith("d") else np.zeros(items)
    if kind.startswith("bin"):
        x = (rng.random((models, items)) < expit(0.4 + diff)).astype(float)
    else:
        x = diff + rng.standard_normal((models, items))
    x[rng.random(x.shape) < missing] = np.nan
    return x


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--boards", type=int, default=200)
    ap.add_argument("--replicates", type=int, default=1000)
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--rows", default=None, help="which rows of SHAPES (comma-separated "
                    "indices; default all)")
    args = ap.parse_args()
    print("| models x items | missing | values | boards | before: no pair declared | "
          "now: no pair declared | width now / before |")
    print("|---|---|---|---|---|---|---|")
    rows = SHAPES if args.rows is None else [SHAPES[int(i)] for i in args.rows.split(",")]
    for models, items, missing, kind in rows:
        rng = np.random.default_rng([39, models, items])
        held_old = held_new = 0
        ratio = []
        for b in range(args.boards):
            x = board(rng, models, items, missing, kind)
            lo, hi = old_table(x, args.replicates, b, args.alpha)
            held_old += not ((lo > 0) | (hi < 0)).any()
            new = pairwise_on_shared(x, [str(i) for i in range(models)],
                                     replicates=args.replicates, seed=b, alpha=args.alpha,
                                     higher_is_better=True)
            held_new += not (new.shown_better() != 0).any()
            ok = np.isfinite(hi) & np.isfinite(new.high)
            ratio.append(np.median((new.high - new.low)[ok] / (hi - lo)[ok]))
        n = args.boards

        def rate(k):
            p = k / n
            return f"{100 * p:.1f} ± {100 * math.sqrt(max(p * (1 - p), 1 / n) / n):.1f}"
        print(f"| {models} x {items} | {missing:.0%} | {kind} | {n} | {rate(held_old)} | "
              f"{rate(held_new)} | {np.median(ratio):.2f} |", flush=True)


if __name__ == "__main__":
    main()
