"""Stage 3, tiers: group ranked entries into statistically indistinguishable tiers.

The method here is *leader-anchored with Holm control*:

1. The entry ranked first among those not yet placed is the tier's anchor (its leader).
2. Every other unplaced entry is tested against the anchor: H0 "this entry is at least as good as
   the anchor" against "it is worse", one-sided, giving a p-value each.
3. Holm's step-down procedure at level ``alpha`` decides which of those nulls are rejected.
4. The tier runs from the anchor down to the lowest-ranked entry whose null was *not* rejected, so a
   tier is always a contiguous block of ranks and holds every entry not shown to be worse than its
   anchor. The next tier starts right after it, and the procedure repeats.

Guarantee: within a tier, Holm keeps the chance of wrongly declaring *any* entry worse than the
anchor at or below ``alpha`` (family-wise error). For tier 1 this means the truly best entry is left
out of tier 1 at most about ``alpha`` of the time; the tests check that rate by simulation with known
truth (the anchor is chosen by the data, so this is verified rather than assumed). Tiers after the
first are conditional on the earlier cuts and carry no separate guarantee.

How the p-values are made is the caller's business (scores-only noise with a stated correlation, or
paired resampling), which is what lets every noise model share this procedure.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr, ndtri

from leaderboard.params import DEFAULT_ALPHA, check_alpha
from leaderboard.tiers.methods import HOLM
from leaderboard.tiers.replicates import CHUNK_ELEMENTS

PValueFn = Callable[[int, np.ndarray], np.ndarray]
SCREEN_BLOCK = 256  # entries per block of the screen's skip list


@dataclass(frozen=True)
class Tiers:
    """Tier of each entry (1 = top) and its p-value against its own tier's anchor.

    ``method`` is the procedure's name from :data:`~leaderboard.tiers.methods.TIER_METHODS`.
    Holm's and Scott-Knott's tiers are contiguous runs of the ranking; the rank-set tiers are
    layers of "shown better" and need not be (an entry can sit below one of a later tier).

    ``p_vs_anchor`` is the unadjusted one-sided p-value of the test against the anchor of the tier
    that was being formed when the entry was tested (NaN for anchors).
    """

    tier: np.ndarray
    p_vs_anchor: np.ndarray
    method: str
    alpha: float


def holm_reject(p_values: np.ndarray, alpha: float) -> np.ndarray:
    """Holm's step-down procedure: which hypotheses are rejected at family-wise level ``alpha``.

    Examples
    --------
    >>> holm_reject(np.array([0.01, 0.04, 0.03]), 0.05).tolist()
    [True, False, False]
    """
    p = np.asarray(p_values, dtype=float)
    m = p.size
    order = np.argsort(p, kind="stable")
    thresholds = alpha / (m - np.arange(m))
    passed = p[order] <= thresholds
    n_reject = m if passed.all() else int(np.argmin(passed))
    rejected = np.zeros(m, dtype=bool)
    rejected[order[:n_reject]] = True
    return rejected


def leader_anchored_tiers(n_entries: int, p_value: PValueFn, alpha: float = DEFAULT_ALPHA) -> Tiers:
    """Leader-anchored Holm tiers for entries already sorted best first.

    Parameters
    ----------
    n_entries : int
        Number of entries, in rank order (index 0 is the leader).
    p_value : callable
        ``p_value(anchor, others)`` returns the one-sided p-values of H0 "entry ``others[i]`` is at
        least as good as entry ``anchor``", for integer index arrays ``others``. When it also has
        ``candidates(anchor, level)`` (as :func:`paired_p_values`' does), listing the entries
        below ``anchor`` whose p-value may exceed ``level`` (every other one's is at most
        ``level``), each round asks for the p-values of those and of the tier's own entries only:
        the same tiers and p-values, without testing the anchor against the whole rest of a long
        board in every round.
    alpha : float
        Family-wise error rate per tier.

    Returns
    -------
    Tiers

    Examples
    --------
    Three entries where only the third is clearly worse than the first:

    >>> p = {(0, 1): 0.3, (0, 2): 0.001}
    >>> fn = lambda a, others: np.array([p[(a, int(o))] for o in others])
    >>> leader_anchored_tiers(3, fn).tier.tolist()
    [1, 1, 2]
    """
    check_alpha(alpha)   # the one check of an error rate (a ValueError)
    tier = np.zeros(n_entries, dtype=int)
    p_vs_anchor = np.full(n_entries, np.nan)
    screen = getattr(p_value, "candidates", None)
    start, current = 0, 1
    while start < n_entries:
        m = n_entries - start - 1
        if screen is not None and m:
            end = _screened_end(p_value, screen(start, alpha / m), start, m, alpha)
            inside = np.arange(start + 1, end + 1)   # the values the full round would leave
            p_vs_anchor[inside] = np.asarray(p_value(start, inside), dtype=float)
        else:
            others = np.arange(start + 1, n_entries)
            end = start
            if others.size:
                p = np.asarray(p_value(start, others), dtype=float)
                p_vs_anchor[others] = p
                kept = others[~holm_reject(p, alpha)]
                if kept.size:
                    end = int(kept.max())
        tier[start:end + 1] = current
        p_vs_anchor[start] = np.nan  # an anchor is not tested against anyone in its own tier
        start, current = end + 1, current + 1
    return Tiers(tier=tier, p_vs_anchor=p_vs_anchor, method=HOLM.procedure, alpha=alpha)


def _screened_end(p_value: PValueFn, candidates: np.ndarray, anchor: int, m: int,
                  alpha: float) -> int:
    """The tier's last entry, as Holm over all ``m`` entries below ``anchor`` would find it,
    from the p-values of ``candidates`` alone: every other entry has ``p <= alpha / m``.

    Holm rejects every such p-value (the first ``b`` places of the sorted p-values all pass,
    ``p <= alpha / m <= alpha / (m - k)``), so only the candidates above ``alpha / m`` can be
    kept; they hold places ``b, b + 1, ...`` in the stable order (index order among equal
    values, as :func:`holm_reject` sorts), with thresholds ``alpha / (m - place)``.
    """
    if candidates.size == 0:
        return anchor
    p = np.asarray(p_value(anchor, candidates), dtype=float)
    above = p > alpha / m
    b = m - int(above.sum())
    rest, p_rest = candidates[above], p[above]
    order = np.argsort(p_rest, kind="stable")
    passed = p_rest[order] <= alpha / (m - b - np.arange(rest.size))
    n_reject = rest.size if passed.all() else int(np.argmin(passed))
    kept = rest[order[n_reject:]]
    return int(kept.max()) if kept.size else anchor


class PairedPValues:
    """One-sided p-values of "entry j is at least as good as the anchor" (see
    :func:`paired_p_values`), with the screen that lets :func:`leader_anchored_tiers` skip the
    entries whose p-value is surely at most ``alpha / m``.

    The screen: ``se <= u_anchor + u_j``, where ``u`` is each entry's SD (scores only: the
    closed form's ``var = s_a^2 + s_j^2 - 2 c s_a s_j <= (s_a + s_j)^2`` for ``c >= -1``;
    bootstrap: the SD of a difference is at most the sum of the SDs, Minkowski, with each
    entry's SD recomputed from its errors). So ``gap > z (u_a + u_j)``, with ``z`` the
    ``1 - alpha / (E - 1)`` normal quantile (a hair larger, against rounding), makes
    ``p <= alpha / (E - 1) <= alpha / m``. Rank order makes the gap grow down the board, so the
    entries that pass the screen are those within reach of the anchor: each round costs about
    the tier's reach instead of the whole rest of the board (blocks of :data:`SCREEN_BLOCK`
    entries are skipped on their largest ``point + z u``).

    Examples
    --------
    >>> from leaderboard.tiers.replicates import RankReplicates
    >>> reps = RankReplicates.normal(np.array([0.9, 0.89, 0.5]), np.full(3, 0.01), 0.0, True,
    ...                              replicates=2)
    >>> pv = paired_p_values(reps)
    >>> pv.candidates(0, 0.05 / 2).tolist(), bool(pv(0, np.array([2]))[0] < 1e-100)
    ([1], True)
    """

    def __init__(self, reps) -> None:
        self.reps = reps
        self._sd: np.ndarray | None = None      # each entry's u
        self._level: float | None = None   # the level the screen below was built for
        # the screen, built by _build before its first use (while _level is None)
        self._upper = self._lower = self._block_max = np.zeros(0)

    def __call__(self, anchor: int, others: np.ndarray) -> np.ndarray:
        reps = self.reps
        others = np.asarray(others, dtype=int)
        gap = reps.point[anchor] - reps.point[others]
        se = reps.pair_se(anchor, others)
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.where(se > 0, gap / se, np.where(gap > 0, np.inf, 0.0))
        # scipy.stats.norm.sf(z) is ndtr(-z) (scipy/stats/_continuous_distns.py), the same bits
        # without its argument checks: 80 us a call, 60% of a 3,000-board tier-one simulation
        return ndtr(-z)

    def _entry_sd(self) -> np.ndarray:
        reps = self.reps
        n = reps.point.size
        if reps.correlation is not None:
            u = np.asarray(reps.sd, dtype=float)
            if not -1 <= reps.correlation <= 1:
                u = np.full(n, np.inf)   # no bound: every entry stays a candidate
        else:
            u = np.empty(n)
            step = max(1, CHUNK_ELEMENTS // max(1, reps.n_replicates))
            for k in range(0, n, step):
                u[k:k + step] = np.std(np.asarray(reps.errors[k:k + step], dtype=float),
                                       axis=1, ddof=1)
        return np.where(np.isfinite(u) & (u >= 0), u, np.inf)

    def _build(self, level: float) -> None:
        if self._sd is None:
            self._sd = self._entry_sd()
        point = np.asarray(self.reps.point, dtype=float)
        # margins against rounding: z a hair above the quantile, the SDs a hair wider, and a few
        # units in the last place of the scores on each side of the comparison
        z = float(-ndtri(level)) * (1 + 1e-6) + 1e-9   # norm.isf(level), as __call__
        reach = z * self._sd * (1 + 1e-9)
        eps = 4 * float(np.spacing(np.max(np.abs(point)))) if point.size else 0.0
        with np.errstate(invalid="ignore"):
            self._upper = point + reach + eps
            self._lower = point - reach - eps
        self._block_max = np.maximum.reduceat(self._upper, np.arange(0, point.size,
                                                                     SCREEN_BLOCK))
        self._level = level

    def candidates(self, anchor: int, level: float) -> np.ndarray:
        """Entries below ``anchor`` whose p-value may exceed ``level`` (every other entry
        below it has ``p <= level``), in index order."""
        n = self.reps.point.size
        first = anchor + 1
        if first >= n:
            return np.zeros(0, dtype=int)
        if self._level is None or level < self._level:
            self._build(level)   # built for the smallest level, alpha / (E - 1); valid above
        low = self._lower[anchor]
        b0 = first // SCREEN_BLOCK
        blocks = b0 + np.flatnonzero(~(self._block_max[b0:] < low))
        idx = (blocks[:, None] * SCREEN_BLOCK + np.arange(SCREEN_BLOCK)).ravel()
        idx = idx[(idx >= first) & (idx < n)]
        return idx[~(self._upper[idx] < low)]


def paired_p_values(reps) -> PValueFn:
    """One-sided p-values of "entry j is at least as good as the anchor" from a
    :class:`~leaderboard.tiers.replicates.RankReplicates`.

    The gap ``point[anchor] - point[j]`` (positive when the anchor is ahead) is compared with the
    standard error of the difference: from the paired replicates when submissions were resampled
    (pairing removes the noise both entries share, so these tests are much sharper than comparing
    intervals; for AUC they agree with DeLong's paired test), or in closed form from the SDs and the
    stated correlation for scores only. ``p = 1 - Phi(gap / se)``; the normal form resolves the small
    p-values Holm needs when there are many entries. Equal predictions (``se = 0``, gap 0) give 0.5.
    """
    return PairedPValues(reps)
