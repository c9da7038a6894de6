"""Exact variances of observed scores on test sets drawn from a finite universe.

These are the independent references the simulations are held to: a simulation that disagrees with
them beyond Monte Carlo error is wrong.
"""
from __future__ import annotations

import numpy as np


def auc_sd(neg: np.ndarray, pos: np.ndarray, m: int, k: int, presorted: bool = False) -> float:
    """Exact standard deviation of the AUC of ``m`` positives and ``k`` negatives drawn with
    replacement from the universe's positive scores ``pos`` and negative scores ``neg`` (sorted
    ascending already when ``presorted``).

    The observed AUC is a two-sample U-statistic with kernel psi(x, y) = 1[x > y] + 1/2 1[x = y]
    over i.i.d. positives and negatives, so

        Var = [ (E psi^2 - A^2) + (m - 1)(Q1 - A^2) + (k - 1)(Q2 - A^2) ] / (m k),

    where Q1 = P(one negative is outranked by two positives) and Q2 = P(one positive outranks two
    negatives), computed exactly over the universe's scores (ties with half credit).

    Examples
    --------
    Hanley and McNeil's exponential-model value is close for a binormal-like universe; for two
    points each it can be checked by hand: A = 3/4, and the variance with m = k = 1 is A(1 - A).

    >>> sd = auc_sd(np.array([0.0, 2.0]), np.array([1.0, 3.0]), 1, 1)
    >>> bool(np.isclose(sd ** 2, 0.75 * 0.25))
    True
    """
    if not presorted:
        neg, pos = np.sort(np.asarray(neg, dtype=float)), np.sort(np.asarray(pos, dtype=float))
    below = np.searchsorted(neg, pos, "left")
    ties = np.searchsorted(neg, pos, "right") - below
    per_positive = (below + 0.5 * ties) / neg.size           # P(psi) given the positive
    theta = per_positive.mean()
    psi_sq = (below + 0.25 * ties).sum() / (pos.size * neg.size)
    q2 = np.mean(per_positive ** 2)
    pos_right = np.searchsorted(pos, neg, "right")
    pos_left = np.searchsorted(pos, neg, "left")
    per_negative = (pos.size - pos_right + 0.5 * (pos_right - pos_left)) / pos.size
    q1 = np.mean(per_negative ** 2)
    var = ((psi_sq - theta ** 2) + (m - 1) * (q1 - theta ** 2)
           + (k - 1) * (q2 - theta ** 2)) / (m * k)
    return float(np.sqrt(max(var, 0.0)))


def stratified_mean_sd(values: np.ndarray, strata: list[slice], counts: list[int]) -> float:
    """Exact standard deviation of a mean of per-row ``values`` over a test set that draws
    ``counts[c]`` rows with replacement from the universe rows ``strata[c]``.

    Var = sum_c n_c sigma_c^2 / n^2, with sigma_c^2 the population variance within stratum c.

    Examples
    --------
    One stratum: the familiar sigma / sqrt(n).

    >>> v = np.array([0.0, 1.0])
    >>> stratified_mean_sd(v, [slice(0, 2)], [100])
    0.05
    """
    n = float(sum(counts))
    var = sum(c * np.var(values[s]) for s, c in zip(strata, counts)) / n ** 2
    return float(np.sqrt(var))
