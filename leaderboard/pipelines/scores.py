"""Scores mode's pipeline in one call: a leaderboard of scores -> noise -> tiers, returning an
:class:`~leaderboard.pipelines.analysis.Analysis`.

:class:`Settings`, :class:`Analysis`, :class:`LeftOut`, :func:`rank_entries` and
:func:`join_ranking` live in :mod:`leaderboard.pipelines.analysis` (every mode shares them) and are
importable from here too. Nothing here imports the report.
"""
from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from leaderboard.api_words import said
from leaderboard.pipelines.analysis import (Analysis, LeftOut, Settings, check_settings,
                                            join_ranking, rank_entries, sanity_flags)
from leaderboard.pipelines.tails import choose_tails, with_bracket
from leaderboard.pipelines.shakeup import (Shakeup, SliceNoise, has_both_scores,
                                          shakeup_from_scores, slice_noise)
from leaderboard.errors import InputError
from leaderboard.pipelines.assumptions import (SWEEP_REPLICATES, analysis_assumptions,
                                               correlation_sweep)
from leaderboard.flags import Flag, class_count_flags
from leaderboard.noise.correlation import CorrelationChoice, choose_correlation
from leaderboard.noise.grid import UnreachableScores, build_noise_model
from leaderboard.noise.possible import holding_own_score, impossible_scores
from leaderboard.noise.universes import not_simulable_reason
from leaderboard.progress import Progress
from leaderboard.tiers import RankReplicates
from leaderboard.tiers.ranking import rank_board

if TYPE_CHECKING:   # annotations only
    from leaderboard.ingest.leaderboards import Leaderboard
    from leaderboard.metrics import Metric

__all__ = ["Analysis", "LeftOut", "Settings", "analyze", "join_ranking", "rank_entries",
           "sanity_flags"]


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
    check_settings(settings)
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
    public, private = ((table["public_score"].to_numpy(float),
                        table["private_score"].to_numpy(float)) if both else (None, None))
    settings, tails, sliced = choose_tails(
        public, private, settings, progress_for=lambda label: Progress(label, quiet=quiet))
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
        notes.append(said("No test-set size was given (--n-test), so the sampling noise cannot "
                          "be simulated: entries are ranked but not compared."))
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
                         + said("not compared. Check the scores, --metric or the universe "
                                "options."))
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
                    assert sweep is not None   # the loop runs over its correlations
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


def _entries(count: int) -> str:
    return f"{count:,} entr{'y' if count == 1 else 'ies'}"


def _check_scores_in_range(table: pd.DataFrame, metric: Metric, source: str) -> None:
    bad = (table["score"] < metric.lower_bound) | (table["score"] > metric.upper_bound)
    if bad.any():
        row = table.loc[bad].iloc[0]
        raise InputError(f"score {row['score']:g} of team {row['team']!r} is outside the range of "
                         f"{metric.label} [{metric.lower_bound:g}, {metric.upper_bound:g}]; "
                         f"{int(bad.sum())} row(s) out of range — is --metric right?",
                         file=source, row=int(row["line"]))
