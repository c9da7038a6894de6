"""The observed shake-up: how the order of a competition changed from the public to the private board.

Every entry has a public score (the slice of the test set shown during the contest) and a private
score (the slice that decides the prizes). :func:`shakeup_stats` ranks both boards and summarises
how far apart they are; :func:`risers_fallers` names the entries that moved most.

These are descriptions of one competition, with no claim attached; whether the shake-up is more than
sampling noise would produce is the business of :mod:`leaderboard.shakeup.baseline` and
:mod:`leaderboard.shakeup.overfit`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from leaderboard._jit import njit

from leaderboard._threads import threaded
from leaderboard.tiers._rank_kernel import ascending_order, board_ranks_rows
from leaderboard.tiers._tau_kernel import inversions, tied_pairs
from leaderboard.tiers import small_ranks


@dataclass(frozen=True)
class ShakeupStats:
    """Rank changes and rank correlations between the public and the private board.

    Arrays are aligned with the INPUT order. Excluded entries (a NaN public or private score) have
    NaN ranks and rank change: a sentinel such as -1 would sort ahead of first place and slip into
    any statistic computed from it, while NaN cannot be mistaken for a rank. Ranks of kept entries
    are whole numbers stored as floats.

    Attributes
    ----------
    n_entries : int
        Entries kept (N): both scores finite.
    n_excluded : int
        Entries left out of everything because a score was NaN.
    keep : ndarray of bool, shape (n_input,)
        Which input entries were kept.
    public_rank, private_rank : ndarray of float, shape (n_input,)
        Competition ranking ("min"): 1 + the number of kept entries strictly better on that board,
        so tied entries share the best place of their group. NaN for excluded entries.
    rank_change : ndarray of float, shape (n_input,)
        ``public_rank - private_rank``: positive means the entry rose on the private board.
    spearman, kendall : float
        Spearman's rho and Kendall's tau-b between the public and the private scores (ties allowed).
        Both boards are turned the same way, so a perfectly kept order gives +1 for higher- and
        lower-is-better metrics alike. NaN with fewer than 2 entries or a board that is all ties.
    mean_abs_rank_change : float
        Mean of ``|rank_change|`` over the kept entries, divided by N (0 = no change; a random
        reshuffle gives about 1/3).
    mean_abs_rank_change_top10 : float
        The same mean over the private top: the entries whose private rank is at most
        ``ceil(top_fraction * N)`` (at least 1; tied entries at the cut all count), divided by N.
    top_fraction : float
        Share of the board that makes the "top" of ``mean_abs_rank_change_top10``.
    higher_is_better : bool
    """

    n_entries: int
    n_excluded: int
    keep: np.ndarray
    public_rank: np.ndarray
    private_rank: np.ndarray
    rank_change: np.ndarray
    spearman: float
    kendall: float
    mean_abs_rank_change: float
    mean_abs_rank_change_top10: float
    top_fraction: float
    higher_is_better: bool

    @property
    def top_size(self) -> int:
        """Private places that make the top: :func:`top_count` of the entries compared."""
        return top_count(self.n_entries, self.top_fraction)

    @property
    def winner_public_rank(self) -> float:
        """Public rank of the private winner (the best one if several tie for first)."""
        if self.n_entries == 0:
            return math.nan
        return float(np.nanmin(np.where(self.private_rank == 1, self.public_rank, np.nan)))


MIN_TOP = 5  # places in "the top", at least (fewer is mostly noise), or every entry if fewer


def top_count(n_entries: int, top_fraction: float) -> int:
    """How many places make the top ``top_fraction`` of ``n_entries``: ``ceil``, at least
    :data:`MIN_TOP` (every entry when there are fewer). One rule for every statistic of the
    post-mortem, so its sentences speak of one top.

    Examples
    --------
    >>> top_count(40, 0.1), top_count(3265, 0.1), top_count(3, 0.1)
    (5, 327, 3)
    """
    # A hair below the product guards against 0.1 * 30 = 3.0000000000000004 becoming 4.
    return min(n_entries, max(MIN_TOP, math.ceil(top_fraction * n_entries - 1e-9)))


def _shakeup_iv(public, private, top_fraction):
    public = np.asarray(public, dtype=float)
    private = np.asarray(private, dtype=float)
    if public.ndim != 1 or public.shape != private.shape:
        raise ValueError(f"public and private must be 1-D arrays of one length, got shapes "
                         f"{public.shape} and {private.shape}")
    if not 0 < top_fraction <= 1:
        raise ValueError(f"top_fraction must be in (0, 1], got {top_fraction:g}")
    if np.isinf(public).any() or np.isinf(private).any():
        raise ValueError("scores must be finite or NaN (NaN marks an entry to exclude)")
    return public, private


def shakeup_stats(public: np.ndarray, private: np.ndarray, higher_is_better: bool, *,
                  top_fraction: float = 0.1) -> ShakeupStats:
    """Rank changes and rank correlations between a competition's public and private boards.

    Parameters
    ----------
    public, private : array_like, shape (n,)
        Each entry's raw public and private score; an entry with a NaN in either is excluded.
    higher_is_better : bool
        Direction of the metric.
    top_fraction : float
        Share of the private board whose rank change is also reported on its own.

    Returns
    -------
    ShakeupStats

    Examples
    --------
    Lower is better; the third entry has no private score:

    >>> st = shakeup_stats([0.10, 0.20, 0.30, 0.40], [0.25, 0.15, np.nan, 0.35], False)
    >>> st.public_rank.tolist(), st.private_rank.tolist(), st.rank_change.tolist()
    ([1.0, 2.0, nan, 3.0], [2.0, 1.0, nan, 3.0], [-1.0, 1.0, nan, 0.0])
    >>> st.n_excluded, round(st.spearman, 3), round(st.mean_abs_rank_change, 3)
    (1, 0.5, 0.222)
    """
    public, private = _shakeup_iv(public, private, top_fraction)
    sign = 1.0 if higher_is_better else -1.0
    keep = np.isfinite(public) & np.isfinite(private)
    pub, priv = sign * public[keep], sign * private[keep]
    n = int(keep.sum())
    public_rank = np.full(public.size, np.nan)
    private_rank = np.full(public.size, np.nan)
    # "min" ranks of the negated scores: 1 + the number strictly better, ties share the best place.
    public_rank[keep] = _ranks(-pub)[0]
    private_rank[keep] = _ranks(-priv)[0]
    change = public_rank - private_rank
    spearman = kendall = math.nan
    if n >= 2 and np.ptp(pub) > 0 and np.ptp(priv) > 0:
        spearman, kendall = _spearman(pub, priv), _kendall_tau_b(pub, priv)
    mean_abs = mean_abs_top = math.nan
    if n:
        moved = np.abs(change[keep])
        mean_abs = float(moved.mean() / n)
        in_top = private_rank[keep] <= top_count(n, top_fraction)
        mean_abs_top = float(moved[in_top].mean() / n)
    return ShakeupStats(n_entries=n, n_excluded=int(public.size - n), keep=keep,
                        public_rank=public_rank, private_rank=private_rank, rank_change=change,
                        spearman=spearman, kendall=kendall, mean_abs_rank_change=mean_abs,
                        mean_abs_rank_change_top10=mean_abs_top, top_fraction=float(top_fraction),
                        higher_is_better=bool(higher_is_better))


# The observed board's ranks and correlations, as scipy.stats computes them (rankdata,
# spearmanr, kendalltau's tau-b), the same operations in the same order and so the same bits
# (tests/shakeup/test_observed.py holds them against scipy), without importing scipy.stats
# (~0.3-0.7 s of a run's CPU).

def _ranks(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """scipy's ``rankdata(x, "min")`` and ``rankdata(x, "average")`` (ascending, float64): a
    value's tie group takes places lo + 1 .. hi, lo and hi from a sorted search.

    Examples
    --------
    >>> [r.tolist() for r in _ranks(np.array([3.0, 1.0, 3.0, 2.0]))]
    [[3.0, 1.0, 3.0, 2.0], [3.5, 1.0, 3.5, 2.0]]
    """
    ordered = np.sort(x)
    lo = np.searchsorted(ordered, x, side="left")
    hi = np.searchsorted(ordered, x, side="right")
    return (lo + 1).astype(float), 0.5 * (hi + lo + 1)


def _spearman(x: np.ndarray, y: np.ndarray) -> float:
    """``scipy.stats.spearmanr(x, y).statistic``: numpy's correlation of the average ranks, the
    two variables as columns (as spearmanr passes them)."""
    ranked = np.column_stack([_ranks(x)[1], _ranks(y)[1]])
    return float(np.corrcoef(ranked, rowvar=False)[1, 0])


def _kendall_tau_b(x: np.ndarray, y: np.ndarray) -> float:
    """``scipy.stats.kendalltau(x, y).statistic`` (tau-b; NaN when either is constant): ties
    counted from dense ranks, discordant pairs as the strict inversions of y's dense ranks in
    the order sorted by (x, y), and scipy's ``c / sqrt(t - tx) / sqrt(t - ty)``, clipped to
    [-1, 1].

    Examples
    --------
    >>> _kendall_tau_b(np.array([1.0, 2.0, 3.0, 4.0]), np.array([1.0, 3.0, 2.0, 4.0]))
    0.6666666666666669
    """
    dx = np.unique(x, return_inverse=True)[1].ravel()
    dy = np.unique(y, return_inverse=True)[1].ravel()
    order = np.lexsort((dy, dx))
    dx, dy = dx[order], dy[order]
    size = x.size
    tot = size * (size - 1) // 2
    joint = np.diff(np.flatnonzero(np.r_[True, (dx[1:] != dx[:-1]) | (dy[1:] != dy[:-1]),
                                         True]))
    ntie = int((joint * (joint - 1) // 2).sum())
    xtie, ytie = (int((c * (c - 1) // 2).sum()) for c in (np.bincount(dx), np.bincount(dy)))
    if xtie == tot or ytie == tot:
        return math.nan
    con_minus_dis = tot - xtie - ytie + ntie - 2 * _inversions(dy)
    tau = con_minus_dis / np.sqrt(tot - xtie) / np.sqrt(tot - ytie)
    return float(np.minimum(1.0, max(-1.0, tau)))


def _inversions(values: np.ndarray) -> int:
    """Pairs i < j with ``values[i] > values[j]`` (non-negative integers), by a bottom-up merge
    of sorted runs: at each width every right run's elements are placed among their left run's
    by one sorted search over the whole array (runs kept apart by an offset per run pair), then
    the pairs' runs are merged by one sort. O(n log^2 n) in numpy, no compiled kernel.

    Examples
    --------
    >>> _inversions(np.array([3, 1, 2, 0]))
    5
    """
    n = values.size
    runs = np.asarray(values, dtype=np.int64).copy()
    span = int(runs.max(initial=0)) + 1
    place = np.arange(n)
    count, width = 0, 1
    while width < n:
        pair = place // (2 * width)
        keyed = pair * span + runs
        right = (place % (2 * width)) >= width
        left_keys = keyed[~right]          # sorted: runs sorted, pairs in order
        ends = np.searchsorted(left_keys, (pair[right] + 1) * span, side="left")
        count += int((ends - np.searchsorted(left_keys, keyed[right], side="right")).sum())
        runs = np.sort(keyed) - pair * span
        width *= 2
    return count


def risers_fallers(stats: ShakeupStats, k: int = 5) -> tuple[np.ndarray, np.ndarray]:
    """The entries that rose and fell most from the public to the private board.

    Only entries that actually moved qualify, so either list can be shorter than ``k`` (a board
    with no movement has neither).

    Parameters
    ----------
    stats : ShakeupStats
    k : int
        At most this many of each.

    Returns
    -------
    risers, fallers : ndarray of int
        Indices into the input order. Risers by rank change, biggest rise first; fallers biggest
        fall first; equal moves are ordered by private rank (better first), then input order.

    Examples
    --------
    >>> st = shakeup_stats([4.0, 3.0, 2.0, 1.0], [1.0, 4.0, 3.0, 2.0], True)
    >>> st.rank_change.tolist()
    [-3.0, 1.0, 1.0, 1.0]
    >>> [r.tolist() for r in risers_fallers(st, k=2)]
    [[1, 2], [0]]
    """
    if k < 0:
        raise ValueError(f"k must be at least 0, got {k}")
    change, place = stats.rank_change, stats.private_rank
    rose = np.flatnonzero(change > 0)  # NaN compares False: excluded entries never qualify
    fell = np.flatnonzero(change < 0)
    # lexsort sorts by its last key first; it is stable, so input order breaks what remains.
    risers = rose[np.lexsort((place[rose], -change[rose]))][:k]
    fallers = fell[np.lexsort((place[fell], change[fell]))][:k]
    return risers, fallers


# Ranking machinery for many simulated boards at once (leaderboard.shakeup.baseline); the observed
# board above uses scipy, which the tests also hold these against.

SMALL_BOARD = 200   # entries up to which numpy's stable sort ranks the boards (see board_ranks)


def board_ranks(scores: np.ndarray):
    """Ranks of each row of ``scores`` (shape (c, n), higher is better).

    Returns the "min" ranks (int32: 1 + the number strictly better), the average ranks (float, for
    Spearman) and the order of each row, best first, tied scores in index order (a compiled
    stable radix sort, :mod:`leaderboard.tiers._rank_kernel`; numpy's argsort, used before, left
    the order of tied scores to its quicksort). Boards of at most :data:`SMALL_BOARD` entries are
    ranked by numpy's stable sort instead, the same order and ranks: the radix sort's 2,048
    buckets a pass cost more than sorting a short row (99 boards of 150 entries: 1.0 ms of CPU
    against 1.4-1.6; of 20 entries 0.13 against 1.2-1.4).
    """
    scores = np.ascontiguousarray(scores, dtype=np.float64)
    if scores.shape[-1] <= SMALL_BOARD:
        return small_ranks.board_ranks(scores)
    min_rank = np.empty(scores.shape, dtype=np.int32)
    avg = np.empty(scores.shape)
    order = np.empty(scores.shape, dtype=np.int64)
    board_ranks_rows(scores, min_rank, avg, order)
    return min_rank, avg, order


def row_pearson(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Pearson correlation of ``a[r]`` and ``b[r]`` for every row; NaN for a constant row."""
    a = a - a.mean(axis=1, keepdims=True)
    b = b - b.mean(axis=1, keepdims=True)
    denom = np.sqrt(np.einsum("ij,ij->i", a, a) * np.einsum("ij,ij->i", b, b))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denom > 0, np.einsum("ij,ij->i", a, b) / denom, np.nan)


@njit(cache=True, nogil=True)
def _tau_b_row_range(x, y, xy_order, out, r0, r1):
    n_rows, n = x.shape
    total = n * (n - 1) // 2
    for r in range(r0, r1):
        xr, yr, order = x[r], y[r], xy_order[r]
        x_ties, joint, run_x, run_j = 0, 0, 1, 1
        for t in range(1, n):
            a, b = order[t - 1], order[t]
            if xr[b] == xr[a]:
                run_x += 1
                if yr[b] == yr[a]:
                    run_j += 1
                else:
                    joint += run_j * (run_j - 1) // 2
                    run_j = 1
            else:
                x_ties += run_x * (run_x - 1) // 2
                joint += run_j * (run_j - 1) // 2
                run_x, run_j = 1, 1
        x_ties += run_x * (run_x - 1) // 2
        joint += run_j * (run_j - 1) // 2
        y_ties = tied_pairs(yr, n)
        # earlier in the x order with a strictly larger y: the discordant pairs
        discordant = inversions(yr[order], n)
        denom = float(total - x_ties) * float(total - y_ties)
        if denom > 0:
            out[r] = (total - x_ties - y_ties + joint - 2 * discordant) / np.sqrt(denom)
        else:
            out[r] = np.nan


def board_taus(x: np.ndarray, y: np.ndarray, x_order: np.ndarray) -> np.ndarray:
    """Kendall's tau-b of ``x[r]`` and ``y[r]`` (int ranks in 1..n, shape (c, n)) for every row,
    ``x_order`` as :func:`xy_orders` takes it: by :func:`tau_b_rows`, or a small board's by
    numpy over its pairs (:func:`~leaderboard.tiers.small_ranks.tau_b`, the same numbers,
    nothing compiled)."""
    if small_ranks.small(x.shape[1]):
        return small_ranks.tau_b(x, y)
    out = np.empty(x.shape[0])
    tau_b_rows(x, y, xy_orders(x, y, x_order), out)
    return out


def tau_b_rows(x: np.ndarray, y: np.ndarray, xy_order: np.ndarray, out: np.ndarray) -> None:
    """Kendall's tau-b of ``x[r]`` and ``y[r]`` (int ranks in 1..n, shape (c, n)) for every row.

    ``xy_order[r]`` sorts row ``r`` by (x, y) (numpy's sort is faster than a compiled one). In
    that order the discordant pairs are the strict inversions of the y sequence (pairs tied in x
    are sorted by y, so never inverted), counted with a Fenwick tree in O(n log n). NaN when
    either ranking is all ties.
    """
    _rows(_tau_b_row_range, x.shape, x, y, xy_order, out)


INLINE_ELEMENTS = 1 << 15   # boards of at most this many ranks a block run on the calling thread


def _rows(kernel, shape: tuple[int, int], *args) -> None:
    """``kernel(*args, 0, rows)`` on this thread for a small block (the pool's hand-off cost
    more than the work: 200 boards of 30 entries, tau-b and its order 0.13 ms of CPU against
    0.42 threaded, 99 of 150 0.39 against 0.73), else on threads; rows are independent, so the
    numbers are the same either way."""
    if shape[0] * shape[1] <= INLINE_ELEMENTS:
        kernel(*args, 0, shape[0])
    else:
        threaded(kernel, shape[0], *args)


@njit(cache=True, nogil=True)
def _sort_ties_by_rows(order, x, y, out, r0, r1):
    for r in range(r0, r1):
        o, xr, yr, dst = order[r], x[r], y[r], out[r]
        n = o.size
        for t in range(n):
            dst[t] = o[t]
        a = 0
        while a < n:
            b = a + 1
            while b < n and xr[dst[b]] == xr[dst[a]]:
                b += 1
            if b - a > 32:
                keys = np.empty(b - a, dtype=np.int64)
                for t in range(a, b):
                    keys[t - a] = yr[dst[t]]
                perm = ascending_order(keys)   # stable, as a merge sort
                run = dst[a:b].copy()
                for t in range(b - a):
                    dst[a + t] = run[perm[t]]
            else:
                for t in range(a + 1, b):   # insertion sort: tied runs are short
                    v = dst[t]
                    u = t - 1
                    while u >= a and yr[dst[u]] > yr[v]:
                        dst[u + 1] = dst[u]
                        u -= 1
                    dst[u + 1] = v
            a = b


def _sort_ties_by(order: np.ndarray, x: np.ndarray, y: np.ndarray, out: np.ndarray) -> None:
    _rows(_sort_ties_by_rows, order.shape, order, x, y, out)


def xy_orders(x: np.ndarray, y: np.ndarray, x_order: np.ndarray) -> np.ndarray:
    """For :func:`tau_b_rows`: each row's positions sorted by ``(x, y)``, from ``x_order`` (an
    order by ``x`` ascending, e.g. the board's order best first by ranks) with each run of tied
    ``x`` sorted by ``y``. Any order sorted by ``(x, y)`` gives tau-b the same counts; this one
    costs a walk of the runs instead of a second sort of every row.

    Examples
    --------
    >>> x = np.array([[1, 1, 3]], dtype=np.int32)
    >>> y = np.array([[3, 2, 1]], dtype=np.int32)
    >>> xy_orders(x, y, np.array([[0, 1, 2]])).tolist()
    [[1, 0, 2]]
    """
    out = np.empty(x_order.shape, dtype=np.int64)
    _sort_ties_by(np.ascontiguousarray(x_order), x, y, out)
    return out
