"""Scott-Knott ESD tiers: split the sorted scores where they separate, merge negligible gaps.

A heuristic clustering of the ranked scores, as used to rank models in software engineering
(Tantithamthavorn et al. 2017, 2018). It has **no error-rate guarantee**: nothing bounds how often
the truly best entry is left out of tier 1 or how often two truly equal entries are put in
different tiers. Use the leader-anchored Holm tiers or the rank confidence sets for that.

The procedure, on the point scores (rank order, higher is better) and their standard errors only:

1. **Scott-Knott split** (Scott and Knott 1974). For a group of ``k`` consecutive entries, the
   split into a top and a bottom part that maximises the between-part sum of squares ``B0`` is
   found with prefix sums in O(k) (only between different scores: equal scores are never split).
   The split is kept when

   ``lambda = pi / (2 (pi - 2)) * B0 / sigma0^2``

   exceeds the ``1 - alpha`` quantile of the chi-square distribution with ``k / (pi - 2)``
   degrees of freedom, Scott and Knott's approximation to the null distribution of ``lambda``
   when all ``k`` true means are equal. Their ``sigma0^2 = (sum (y - ybar)^2 + v s^2) / (k + v)``
   pools the group's spread with an independent variance estimate ``s^2`` on ``v`` degrees of
   freedom; here the variance of each score is its squared standard error, known from the test
   set (``v`` -> infinity), so ``sigma0^2`` is the group's mean of ``sd^2``. Both parts are then
   split in turn until no split is kept.
2. **Effect-size merge** (the ESD step). Adjacent groups whose effect size is negligible are
   merged: ``d = (mean_a - mean_b) / s_pooled``, where a group's score distribution is the mixture
   of its entries' distributions (variance: mean ``sd^2`` plus the population variance of its point
   scores, what Cohen's d on the pooled replicates of the group's entries would see) and
   ``s_pooled^2`` is the entry-weighted average of the two groups' variances. The adjacent pair with
   the smallest ``d`` is merged while that ``d`` is below ``negligible`` (0.2, Cohen's threshold).

Because the effect size is measured in the same standard errors the split criterion uses, a kept
split already means a large effect (two entries are split only when more than 2.8 standard errors
apart), so at the customary ``negligible = 0.2`` the merge rarely changes anything; in the original
setting the split test used the much smaller standard error of a mean over many observations, which
is what the merge was designed to counter. Raise ``negligible`` (0.5 medium, 0.8 large) to merge
more.

Only ``point`` and ``sd`` are used, so the tiers do not depend on how many replicates were drawn
(beyond the Monte Carlo error of a bootstrap ``sd``). That matters: the common wrong way feeds the
replicates to an ANOVA-style Scott-Knott as if they were independent observations, so each score's
variance is divided by the number of replicates and the test splits more the more replicates one
draws, finding differences that are an artefact of the simulation budget.

Positive correlation between entries' errors (a shared test set) makes differences between scores
more precise than ``sd`` suggests; using ``sd`` alone therefore splits less than a paired analysis
would.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np
from scipy.special import gammaincinv

from leaderboard.params import DEFAULT_ALPHA, check_alpha
from leaderboard.tiers.holm import Tiers
from leaderboard.tiers.methods import SCOTT_KNOTT
from leaderboard.tiers.replicates import RankReplicates

METHOD = SCOTT_KNOTT.procedure
_SCALE = np.pi / (2 * (np.pi - 2))  # Scott and Knott's lambda = _SCALE * B0 / sigma0^2


def _scott_knott_iv(point: np.ndarray, sd: np.ndarray, alpha: float, negligible: float) -> None:
    if point.ndim != 1 or point.size < 1 or sd.shape != point.shape:
        raise ValueError(f"point and sd must be 1-D of one length, got {point.shape}, {sd.shape}")
    if not (np.isfinite(point).all() and np.isfinite(sd).all() and (sd >= 0).all()):
        raise ValueError("scores must be finite and standard errors finite and non-negative")
    if np.any(np.diff(point) > 0):
        raise ValueError("entries must be in rank order (oriented scores non-increasing)")
    check_alpha(alpha)   # the one check of an error rate (a ValueError)
    if negligible < 0:
        raise ValueError(f"negligible must be non-negative, got {negligible:g}")


def _best_split(y: np.ndarray) -> tuple[int, float]:
    """Size of the top part and the between-part sum of squares of the best split of ``y``.

    Splitting after the first ``j`` of ``k`` values gives ``B = S_j^2 k / (j (k - j))`` with
    ``S_j`` the sum of the first ``j`` centred values. Returns (0, 0.0) when all values are equal.
    """
    k = y.size
    j = np.arange(1, k)
    allowed = y[:-1] > y[1:]  # only split between different scores
    if not allowed.any():
        return 0, 0.0
    s = np.cumsum(y - y.mean())[:-1]
    between = np.where(allowed, s * s * k / (j * (k - j)), -np.inf)
    best = int(np.argmax(between))  # first maximum: deterministic
    return best + 1, float(between[best])


@lru_cache(maxsize=1 << 16)
def _critical(k: int, alpha: float) -> float:
    """Scott and Knott's critical value for a group of ``k``: computed once per size (a board of
    100,000 well-separated entries asks for it tens of thousands of times, mostly for the same
    small sizes)."""
    # chi2.ppf(q, df) is 2 gammaincinv(df / 2, q), bit for bit (scipy/stats/_continuous_distns.py),
    # without scipy.stats' ~1 s import
    return float(2 * gammaincinv(k / (np.pi - 2) / 2, 1 - alpha))


def _split_groups(point: np.ndarray, sd: np.ndarray, alpha: float) -> list[tuple[int, int]]:
    """Scott-Knott's recursive splits: the final groups as (start, stop) ranges, in rank order."""
    groups, stack = [], [(0, point.size)]
    while stack:  # an explicit stack: thousands of one-entry splits must not hit recursion limits
        a, b = stack.pop()
        k = b - a
        j, between = _best_split(point[a:b]) if k > 1 else (0, 0.0)
        if j:
            sigma2 = float(np.mean(sd[a:b] ** 2))
            lam = _SCALE * between / sigma2 if sigma2 > 0 else np.inf
            if lam > _critical(k, alpha):
                stack += [(a + j, b), (a, a + j)]
                continue
        groups.append((a, b))
    return sorted(groups)


def _merge_negligible(point: np.ndarray, sd: np.ndarray, groups: list[tuple[int, int]],
                      negligible: float) -> np.ndarray:
    """Merge adjacent groups with effect size below ``negligible``; returns each group's start."""
    starts = np.array([a for a, _ in groups])
    y = point - point.mean()  # centred, so sums of squares lose no precision
    n = np.array([b - a for a, b in groups], dtype=float)
    s1 = np.add.reduceat(y, starts)
    s2 = np.add.reduceat(y * y, starts)
    v_sd = np.add.reduceat(sd * sd, starts)
    while starts.size > 1:
        mean = s1 / n
        var = (v_sd + s2) / n - mean ** 2  # mixture variance: mean sd^2 + spread of the points
        pooled = (n[:-1] * var[:-1] + n[1:] * var[1:]) / (n[:-1] + n[1:])
        gap = mean[:-1] - mean[1:]
        d = np.divide(gap, np.sqrt(np.maximum(pooled, 0.0)),
                      out=np.where(gap > 0, np.inf, 0.0), where=pooled > 0)
        i = int(np.argmin(d))
        if d[i] >= negligible:
            break
        for arr in (n, s1, s2, v_sd):
            arr[i] += arr[i + 1]
        n, s1, s2, v_sd = (np.delete(arr, i + 1) for arr in (n, s1, s2, v_sd))
        starts = np.delete(starts, i + 1)
    return starts


def scott_knott_esd(reps: RankReplicates, alpha: float = DEFAULT_ALPHA,
                    negligible: float = 0.2) -> Tiers:
    """Scott-Knott ESD tiers from the point scores and standard errors (a heuristic).

    Recursively splits the ranked scores where the between-group sum of squares is largest while
    Scott and Knott's chi-square criterion holds at ``alpha``, then merges adjacent groups whose
    effect size is below ``negligible`` (see the module docstring for the exact statistics).
    **No error-rate guarantee**: ``alpha`` sets each split's criterion, not any error rate of the
    resulting tiers. The tiers depend on ``point`` and ``sd`` only, not on the number of
    replicates.

    Parameters
    ----------
    reps : RankReplicates
        Entries in rank order.
    alpha : float
        Level of each split's chi-square criterion.
    negligible : float
        Effect size (Cohen's d) below which adjacent groups are merged; 0 disables merging.

    Returns
    -------
    Tiers
        Contiguous 1-based tiers in rank order; ``p_vs_anchor`` is all NaN (nothing is tested
        against an anchor).

    Examples
    --------
    Three clusters far apart relative to standard errors of 0.01:

    >>> point = np.array([0.90, 0.899, 0.898, 0.80, 0.799, 0.70])
    >>> reps = RankReplicates.normal(point, np.full(6, 0.01), 0.0, True, replicates=10)
    >>> scott_knott_esd(reps).tier.tolist()
    [1, 1, 1, 2, 2, 3]
    """
    point = np.asarray(reps.point, dtype=float)
    sd = np.asarray(reps.sd, dtype=float)
    _scott_knott_iv(point, sd, alpha, negligible)
    groups = _split_groups(point, sd, alpha)
    starts = _merge_negligible(point, sd, groups, negligible) if negligible > 0 else \
        np.array([a for a, _ in groups])
    tier = np.zeros(point.size, dtype=int)
    tier[starts] = 1
    tier = np.cumsum(tier)
    return Tiers(tier=tier, p_vs_anchor=np.full(point.size, np.nan), method=METHOD,
                 alpha=float(alpha))
