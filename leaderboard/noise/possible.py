"""Scores that cannot occur at the stated test-set size, and intervals that exclude their score.

A score on ``n`` rows takes only some values: a binary F1 is 0 or at least ``2 / (n + 1)`` (one
true positive, every other row wrong), so an F1 of 0.00001 at 5,000 rows cannot be a score on
5,000 rows. An accuracy (or error rate) on ``n`` rows is a whole number of rows over ``n``, so
0.38461 cannot be an accuracy on 27 rows (10/27 = 0.37037, 11/27 = 0.40741). The universe then
has no true score that produces it, and the test inversion returns an interval that does not hold
the score itself. Such entries get no interval: the pipeline names
them with the reason (:func:`impossible_scores`), rather than show an interval that excludes the
score they were given.
"""
from __future__ import annotations

import numpy as np


from leaderboard.api_words import said
from leaderboard.metrics import Metric

_SMALLEST_AT_ONE_HIT = {"f1": lambda n: 2.0 / (n + 1.0)}   # one true positive, all else wrong
# Scores that are a whole number of rows over the test set's rows.
ROW_COUNT_METRICS = ("accuracy", "zero_one_loss")
# The granularity is trusted only when the board shows the size is exact: at least _FIT_SHARE of
# its distinct scores, and at least _FIT_VALUES of them, are whole rows over n, where a score at a
# wrong size would be so by chance at most _CHANCE of the time. Test-set sizes are often
# approximate (a split by a rounded fraction, a guess); then most scores miss the grid and nothing
# is flagged. On the 12 accuracy boards of mle_dojo (24 slices), sizes 2 to 60,000 armed the
# check only at sizes where every score fit (spaceship-titanic at 4,277, its test set's rows).
_FIT_SHARE, _FIT_VALUES, _CHANCE = 0.75, 5, 0.1

def printed_unit(score: float) -> float:
    """One unit in the last digit the score was printed with (0.38461: 1e-05), from the
    shortest decimal that reads back as the same float (its ``repr``).

    Examples
    --------
    >>> printed_unit(0.38461), printed_unit(0.7), printed_unit(1e-05), printed_unit(2.0)
    (1e-05, 0.1, 1e-05, 1.0)
    """
    mantissa, _, exponent = repr(float(score)).partition("e")
    decimals = len(mantissa.partition(".")[2].rstrip("0")) - (int(exponent) if exponent else 0)
    return 10.0 ** -max(decimals, 0)


def off_the_grid(scores: np.ndarray, n_test: int) -> np.ndarray:
    """Which scores are not a whole number of rows over ``n_test``, within one unit of their
    last printed digit (Kaggle truncates to 5 decimals: 2/3 shows as 0.66666); all False when
    the board does not show that ``n_test`` is its size (see :data:`_FIT_SHARE`).

    Examples
    --------
    >>> scores = np.array([0.7037, 0.66666, 0.55555, 0.51851, 0.48148, 0.44444, 0.40740,
    ...                    0.37037, 0.33333, 0.29629, 0.38461])
    >>> off_the_grid(scores, 27).tolist()[-3:]     # 10/26 is not k/27
    [False, False, True]
    >>> off_the_grid(np.array([0.38461, 0.88461, 0.61538]), 27).tolist()  # size not theirs
    [False, False, False]
    """
    scores = np.asarray(scores, dtype=float)
    out = np.zeros(scores.shape, dtype=bool)
    finite = np.flatnonzero(np.isfinite(scores))
    if finite.size == 0:
        return out
    values, where = np.unique(scores[finite], return_inverse=True)   # ties are no evidence
    unit = np.array([printed_unit(s) for s in values.tolist()])
    chance = np.minimum(1.0, 2.0 * unit * n_test)   # a window of +-1 unit every 1/n
    miss = np.abs(values - np.rint(values * n_test) / n_test) > unit * (1 + 1e-9) + 1e-12
    fits = int(np.sum(~miss))
    if (fits >= max(_FIT_VALUES, _FIT_SHARE * values.size)
            and np.median(chance) <= _CHANCE):
        out[finite] = miss[where]
    return out

def rounding_slack(scores: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """How far outside its interval a score may sit and still count as held: a score printed to
    a few digits may sit a rounding away from its interval's edge (1e-9 of the score, at least
    1e-9, plus 5e-6 of the interval's width)."""
    scores = np.asarray(scores, dtype=float)
    return 1e-9 * np.maximum(1.0, np.abs(scores)) + 0.5e-5 * np.abs(np.asarray(high, dtype=float)
                                                                    - np.asarray(low, dtype=float))


def holding_own_score(scores: np.ndarray, low: np.ndarray, high: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray]:
    """The intervals widened to hold their own score where it sits outside within
    :func:`rounding_slack` (a score beyond it is :func:`impossible_scores`' to name).

    At extreme scores the slack is as large as the score itself: a log loss of 1e-9 on 1,000
    rows has the interval 1.18e-9 to 9.8e-7 (at so small a true loss most test sets score
    lower, so the inversion sits above it), an AUC of 1 - 1e-9 on 100,000 rows 0.999999998 to
    0.999999998. Shown as they are, the page's interval would exclude the score beside it.
    Widening a confidence interval only adds true scores to it, so its coverage cannot fall.

    Examples
    --------
    >>> low, high = holding_own_score(np.array([1e-9, 0.5]), np.array([1.18e-9, 0.4]),
    ...                               np.array([9.8e-7, 0.6]))
    >>> low.tolist(), high.tolist()
    ([1e-09, 0.4], [9.8e-07, 0.6])
    """
    scores, low, high = (np.asarray(a, dtype=float) for a in (scores, low, high))
    slack = rounding_slack(scores, low, high)
    near = np.isfinite(low) & np.isfinite(high) & (low - slack <= scores) & (
        scores <= high + slack)
    return (np.where(near, np.fmin(low, scores), low), np.where(near, np.fmax(high, scores), high))


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
    slack = rounding_slack(scores, low, high)
    grid = (off_the_grid(scores, n_test) if metric.name in ROW_COUNT_METRICS
            else np.zeros(scores.shape, dtype=bool))
    for i, s in enumerate(scores):
        if not np.isfinite(s):
            continue
        if grid[i]:
            mask[i] = True
            k = int(np.floor(s * n_test))
            reasons.append(f"{metric.label} {s:.6g} is not a whole number of rows out of "
                           f"{n_test:,} (the nearest are {k}/{n_test:,} = {k / n_test:.5f} and "
                           f"{k + 1}/{n_test:,} = {(k + 1) / n_test:.5f}), while most scores on "
                           "the board are, so it cannot be a score on that test set; check the "
                           "score, or whether this entry was scored on other rows")
        elif floor is not None and 0 < s < floor * (1 - 1e-6):
            mask[i] = True
            reasons.append(f"{metric.label} {s:.5g} is below the smallest non-zero "
                           f"{metric.label} possible on {n_test:,} rows ({floor:.3g}: one true "
                           "positive, every other row wrong), so it cannot be a score on that "
                           + said("test set; check --n-test or the score"))
        elif np.isfinite(low[i]) and not (low[i] - slack[i] <= s <= high[i] + slack[i]):
            mask[i] = True
            reasons.append(f"{metric.label} {s:.5g} is not a score the universe produces on "
                           f"{n_test:,} rows near any true score (its interval would be "
                           f"{low[i]:.3g} to {high[i]:.3g}, excluding the score itself); "
                           + said("check --n-test or the score"))
    return mask, reasons
