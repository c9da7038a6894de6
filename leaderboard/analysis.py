"""The pipeline in one call: ingest -> noise -> tiers, returning an :class:`Analysis`.

The command line and the report both consume :class:`Analysis`; nothing here imports the report.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

from leaderboard.analysis_shakeup import Shakeup, has_both_scores, shakeup_from_scores
from leaderboard.errors import InputError
from leaderboard.ingest import Leaderboard
from leaderboard.metrics import Metric
from leaderboard.noise import NoiseModel, ScoreDistribution
from leaderboard.noise.bootstrap import BootstrapResult
from leaderboard.noise.grid import build_noise_model
from leaderboard.noise.universes import UniverseOptions, not_simulable_reason
from leaderboard.progress import Progress
from leaderboard.submissions import SubmissionSet
from leaderboard.tiers import RankReplicates, Tiers
from leaderboard.tiers.ranking import TIER_METHODS, Ranking, rank_board


@dataclass(frozen=True)
class Settings:
    """Everything the user chose, echoed in the report and the JSON."""

    metric: Metric
    higher_is_better: bool
    n_test: int | None
    prevalence: float | None
    alpha: float = 0.05
    draws: int = 2000
    seed: int = 0
    correlation: float = 0.0
    replicates: int = 2000
    resample: str = "plain"
    universe: UniverseOptions = UniverseOptions()
    tier_method: str = "rank-sets"
    top_k: tuple[int, ...] = (3,)
    n_public: int | None = None
    n_private: int | None = None
    two_stage: bool = False


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
    for column in ("ci_low", "ci_high", "sd", "d95", "p_vs_anchor"):
        table[column] = np.nan
    table["tier"] = 0

    noise = tiers = d95 = ranking = None
    reason = not_simulable_reason(metric)  # bad --universe options fail loudly below instead
    if reason is not None:
        notes.append(f"Intervals and tiers are not available: {reason}. Entries are ranked but "
                     "not compared.")
    elif settings.n_test is None:
        notes.append("No test-set size was given (--n-test), so the sampling noise cannot be "
                     "simulated: entries are ranked but not compared.")
    else:
        progress = Progress("simulating test sets", quiet=quiet)
        noise = build_noise_model(metric, scores, leader_score=float(scores[0]),
                                  n_test=settings.n_test,
                                  prevalence=settings.prevalence, draws=settings.draws,
                                  seed=settings.seed, alpha=settings.alpha,
                                  options=settings.universe, progress=progress)
        progress.close()
        table["ci_low"], table["ci_high"] = noise.interval(scores)
        table["sd"] = noise.sd_at(scores)
        table["d95"] = noise.d95_at(scores)
        reps = RankReplicates.normal(scores, table["sd"].to_numpy(), settings.correlation,
                                     settings.higher_is_better, replicates=settings.replicates,
                                     seed=settings.seed)
        ranking = rank_board(reps, method=settings.tier_method, alpha=settings.alpha,
                             top_k=settings.top_k)
        tiers = ranking.tiers
        table = join_ranking(table, ranking)
        d95 = noise.leader.d95
        beyond = int(((scores < noise.levels[0]) | (scores > noise.levels[-1])).sum())
        if beyond:
            notes.append(f"{beyond} entr{'y scores' if beyond == 1 else 'ies score'} beyond what "
                         f"the {noise.universe} universe can reach for these settings (from "
                         f"{noise.levels[0]:.6g} to {noise.levels[-1]:.6g}); their intervals are "
                         "clipped at that edge. Check those scores, or the universe options.")
        if settings.correlation == 0:
            notes.append("Comparisons assume each entry's score moves independently, as if every "
                         "entry had its own test set. Entries scored on one shared test set are "
                         "positively correlated, so the real differences are less noisy than "
                         "assumed: tiers are conservative (wider) and no difference is overstated.")
        else:
            notes.append(f"Comparisons assume a correlation of {settings.correlation:g} between "
                         "entries' scores (--correlation), as entries on one shared test set have.")
    shakeup = _shakeup(table, settings, quiet) if has_both_scores(table) else None
    return Analysis(leaderboard=leaderboard, settings=settings, table=table, noise=noise,
                    tiers=tiers, d95=d95, notes=tuple(notes), ranking=ranking, shakeup=shakeup)


def _shakeup(table: pd.DataFrame, settings: Settings, quiet: bool) -> Shakeup:
    """The post-mortem of a board with public and private scores (noise at each slice's size)."""
    progress = Progress("simulating the shake-up", quiet=quiet)
    try:
        return shakeup_from_scores(
            table["public_score"].to_numpy(float), table["private_score"].to_numpy(float),
            metric=settings.metric, higher_is_better=settings.higher_is_better,
            n_public=settings.n_public, n_private=settings.n_private,
            prevalence=settings.prevalence, two_stage=settings.two_stage,
            correlation=settings.correlation, alpha=settings.alpha, draws=settings.draws,
            replicates=settings.replicates, seed=settings.seed, tier_method=settings.tier_method,
            options=settings.universe, progress=progress)
    finally:
        progress.close()


def join_ranking(table: pd.DataFrame, ranking: Ranking) -> pd.DataFrame:
    """The table with the ranks stage's columns: ``tier``, ``p_vs_anchor``, ``rank_ci_low`` and
    ``rank_ci_high`` (marginal rank confidence set), ``rank_sim_low`` and ``rank_sim_high``
    (simultaneous), ``p_best``, ``p_top_<k>`` per prize line, and ``in_best_set``."""
    table = table.copy()
    table["tier"] = ranking.tiers.tier
    table["p_vs_anchor"] = ranking.tiers.p_vs_anchor
    table["rank_ci_low"], table["rank_ci_high"] = ranking.marginal.low, ranking.marginal.high
    table["rank_sim_low"] = ranking.simultaneous.low
    table["rank_sim_high"] = ranking.simultaneous.high
    table["p_best"] = ranking.probabilities.p_best
    for k in ranking.top_k:
        table[f"p_top_{k}"] = ranking.probabilities.p_top[k]
    table["in_best_set"] = ranking.in_best_set
    return table


def _check_settings(settings: Settings) -> None:
    if not 0 < settings.alpha < 1:
        raise InputError(f"--alpha must be between 0 and 1, got {settings.alpha:g}")
    if settings.draws < 100:
        raise InputError(f"--draws must be at least 100, got {settings.draws}")
    if settings.replicates < 100:
        raise InputError(f"--replicates must be at least 100, got {settings.replicates}")
    if not 0 <= settings.correlation < 1:
        raise InputError(f"--correlation must be at least 0 and below 1, got "
                         f"{settings.correlation:g}")
    if settings.tier_method not in TIER_METHODS:
        raise InputError(f"--tiers must be one of {', '.join(TIER_METHODS)}, got "
                         f"{settings.tier_method!r}")
    if any(k < 1 for k in settings.top_k):
        raise InputError(f"--prizes and --top-k must be at least 1, got "
                         f"{', '.join(map(str, settings.top_k))}")
    if settings.n_test is not None and settings.n_test < 2:
        raise InputError(f"--n-test must be at least 2, got {settings.n_test}")
    if settings.prevalence is not None and not 0 < settings.prevalence < 1:
        raise InputError(f"--prevalence must be strictly between 0 and 1, got {settings.prevalence:g}")


def _check_scores_in_range(table: pd.DataFrame, metric: Metric, source: str) -> None:
    bad = (table["score"] < metric.lower_bound) | (table["score"] > metric.upper_bound)
    if bad.any():
        row = table.loc[bad].iloc[0]
        raise InputError(f"score {row['score']:g} of team {row['team']!r} is outside the range of "
                         f"{metric.label} [{metric.lower_bound:g}, {metric.upper_bound:g}]; "
                         f"{int(bad.sum())} row(s) out of range — is --metric right?",
                         file=source, row=int(row["line"]))
