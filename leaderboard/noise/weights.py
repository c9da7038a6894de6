"""Bootstrap row weights, regenerated wherever they are needed from ``(seed, stream, block)``.

A block is :data:`~leaderboard.noise.rng.BLOCK` replicates; its weights are how many times each
test row was drawn. Nothing else is random in the paired bootstrap, so any process that knows the
seed regenerates exactly the weights another one used: a worker of a cluster never receives a
weight matrix, it draws the blocks itself.

``plain``, ``stratified`` and ``grouped`` (multinomial) weights are one joint draw over all rows
(or classes, or groups) per replicate, from one generator per block: a worker regenerates a whole
block to score any of its entries, at about 7 ns per row and replicate (measured on 2 shared
cores: 2000 replicates of 100,000 rows take about 1.5 s, of 10 million rows about 2.5 minutes,
once per batch of entries). ``poisson`` weights are independent per row: generated per slice of
:data:`ROW_BLOCK` rows from ``(seed, stream, block, row block)``, so any slice of rows can be
regenerated alone, at about 13 ns per row and replicate.

Counts are kept as ``uint8`` (a count above 255, possible only in theory, widens the block), an
eighth of float64's memory; the float weights the metrics take are made a few replicates at a
time (:func:`weight_rows`).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from leaderboard._jit import njit

from leaderboard.choices import RESAMPLING
from leaderboard.noise.rng import BLOCK, Stream, block_rng

ROW_BLOCK = 1 << 16  # rows per Poisson weight block: part of what a seed means, never change lightly
STREAM = int(Stream.BOOTSTRAP)
_JOINT_PICKS = 1 << 17   # a block of at most this many picks is drawn in one call (_tallies)


@dataclass(frozen=True)
class ResamplingPlan:
    """How to draw one block of bootstrap weights of ``n_rows`` test rows (:func:`resampling`
    makes it; :func:`count_block` and :func:`weight_block` draw from it, here and in the
    engine's workers).

    Attributes
    ----------
    resample : str
        plain, stratified, grouped or poisson.
    n_rows : int
    strata : tuple of ndarray
        Stratified: the row indices of each class.
    group_index, n_groups : ndarray, int
        Grouped: each row's group number, and how many groups.

    Examples
    --------
    >>> plan = resampling(np.zeros(4), "grouped", groups=np.array(["a", "a", "b", "b"]))
    >>> plan.resample, plan.n_groups, plan.group_index.tolist()
    ('grouped', 2, [0, 0, 1, 1])
    """

    resample: str
    n_rows: int
    strata: tuple[np.ndarray, ...] = ()   # row indices of each class (stratified)
    group_index: np.ndarray | None = None  # group number of each row (grouped)
    n_groups: int = 0


def stratum_labels(y: np.ndarray) -> np.ndarray:
    """The class of each row for stratified resampling (:func:`resampling`'s ``strata``): the
    labels themselves, or for a truth of several columns a code per distinct row.

    Examples
    --------
    >>> stratum_labels(np.array([[0, 1], [1, 1], [0, 1]])).tolist()
    [0, 1, 0]
    """
    y = np.asarray(y)
    if y.ndim == 1:
        return y
    _, codes = np.unique(y.reshape(len(y), -1), axis=0, return_inverse=True)
    return codes.ravel()


def resampling(y_true: np.ndarray, resample: str, strata: np.ndarray | None = None,
               groups: np.ndarray | None = None) -> ResamplingPlan:
    """How to draw the weights of ``len(y_true)`` test rows; ``ValueError`` when it cannot be
    done (too few rows or groups, a missing group or class label).

    Examples
    --------
    >>> resampling(np.array([0, 1, 1]), "stratified").strata
    (array([0]), array([1, 2]))
    """
    n = len(y_true)
    if n < 2:
        raise ValueError("the paired bootstrap needs at least 2 test rows")
    if resample not in RESAMPLING:
        raise ValueError(f"resample must be one of {', '.join(RESAMPLING)}, got {resample!r}")
    if resample == "stratified":
        labels = np.asarray(y_true if strata is None else strata)
        if labels.ndim != 1 or len(labels) != n:
            raise ValueError("stratified resampling needs one class label per row")
        _, codes = np.unique(labels, return_inverse=True)
        return ResamplingPlan("stratified", n, strata=tuple(np.flatnonzero(codes == c)
                                                   for c in range(codes.max() + 1)))
    if resample == "grouped":
        if groups is None or len(groups) != n:
            raise ValueError("grouped resampling needs one group id per row")
        uniques, index = np.unique(np.asarray(groups), return_inverse=True)
        if uniques.size < 2:
            raise ValueError("grouped resampling needs at least 2 groups")
        return ResamplingPlan("grouped", n, group_index=index, n_groups=int(uniques.size))
    return ResamplingPlan(resample, n)    # plain or poisson: every row on its own


# P(K <= k) for K ~ Poisson(1), k = 0, 1, ...: inversion of one uniform per weight
_POISSON_CDF = np.cumsum([math.exp(-1.0) / math.factorial(k) for k in range(25)])


def poisson_one(u: np.ndarray) -> np.ndarray:
    """Poisson(1) counts by inversion of the uniforms ``u`` (exact up to float64): the first
    eight thresholds vectorised (4x faster than ``Generator.poisson``), the rare rest
    (probability 1e-6) by a search of the whole table.

    Examples
    --------
    >>> poisson_one(np.array([0.1, 0.5, 0.95, 0.9999999])).tolist()
    [0, 1, 3, 10]
    """
    counts = np.zeros(u.shape, dtype=np.int8)
    for threshold in _POISSON_CDF[:8]:
        counts += u > threshold
    tail = u > _POISSON_CDF[7]
    if tail.any():
        counts[tail] = np.searchsorted(_POISSON_CDF, u[tail], side="right")
    return counts


def _poisson_counts(seed: int, block: int, rows: slice, n_rows: int, stream: int) -> np.ndarray:
    """:func:`poisson_weights` as uint8 counts (at most 24, the table's end)."""
    start, stop, _ = rows.indices(n_rows)
    first, last = start // ROW_BLOCK, max(start, stop - 1) // ROW_BLOCK
    parts = []
    for r in range(first, last + 1):
        rng = block_rng(seed, stream, block, r)   # row block r of the draw block
        width = min(ROW_BLOCK, n_rows - r * ROW_BLOCK)
        parts.append(poisson_one(rng.random((BLOCK, width))).view(np.uint8))
    offset = first * ROW_BLOCK
    return np.hstack(parts)[:, start - offset:stop - offset]


def poisson_weights(seed: int, block: int, rows: slice, n_rows: int,
                    stream: int = STREAM) -> np.ndarray:
    """Poisson(1) weights of the :data:`BLOCK` replicates of block ``block`` on ``rows`` only.

    The weights of rows ``[r * ROW_BLOCK, (r + 1) * ROW_BLOCK)`` come from a generator keyed by
    ``(seed, stream, block, r)``, so a worker that scores a slice of the rows regenerates exactly
    its columns of the full weight matrix, and the numbers never depend on how rows or
    replicates are batched.

    Examples
    --------
    >>> full = poisson_weights(3, 0, slice(0, 200_000), 200_000)
    >>> part = poisson_weights(3, 0, slice(70_000, 70_100), 200_000)
    >>> bool(np.array_equal(full[:, 70_000:70_100], part)), full.shape
    (True, (32, 200000))
    """
    return _poisson_counts(seed, block, rows, n_rows, stream).astype(float)


@njit(cache=True)
def _tally_small(draws, out):
    """``out[d] += 1`` for every draw ``d``, in uint8; False (and ``out`` spoilt) past 255."""
    for d in draws:
        if out[d] == 255:
            return False
        out[d] += 1
    return True


def _tally(draws: np.ndarray, size: int) -> np.ndarray:
    """How often each of ``0 .. size - 1`` was drawn: uint8, or int64 when a count passes 255
    (cache-friendly: one byte per bin, where ``np.bincount`` takes eight)."""
    out = np.zeros(size, dtype=np.uint8)
    if _tally_small(draws, out):
        return out
    return np.bincount(draws, minlength=size)


def _put(out: np.ndarray, j: int | slice, counts: np.ndarray, columns=slice(None)) -> np.ndarray:
    """``out[j, columns] = counts``, widening ``out`` first when the counts do not fit."""
    if counts.dtype != out.dtype and counts.max(initial=0) > np.iinfo(out.dtype).max:
        out = out.astype(np.int64)
    out[j, columns] = counts
    return out


def count_block(plan: ResamplingPlan, seed: int, block: int, stream: int = STREAM) -> np.ndarray:
    """The :data:`BLOCK` replicates of block ``block`` as integer counts, shape (BLOCK, n):
    uint8 unless some count passes 255 (then int64).

    The draws are the ones :func:`weight_block` has always made, one generator per block taken
    in the same order (replicate after replicate; class after class for ``stratified``); a large
    block is counted one replicate at a time (:func:`_tallies`): a block of 10 million rows needs
    320 MB, not 7 GB.

    Examples
    --------
    >>> counts = count_block(ResamplingPlan("plain", 5), seed=0, block=0)
    >>> counts.dtype, counts.shape, set(counts.sum(axis=1).tolist())
    (dtype('uint8'), (32, 5), {5})
    """
    n = plan.n_rows
    if plan.resample == "poisson":
        return _poisson_counts(seed, block, slice(0, n), n, stream)
    rng = block_rng(seed, stream, block)
    if plan.resample == "grouped":
        return _tallies(rng, plan.n_groups)[:, plan.group_index]
    if plan.resample == "stratified":
        out = np.zeros((BLOCK, n), dtype=np.uint8)
        for rows in plan.strata:
            out = _put(out, slice(None), _tallies(rng, rows.size), rows)
        return out
    return _tallies(rng, n)


def _tallies(rng: np.random.Generator, size: int) -> np.ndarray:
    """Counts, shape (BLOCK, size), of :data:`BLOCK` replicates of ``size`` uniform picks from
    ``0 .. size - 1``, replicate after replicate: uint8, or int64 when a count passes 255.

    A generator yields the same integers however its calls are split, so a small block is drawn
    in one call (the per-call cost, 20 us, was most of the time below a few thousand picks:
    4x faster at 200 rows) and a large one a replicate at a time (a tally that stays in cache).
    """
    if BLOCK * size > _JOINT_PICKS:
        out = np.zeros((BLOCK, size), dtype=np.uint8)
        for j in range(BLOCK):
            out = _put(out, j, _tally(rng.integers(0, size, size=size), size))
        return out
    picks = rng.integers(0, size, size=(BLOCK, size))
    picks += (np.arange(BLOCK) * size)[:, None]      # replicate j counts into bins j * size + ...
    return _tally(picks.ravel(), BLOCK * size).reshape(BLOCK, size)


def weight_block(plan: ResamplingPlan, seed: int, block: int, stream: int = STREAM) -> np.ndarray:
    """Row weights of the :data:`BLOCK` replicates of block ``block``: shape (BLOCK, n), float64."""
    return count_block(plan, seed, block, stream).astype(float)
