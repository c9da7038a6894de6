"""AUC on a universe whose rows run in score order within each class, without sorting.

The binormal universe's rows are quantiles: within each class its models' scores are increasing
(or, reversed below AUC 0.5, decreasing) in the row index. Two things then need no sort of the
universe's rows:

* the true AUC (:func:`sorted_classes_auc`, :func:`sorted_classes_aucs` for many models at once):
  each positive's count of lower and of tied negatives is its place in a merge of the two classes;
* a test set's AUC (:func:`simulate_sorted_auc`): with the negatives' drawn counts summed along
  the rows once per block of test sets, each drawn positive reads its count of lower
  negatives at its row's place among the negatives (found once per model; mirrored for a model
  whose negatives run backwards). A test set of ``n_test`` rows then costs its positives'
  lookups, instead of a pass over every row of the universe (16,384) per model and test set as
  the general weighted kernel (:mod:`leaderboard.metrics._rank_kernels`) makes; every model of
  a block reads them in one pass, a few test sets at a time (:func:`_pairs`).

The merge is numpy's stable sort of the two classes' runs side by side (timsort: it finds the two
runs and merges them in linear time: 1.2-2.4 times as fast as a binary search per positive,
as measured on a loaded machine); a
positive's count of negatives at or below it is then its place in the merged order less the
positives before it. Where a positive ties a negative the strict count comes from a binary search
(continuous scores seldom tie).

Both count pairs as integers (ties half), so the AUC is the correctly rounded ratio of two integers.
The weighted kernel's sums of integer counts are exact as well, so a test set's AUC is the same to
the last bit either way (tests/noise/test_sorted_auc.py checks it); the truth, from whole rows'
uniform weights, may differ from the kernel's in the last bits, and here it is the exact one.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from leaderboard.noise.rng import BLOCK, block_rng, row_counts
from leaderboard.noise.universes.finite import STREAM   # its test sets, drawn the same way


def sorted_classes_auc(neg: np.ndarray, pos: np.ndarray) -> float:
    """The AUC of scores whose negatives and positives each run in order (either direction), ties
    counted half: NaN when either class is out of order or holds a NaN.

    Examples
    --------
    Pairs won: 4 by the 5, 2.5 by the 2 (which ties a negative), 2 by the 1.5; of 12:

    >>> neg, pos = np.array([0.0, 1.0, 2.0, 3.0]), np.array([5.0, 2.0, 1.5])
    >>> sorted_classes_auc(neg, pos) == 8.5 / 12
    True
    >>> sorted_classes_auc(np.array([1.0, 0.0, 2.0]), pos)
    nan
    """
    neg, pos = (np.asarray(a, dtype=float) for a in (neg, pos))
    if neg.size == 0 or pos.size == 0:
        return float("nan")
    return float(sorted_classes_aucs(np.concatenate([neg, pos])[None, :], neg.size)[0])


def sorted_classes_aucs(models: Sequence[np.ndarray] | np.ndarray, negatives: int) -> np.ndarray:
    """:func:`sorted_classes_auc` of each model (an array whose first ``negatives`` values are the
    negatives' scores and the rest the positives'): each one's merge is a stable sort of the model
    as it stands, since its classes are already its two runs.

    Examples
    --------
    >>> rows = np.array([[0.0, 1.0, 2.0, 3.0, 5.0, 2.0, 1.5],
    ...                  [3.0, 2.0, 1.0, 0.0, 1.5, 2.5, 9.0],
    ...                  [1.0, 0.0, 2.0, 3.0, 5.0, 2.0, 1.5]])
    >>> aucs = sorted_classes_aucs(rows, 4)       # the third row's negatives are out of order
    >>> bool(aucs[0] == 8.5 / 12 and aucs[1] == 9 / 12 and np.isnan(aucs[2]))
    True
    """
    out = np.full(len(models), np.nan)
    n = negatives
    place = None
    for i, model in enumerate(models):
        model = np.asarray(model, dtype=float)
        m = model.size - n
        if n == 0 or m <= 0 or not (_in_order(model[:n]) and _in_order(model[n:])):
            continue
        if place is None or place.size != model.size:
            place = np.arange(model.size)
        # stable: a negative tied with a positive is placed before it, so the positives' places
        # less the positives before each count the negatives at or below them
        order = np.argsort(model, kind="stable")
        is_pos = order >= n
        twice = 2 * (int(np.dot(is_pos, place)) - m * (m - 1) // 2)
        merged = model[order]
        # a tie across the classes puts a negative right before an equal positive: then the
        # strict counts too (looked for only when some neighbours tie at all)
        same = merged[1:] == merged[:-1]
        if same.any() and (same & is_pos[1:] & ~is_pos[:-1]).any():
            negs = _ascending(model[:n])
            assert negs is not None   # in order: checked above
            below, up_to = merge_places(negs, model[n:])
            twice = int(below.sum(dtype=np.int64)) + int(up_to.sum(dtype=np.int64))
        out[i] = twice / (2 * n * m)
    return out


def simulate_sorted_auc(models: Sequence[tuple[np.ndarray, np.ndarray]], counts: Sequence[int],
                        draws: int, seed: int, draw_rows: Callable, progress=None, *,
                        fallback: Callable[[], np.ndarray]) -> np.ndarray:
    """Observed AUCs, shape ``(len(models), draws)``, of the finite universe's test sets.

    Parameters
    ----------
    models : sequence of (neg, pos)
        Each model's scores of the universe's negatives and positives (the negatives in order,
        either direction; the positives in any order, no NaN).
    counts : [negatives, positives]
        Rows of each class in a test set. More positives than half the universe's: the
        fallback (the weighted kernel is then as fast).
    draws, seed :
        As :meth:`~leaderboard.noise.universes.finite.CalibratedUniverse.simulate`, whose blocks of
        random numbers these are (``draw_rows(rng, rows, size, sort=False)`` per class, negatives
        first): the same test sets.
    fallback : callable
        Returns the general simulation; called when a model's negatives are out of order.

    Examples
    --------
    >>> from leaderboard.noise.rng import draw_rows
    >>> neg, pos = np.linspace(-2, 2, 50), np.linspace(-1, 3, 50)
    >>> out = simulate_sorted_auc([(neg, pos)], [30, 10], 40, 0, draw_rows, fallback=None)
    >>> out.shape, bool(0.6 < out.mean() < 0.9)
    ((1, 40), True)
    """
    k, m = (int(c) for c in counts)
    sizes = [models[0][0].size, models[0][1].size] if models else [0, 0]
    if m > sizes[1] // 2:
        # many positives per test set: the kernel's pass over every row costs less than their
        # lookups (measured at 16,384 rows: even at 4,000 positives, slower from 5,000)
        return fallback()
    places = []
    for neg, pos in models:
        neg = np.asarray(neg, dtype=float)
        ascending = _ascending(neg)
        if ascending is None or np.isnan(pos).any():
            return fallback()
        # where each positive row falls among the negatives sorted ascending, and whether the
        # negatives' rows run that way (else the counts are summed from the last row)
        places.append((*merge_places(ascending, np.asarray(pos, dtype=float)),
                       ascending is neg))
    groups = _level_groups(places, sizes[0])
    out = np.empty((len(models), draws))
    n_blocks = -(-draws // BLOCK)
    if progress is not None:
        progress.start(n_blocks)
    for block in range(n_blocks):
        keep = min(BLOCK, draws - block * BLOCK)   # whole blocks: fewer draws are a prefix
        rng = block_rng(seed, STREAM, block)
        negatives = row_counts(draw_rows(rng, k, sizes[0], sort=False), k, sizes[0])
        positives = draw_rows(rng, m, sizes[1], sort=False)
        # negatives drawn below each place, along the rows' order
        cumulative = np.zeros((BLOCK, sizes[0] + 1), dtype=np.int64)
        np.cumsum(negatives, axis=1, out=cumulative[:, 1:])
        for rows, backward, lower, up_to in groups:
            twice = _pairs(cumulative, lower, up_to, positives)
            # negatives whose rows run backwards: those below a place p along their order are
            # the k less those below the mirrored place along the rows', for each of m positives
            twice[backward] = 2 * m * k - twice[backward]
            # the kernel's U / (m k), U = twice / 2 exactly: the same rounding
            out[rows, block * BLOCK:block * BLOCK + keep] = (
                (0.5 * twice.astype(float)) / (float(m) * float(k)))[:, :keep]
        if progress is not None:
            progress.advance()
    return out


# Places looked up at once in _pairs (test sets x positives x models; 512 KB of indices): the
# block's counts of one test set stay in the cache while every model reads them.
_GATHER = 1 << 16


def _level_groups(places: list, negatives: int
                  ) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray | None]]:
    """The models grouped by whether any positive ties a negative: (the models' rows in the
    output, which of them have negatives running backwards, their places below, their places up
    to or None when none ties), the places stacked as (positive rows, models), so that a drawn
    positive's places in every model are one contiguous row (:func:`_pairs`). A backward model's
    place ``p`` (along its reversed negatives) is read at ``negatives - p`` along the rows, so
    every model reads the same counts; :func:`simulate_sorted_auc` turns its sums back."""
    found: dict[bool, list[int]] = {}
    for i, (lower, up_to, _) in enumerate(places):
        found.setdefault(up_to is not lower, []).append(i)

    def stacked(rows: list[int], which: int) -> np.ndarray:
        return np.stack([places[i][which] if places[i][2] else negatives - places[i][which]
                         for i in rows], axis=1)

    return [(np.array(rows), np.array([not places[i][2] for i in rows]), stacked(rows, 0),
             stacked(rows, 1) if tied else None) for tied, rows in found.items()]


def _pairs(cumulative: np.ndarray, lower: np.ndarray, up_to: np.ndarray | None,
           positives: np.ndarray) -> np.ndarray:
    """Twice each test set's Mann-Whitney count, shape (models, BLOCK): per drawn positive
    (``positives``, row picks ``(BLOCK, m)``), the negatives drawn below its score (``lower``:
    each positive row's places in every model, ``(rows, models)``) plus those up to it
    (``up_to``; None when no positive ties a negative: twice those below). Integer sums: exact,
    whatever the grouping. A few test sets at a time, every model at once: a test set's counts
    (``cumulative``'s row) are read by all the models while they are in the cache, and a
    positive's places are one contiguous row (the example's noise models 2.3x as fast as with a
    pass per model: benchmarks/bench_noise_first.py)."""
    flat = cumulative.ravel()
    offsets = (np.arange(BLOCK) * cumulative.shape[1])[:, None, None]
    out = np.empty((BLOCK, lower.shape[1]), dtype=np.int64)
    step = max(1, _GATHER // max(positives.shape[1] * lower.shape[1], 1))
    for start in range(0, BLOCK, step):
        part = slice(start, start + step)
        at = lower[positives[part]]   # (test sets, m, models)
        at += offsets[part]
        twice = np.take(flat, at).sum(axis=1)
        if up_to is None:
            twice *= 2
        else:
            at = up_to[positives[part]]
            at += offsets[part]
            twice += np.take(flat, at).sum(axis=1)
        out[part] = twice
    return out.T


def merge_places(neg: np.ndarray, pos: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Negatives (sorted ascending) below each positive, and at or below it (the same array
    when no positive ties a negative): :func:`numpy.searchsorted`'s left and right sides, from
    one stable sort of the two runs side by side (a merge, faster than the searches).

    Examples
    --------
    >>> neg, pos = np.array([0.0, 1.0, 2.0, 3.0]), np.array([5.0, 2.0, 1.5])
    >>> below, up_to = merge_places(neg, pos)
    >>> below.tolist(), up_to.tolist()
    ([4, 2, 2], [4, 3, 2])
    >>> all((np.searchsorted(neg, pos, s) == p).all() for s, p in (("left", below),
    ...                                                            ("right", up_to)))
    True
    """
    n, m = neg.size, pos.size
    order = np.argsort(np.concatenate([neg, pos]), kind="stable")
    at = np.flatnonzero(order >= n)      # the positives' places in the merged order
    up_to = np.empty(m, dtype=np.intp)
    up_to[order[at] - n] = at - np.arange(m)    # stable: tied negatives are placed first
    tied = (up_to > 0) & (neg[np.maximum(up_to - 1, 0)] == pos)
    if not tied.any():
        return up_to, up_to
    if (neg[1:] > neg[:-1]).all():   # distinct negatives: a tie is one negative, the one below
        return up_to - tied, up_to
    return np.searchsorted(neg, pos, side="left"), up_to


def _ascending(values: np.ndarray) -> np.ndarray | None:
    """``values`` in ascending order if they run in order (either way, no NaN); else None."""
    if np.isnan(values).any():
        return None
    if (values[1:] >= values[:-1]).all():
        return values
    if (values[1:] <= values[:-1]).all():
        return values[::-1]
    return None


def _in_order(values: np.ndarray) -> bool:
    """Whether ``values`` run in order, either way, with no NaN (:func:`_ascending`'s test)."""
    if np.isnan(values).any():
        return False
    return bool((values[1:] >= values[:-1]).all() or (values[1:] <= values[:-1]).all())
