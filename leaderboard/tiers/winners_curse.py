"""The winner's curse: the observed leader's score overstates its true score, because it was chosen.

The leader is the entry whose observed score came out highest, and a score that came out highest is
more likely than not to have been helped by its noise. The raw leader score is therefore biased
upward as an estimate of the leader's true score, most when many entries are close to the top
(measured below: about 1.1 standard errors with five truly tied leaders among twenty, 1.8 with
twenty tied).

The correction is a bootstrap bias correction of the selected entry. In a resampled world with true
scores ``t``, replicate ``r`` selects the entry ``s_r`` with the highest ``t + errors[:, r]``, and
its error ``errors[s_r, r]`` is what the selection added; the average over replicates is that
world's selection bias, which is subtracted from the observed leader's score.

The plain bootstrap takes ``t = point``. But the observed scores are the true scores plus noise, so
they are more spread out than the true scores: the plain world has fewer near ties than the real
one and its bias comes out too small (it leaves about a quarter to a third of the bias in the
table below). So the bias is extrapolated instead (SIMEX, Cook and Stefanski 1994): the world
``t = point`` carries one unit of noise variance around the true scores, and worlds with two and
three units are made by adding the errors of other replicates, ``t = point + errors[:, r']`` and
``t = point + errors[:, r'] + errors[:, r'']``. Their biases ``b1, b2, b3`` trace how the bias
shrinks as the truth gets noisier; the quadratic through them, evaluated at zero units (the real
world, whose truth carries no noise), is ``3 b1 - 3 b2 + b3``. Extra worlds pair replicate ``r``
with replicates ``r + j`` and ``r + 3 + j`` (modulo R) for ``j = 1, 2, 3`` and average, which
keeps the Monte Carlo error down and uses nothing but the replicates, so it works for correlated
(paired bootstrap) errors as they are. ``plain_bias`` keeps the plain version.

Measured with known truth (unit standard errors, independent errors, 300 simulated competitions
per row, 500 replicates; mean of the estimate minus the observed leader's true score, in standard
errors; Monte Carlo standard error 0.03-0.07):

================================  =========  ===============  =========
truth                             raw score  plain bootstrap  corrected
================================  =========  ===============  =========
20 entries, top 5 tied, rest far    +1.14        +0.29          +0.07
20 entries, top 5 0.2 apart         +1.13        +0.25          +0.10
20 entries, all tied                +1.84        +0.51          +0.16
20 entries 0.2 apart                +1.32        +0.25          +0.05
20 entries, leader 4 SE clear       +0.06        -0.07          +0.08
200 entries 0.1 apart               +1.65        +0.37          +0.10
190 tied, 10 far below              +2.76        +0.84          +0.36
200 entries, true scores normal     +1.36        +0.17          +0.04
================================  =========  ===============  =========

With errors correlated 0.5 between entries the raw bias is smaller and the corrected estimate's
remaining bias was at most +0.26 (190 tied) and otherwise at most +0.14. So the corrected score
removes most of the selection bias; what remains is under about 0.4 standard errors in these cases,
largest when very many entries are truly tied, and it did not over-correct a clear leader. (Shrinking
the resampled world's scores by an empirical-Bayes factor was also tried: better when every entry
is tied, but the factor comes from the spread of the whole board, so a few far-off entries switch
it off (+0.78 in the 190-tied case) and it over-corrected a clear leader by 0.24.) The price of the
extrapolation is variance: the root mean squared error was up to about 15% above the plain
bootstrap's (and below it in the 190-tied case). It is a point estimate, not an interval: no
coverage is claimed.

``lower_bound`` is a one-sided confidence bound that does hold whichever entry is selected:
``point[0] - c * sd[0]`` with ``c`` the ``1 - alpha`` quantile of ``max_i errors[i, r] / sd[i]``
over replicates. With probability about ``1 - alpha`` every entry's error is below ``c`` of its
standard errors at once, so the bound holds for the leader whoever the leader turns out to be
(assuming the replicates' errors have the distribution of observed minus true). The coverage is
exact when all entries are truly tied with equal standard errors (the leader's error is then the
largest error) and conservative otherwise; the tests check both by simulation.

Everything is in oriented units (higher is better); multiply by ``reps.sign`` to return to the
metric's own units, where for a lower-is-better metric the lower bound becomes an upper bound.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from leaderboard._jit import njit

from leaderboard._threads import threaded
from leaderboard.params import DEFAULT_ALPHA, check_alpha
from leaderboard.tiers._rank_kernel import gather_columns
from leaderboard.tiers import small_ranks
from leaderboard.tiers.replicates import RankReplicates, all_finite

CHUNK_ELEMENTS = 1 << 21  # errors processed at once, bounds the working memory
SHIFTS = 3  # extra worlds per noise level: replicate r is paired with r + j and r + SHIFTS + j


@dataclass(frozen=True)
class WinnersCurse:
    """The observed leader's score, its selection bias and the corrected estimate (oriented units).

    Attributes
    ----------
    observed : float
        The leader's observed score, ``point[0]``.
    bias : float
        Estimated selection bias, ``3 b1 - 3 b2 + b3`` (SIMEX; see the module docstring).
    corrected : float
        ``observed - bias``: the estimate of the leader's true score.
    bias_se : float
        Approximate Monte Carlo standard error of ``bias`` from the finite number of replicates.
    plain_bias : float
        ``b1``, the plain bootstrap's bias (resampling around the observed scores), which
        under-corrects.
    level_biases : tuple of float
        ``(b1, b2, b3)``: the biases of the worlds with one, two and three units of noise.
    lower_bound : float
        One-sided ``1 - alpha`` lower confidence bound for the leader's true score.
    alpha : float
    """

    observed: float
    bias: float
    corrected: float
    bias_se: float
    plain_bias: float
    level_biases: tuple[float, float, float]
    lower_bound: float
    alpha: float


def _winners_curse_iv(reps: RankReplicates, alpha: float) -> None:
    point, errors = np.asarray(reps.point), reps.errors
    if point.ndim != 1 or errors.ndim != 2 or errors.shape[0] != point.size or point.size < 1:
        raise ValueError(f"errors must have shape (E, R) with E = {point.size}, got {errors.shape}")
    if errors.shape[1] < 2 * SHIFTS + 1:
        raise ValueError(f"need at least {2 * SHIFTS + 1} replicates, got {errors.shape[1]}")
    if not (np.isfinite(point).all() and all_finite(errors)):
        raise ValueError("scores and errors must be finite")
    check_alpha(alpha)   # the one check of an error rate (a ValueError)


@njit(cache=True)
def _world_score(point, a, b, n_terms, e, i):
    """``point[i] + e[i]`` (``n_terms`` 0), ``(point[i] + a[i]) + e[i]`` (1) or
    ``((point[i] + a[i]) + b[i]) + e[i]`` (2), added in that order."""
    s = point[i]
    if n_terms > 0:
        s += a[i]
    if n_terms > 1:
        s += b[i]
    return s + e[i]


@njit(cache=True)
def _selected(point, a, b, n_terms, e):
    """Error ``e[i]`` of the entry with the highest world score (:func:`_world_score`). Entries
    tied for the highest share the selection: their errors are averaged (summed in index
    order)."""
    best = -np.inf
    for i in range(point.size):
        best = max(best, _world_score(point, a, b, n_terms, e, i))
    total, count = 0.0, 0
    for i in range(point.size):
        if _world_score(point, a, b, n_terms, e, i) == best:
            total += e[i]
            count += 1
    return total / count


@njit(cache=True, nogil=True)
def _curse_block_rows(point, safe_sd, window, r0, levels, max_t, k0, k1):
    # np.int64(...), not a bare constant: numba would compile _selected once per literal value
    zero, one, two = np.int64(0), np.int64(1), np.int64(2)
    for k in range(k0, k1):
        e = window[k]
        levels[0, r0 + k] = _selected(point, e, e, zero, e)
        for j in range(1, SHIFTS + 1):
            # Errors of other replicates add noise to the world's truths, independent of e.
            levels[1, r0 + k] += _selected(point, window[k + j], e, one, e) / SHIFTS
            levels[2, r0 + k] += _selected(point, window[k + j], window[k + SHIFTS + j], two,
                                           e) / SHIFTS
        top = -np.inf
        for i in range(point.size):
            top = max(top, e[i] / safe_sd[i])
        max_t[r0 + k] = top


def _curse_block(point: np.ndarray, safe_sd: np.ndarray, window: np.ndarray, r0: int,
                 levels: np.ndarray, max_t: np.ndarray) -> None:
    """Replicates ``r0 .. r0 + c - 1``, with ``window[k]`` the errors of replicate ``r0 + k``
    (modulo R) for k < c + 2 SHIFTS: the selected error in the worlds with 1, 2 and 3 units of
    noise, and the largest standardised error. Replicates run on threads, each writing its own;
    a small board's with numpy (:func:`_curse_block_small`, the same bits)."""
    if small_ranks.small(point.size):
        _curse_block_small(point, safe_sd, window, r0, levels, max_t)
        return
    threaded(_curse_block_rows, window.shape[0] - 2 * SHIFTS, point, safe_sd, window, r0, levels,
             max_t)


def _selected_small(world: np.ndarray, e: np.ndarray) -> np.ndarray:
    """:func:`_selected` of each row: the mean of ``e`` over the entries of highest ``world``
    score, summed in index order from 0.0 (a running sum: the kernel's order of additions)."""
    tied = world == world.max(axis=1, keepdims=True)
    total = np.cumsum(np.where(tied, e, 0.0), axis=1)[:, -1] + 0.0   # 0.0 + e: the kernel's
    return total / np.count_nonzero(tied, axis=1)                     # start, -0.0 included


def _curse_block_small(point: np.ndarray, safe_sd: np.ndarray, window: np.ndarray, r0: int,
                       levels: np.ndarray, max_t: np.ndarray) -> None:
    """:func:`_curse_block_rows` for every replicate of the block at once, with numpy: the same
    additions in the same order (each world's score ``((point + a) + b) + e``, the worlds'
    selections added to the levels one shift after another), so the same numbers."""
    c = window.shape[0] - 2 * SHIFTS
    e = window[:c]
    levels[0, r0:r0 + c] = _selected_small(point + e, e)
    for j in range(1, SHIFTS + 1):
        a, b = window[j:j + c], window[SHIFTS + j:SHIFTS + j + c]
        levels[1, r0:r0 + c] += _selected_small((point + a) + e, e) / SHIFTS
        levels[2, r0:r0 + c] += _selected_small(((point + a) + b) + e, e) / SHIFTS
    max_t[r0:r0 + c] = (e / safe_sd).max(axis=1)


def winners_curse(reps: RankReplicates, alpha: float = DEFAULT_ALPHA) -> WinnersCurse:
    """A selection-corrected estimate of the observed leader's true score (oriented units).

    Bootstrap bias correction of the selected entry, extrapolated (SIMEX) to a world whose true
    scores carry no noise; see the module docstring for the method and its measured bias. The
    corrected score is an estimate with no coverage claim; ``lower_bound`` is a one-sided
    ``1 - alpha`` confidence bound valid whichever entry is the leader (exact when all entries are
    truly tied with equal standard errors, conservative otherwise). Multiply by ``reps.sign`` to
    return to the metric's units.

    Parameters
    ----------
    reps : RankReplicates
        Entries in rank order (entry 0 is the observed leader); at least 7 replicates.
    alpha : float
        Error rate of the lower confidence bound.

    Returns
    -------
    WinnersCurse

    Examples
    --------
    A leader 0.05 ahead of nine others, with standard errors 0.01: nothing to correct.

    >>> observed = np.r_[0.85, np.linspace(0.80, 0.76, 9)]
    >>> reps = RankReplicates.normal(observed, np.full(10, 0.01), 0.0, True, replicates=2000)
    >>> res = winners_curse(reps)
    >>> round(res.corrected, 3), round(res.lower_bound, 2)
    (0.85, 0.82)
    """
    _winners_curse_iv(reps, alpha)
    point = np.ascontiguousarray(reps.point, dtype=float)
    sd = np.asarray(reps.sd, dtype=float)
    n_entries, n_rep = reps.errors.shape
    step = max(1, CHUNK_ELEMENTS // n_entries)
    errors = np.ascontiguousarray(reps.errors)   # one layout, one compiled gather (as stability)
    safe_sd = np.where(sd > 0, sd, 1.0)  # an entry with no spread has zero error on every replicate

    levels = np.zeros((3, n_rep))  # per replicate: selected error in worlds with 1, 2, 3 units
    max_t = np.empty(n_rep)
    for r0 in range(0, n_rep, step):
        c = min(step, n_rep - r0)
        # this block's errors and the 2 SHIFTS replicates after it, as float64 rows
        cols = (r0 + np.arange(c + 2 * SHIFTS)) % n_rep
        if small_ranks.small(n_entries):
            window = errors[:, cols].T.astype(np.float64)
        else:
            window = np.empty((c + 2 * SHIFTS, n_entries))
            gather_columns(errors, cols, point, False, window)
        _curse_block(point, safe_sd, window, r0, levels, max_t)

    b1, b2, b3 = levels.mean(axis=1)
    combined = 3 * levels[0] - 3 * levels[1] + levels[2]  # the quadratic's value at zero units
    bias = float(combined.mean())
    # Inverted-CDF quantile: the ceil((1 - alpha) R)-th smallest maximum.
    k = min(n_rep, int(np.ceil((1 - alpha) * n_rep - 1e-9)))
    c = float(np.partition(max_t, k - 1)[k - 1])
    return WinnersCurse(observed=float(point[0]), bias=bias, corrected=float(point[0] - bias),
                        bias_se=float(combined.std(ddof=1) / np.sqrt(n_rep)),
                        plain_bias=float(b1), level_biases=(float(b1), float(b2), float(b3)),
                        lower_bound=float(point[0] - c * sd[0]), alpha=float(alpha))
