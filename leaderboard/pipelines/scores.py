"""The pipeline in one call: ingest -> noise -> tiers, returning an :class:`Analysis`.

The command line and the report both consume :class:`Analysis`; nothing here imports the report.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from leaderboard.params import check
from leaderboard.pipelines.categories import CategoryResults
from leaderboard.pipelines.tails import Tails, choose_tails, with_bracket
from leaderboard.pipelines.shakeup import (Shakeup, SliceNoise, has_both_scores,
                                          shakeup_from_scores, slice_noise)
from leaderboard.errors import InputError
from leaderboard.pipelines.assumptions import (SWEEP_REPLICATES, Assumption, analysis_assumptions,
                                               correlation_sweep)
from leaderboard.flags import Flag, board_flags, class_count_flags
from leaderboard.ingest.leaderboards import Leaderboard
from leaderboard.metrics import Metric
from leaderboard.noise import NoiseModel, ScoreDistribution
from leaderboard.noise.bootstrap import BootstrapResult
from leaderboard.noise.correlation import CorrelationChoice, choose_correlation
from leaderboard.noise.curves import Curves
from leaderboard.noise.grid import UnreachableScores, build_noise_model
from leaderboard.noise.possible import holding_own_score, impossible_scores
from leaderboard.noise.universes import not_simulable_reason
from leaderboard.options import NoiseOptions, OptionShorthands, RankOptions
from leaderboard.progress import Progress
from leaderboard.ingest.submissions import SubmissionSet
from leaderboard.slices import SliceSizes
from leaderboard.tiers import RankReplicates, Tiers
from leaderboard.tiers.ranking import Ranking, rank_board

if TYPE_CHECKING:   # the per-item stages' results, imported where they are made
    from leaderboard.ingest.item_coverage import ItemCoverage
    from leaderboard.pipelines.card import Card
    from leaderboard.pipelines.item_costs import CostResult
    from leaderboard.pipelines.item_pairs import PairwiseTable
    from leaderboard.pipelines.published import PublishedCheck


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


def analyze(leaderboard: Leaderboard, settings: Settings, *, quiet: bool = True) -> Analysis:
    """Rank a leaderboard, simulate its sampling noise, and cut it into tiers.

    Parameters
    ----------
    leaderboard : Leaderboard
        From :func:`leaderboard.ingest.read_leaderboard`.
    settings : Settings
    quiet : bool
        No progress bar when True.

    Returns
    -------
    Analysis
    """
    _check_settings(settings)
    table = rank_entries(leaderboard.entries, settings.higher_is_better)
    metric = settings.metric
    scores = table["score"].to_numpy(dtype=float)
    _check_scores_in_range(table, metric, leaderboard.source)
    notes: list[str] = []
    left_out: list[LeftOut] = []
    for column in ("ci_low", "ci_high", "sd", "d95", "p_vs_anchor"):
        table[column] = np.nan
    table["tier"] = 0

    noise = tiers = d95 = ranking = sweep = None
    # regression: the residuals' tails, read from the public/private gaps where the board has
    # them (the settings then simulate normal residuals with the noise the gaps show)
    both = has_both_scores(table)
    settings, tails, sliced = choose_tails(
        *((table[f"{k}_score"].to_numpy(float) for k in ("public", "private")) if both
          else (None, None)), settings, progress_for=lambda label: Progress(label, quiet=quiet))
    correlation, sliced = _correlation(table, settings, quiet, sliced,
                                       distinct=tails is not None)
    # The post-mortem first: its simulated competitions and the ranks stage's replicates are each
    # a large array on a big board, and this way they are never held at once.
    shakeup = (_shakeup(table, settings, quiet, correlation, sliced, distinct=tails is not None)
               if both else None)
    reason = not_simulable_reason(metric)  # bad --universe options fail loudly below instead
    if reason is not None:
        notes.append(f"Intervals and tiers are not available: {reason}. Entries are ranked but "
                     "not compared.")
    elif settings.n_test is None:
        notes.append("No test-set size was given (--n-test), so the sampling noise cannot be "
                     "simulated: entries are ranked but not compared.")
    else:
        progress = Progress("simulating test sets", quiet=quiet)
        try:
            noise = build_noise_model(metric, scores, leader_score=float(scores[0]),
                                      n_test=settings.n_test,
                                      prevalence=settings.prevalence, draws=settings.draws,
                                      seed=settings.seed, alpha=settings.alpha,
                                      options=settings.universe, progress=progress,
                                      leader_at_noise_level=True)
        except UnreachableScores as error:   # no entry modelled: each named, as one would be
            span = (f"{scores.min():.6g}" if scores.min() == scores.max()
                    else f"{scores.min():.6g} to {scores.max():.6g}")
            why = (f"no true score of the {error.universe} universe produces the scores of this "
                   f"board ({metric.label} {span}): it cannot be calibrated to any of them")
            left_out.append(LeftOut("intervals, tiers and ranks", why,
                                    tuple(table["team"].astype(str))))
            notes.append(f"Intervals and tiers are not available: {why}. Entries are ranked but "
                         "not compared. Check the scores, --metric or the universe options.")
        progress.close()
    if noise is not None:
        low, high = noise.interval(scores)
        # the noise that the entry's own interval implies, and d95 at the score (the middle of
        # the interval where the noise at the score vanishes): never zero at a perfect or
        # constant score
        sd, d95_each = noise.interval_sd(scores), noise.d95_at(noise.noise_level(scores))
        # a score the stated test set cannot give (an F1 below one hit's) gets no interval
        # rather than one that excludes it; named below with the reason
        impossible, impossible_why = impossible_scores(metric, scores, settings.n_test, low,
                                                       high)
        low, high = holding_own_score(scores, low, high)   # never beside a score it excludes
        for column, values in (("ci_low", low), ("ci_high", high), ("sd", sd),
                               ("d95", d95_each)):
            table[column] = np.where(impossible, np.nan, values)
        modelled = np.flatnonzero(np.isfinite(table["sd"].to_numpy()))
        if modelled.size:
            if not correlation.estimated:   # unchecked: its plausible range. Drawn before the
                # ranking's replicates exist, so that the two sets are never held at once
                # (issue 41: 2.4 GB at 100,000 entries); the ranking's own correlation is
                # filled in from the ranking below, as `known` did
                sweep = correlation_sweep(scores[modelled], table["sd"].to_numpy()[modelled],
                                          settings.higher_is_better, alpha=settings.alpha,
                                          tier_method=settings.tier_method, seed=settings.seed,
                                          replicates=min(settings.replicates, SWEEP_REPLICATES),
                                          known={float(correlation.used): (0, 0)})
            reps = RankReplicates.normal(scores[modelled], table["sd"].to_numpy()[modelled],
                                         correlation.used, settings.higher_is_better,
                                         replicates=settings.replicates, seed=settings.seed)
            ranking = rank_board(reps, method=settings.tier_method, alpha=settings.alpha,
                                 top_k=settings.top_k)
            tiers = ranking.tiers
            for k, rho in enumerate(sweep["correlation"] if sweep is not None else ()):
                if rho == float(correlation.used):
                    sweep["best_set"][k] = int(ranking.in_best_set.sum())
                    sweep["tier_1"][k] = int((ranking.tiers.tier == 1).sum())
            table = join_ranking(table, ranking, modelled)
        d95 = noise.leader.d95 if np.isfinite(table["sd"].iloc[0]) else None
        for i, why in zip(np.flatnonzero(impossible), impossible_why):
            left_out.append(LeftOut("intervals, tiers and ranks", why,
                                    (str(table["team"].iloc[i]),)))
        if impossible.any():
            notes.append(f"{_entries(int(impossible.sum()))} cannot occur on "
                         f"{settings.n_test:,} test rows and {'has' if impossible.sum() == 1 else 'have'} "
                         "no interval and no tier (named in the flags, with the reason).")
        unmodelled = np.setdiff1d(np.flatnonzero(~impossible), modelled)
        if unmodelled.size:
            why = (f"no true score of the {noise.universe} universe that was simulated (from "
                   f"{noise.levels[0]:.6g} to {noise.levels[-1]:.6g}) produces such a score")
            left_out.append(LeftOut("intervals, tiers and ranks", why,
                                    tuple(table["team"].iloc[unmodelled].astype(str))))
            notes.append(f"{_entries(unmodelled.size)} {'has' if unmodelled.size == 1 else 'have'} "
                         f"no interval and no tier: {why}. They are ranked by score but left "
                         "out of every comparison. Check those scores, or the universe options.")
        notes.append(correlation.note())
    generic = [g for g in left_out if g.reason.startswith("no true score")]
    flags = sanity_flags(table, settings, leaderboard.split,
                         no_interval=generic[0].teams if generic else ())
    flags += [Flag("impossible_score", f"{g.teams[0]}: {g.reason}.", g.teams)
              for g in left_out if not g.reason.startswith("no true score")]
    if settings.n_test is not None:
        flags += class_count_flags(settings.n_test, settings.prevalence,
                                   settings.universe.class_shares)
    if tails is not None and tails.how == "unknown" and ranking is not None:
        tails = with_bracket(tails, settings, scores[modelled], correlation.used, {
            "best_set": int(ranking.in_best_set.sum()), "compared": int(modelled.size)})
    if tails is not None and noise is not None:
        notes.append(tails.note())
    result = Analysis(leaderboard=leaderboard, settings=settings, table=table, noise=noise,
                      tiers=tiers, d95=d95, notes=tuple(notes), ranking=ranking,
                      shakeup=shakeup, left_out=tuple(left_out), flags=tuple(flags),
                      correlation=correlation, tails=tails)
    return replace(result, assumptions=analysis_assumptions(result, sweep))


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


def _correlation(table: pd.DataFrame, settings: Settings, quiet: bool,
                 sliced: SliceNoise | None = None,
                 distinct: bool = False) -> tuple[CorrelationChoice, SliceNoise | None]:
    """The correlation the comparisons assume: as stated, or (``auto``) estimated from the
    public/private pairs at both slices' sizes, whose simulated noise the post-mortem reuses
    (``sliced``: that noise, already simulated with these settings; ``distinct``: each pair of
    scores counted once, as regression boards do)."""
    if settings.correlation != "auto":
        return choose_correlation(settings.correlation), sliced
    missing = ("pairs" if not has_both_scores(table) else
               "sizes" if settings.n_public is None or settings.n_private is None else
               "universe" if not_simulable_reason(settings.metric, settings.universe) else None)
    if missing is not None:
        return choose_correlation("auto", missing=missing), None
    public, private = (table[f"{k}_score"].to_numpy(float) for k in ("public", "private"))
    if sliced is None:
        progress = Progress("simulating both slices", quiet=quiet)
        try:
            sliced = slice_noise(public, private, settings, progress=progress)
        finally:
            progress.close()
    return choose_correlation("auto", sliced.correlation(public, private, settings.alpha,
                                                           distinct)), sliced


def _shakeup(table: pd.DataFrame, settings: Settings, quiet: bool,
             correlation: CorrelationChoice, noise: SliceNoise | None,
             distinct: bool = False) -> Shakeup:
    """The post-mortem of a board with public and private scores (noise at each slice's size)."""
    progress = Progress("simulating the shake-up", quiet=quiet)
    try:
        return shakeup_from_scores(
            table["public_score"].to_numpy(float), table["private_score"].to_numpy(float),
            settings, correlation=correlation.used, progress=progress, noise=noise,
            estimated=correlation, distinct=distinct)
    finally:
        progress.close()


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


def _entries(count: int) -> str:
    return f"{count:,} entr{'y' if count == 1 else 'ies'}"


def _check_settings(settings: Settings) -> None:
    """The test set's size against the table (:data:`leaderboard.params.PARAMETERS`); every
    other value was checked when its options object was made."""
    check("n_test", settings.n_test)


def _check_scores_in_range(table: pd.DataFrame, metric: Metric, source: str) -> None:
    bad = (table["score"] < metric.lower_bound) | (table["score"] > metric.upper_bound)
    if bad.any():
        row = table.loc[bad].iloc[0]
        raise InputError(f"score {row['score']:g} of team {row['team']!r} is outside the range of "
                         f"{metric.label} [{metric.lower_bound:g}, {metric.upper_bound:g}]; "
                         f"{int(bad.sum())} row(s) out of range — is --metric right?",
                         file=source, row=int(row["line"]))
