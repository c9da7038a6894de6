"""What every mode of ``analyze`` returns, and the pieces they share: the :class:`Settings` an
analysis was told, the :class:`Analysis` itself, and the ranking helpers that turn a board's
entries into its table (:func:`rank_entries`, :func:`join_ranking`).

Scores, submissions, per-item results and battles (:mod:`leaderboard.pipelines.modes`) build on
this module; it imports no pipeline at run time (the types it names are read by type checkers
only), so none of them climbs back up to another to share these.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from leaderboard.flags import board_flags
from leaderboard.options import NoiseOptions, OptionShorthands, RankOptions
from leaderboard.params import check
from leaderboard.slices import SliceSizes

if TYPE_CHECKING:   # what an analysis holds, imported where it is made
    from leaderboard.flags import Flag
    from leaderboard.ingest.item_coverage import ItemCoverage
    from leaderboard.ingest.leaderboards import Leaderboard
    from leaderboard.ingest.submissions import SubmissionSet
    from leaderboard.metrics import Metric
    from leaderboard.noise import NoiseModel, ScoreDistribution
    from leaderboard.noise.bootstrap import BootstrapResult
    from leaderboard.noise.correlation import CorrelationChoice
    from leaderboard.noise.curves import Curves
    from leaderboard.pipelines.assumptions import Assumption
    from leaderboard.pipelines.card import Card
    from leaderboard.pipelines.categories import CategoryResults
    from leaderboard.pipelines.item_costs import CostResult
    from leaderboard.pipelines.item_pairs import PairwiseTable
    from leaderboard.pipelines.published import PublishedCheck
    from leaderboard.pipelines.shakeup import Shakeup
    from leaderboard.pipelines.tails import Tails
    from leaderboard.tiers import Tiers
    from leaderboard.tiers.ranking import Ranking


@dataclass(frozen=True)
class Settings(OptionShorthands):
    """Everything the user chose, echoed in the report and the JSON: the metric (configured with
    its beta or costs), how chance is measured (``noise``), how entries are compared (``ranks``)
    and the test slices' sizes (``sizes``), each value held and checked once, in its options
    object (:mod:`leaderboard.options`).

    The read-only attributes below are shorthands for the stages that read them
    (``settings.alpha`` is ``settings.ranks.alpha``); ``higher_is_better`` resolves the
    metric's direction unless ``noise`` overrides it.

    Examples
    --------
    >>> from leaderboard.metrics import get_metric
    >>> from leaderboard.options import NoiseOptions, RankOptions
    >>> s = Settings(get_metric("logloss"), NoiseOptions(prevalence=0.2, draws=500),
    ...              RankOptions(alpha=0.1, top_k=(10,)), SliceSizes(3000, None, None))
    >>> s.higher_is_better, s.n_test, s.draws, s.alpha, s.top_k
    (False, 3000, 500, 0.1, (3, 10))
    """

    metric: Metric
    noise: NoiseOptions = field(default_factory=NoiseOptions)
    ranks: RankOptions = field(default_factory=RankOptions)
    sizes: SliceSizes = SliceSizes(ranking=None, public=None, private=None)

    def __post_init__(self) -> None:
        check("n_test", self.sizes.ranking)   # sizes made in code get the table's check too

    # Shorthands (and OptionShorthands'): each value lives in one options object.
    correlation = property(lambda self: self.noise.correlation)   # a number in [0, 1), or "auto"
    resample = property(lambda self: self.ranks.resample)
    tier_method = property(lambda self: self.ranks.method)
    top_k = property(lambda self: self.ranks.prize_lines)
    n_test = property(lambda self: self.sizes.ranking)
    n_public = property(lambda self: self.sizes.public)
    n_private = property(lambda self: self.sizes.private)
    two_stage = property(lambda self: self.sizes.two_stage)


@dataclass(frozen=True)
class LeftOut:
    """Entries left out of some statistics, and why (the report and JSON name every one)."""

    statistics: str
    reason: str
    teams: tuple[str, ...]


@dataclass(frozen=True)
class Analysis:
    """The result of analysing one leaderboard.

    Attributes
    ----------
    leaderboard : Leaderboard
        What was read, with every dropped row accounted for.
    settings : Settings
    table : DataFrame
        One row per entry in rank order with columns ``rank`` (ties share the best rank), ``team``,
        ``score``, ``ci_low``, ``ci_high``, ``sd``, ``d95``, ``p_vs_anchor``, ``tier``, the rank
        columns of :func:`join_ranking` and, when the input has them, ``public_score`` and
        ``private_score``. Interval columns are NaN and ``tier`` is 0 when no noise model applies.
    noise : NoiseModel or None
        The simulated noise, or None with the reason in ``notes``.
    tiers : Tiers or None
    d95 : float or None
        d95 at the leader's score.
    notes : tuple of str
        Plain sentences for the reader (why there are no intervals, what was assumed).
    bootstrap : BootstrapResult or None
        Submissions mode: the paired bootstrap of the ranking split, entries in ``table`` order.
    submissions : SubmissionSet or None
        Submissions mode: every file found, with its validation status.
    ranking : Ranking or None
        Rank intervals, P(best), stability and the winner's curse (None without a noise model).
    shakeup : Shakeup or None
        Public vs private: rank changes, the noise baseline and the overfitting test (None unless
        the board has both scores).
    left_out : tuple of LeftOut
        Entries left out of some statistics (no interval, no post-mortem baseline), with reasons.
    flags : tuple of Flag
        What a reader should know before any number: perfect scores, ties at the top, shared
        scores, junk, entries worse than no skill or without an interval, a tiny class.
    correlation : CorrelationChoice or None
        Scores only: the correlation between entries the comparisons assumed, and where it came
        from (stated, estimated from the public/private pairs, or 0). None in submissions mode.
    categories : CategoryResults or None
        Per-item results with categories: tiers within each category and the macro mean.
    curves : Curves or None
        Submissions mode with a binary target: ROC, precision-recall, CAP and cost curves of the
        leading entries (table rows ``curves.rows``), bands from the same replicates.
    curves_note : str or None
        Submissions mode without curves: why.
    assumptions : tuple of Assumption
        What the noise model takes as given, checked where the input can check it
        (:mod:`leaderboard.pipelines.assumptions`).
    items : ItemCoverage or None
        Per-item results: the items analysed and why, models merged, samples
        (:class:`leaderboard.ingest.item_coverage.ItemCoverage`).
    item_pairs : PairwiseTable or None
        ``--items-policy pairwise``: each pair on the items both have
        (:mod:`leaderboard.pipelines.item_pairs`).
    costs : CostResult or None
        Per-item results with ``--cost-col``: cost per model with intervals from the scores'
        own replicates, and the cost-accuracy frontier.
    published : PublishedCheck or None
        Per-item results with ``--published``: each published score against its model's
        interval.
    tails : Tails or None
        Regression, scores only: the residuals' tails the noise assumes (stated, read from the
        public/private gaps, or unknown with the verdict under normal and heavy tails).
    card : Card or None
        The leaderboard card (:mod:`leaderboard.pipelines.card`): shape and hash of the matrix,
        the share of pairs established, the positions resolved, the top pair's resolution and
        the provenance; filled by :func:`leaderboard.pipelines.run.run_analysis`.
    """

    leaderboard: Leaderboard
    settings: Settings
    table: pd.DataFrame
    noise: NoiseModel | None
    tiers: Tiers | None
    d95: float | None
    notes: tuple[str, ...] = ()
    bootstrap: BootstrapResult | None = None
    submissions: SubmissionSet | None = None
    ranking: Ranking | None = None
    shakeup: Shakeup | None = None
    left_out: tuple[LeftOut, ...] = ()
    flags: tuple[Flag, ...] = ()
    correlation: CorrelationChoice | None = None
    categories: CategoryResults | None = None
    curves: Curves | None = None
    curves_note: str | None = None
    assumptions: tuple[Assumption, ...] = ()
    items: ItemCoverage | None = None
    item_pairs: PairwiseTable | None = None
    costs: CostResult | None = None            # --cost-col
    published: PublishedCheck | None = None    # --published
    tails: Tails | None = None                 # regression, scores only
    card: Card | None = None                   # issue 40

    @property
    def mode(self) -> str:
        """``"submissions"`` (predictions scored and resampled) or ``"scores"`` (a leaderboard)."""
        return "scores" if self.submissions is None else "submissions"

    @cached_property
    def leader_distribution(self) -> ScoreDistribution | None:
        """Chance alone at the leader: simulated (scores) or resampled (submissions)."""
        if self.bootstrap is not None:
            return self.bootstrap.distribution(0)
        return None if self.noise is None else self.noise.leader


def rank_entries(entries: pd.DataFrame, higher_is_better: bool) -> pd.DataFrame:
    """Sort entries best first (stable, so equal scores keep file order); equal scores share a rank.

    Examples
    --------
    >>> df = pd.DataFrame({"team": list("abcd"), "score": [0.7, 0.9, 0.7, 0.8]})
    >>> rank_entries(df, True)[["team", "rank"]].values.tolist()
    [['b', 1], ['d', 2], ['a', 3], ['c', 3]]
    """
    ordered = entries.sort_values("score", ascending=not higher_is_better, kind="stable")
    ordered = ordered.reset_index(drop=True)
    ranks = ordered["score"].rank(method="min", ascending=not higher_is_better)
    ordered.insert(0, "rank", ranks.astype(int))
    return ordered


def join_ranking(table: pd.DataFrame, ranking: Ranking,
                 rows: np.ndarray | None = None) -> pd.DataFrame:
    """The table with the ranks stage's columns: ``tier``, ``p_vs_anchor``, ``rank_ci_low`` and
    ``rank_ci_high`` (marginal rank confidence set), ``rank_sim_low`` and ``rank_sim_high``
    (simultaneous), ``p_best``, ``p_top_<k>`` per prize line, and ``in_best_set``.

    ``rows`` are the table rows the ranking covers, in its order (default: all); the others keep
    tier 0 and NaN (no noise model, so no comparison)."""
    table = table.copy()
    rows = np.arange(len(table)) if rows is None else np.asarray(rows)
    columns = {"tier": ranking.tiers.tier, "p_vs_anchor": ranking.tiers.p_vs_anchor,
               "rank_ci_low": ranking.marginal.low, "rank_ci_high": ranking.marginal.high,
               "rank_sim_low": ranking.simultaneous.low,
               "rank_sim_high": ranking.simultaneous.high,
               "p_best": ranking.probabilities.p_best,
               **{f"p_top_{k}": ranking.probabilities.p_top[k] for k in ranking.top_k},
               "in_best_set": ranking.in_best_set}
    for name, values in columns.items():
        values = np.asarray(values)
        if rows.size == len(table):
            table[name] = values
            continue
        fill = 0 if name == "tier" else (False if values.dtype == bool else np.nan)
        full = np.full(len(table), fill, dtype=values.dtype if fill is not np.nan else float)
        full[rows] = values
        table[name] = full
    return table


def sanity_flags(table: pd.DataFrame, settings: Settings, split: str | None,
                 no_interval: tuple[str, ...] = (), items: bool = False,
                 values: np.ndarray | None = None) -> list[Flag]:
    """:func:`~leaderboard.flags.board_flags` of the ranking scores (from ``split``), and of the
    other split's perfect scores and ties at the top when the table has both (a leak shows on
    either board). With predictions (an ``identical_to`` column), entries sharing a score are
    grouped by identical predictions, not by the score. ``values``: per-item results, each
    entry's values in the table's order (what kind of entry a far-out one is)."""
    same_as = table["identical_to"].tolist() if "identical_to" in table.columns else None
    flags = board_flags(table["team"], table["score"], settings.metric,
                        settings.higher_is_better, prevalence=settings.prevalence,
                        class_shares=settings.universe.class_shares, no_interval=no_interval,
                        same_as=same_as, items=items, values=values)
    if {"public_score", "private_score"} <= set(table.columns):
        other = "private" if split == "public" else "public"
        flags += [f for f in board_flags(table["team"], table[f"{other}_score"], settings.metric,
                                         settings.higher_is_better, split=f"{other} board")
                  if f.kind in ("perfect", "tie_at_top")]
    return flags



def check_settings(settings: Settings) -> None:
    """The test set's size against the table (:data:`leaderboard.params.PARAMETERS`); every
    other value was checked when its options object was made."""
    check("n_test", settings.n_test)
