"""Everything the ranks stage says about one board, from one :class:`RankReplicates`.

:func:`rank_board` runs, in order: the chosen tier method; marginal and simultaneous rank
confidence sets and the confidence set for the best (:mod:`~leaderboard.tiers.rank_sets`); the
chance of being first or in the top k, Kendall's tau against every resampled ranking, the rank
frequencies of the top entries (:mod:`~leaderboard.tiers.stability`); the significance map, read
from the simultaneous family's verdicts like the default tiers
(:mod:`~leaderboard.tiers.shown_better`); and the winner's-curse correction
(:mod:`~leaderboard.tiers.winners_curse`). The result is one small dataclass the analysis joins to
its table and the report draws.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from leaderboard.tiers.holm import Tiers, leader_anchored_tiers, paired_p_values
from leaderboard.tiers.methods import TIER_METHODS, TierMethod, family_of
from leaderboard.tiers.best_set import best_set
from leaderboard.tiers.rank_sets import RankSets, rank_confidence_sets
from leaderboard.tiers.replicates import RankReplicates
from leaderboard.tiers.scott_knott import scott_knott_esd
from leaderboard.tiers.shown_better import SignificanceMap, rank_set_tiers, significance_map
from leaderboard.tiers.stability import RankProbabilities, stability
from leaderboard.tiers.winners_curse import WinnersCurse, winners_curse
from leaderboard.params import DEFAULT_ALPHA, DEFAULT_TIERS

if TYPE_CHECKING:
    from leaderboard.tiers.guarantee_check import GuaranteeCheck

__all__ = ["MAP_SIZE", "Ranking", "TIER_METHODS", "TierMethod", "rank_board", "tier_entries"]
MAP_SIZE = 20    # entries in the pairwise significance map
BLOB_SIZE = 20   # entries in the rank-frequency (blob) plot


@dataclass(frozen=True)
class Ranking:
    """The ranks stage's results, entries in rank order.

    Attributes
    ----------
    tiers : Tiers
        From the chosen ``method``.
    method : str
        Key of :data:`TIER_METHODS` (``description`` gives its words).
    marginal, simultaneous : RankSets
        Rank confidence sets: each entry's own (marginal) and all entries at once (simultaneous).
    in_best_set : ndarray of bool
        Membership in the confidence set for the best entry.
    probabilities : RankProbabilities
        P(first) and P(top k) under resampling.
    top_k : tuple of int
        The k of ``probabilities.p_top``.
    taus : ndarray
        Kendall's tau between the observed and each resampled ranking.
    frequencies : ndarray
        Rank frequencies of the best ``min(BLOB_SIZE, E)`` entries.
    significance : SignificanceMap
        The simultaneous family's verdicts among the best ``min(MAP_SIZE, E)`` entries.
    curse : WinnersCurse
        The leader's selection-corrected score (oriented: multiply by ``replicates.sign``).
    replicates : RankReplicates
        The input, kept for the report's wording (source, count, dropped replicates).
    tests : RankReplicates or None
        The draws the simultaneous family's tests read when they are not ``replicates``: the sign
        flips of :mod:`~leaderboard.tiers.sign_flips` (per-item means). None: ``replicates``.
    guarantee_check : GuaranteeCheck or None
        The family-wise error measured on null boards of this board's shape
        (:mod:`~leaderboard.tiers.guarantee_check`), when the pipeline ran it.
    """

    tiers: Tiers
    method: str
    marginal: RankSets
    simultaneous: RankSets
    in_best_set: np.ndarray
    probabilities: RankProbabilities
    top_k: tuple[int, ...]
    taus: np.ndarray
    frequencies: np.ndarray
    significance: SignificanceMap
    curse: WinnersCurse
    replicates: RankReplicates
    tests: RankReplicates | None = None
    guarantee_check: GuaranteeCheck | None = None

    @property
    def family(self) -> str:
        """Where the simultaneous family's critical values come from: a key of
        :data:`~leaderboard.tiers.methods.FAMILIES`."""
        return family_of(self.tests if self.tests is not None else self.replicates)

    @property
    def description(self) -> TierMethod:
        """The tier method that ran, in words (the one table the report and JSON read), for the
        family of tests that ran."""
        return TIER_METHODS[self.method].for_family(self.family)

    def without_errors(self) -> Ranking:
        """The same results with :attr:`replicates` without their error draws
        (:meth:`~leaderboard.tiers.replicates.RankReplicates.without_errors`): what a page needs,
        in a fraction of the memory of a big board's draws."""
        return replace(self, replicates=self.replicates.without_errors())

    @property
    def corrected_leader_score(self) -> float:
        """The winner's-curse-corrected estimate of the leader's true score, in the metric's units."""
        return float(self.replicates.sign * self.curse.corrected)


def tier_entries(reps: RankReplicates, method: str, alpha: float,
                 simultaneous: RankSets | None = None) -> Tiers:
    """Tiers by ``method`` (a key of :data:`TIER_METHODS`)."""
    if method == "holm":
        return leader_anchored_tiers(reps.n_entries, paired_p_values(reps), alpha)
    if method == "rank-sets":
        sets = simultaneous or rank_confidence_sets(reps, alpha, simultaneous=True)
        return rank_set_tiers(sets)
    if method == "scott-knott":
        return scott_knott_esd(reps, alpha)
    raise ValueError(f"unknown tier method {method!r}; choose from {', '.join(TIER_METHODS)}")


def rank_board(reps: RankReplicates, *, method: str = DEFAULT_TIERS, alpha: float = DEFAULT_ALPHA,
               top_k: Sequence[int] = (3,), tests: RankReplicates | None = None) -> Ranking:
    """Tiers, rank intervals, P(best), stability and the winner's curse for one board.

    Parameters
    ----------
    reps : RankReplicates
        Scores and paired error draws, entries in rank order.
    method : {"rank-sets", "holm", "scott-knott"}
        How tiers are cut (default ``"rank-sets"``, the method whose guarantee held in every cell
        of the calibration study).
    alpha : float
        Error rate of every set, interval and test.
    top_k : sequence of int
        Prize or medal lines for P(top k); values above the number of entries are dropped.
    tests : RankReplicates, optional
        What the simultaneous family (rank sets, rank-set tiers, the best set and the
        significance map) reads instead of ``reps``: the sign flips of
        :func:`~leaderboard.tiers.sign_flips.sign_flip_replicates` when every score is a mean of
        per-item values (their guarantee holds with few items; see that module). The entries and
        their order must be ``reps``'s. P(best), stability and the winner's curse always read
        ``reps``; Holm's and Scott-Knott's tiers too.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x = (rng.random((4, 30)) < np.array([[0.95], [0.5], [0.5], [0.1]])).astype(float)
    >>> x = x[np.argsort(-x.mean(axis=1), kind="stable")]
    >>> w = rng.multinomial(30, np.full(30, 1 / 30), size=500)
    >>> boot = RankReplicates.from_bootstrap(x.mean(axis=1), x @ w.T / 30, True)
    >>> from leaderboard.tiers.sign_flips import sign_flip_replicates
    >>> r = rank_board(boot, tests=sign_flip_replicates(x, True, replicates=500))
    >>> r.family, r.tiers.tier.tolist()
    ('sign-flip', [1, 2, 2, 3])
    """
    if method not in TIER_METHODS:
        raise ValueError(f"unknown tier method {method!r}; choose from {', '.join(TIER_METHODS)}")
    if reps.null:
        raise ValueError("reps are null draws (sign flips): pass them as tests=, with the "
                         "bootstrap's replicates as reps")
    family = reps if tests is None else tests
    if family.n_entries != reps.n_entries:
        raise ValueError(f"tests has {family.n_entries} entries, reps {reps.n_entries}")
    n = reps.n_entries
    lines = tuple(sorted({int(k) for k in top_k if 1 <= int(k) <= n}))
    # The stability pass first: its rank store (2 bytes per entry and replicate) is freed before
    # the rank sets build what they keep.
    stable = stability(reps, lines, min(BLOB_SIZE, n))   # one pass over the replicates
    curse = winners_curse(reps, alpha)
    simultaneous = rank_confidence_sets(family, alpha, simultaneous=True)
    marginal = rank_confidence_sets(family, alpha, simultaneous=False)
    tiers = (tier_entries(family, method, alpha, simultaneous) if method == "rank-sets"
             else tier_entries(reps, method, alpha))
    return Ranking(tiers=tiers, method=method, marginal=marginal, simultaneous=simultaneous,
                   in_best_set=best_set(family, alpha),
                   probabilities=stable.probabilities, top_k=lines,
                   taus=stable.taus, frequencies=stable.frequencies,
                   significance=significance_map(simultaneous, family, min(MAP_SIZE, n)),
                   curse=curse, replicates=reps, tests=tests)
