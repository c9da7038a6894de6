"""Ranks and Kendall's tau-b of many small boards with numpy: the compiled kernels' numbers,
nothing compiled.

The ranks stage and the post-mortem rank every replicate of a board and count its tau-b with
compiled loops (:mod:`~leaderboard.tiers._rank_kernel`, :mod:`~leaderboard.tiers._tau_kernel`),
built for boards of many thousand entries. On a board of up to :data:`SMALL` entries (the
bound of :mod:`~leaderboard.tiers.closed_small`, whose rank sets are numpy too) the same numbers
come from numpy here, so that a first run on a small board compiles no kernel (the example's
35 took ~5 s of CPU, more than twice its whole warm run: issue 41). Everything is integers
counted exactly (ranks, tied and discordant pairs), and the one division is the kernels', so
the results are the same bits (tests/tiers/test_small_ranks.py holds them against the kernels).
"""
from __future__ import annotations

import numpy as np

from leaderboard.tiers.closed_small import SMALL

PAIR_ELEMENTS = 1 << 22   # replicates x pairs compared at once by the tau-b (4 M)


def small(n_entries: int) -> bool:
    """Whether a board of ``n_entries`` takes the numpy paths of this module and its callers."""
    return n_entries <= SMALL


def board_ranks(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each row of ``scores`` (shape (c, n), higher is better, no NaN) ranked: the "min" ranks
    (int32: 1 + the number strictly better), the average ranks (float64) and the order, best
    first, tied scores in index order (a stable sort of the negated scores; ``-0.0`` and ``0.0``
    compare equal there, as in the radix sort); each tie group's first and last place from
    running maxima and minima of where groups start and end.

    Examples
    --------
    >>> [a.tolist() for a in board_ranks(np.array([[0.5, 0.9, 0.5]]))]
    [[[2, 1, 2]], [[2.5, 1.0, 2.5]], [[1, 0, 2]]]
    """
    c, n = scores.shape
    order = np.argsort(-scores, axis=1, kind="stable")
    ordered = np.take_along_axis(scores, order, axis=1)
    place = np.broadcast_to(np.arange(n), (c, n))
    starts = np.ones((c, n), dtype=bool)          # a tie group starts here
    np.not_equal(ordered[:, 1:], ordered[:, :-1], out=starts[:, 1:])
    ends = np.ones((c, n), dtype=bool)            # ... and ends here
    ends[:, :-1] = starts[:, 1:]
    first = np.maximum.accumulate(np.where(starts, place, 0), axis=1)
    last = np.minimum.accumulate(np.where(ends, place, n)[:, ::-1], axis=1)[:, ::-1]
    min_rank = np.empty((c, n), dtype=np.int32)
    avg = np.empty((c, n))
    np.put_along_axis(min_rank, order, first + 1, axis=1)
    np.put_along_axis(avg, order, (first + last) / 2 + 1, axis=1)
    return min_rank, avg, order


def min_ranks(scores: np.ndarray) -> np.ndarray:
    """The "min" ranks of each row (:func:`board_ranks`' first answer), int32."""
    return board_ranks(scores)[0]


def tau_b(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall's tau-b of ``x`` and ``y[r]`` for every row ``r`` (``x`` shape (n,) or (c, n),
    ``y`` shape (c, n); ranks or scores, compared within their row), NaN when either is all ties.

    Over the pairs i < j: C - D, the sum of sign(x_j - x_i) sign(y_j - y_i), and the pairs tied
    in each, counted exactly; then ``(C - D) / sqrt((total - x ties) (total - y ties))``, the
    kernels' one division (they count C - D as total - x ties - y ties + joint ties - 2
    discordant, the same integer).

    Examples
    --------
    >>> tau_b(np.array([1, 2, 3, 4]), np.array([[1, 3, 2, 4], [4, 3, 2, 1]])).round(3).tolist()
    [0.667, -1.0]
    """
    y = np.asarray(y)
    c, n = y.shape
    total = n * (n - 1) // 2
    out = np.full(c, np.nan)
    if total == 0:
        return out
    first, second = np.triu_indices(n, 1)
    shared = np.asarray(x).ndim == 1
    step = max(1, PAIR_ELEMENTS // total)
    for r0 in range(0, c, step):
        xs = np.asarray(x) if shared else np.asarray(x)[r0:r0 + step]
        dx = np.sign(xs[..., second] - xs[..., first]).astype(np.int8)
        dy = np.sign(y[r0:r0 + step, second] - y[r0:r0 + step, first]).astype(np.int8)
        net = np.einsum("...p,rp->r", dx, dy, dtype=np.int64) if shared else \
            np.einsum("rp,rp->r", dx, dy, dtype=np.int64)
        x_ties = np.count_nonzero(dx == 0, axis=-1)
        y_ties = np.count_nonzero(dy == 0, axis=1)
        denom = (total - x_ties).astype(np.float64) * (total - y_ties).astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            out[r0:r0 + step] = np.where(denom > 0, net / np.sqrt(denom), np.nan)
    return out
