"""Scores that cannot occur at the stated test-set size, and intervals that exclude their score.

A score on ``n`` rows takes only some values: a binary F1 is 0 or at least ``2 / (n + 1)`` (one
true positive, every other row wrong), so an F1 of 0.00001 at 5,000 rows cannot be a score on
5,000 rows. The universe then has no true score that produces it, and the test inversion returns
an interval that does not hold the score itself. Such entries get no interval: the pipeline names
them with the reason (:func:`impossible_scores`), rather than show an interval that excludes the
score they were given.
"""
from __future__ import annotations

import numpy as np

from leaderboard.metrics import Metric

_SMALLEST_AT_ONE_HIT = {"f1": lambda n: 2.0 / (n + 1.0)}   # one true positive, all else wrong


def impossible_scores(metric: Metric, scores: np.ndarray, n_test: int, low: np.ndarray,
                      high: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Which scores cannot be given an interval that holds them, and why, per entry.

    Parameters
    ----------
    metric : Metric
    scores : ndarray, shape (E,)
    n_test : int
        The stated test-set size.
    low, high : ndarray, shape (E,)
        The intervals from the noise model (NaN where none).

    Returns
    -------
    mask : ndarray of bool, shape (E,)
        True where the entry must get no interval.
    reasons : list of str
        One sentence per True entry, in order.

    Examples
    --------
    >>> from leaderboard.metrics import get_metric
    >>> mask, why = impossible_scores(get_metric("f1"), np.array([0.5, 0.00001]), 5000,
    ...                               np.array([0.48, 0.0003]), np.array([0.52, 0.01]))
    >>> mask.tolist(), why[0][:40]
    ([False, True], 'F1 score 1e-05 is below the smallest non')
    """
    scores = np.asarray(scores, dtype=float)
    mask = np.zeros(scores.shape, dtype=bool)
    reasons: list[str] = []
    smallest = _SMALLEST_AT_ONE_HIT.get(metric.name)
    floor = smallest(n_test) if smallest is not None else None
    # a score printed to a few digits may sit a rounding away from its interval's edge
    slack = 1e-9 * np.maximum(1.0, np.abs(scores)) + 0.5e-5 * np.abs(high - low)
    for i, s in enumerate(scores):
        if not np.isfinite(s):
            continue
        if floor is not None and 0 < s < floor * (1 - 1e-6):
            mask[i] = True
            reasons.append(f"{metric.label} {s:.5g} is below the smallest non-zero "
                           f"{metric.label} possible on {n_test:,} rows ({floor:.3g}: one true "
                           "positive, every other row wrong), so it cannot be a score on that "
                           "test set; check --n-test or the score")
        elif np.isfinite(low[i]) and not (low[i] - slack[i] <= s <= high[i] + slack[i]):
            mask[i] = True
            reasons.append(f"{metric.label} {s:.5g} is not a score the universe produces on "
                           f"{n_test:,} rows near any true score (its interval would be "
                           f"{low[i]:.3g} to {high[i]:.3g}, excluding the score itself); check "
                           "--n-test or the score")
    return mask, reasons
