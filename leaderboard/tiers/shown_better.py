"""The simultaneous family's verdicts, "entry j is shown better than entry k", and what reads them.

:func:`~leaderboard.tiers.rank_sets.rank_confidence_sets` (simultaneous) tests every ordered pair
(j, k) at once by a max-t step-down; its final verdicts are ``{(j, k): t_jk > c}`` with ``c`` the
last critical value. This module keeps those verdicts compactly and derives from them everything
else the report says about who beats whom, so that nothing can contradict anything else:

* the simultaneous rank sets (``low = 1 +`` the number of entries shown better, computed by the
  step-down itself);
* the **tiers** (:func:`rank_set_tiers`): tier 1 is every entry that no entry is shown to beat;
  tier t + 1 is the same among the entries left. Equivalently ``tier(k) = 1 + max tier(j)`` over
  the entries j shown better than k (1 if none), the layers of the relation;
* the **significance map** (:func:`significance_map`): for the leading entries, which is shown
  better than which.

**Guarantee.** With probability at least 1 - alpha (asymptotically; the step-down's guarantee,
see :mod:`~leaderboard.tiers.rank_sets`) no true hypothesis "theta_j <= theta_k" is rejected, so
every "j shown better than k" is true at once. On that event the truly best entries (all of them,
if several tie) are beaten by no one and are in tier 1, and an entry in tier t heads a chain of
t - 1 entries each shown, hence truly, better than the next: it has at least t - 1 entries truly
better (its tier never exceeds its simultaneous rank set's lower end). Tiers need not be contiguous
in the observed order: an entry with a wide interval can be beaten by no one while an entry above
it with a narrow one is shown worse than the leader.

**Storage.** A beater of k has a strictly higher point score (``t_jk > c > 0``). Every such j is
shown better except k's *unresolved* near partners, the pairs the screen left to the step-down
and the step-down did not reject (a few per entry on real boards, all pairs on a fully tied board,
whose points are equal and so need no entry at all). They are kept as CSR arrays keyed by the
lower entry: no E x E matrix, and the tiers cost O(E + unresolved pairs) in rank order.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from leaderboard._jit import njit

from leaderboard.tiers import _pair_kernels as pk
from leaderboard.tiers.holm import Tiers
from leaderboard.tiers.methods import MAP_FAMILY, RANK_SETS

if TYPE_CHECKING:
    from leaderboard.tiers.rank_sets import RankSets
    from leaderboard.tiers.replicates import RankReplicates


@dataclass(frozen=True)
class ShownBetter:
    """The simultaneous family's verdicts, entries in rank order.

    Entry j is shown better than entry k iff ``point[j] > point[k]`` and j is not among
    ``partner[indptr[k]:indptr[k + 1]]`` (k's unresolved partners above it). Their order within
    an entry follows the tile schedule and means nothing; every result read from them is a
    function of the set alone, so it does not depend on the tiling.

    Attributes
    ----------
    point : ndarray, shape (E,)
        Oriented scores (higher is better), non-increasing.
    indptr : ndarray of int64, shape (E + 1,)
    partner : ndarray of int32
    critical_value : float
        The step-down's last critical value c (a pair is rejected iff t > c).
    """

    point: np.ndarray
    indptr: np.ndarray
    partner: np.ndarray
    critical_value: float

    @property
    def n_unresolved(self) -> int:
        """Pairs with different scores that the family leaves undecided."""
        return int(self.partner.size)

    def matrix(self, top: int) -> np.ndarray:
        """``m[j, k]``: entry j shown better than entry k, for the first ``top`` entries.

        Examples
        --------
        >>> rel = ShownBetter(np.array([3.0, 2.0, 1.0]), np.array([0, 0, 1, 1]),
        ...                   np.array([0], dtype=np.int32), 2.0)
        >>> rel.matrix(3).astype(int).tolist()
        [[0, 0, 1], [0, 0, 1], [0, 0, 0]]
        """
        top = int(top)
        p = self.point[:top]
        out = p[:, None] > p[None, :]
        for k in range(top):
            above = self.partner[self.indptr[k]:self.indptr[k + 1]]
            out[above[above < top], k] = False
        return out

    def tiers(self) -> np.ndarray:
        """Tier of every entry: 1 + the highest tier of the entries shown better (1 if none).

        Examples
        --------
        The leader beats the third entry only; the second, unresolved against both, stays in
        tier 1 and the third is in tier 2:

        >>> rel = ShownBetter(np.array([3.0, 2.0, 1.0]), np.array([0, 0, 1, 2]),
        ...                   np.array([0, 1], dtype=np.int32), 2.0)
        >>> rel.tiers().tolist()
        [1, 1, 2]
        """
        return _layers(self.point, self.indptr, self.partner)


@njit(cache=True)
def _unresolved_csr(point, near_i, near_k, state, n):
    """CSR by the lower entry of the near pairs whose better-scored entry is not shown better.

    ``state`` bit 1 set: "near_i better than near_k" not rejected; bit 2: the reverse.
    """
    indptr = np.zeros(n + 1, dtype=np.int64)
    for p in range(near_i.size):
        i, k = near_i[p], near_k[p]
        if point[i] > point[k] and state[p] & 1:
            indptr[k + 1] += 1
        elif point[k] > point[i] and state[p] & 2:
            indptr[i + 1] += 1
    for e in range(n):
        indptr[e + 1] += indptr[e]
    partner = np.empty(indptr[n], dtype=np.int32)
    pos = indptr[:-1].copy()
    for p in range(near_i.size):
        i, k = near_i[p], near_k[p]
        if point[i] > point[k] and state[p] & 1:
            partner[pos[k]] = i
            pos[k] += 1
        elif point[k] > point[i] and state[p] & 2:
            partner[pos[i]] = k
            pos[i] += 1
    return indptr, partner


@njit(cache=True)
def _layers(point, indptr, partner):
    """Tiers in rank order: max tier over the entries above k minus k's unresolved partners.

    ``count[t]`` counts the placed entries of tier t (all strictly above the current tie group);
    every tier from 1 to ``top`` occurs among them (a tier-t entry's beater has tier t - 1), so
    walking down from ``top`` past tiers emptied by k's exclusions takes at most one step per
    excluded partner: O(E + unresolved pairs) in all.
    """
    n = point.size
    tier = np.zeros(n, dtype=np.int64)
    count = np.zeros(n + 2, dtype=np.int64)
    excluded = np.zeros(n + 2, dtype=np.int64)
    top, s = 0, 0
    while s < n:
        e = s
        while e + 1 < n and point[e + 1] == point[s]:
            e += 1
        for k in range(s, e + 1):   # a tie group: the same entries lie above each of them
            for p in range(indptr[k], indptr[k + 1]):
                excluded[tier[partner[p]]] += 1
            t = top
            while t > 0 and count[t] == excluded[t]:
                t -= 1
            tier[k] = t + 1
            for p in range(indptr[k], indptr[k + 1]):
                excluded[tier[partner[p]]] -= 1
        for k in range(s, e + 1):
            count[tier[k]] += 1
            top = max(top, tier[k])
        s = e + 1
    return tier


def from_step_down(point: np.ndarray, near_i: np.ndarray, near_k: np.ndarray,
                   state: np.ndarray, critical_value: float) -> ShownBetter:
    """The relation from the step-down's final state (far pairs are rejected in their better
    orientation; near pairs carry ``state`` bits, see :func:`_unresolved_csr`)."""
    point = np.ascontiguousarray(point, dtype=np.float64)
    # one compiled version: the pair tiles give int32 pairs, boot_small int64 (strided views)
    near_i, near_k = (np.ascontiguousarray(a, dtype=np.int32) for a in (near_i, near_k))
    indptr, partner = _unresolved_csr(point, near_i, near_k, state, point.size)
    return ShownBetter(point, indptr, partner, float(critical_value))


def rank_set_tiers(sets: RankSets) -> Tiers:
    """Tiers as layers of the simultaneous family's "shown better" (module docstring).

    Tier 1 is exactly the entries whose simultaneous rank set starts at 1; with probability at
    least 1 - alpha every truly best entry is in it and an entry in tier t has at least t - 1
    entries truly better.

    Parameters
    ----------
    sets : RankSets
        Simultaneous rank sets (they carry the relation).

    Returns
    -------
    Tiers
        ``p_vs_anchor`` is NaN (there are no anchor tests).

    Examples
    --------
    >>> from leaderboard.tiers.rank_sets import rank_confidence_sets
    >>> from leaderboard.tiers.replicates import RankReplicates
    >>> reps = RankReplicates.normal(np.array([1.0, 0.9, 0.88, 0.5]),
    ...                              np.array([0.01, 0.01, 0.08, 0.01]), 0.0, True,
    ...                              replicates=1000, seed=0)
    >>> rank_set_tiers(rank_confidence_sets(reps)).tier.tolist()
    [1, 2, 1, 3]
    """
    rel = sets.shown_better
    if rel is None:
        raise ValueError("tiers need simultaneous rank sets (rank_confidence_sets(..., "
                         "simultaneous=True)), which carry the 'shown better' relation")
    tier = rel.tiers().astype(int)
    return Tiers(tier=tier, p_vs_anchor=np.full(tier.size, np.nan), method=RANK_SETS.procedure,
                 alpha=sets.alpha)


@dataclass(frozen=True)
class SignificanceMap:
    """Which of the leading ``k`` entries is shown better than which (see :func:`significance_map`).

    Attributes
    ----------
    t : ndarray, shape (k, k)
        ``t[i, j]`` for ``i < j``: studentised gap of entry i over entry j (NaN on and below the
        diagonal), for display.
    significant : ndarray of bool, shape (k, k)
        True where the simultaneous family shows the row's entry better than the column's (only
        above the diagonal: a beater always has the higher score).
    critical_value : float
        The family's last critical value (a pair is shown when its t exceeds it).
    alpha : float
        Family-wise error rate of the whole family (all ordered pairs of all entries).
    family : str
        The family in words.
    """

    t: np.ndarray
    significant: np.ndarray
    critical_value: float
    alpha: float
    family: str = MAP_FAMILY


def significance_map(sets: RankSets, reps: RankReplicates, k: int) -> SignificanceMap:
    """The simultaneous family's verdicts among the first ``k`` entries.

    A filled cell (``significant[i, j]``) is exactly a rejection of the step-down behind the
    simultaneous rank sets and the tiers, so the map never contradicts them: no cell links two
    tier-1 entries, and every entry of the map below tier 1 has a cell from some entry above it
    (its beaters score higher, so they are in the map too). Guarantee: with probability at least
    1 - alpha no filled cell anywhere is false (family-wise error over all pairs of the board,
    not only the map's).

    Parameters
    ----------
    sets : RankSets
        Simultaneous rank sets of ``reps``.
    reps : RankReplicates
        For the displayed t statistics.
    k : int
        Number of leading entries, 1 to E.

    Returns
    -------
    SignificanceMap

    Examples
    --------
    >>> from leaderboard.tiers.rank_sets import rank_confidence_sets
    >>> from leaderboard.tiers.replicates import RankReplicates
    >>> reps = RankReplicates.normal(np.array([1.0, 0.99, 0.5]), np.full(3, 0.01), 0.0, True,
    ...                              replicates=100, seed=0)
    >>> significance_map(rank_confidence_sets(reps), reps, 3).significant.astype(int).tolist()
    [[0, 0, 1], [0, 0, 1], [0, 0, 0]]
    """
    rel = sets.shown_better
    if rel is None:
        raise ValueError("the map needs simultaneous rank sets (they carry the relation)")
    if not 1 <= k <= rel.point.size:
        raise ValueError(f"k must be between 1 and {rel.point.size}, got {k}")
    ii, jj = np.triu_indices(k, 1)
    t = np.full((k, k), np.nan)
    if hasattr(rel, "t"):   # closed-form SEs: the relation computes its own t
        t[ii, jj] = rel.t(k)[ii, jj]
    else:                   # the top k rows only: the same SEs the step-down used
        err = np.ascontiguousarray(reps.errors[:k], dtype=np.float64)
        cen = np.ascontiguousarray(err - err.mean(axis=1, keepdims=True))
        se = pk.pair_se_list(cen, np.zeros(k), 0.0, True, ii.astype(np.int32),
                             jj.astype(np.int32))
        gap = rel.point[ii] - rel.point[jj]
        with np.errstate(divide="ignore", invalid="ignore"):
            t[ii, jj] = np.where(se > 0, gap / se,
                                 np.where(gap == 0, 0.0, np.sign(gap) * np.inf))
    return SignificanceMap(t=t, significant=rel.matrix(k), critical_value=rel.critical_value,
                           alpha=float(sets.alpha))
