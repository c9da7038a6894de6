"""Randomization draws for the simultaneous family: sign flips of the paired differences.

When a score is the mean of per-unit values (per-item results; a row-mean metric of submissions,
such as accuracy, log loss or MSE), the difference of two entries' scores is the mean of their
per-unit differences ``d_i = x_ji - x_ki``. If the two entries are equally good in the strong
sense that their values on a unit are exchangeable (each unit may be hard or easy for both), every
``d_i`` is symmetric about 0, so flipping the sign of any set of units leaves the differences'
joint law unchanged: the statistic on the flipped data is a draw from its exact null
distribution, whatever the number of units (Fisher's randomization test; Romano and Wolf, 2005,
give the step-down). Whole clusters are flipped together (their totals are the units).

One draw flips every pair of entries with the same signs: ``F[r, j] = (1/n) sum_i s_ri x_ji``, so
``F[r, j] - F[r, k]`` is pair (j, k)'s flipped mean difference, and the draws are a
:class:`~leaderboard.tiers.replicates.RankReplicates` that the rank-set machinery reads exactly
as it reads bootstrap replicates. A pair's standard error is then the SD of its flipped
differences, ``sqrt(mean(d**2) / n)`` (the draws' own SD, as the kernels compute it), which
the flips never change; so the max-t statistic, each pair's mean over that SE, is a monotone
function of the per-draw studentised t (``t = u sqrt(n - 1) / sqrt(1 - u**2)`` with ``u`` the
flipped mean over ``sqrt(mean(d**2))``, the same function for every pair), and the step-down on
these draws is the studentised randomization max-t. Its tails are those of the studentised
statistic at this number of units (t-like with few units), which is what the paired bootstrap of
the means misses when models far outnumber items.

**Guarantee.** Draw 0 is the identity (no flip), so the observed statistic is one of the R
values ranked: under the complete null (every entry's per-unit values exchangeable with every
other's on each unit), any pair is declared different with probability at most alpha, exactly,
for any number of units and draws. Where the per-unit values are exchangeable but not symmetric
(0/1 values with an item difficulty away from 1/2), flipping a unit reflects its values, which
keeps every pair's law and the pairs' covariances but not their third moments: the calibration
study measures this (docs/calibration.md) and the analysis checks it at the board's own shape
(:mod:`~leaderboard.tiers.guarantee_check`). Under partial nulls each pair's draws depend only on
its own differences (subset pivotality), so the step-down keeps the family-wise error at alpha for
the true hypotheses. *Assumed:* units (or clusters) independent; the score a monotone increasing
function of the mean of the per-unit values (RMSE of MSE, accuracy of correctness). The draws say
nothing about one entry's own noise: intervals, P(best) and stability keep reading the bootstrap.
"""
from __future__ import annotations

import numpy as np

from leaderboard.noise.rng import BLOCK, Stream, block_rng
from leaderboard.tiers.replicates import RankReplicates
from leaderboard.params import DEFAULT_REPLICATES, DEFAULT_SEED

STREAM = int(Stream.SIGN_FLIPS)
SOURCE = "sign flips of the paired per-item differences (a randomization test)"


def flip_block(n_units: int, seed: int, block: int) -> np.ndarray:
    """The signs of draws ``block * BLOCK ...``, shape (BLOCK, n_units), float64 +-1.

    Draw 0 (the first of block 0) is the identity, all +1: the observed statistic is one of the
    draws, which makes the randomization test exact. A block depends only on ``(seed, block)``.

    Examples
    --------
    >>> s = flip_block(5, seed=0, block=0)
    >>> s.shape, s[0].tolist(), np.unique(s).tolist()
    ((32, 5), [1.0, 1.0, 1.0, 1.0, 1.0], [-1.0, 1.0])
    """
    rng = block_rng(seed, STREAM, block)
    signs = 1.0 - 2.0 * rng.integers(0, 2, size=(BLOCK, n_units), dtype=np.int8)
    if block == 0:
        signs[0] = 1.0
    return signs


def unit_totals(values: np.ndarray, groups: np.ndarray | None = None) -> np.ndarray:
    """Per-entry totals of each resampling unit: the values themselves (E, n), or the sums over
    each cluster's items (E, G) when ``groups`` gives every item's cluster.

    Examples
    --------
    >>> unit_totals(np.array([[1.0, 2.0, 3.0]]), np.array(["a", "b", "a"])).tolist()
    [[4.0, 2.0]]
    """
    values = np.asarray(values, dtype=np.float64)
    if groups is None:
        return values
    _, code = np.unique(np.asarray(groups), return_inverse=True)
    code = code.ravel()
    out = np.zeros((values.shape[0], int(code.max()) + 1))
    for g, col in zip(code, values.T):   # one column per item; numpy adds in item order
        out[:, g] += col
    return out


def flip_means(totals: np.ndarray, n_items: int, replicates: int, seed: int) -> np.ndarray:
    """``F[j, r] = (1/n) sum_g s_rg totals[j, g]``, shape (E, replicates), in blocks of
    :data:`~leaderboard.noise.rng.BLOCK` draws (the numbers depend only on the seed, never on
    how entries are batched: each entry's row is its own product with the same signs).

    Examples
    --------
    >>> f = flip_means(np.array([[1.0, 2.0], [1.0, 2.0]]), 2, 64, seed=0)
    >>> f.shape, f[:, 0].tolist()          # draw 0: the observed means
    ((2, 64), [1.5, 1.5])
    """
    totals = np.ascontiguousarray(totals, dtype=np.float64)
    e, g = totals.shape
    out = np.empty((e, replicates))
    for b in range(-(-replicates // BLOCK)):
        r0 = b * BLOCK
        signs = flip_block(g, seed, b)[:replicates - r0]
        out[:, r0:r0 + signs.shape[0]] = (totals @ signs.T) / n_items
    return out


def sign_flip_replicates(values: np.ndarray, higher_is_better: bool, *, replicates: int = DEFAULT_REPLICATES,
                         seed: int = DEFAULT_SEED, groups: np.ndarray | None = None) -> RankReplicates:
    """Sign-flip draws of every entry's mean, for the tests of :mod:`~leaderboard.tiers`.

    Parameters
    ----------
    values : ndarray, shape (E, n)
        Each entry's per-unit values (finite), entries in rank order: the score is their mean,
        or an increasing function of it (the tests read the mean, which orders the entries the
        same way).
    higher_is_better : bool
        Direction of the values' mean.
    replicates : int
        Draws, the identity first.
    seed : int
    groups : ndarray, optional
        Each unit's cluster: clusters are flipped as wholes.

    Returns
    -------
    RankReplicates
        ``null`` set: the errors are null draws of the pairs' differences, not draws of each
        entry's estimation error, so only pairwise tests may read them.

    Examples
    --------
    Three entries on 12 items; the first is better on every item:

    >>> x = np.tile(np.array([[1.0], [0.0], [0.0]]), (1, 12))
    >>> x[1:, ::2] = 1.0
    >>> reps = sign_flip_replicates(x, True, replicates=500, seed=0)
    >>> reps.point.tolist(), reps.null
    ([1.0, 0.5, 0.5], True)
    """
    values = np.asarray(values, dtype=np.float64)
    if values.ndim != 2 or values.shape[1] < 2:
        raise ValueError("values must have shape (E, n) with n >= 2")
    if not np.isfinite(values).all():
        raise ValueError("values must be finite")
    n = values.shape[1]
    flips = flip_means(unit_totals(values, groups), n, int(replicates), seed)
    return from_flips(flips, higher_is_better)


def from_flips(flips: np.ndarray, higher_is_better: bool) -> RankReplicates:
    """The tests' draws from :func:`flip_means` (entries in rank order; draw 0, the identity, is
    each entry's mean), oriented so that higher is better.

    Examples
    --------
    >>> f = flip_means(np.array([[1.0, 2.0], [3.0, 3.0]]), 2, 64, seed=0)
    >>> from_flips(f, False).point.tolist()
    [-1.5, -3.0]
    """
    sign = 1.0 if higher_is_better else -1.0
    errors = sign * np.asarray(flips, dtype=np.float64)
    point = errors[:, 0].copy()
    if errors.shape[1] < 2 or not np.isfinite(errors).all():
        raise ValueError("flips must be finite, with at least 2 draws")
    # The caller's order is the metric's; the mean behind it may differ in the last bits.
    if np.any(np.diff(point) > 1e-9 * max(1.0, float(np.abs(point).max()))):
        raise ValueError("entries must be in rank order of their values' mean")
    point = np.minimum.accumulate(point)
    return RankReplicates(point=point, errors=errors, sd=errors.std(axis=1, ddof=1),
                          correlation=None, sign=sign, source=SOURCE, null=True)
