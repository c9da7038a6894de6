"""How stable is the order? Rank distributions of the entries under resampling.

Every function here ranks the entries afresh on each replicate of a :class:`RankReplicates`
(resampled scores ``point[:, None] + errors``, higher is better) and summarises those ranks, as the
challengeR toolkit does for biomedical challenges (Wiesenfarth et al. 2021):

- :func:`resampled_ranks`: the rank of every entry on every replicate;
- :func:`rank_probabilities`: how often each entry comes first, or in the top ``k``, and the median
  and percentiles of its resampled rank;
- :func:`kendall_taus`: Kendall's tau-b between the observed order and each replicate's order;
- :func:`rank_frequencies`: the rank distribution of the leading entries, for a blob plot.

(The significance map, a confidence statement rather than a stability summary, is
:func:`leaderboard.tiers.shown_better.significance_map`.)

What these numbers are, and what they are not: they measure how much the *observed* order moves when
the test set is redrawn around the observed scores. They are not posterior probabilities that an
entry is truly best, and they are not confidence statements about true ranks. The resampled world
takes the observed scores as the truth, so the observed leader is its true best; when entries are
truly tied the bootstrap rank distribution is inconsistent (Hall and Miller 2009) and favours the
observed leader: with two truly tied entries the leader's "probability of being best" is uniformly
distributed between 1/2 and 1 (mean 3/4), never the fair 1/2. Use the rank confidence sets and
tiers for statements with guarantees.

A resampled rank is 1 plus the number of entries *strictly* better on that replicate, so tied
entries share the best rank of their group (as in the observed ranking).

Computation: one pass over the replicates serves every summary (:func:`stability` runs them
together, as :func:`~leaderboard.tiers.ranking.rank_board` does). Replicates are ranked in blocks
of about :data:`CHUNK_ELEMENTS` scores, each replicate by a compiled stable radix sort
(:mod:`leaderboard.tiers._rank_kernel`), replicates in parallel; a small board's with numpy
(:mod:`leaderboard.tiers.small_ranks`: the same ranks and taus, nothing compiled). The rank
percentiles need every
entry's R ranks at once; they are kept as 16-bit offsets from the middle of the entry's ranks on
the first block of replicates (2 bytes per entry and replicate, half of int32; at most
:data:`~leaderboard.tiers.rank_quantiles.STORE_ELEMENTS` at once, so a bigger board is
collected a group of entries per pass over the replicates), and an entry whose
percentile falls at the clipped end of that range has that percentile found in one more pass,
which keeps only its ranks in the bucket of ranks where the first pass's counts put it
(:mod:`~leaderboard.tiers.rank_quantiles`; only on boards of more than 32,768 entries whose
ranks spread that far). Each replicate is handled on its own and each entry's percentiles are
order statistics, so results do not depend on the block sizes or the number of
threads.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
from leaderboard._jit import njit

from leaderboard._threads import threaded
from leaderboard.tiers._rank_kernel import gather_columns, min_ranks
from leaderboard.tiers._tau_kernel import inversions, sort_runs, tied_pairs
from leaderboard.tiers import small_ranks
from leaderboard.tiers.rank_quantiles import collect
from leaderboard.tiers.replicates import RankReplicates, all_finite
from leaderboard.params import DEFAULT_LEVEL

CHUNK_ELEMENTS = 1 << 21  # scores ranked per chunk (16 MB of float64), bounds the working memory


@dataclass(frozen=True)
class RankProbabilities:
    """Summaries of the entries' resampled ranks (see :func:`rank_probabilities`).

    Attributes
    ----------
    p_best : ndarray, shape (E,)
        Share of replicates on which the entry is best (m entries tied for best share one credit,
        1/m each, so ``p_best`` sums to 1).
    p_top : dict of int to ndarray, shape (E,)
        ``p_top[k]``: share of replicates on which the entry's resampled rank is at most ``k``.
    median_rank : ndarray, shape (E,)
        Median resampled rank (the lower median, a rank that occurred).
    rank_percentiles : ndarray, shape (E, 2)
        The ``(1 - level) / 2`` and ``(1 + level) / 2`` percentiles of the resampled rank
        (inverted-CDF definition, so both are ranks that occurred). A description of the spread,
        not a confidence interval for the true rank.
    level : float
        The central share that ``rank_percentiles`` spans.
    n_replicates : int
    """

    p_best: np.ndarray
    p_top: dict[int, np.ndarray]
    median_rank: np.ndarray
    rank_percentiles: np.ndarray
    level: float
    n_replicates: int


def _reps_iv(reps: RankReplicates) -> None:
    """Check the shared input once: shapes agree and every score is finite."""
    point, errors = np.asarray(reps.point), reps.errors
    if point.ndim != 1 or errors.ndim != 2 or errors.shape[0] != point.size:
        raise ValueError(f"errors must have shape (E, R) with E = {point.size}, got {errors.shape}")
    if point.size < 1 or errors.shape[1] < 1:
        raise ValueError("need at least one entry and one replicate")
    if not (np.isfinite(point).all() and all_finite(errors)):
        raise ValueError("scores and errors must be finite")


def _rank_blocks(reps: RankReplicates, chunk_elements: int = CHUNK_ELEMENTS
                 ) -> Iterator[tuple[int, np.ndarray]]:
    """Yield ``(r0, ranks)`` with ``ranks`` of shape (c, E) for replicates r0 .. r0 + c - 1."""
    n_entries, n_rep = reps.errors.shape
    step = max(1, chunk_elements // n_entries)
    point = np.ascontiguousarray(reps.point, dtype=np.float64)
    if small_ranks.small(n_entries):   # numpy, the same ranks: nothing to compile (issue 41)
        for r0 in range(0, n_rep, step):
            block = point + reps.errors[:, r0:r0 + step].T.astype(np.float64)
            yield r0, small_ranks.min_ranks(block)
        return
    # C order (the bootstrap's errors may come Fortran-ordered): the gather reads each entry's
    # row, and one layout means one compiled gather (issue 27); no copy when already C
    errors = np.ascontiguousarray(reps.errors)
    for r0 in range(0, n_rep, step):
        # Transposed float64 scores (float32 errors are widened exactly): each replicate's scores
        # contiguous for the sort.
        cols = np.arange(r0, min(r0 + step, n_rep))
        block = np.empty((cols.size, n_entries))
        gather_columns(errors, cols, point, True, block)
        out = np.empty(block.shape, dtype=np.int32)
        min_ranks(block, out)
        yield r0, out


def resampled_ranks(reps: RankReplicates) -> np.ndarray:
    """Rank of every entry on every replicate: 1 + the number of entries strictly better.

    Parameters
    ----------
    reps : RankReplicates

    Returns
    -------
    ndarray of int32, shape (E, R)

    Examples
    --------
    >>> reps = RankReplicates(point=np.array([2.0, 1.0, 1.0]), errors=np.array(
    ...     [[0.0, -2.0], [0.0, 0.5], [0.0, 0.0]]), sd=np.ones(3), correlation=None, sign=1.0,
    ...     source="example")
    >>> resampled_ranks(reps).tolist()
    [[1, 3], [2, 1], [2, 2]]
    """
    _reps_iv(reps)
    ranks = np.empty(reps.errors.shape, dtype=np.int32)
    for r0, block in _rank_blocks(reps):
        ranks[:, r0:r0 + block.shape[0]] = block.T
    return ranks


def rank_probabilities(reps: RankReplicates, top_k: Sequence[int] = (), *,
                       level: float = DEFAULT_LEVEL) -> RankProbabilities:
    """How often each entry comes first or in the top k when the test set is redrawn.

    This is the stability of the observed order under resampling (the bootstrap rank distribution
    of challengeR), **not** a posterior probability that an entry is the truly best one. The
    resampled world treats the observed scores as the truth, so near ties it favours the observed
    leader: for truly tied entries the bootstrap of ranks is inconsistent (Hall and Miller 2009)
    and the leader's ``p_best`` does not tend to its fair share. No coverage or error rate is
    claimed; read it as "how often this order survives a redraw".

    Parameters
    ----------
    reps : RankReplicates
    top_k : sequence of int
        The ``k`` values for ``p_top`` (each between 1 and E).
    level : float
        Central share of the resampled ranks spanned by ``rank_percentiles``.

    Returns
    -------
    RankProbabilities

    Examples
    --------
    One entry far ahead of two tied ones:

    >>> reps = RankReplicates.normal(np.array([3.0, 1.0, 1.0]), np.full(3, 0.01), 0.0, True,
    ...                              replicates=1000, seed=0)
    >>> res = rank_probabilities(reps, top_k=[2])
    >>> res.p_best.tolist(), res.p_top[2].round(1).tolist()
    ([1.0, 0.0, 0.0], [1.0, 0.5, 0.5])
    """
    _reps_iv(reps)
    probabilities, _, _ = _one_pass(reps, _top_k_iv(reps, top_k), level=level, taus=False)
    return _asked(probabilities)


def _top_k_iv(reps: RankReplicates, top_k: Sequence[int]) -> list[int]:
    ks = sorted({int(k) for k in top_k})
    if ks and not (1 <= ks[0] and ks[-1] <= reps.n_entries):
        raise ValueError(f"top_k values must be between 1 and {reps.n_entries}, got {list(top_k)}")
    return ks


def _top_iv(reps: RankReplicates, top: int) -> int:
    if not 1 <= top <= reps.n_entries:
        raise ValueError(f"top must be between 1 and {reps.n_entries}, got {top}")
    return int(top)


@dataclass(frozen=True)
class Stability:
    """Every stability summary of one board (see :func:`stability`).

    Attributes
    ----------
    probabilities : RankProbabilities
    taus : ndarray, shape (R,)
        As :func:`kendall_taus`.
    frequencies : ndarray of int64, shape (top, top + 1)
        As :func:`rank_frequencies`.
    """

    probabilities: RankProbabilities
    taus: np.ndarray
    frequencies: np.ndarray


def stability(reps: RankReplicates, top_k: Sequence[int] = (), top: int = 1, *,
              level: float = DEFAULT_LEVEL) -> Stability:
    """:func:`rank_probabilities`, :func:`kendall_taus` and :func:`rank_frequencies` at once,
    from one pass over the replicates (each replicate ranked once instead of three times).

    The numbers are those of the three functions, and carry their (absence of) guarantees: a
    description of how the observed order moves under resampling, not a confidence statement.

    Parameters
    ----------
    reps : RankReplicates
    top_k : sequence of int
        The ``k`` values for ``p_top``.
    top : int
        Leading entries whose rank frequencies are counted.
    level : float
        Central share of the resampled ranks spanned by ``rank_percentiles``.

    Returns
    -------
    Stability

    Examples
    --------
    >>> reps = RankReplicates.normal(np.array([3.0, 1.0, 1.0]), np.full(3, 0.01), 0.0, True,
    ...                              replicates=1000, seed=0)
    >>> res = stability(reps, top_k=[2], top=2)
    >>> res.probabilities.p_best.tolist(), res.frequencies.tolist()
    ([1.0, 0.0, 0.0], [[1000, 0, 0], [0, 490, 510]])

    (The second entry, tied with the third, is second on 490 replicates and third, past the
    counted ranks, on 510.)
    """
    _reps_iv(reps)
    probabilities, taus, frequencies = _one_pass(reps, _top_k_iv(reps, top_k), level=level,
                                                 taus=True, top=_top_iv(reps, top))
    return Stability(probabilities=_asked(probabilities), taus=_asked(taus),
                     frequencies=_asked(frequencies))


_T = TypeVar("_T")


def _asked(summary: _T | None) -> _T:
    """A summary the pass was asked for: never None (unasked ones are)."""
    if summary is None:
        raise ValueError("a summary the pass was not asked for")
    return summary


class _Accumulators:
    """What one pass adds up from each block of ranks: P(best) credit, top-k counts, the taus
    of the block's replicates, the leading entries' rank frequencies."""

    def __init__(self, reps: RankReplicates, ks: list[int], taus: bool, top: int | None):
        n_entries, n_rep = reps.errors.shape
        self.credit = np.zeros(n_entries)
        self.in_top: dict[int, np.ndarray] | None = {
            k: np.zeros(n_entries, dtype=np.int64) for k in ks}
        self.taus = np.empty(n_rep) if taus else None
        # a small board's tau-b compares the ranks with the observed order pair by pair: the
        # negated scores, ascending like the ranks (small_ranks.tau_b)
        self.pairs = -reps.point if taus and small_ranks.small(n_entries) else None
        if taus:
            order = np.argsort(-reps.point, kind="stable")  # entries are in rank order; a guard
            xs = reps.point[order]
            self.order = None if np.array_equal(order, np.arange(n_entries)) else order
            self.run_starts = np.flatnonzero(np.r_[True, xs[1:] != xs[:-1], True]).astype(np.int64)
            sizes = np.diff(self.run_starts)
            self.x_ties = int((sizes * (sizes - 1) // 2).sum())
        self.top = top
        if top is not None:
            self.counts = np.zeros(top * (top + 1), dtype=np.int64)
            self.offsets = np.arange(top) * (top + 1)

    def __call__(self, r0: int, block: np.ndarray) -> None:
        if self.in_top is not None:
            best = block == 1
            # m entries tied for best on a replicate get 1/m each: each replicate hands out one.
            self.credit += (best / best.sum(axis=1, keepdims=True)).sum(axis=0)
            for k, count in self.in_top.items():
                count += np.count_nonzero(block <= k, axis=0)
        if self.taus is not None and self.pairs is not None:   # a small board: numpy
            self.taus[r0:r0 + block.shape[0]] = small_ranks.tau_b(self.pairs, block)
        elif self.taus is not None:
            out = np.empty(block.shape[0])
            ordered = block if self.order is None else np.ascontiguousarray(block[:, self.order])
            _tau_b(ordered, self.run_starts, self.x_ties, out)
            self.taus[r0:r0 + out.size] = out
        if self.top is not None:
            # ranks past `top` share the last column
            cols = np.minimum(block[:, :self.top], self.top + 1) - 1
            self.counts += np.bincount((cols + self.offsets).ravel(), minlength=self.counts.size)


def _one_pass(reps: RankReplicates, ks: list[int] | None, *, level: float = DEFAULT_LEVEL,
              taus: bool = False, top: int | None = None
              ) -> tuple[RankProbabilities | None, np.ndarray | None, np.ndarray | None]:
    """Rank every replicate once and feed the asked-for summaries (``ks`` None: no
    probabilities): ``(probabilities, taus, frequencies)``, the unasked ones None."""
    n_entries, n_rep = reps.errors.shape
    acc = _Accumulators(reps, ks or [], taus, top)
    probabilities: RankProbabilities | None = None
    if ks is None:
        acc.in_top = None
        for r0, block in _rank_blocks(reps):
            acc(r0, block)
    else:
        if not 0 < level < 1:
            raise ValueError(f"level must be in (0, 1), got {level:g}")
        # Inverted-CDF quantiles: the ceil(q R)-th smallest rank, so every reported rank occurred.
        qs = [(1 - level) / 2, 0.5, (1 + level) / 2]
        idx = [min(n_rep - 1, max(0, int(np.ceil(q * n_rep - 1e-9)) - 1)) for q in qs]
        # ranks kept as int16 offsets from the middle of each entry's ranks on the first block
        part = collect(None, n_rep, idx, _rank_blocks(reps), lambda: _rank_blocks(reps),
                       each=acc).astype(np.int32)
        probabilities = RankProbabilities(
            p_best=acc.credit / n_rep, p_top={k: _asked(acc.in_top)[k] / n_rep for k in ks},
            median_rank=part[:, 1], rank_percentiles=part[:, [0, 2]], level=float(level),
            n_replicates=n_rep)
    return (probabilities, acc.taus,
            None if top is None else acc.counts.reshape(top, top + 1))


@njit(cache=True, nogil=True)
def _tau_b_rows(ranks, run_starts, x_ties, out, r0, r1):
    n_rep, n = ranks.shape
    total = n * (n - 1) // 2
    for r in range(r0, r1):
        seq = ranks[r].copy()
        sort_runs(seq, run_starts)
        joint = 0  # pairs tied in both observed score and resampled rank
        for g in range(run_starts.size - 1):
            a, b = run_starts[g], run_starts[g + 1]
            run = 1
            for t in range(a + 1, b + 1):
                if t < b and seq[t] == seq[t - 1]:
                    run += 1
                else:
                    joint += run * (run - 1) // 2
                    run = 1
        y_ties = tied_pairs(seq, n)
        discordant = inversions(seq, n)  # earlier entries with a strictly larger (worse) rank
        denom = float(total - x_ties) * float(total - y_ties)
        if denom > 0:
            out[r] = (total - x_ties - y_ties + joint - 2 * discordant) / np.sqrt(denom)
        else:
            out[r] = np.nan


def _tau_b(ranks: np.ndarray, run_starts: np.ndarray, x_ties: int, out: np.ndarray) -> None:
    """Kendall's tau-b of each row of ``ranks`` against the observed order.

    Rows list entries best-first by observed score; ``run_starts`` delimits runs of tied observed
    scores. A discordant pair is an earlier (observed better) entry with a strictly worse rank, so
    after sorting ranks inside each tied run the discordant pairs are the inversions, counted with
    a Fenwick tree in O(E log E).
    """
    threaded(_tau_b_rows, ranks.shape[0], ranks, run_starts, x_ties, out)


def kendall_taus(reps: RankReplicates) -> np.ndarray:
    """Kendall's tau-b between the observed order and each replicate's order.

    Ties are allowed on both sides (tau-b, as :func:`scipy.stats.kendalltau`). A tau near 1 means
    a redraw of the test set barely changes the order; like the rank probabilities, this describes
    stability around the observed scores and carries no guarantee about the true order. NaN on a
    replicate where either order is entirely tied.

    Parameters
    ----------
    reps : RankReplicates

    Returns
    -------
    ndarray, shape (R,)

    Examples
    --------
    >>> reps = RankReplicates(point=np.array([3.0, 2.0, 1.0]), errors=np.array(
    ...     [[0.0, 0.0], [0.0, 1.5], [0.0, 0.0]]), sd=np.ones(3), correlation=None, sign=1.0,
    ...     source="example")
    >>> kendall_taus(reps).round(3).tolist()
    [1.0, 0.333]
    """
    _reps_iv(reps)
    return _asked(_one_pass(reps, None, taus=True)[1])


def rank_frequencies(reps: RankReplicates, top: int) -> np.ndarray:
    """How often each of the ``top`` leading entries takes each resampled rank (blob plot data).

    Parameters
    ----------
    reps : RankReplicates
    top : int
        Number of leading entries (rows), at most E.

    Returns
    -------
    ndarray of int64, shape (top, top + 1)
        ``counts[i, j]`` (``j < top``): replicates on which entry ``i`` had resampled rank
        ``j + 1``; the last column counts ranks beyond ``top``. Each row sums to R; divide by R for
        shares.

    Examples
    --------
    >>> reps = RankReplicates(point=np.array([3.0, 2.0, 1.0]), errors=np.array(
    ...     [[0.0, 0.0, -2.5], [0.0, 1.5, 0.0], [0.0, 0.0, 0.0]]), sd=np.ones(3),
    ...     correlation=None, sign=1.0, source="example")
    >>> rank_frequencies(reps, 2).tolist()
    [[1, 1, 1], [2, 1, 0]]
    """
    _reps_iv(reps)
    return _asked(_one_pass(reps, None, top=_top_iv(reps, top))[2])
