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

Computation: replicates are ranked in chunks of about :data:`CHUNK_ELEMENTS` scores, each replicate
sorted once by a compiled loop that runs replicates in parallel. Each replicate is handled on its
own, so results do not depend on the chunk size or the number of threads.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from leaderboard.tiers._tau_kernel import inversions, tied_pairs
from leaderboard.tiers.replicates import RankReplicates

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
    point, errors = np.asarray(reps.point), np.asarray(reps.errors)
    if point.ndim != 1 or errors.ndim != 2 or errors.shape[0] != point.size:
        raise ValueError(f"errors must have shape (E, R) with E = {point.size}, got {errors.shape}")
    if point.size < 1 or errors.shape[1] < 1:
        raise ValueError("need at least one entry and one replicate")
    if not (np.isfinite(point).all() and np.isfinite(errors).all()):
        raise ValueError("scores and errors must be finite")


@njit(cache=True, parallel=True)
def _min_ranks(block, out):
    """Rank each row of ``block`` (one replicate): 1 + number of strictly larger values."""
    n_rep, n = block.shape
    for r in prange(n_rep):
        row = block[r]
        order = np.argsort(row)
        p = n - 1
        while p >= 0:  # walk tie groups from the largest value down
            q = p
            while q > 0 and row[order[q - 1]] == row[order[p]]:
                q -= 1
            for t in range(q, p + 1):
                out[r, order[t]] = n - p  # the n - 1 - p values above position p are larger
            p = q - 1


def _rank_blocks(reps: RankReplicates, chunk_elements: int = CHUNK_ELEMENTS
                 ) -> Iterator[tuple[int, np.ndarray]]:
    """Yield ``(r0, ranks)`` with ``ranks`` of shape (c, E) for replicates r0 .. r0 + c - 1."""
    n_entries, n_rep = reps.errors.shape
    step = max(1, chunk_elements // n_entries)
    for r0 in range(0, n_rep, step):
        # Transposed copy: each replicate's scores contiguous for the sort.
        block = np.ascontiguousarray((reps.point[:, None] + reps.errors[:, r0:r0 + step]).T)
        out = np.empty(block.shape, dtype=np.int32)
        _min_ranks(block, out)
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
                       level: float = 0.95) -> RankProbabilities:
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
    n_entries, n_rep = reps.errors.shape
    ks = sorted({int(k) for k in top_k})
    if ks and not (1 <= ks[0] and ks[-1] <= n_entries):
        raise ValueError(f"top_k values must be between 1 and {n_entries}, got {list(top_k)}")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level:g}")
    ranks = np.empty((n_entries, n_rep), dtype=np.int32)
    credit = np.zeros(n_entries)
    in_top = {k: np.zeros(n_entries, dtype=np.int64) for k in ks}
    for r0, block in _rank_blocks(reps):
        ranks[:, r0:r0 + block.shape[0]] = block.T
        best = block == 1
        # m entries tied for best on a replicate get 1/m each: every replicate hands out one credit.
        credit += (best / best.sum(axis=1, keepdims=True)).sum(axis=0)
        for k in ks:
            in_top[k] += np.count_nonzero(block <= k, axis=0)
    p_best = credit / n_rep
    p_top = {k: in_top[k] / n_rep for k in ks}
    # Inverted-CDF quantiles: the ceil(q R)-th smallest rank, so every reported rank occurred.
    qs = [(1 - level) / 2, 0.5, (1 + level) / 2]
    idx = [min(n_rep - 1, max(0, int(np.ceil(q * n_rep - 1e-9)) - 1)) for q in qs]
    part = np.partition(ranks, sorted(set(idx)), axis=1)
    return RankProbabilities(p_best=p_best, p_top=p_top, median_rank=part[:, idx[1]],
                             rank_percentiles=part[:, [idx[0], idx[2]]], level=float(level),
                             n_replicates=n_rep)


@njit(cache=True, parallel=True)
def _tau_b(ranks, run_starts, x_ties, out):
    """Kendall's tau-b of each row of ``ranks`` against the observed order.

    Rows list entries best-first by observed score; ``run_starts`` delimits runs of tied observed
    scores. A discordant pair is an earlier (observed better) entry with a strictly worse rank, so
    after sorting ranks inside each tied run the discordant pairs are the inversions, counted with
    a Fenwick tree in O(E log E).
    """
    n_rep, n = ranks.shape
    total = n * (n - 1) // 2
    for r in prange(n_rep):
        seq = ranks[r].astype(np.int64)
        joint = 0  # pairs tied in both observed score and resampled rank
        for g in range(run_starts.size - 1):
            a, b = run_starts[g], run_starts[g + 1]
            if b - a > 1:
                seq[a:b] = np.sort(seq[a:b])
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
    order = np.argsort(-reps.point, kind="stable")  # entries are in rank order; this is a guard
    xs = reps.point[order]
    run_starts = np.flatnonzero(np.r_[True, xs[1:] != xs[:-1], True]).astype(np.int64)
    sizes = np.diff(run_starts)
    x_ties = int((sizes * (sizes - 1) // 2).sum())
    taus = np.empty(reps.n_replicates)
    for r0, block in _rank_blocks(reps):
        out = np.empty(block.shape[0])
        _tau_b(np.ascontiguousarray(block[:, order]), run_starts, x_ties, out)
        taus[r0:r0 + out.size] = out
    return taus


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
    if not 1 <= top <= reps.n_entries:
        raise ValueError(f"top must be between 1 and {reps.n_entries}, got {top}")
    counts = np.zeros(top * (top + 1), dtype=np.int64)
    offsets = np.arange(top) * (top + 1)
    for _, block in _rank_blocks(reps):
        cols = np.minimum(block[:, :top], top + 1) - 1  # ranks past `top` share the last column
        counts += np.bincount((cols + offsets).ravel(), minlength=counts.size)
    return counts.reshape(top, top + 1)
