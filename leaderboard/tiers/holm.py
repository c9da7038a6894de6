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
from scipy.stats import norm

from leaderboard.tiers.methods import HOLM

PValueFn = Callable[[int, np.ndarray], np.ndarray]


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


def leader_anchored_tiers(n_entries: int, p_value: PValueFn, alpha: float = 0.05) -> Tiers:
    """Leader-anchored Holm tiers for entries already sorted best first.

    Parameters
    ----------
    n_entries : int
        Number of entries, in rank order (index 0 is the leader).
    p_value : callable
        ``p_value(anchor, others)`` returns the one-sided p-values of H0 "entry ``others[i]`` is at
        least as good as entry ``anchor``", for integer index arrays ``others``.
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
    if not 0 < alpha < 1:
        raise ValueError("alpha must be in (0, 1)")
    tier = np.zeros(n_entries, dtype=int)
    p_vs_anchor = np.full(n_entries, np.nan)
    start, current = 0, 1
    while start < n_entries:
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
    def p_value(anchor: int, others: np.ndarray) -> np.ndarray:
        others = np.asarray(others, dtype=int)
        gap = reps.point[anchor] - reps.point[others]
        se = reps.pair_se(anchor, others)
        with np.errstate(divide="ignore", invalid="ignore"):
            z = np.where(se > 0, gap / se, np.where(gap > 0, np.inf, 0.0))
        return norm.sf(z)

    return p_value
