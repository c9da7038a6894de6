"""Post-mortem stage of the pipeline: was the public-to-private shake-up luck or overfitting?

Whenever a board has both public and private scores, :func:`shakeup_from_scores` (a leaderboard
file, noise from the simulated universe at each slice's size) or :func:`shakeup_from_bootstrap`
(submissions, noise from a paired bootstrap of each slice's rows) runs :mod:`leaderboard.shakeup`
and returns a :class:`Shakeup`. Nothing here imports the report.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING

import numpy as np

from leaderboard.api_words import said
from leaderboard.noise.correlation import (CorrelationChoice, CorrelationEstimate,
                                           choose_correlation, estimate_correlation)
from leaderboard.noise.grid import build_noise_model
from leaderboard.noise.model import NoiseModel
from leaderboard.noise.universes import not_simulable_reason
from leaderboard.shakeup import (NoiseDraws, OverfitTest, ShakeupBaseline, ShakeupStats,
                                 overfit_test, risers_fallers, shakeup_baseline,
                                 shakeup_stats)
from leaderboard.shakeup.truth import truth_and_spread
from leaderboard.tiers import RankReplicates
from leaderboard.tiers.ranking import tier_entries
from leaderboard.params import DEFAULT_ALPHA, DEFAULT_SEED, DEFAULT_TIERS

if TYPE_CHECKING:   # annotations only: scores.py imports this module
    from leaderboard.pipelines.analysis import Settings

MIN_ENTRIES = 3  # fewer entries with both scores: no correlations worth reporting


@dataclass(frozen=True)
class Shakeup:
    """The shake-up of one board, every array aligned with the analysis table's rows.

    Attributes
    ----------
    public, private : ndarray
        Raw scores (NaN where an entry has only one).
    stats : ShakeupStats
        Rank changes, Spearman, Kendall, mean |rank change| / N (overall and private top 10%).
    n_public, n_private : int or None
        Rows of each slice; None when not given (then there is no noise baseline).
    two_stage : bool
        The public board was scored on other data than the private one.
    baseline : ShakeupBaseline or None
        The same statistics on competitions simulated with noise alone, and their p-values.
    overfit : OverfitTest or None
        Adaptive-overfitting test; its arrays are over the entries with both scores.
    flagged : ndarray of bool
        Entries whose public score beat their private one by more than noise allows (Holm).
    risers, fallers : ndarray of int
        Table rows of the biggest rises and falls, biggest first.
    public_top : int
        How many public places :attr:`public_top_tiers` describes: the post-mortem's one top
        (:func:`~leaderboard.shakeup.observed.top_count`).
    public_top_tiers : int or None
        Statistical tiers among the public top places, at the public size (1: none of their places
        could be told apart).
    public_tier1_size : int or None
        Entries in the public board's tier 1 at the public size.
    noise : str
        Where the noise came from, in words.
    reason : str or None
        Why there is no noise baseline, when there is none.
    left_out : str or None
        Entries with both scores that were left out of the noise comparisons, and why.
    compared : ShakeupStats or None
        The statistics over the entries the noise baseline and the overfitting test cover: the
        same object as ``stats`` unless some entries were left out (``left_out``).
    """

    public: np.ndarray
    private: np.ndarray
    stats: ShakeupStats
    n_public: int | None
    n_private: int | None
    two_stage: bool
    baseline: ShakeupBaseline | None
    overfit: OverfitTest | None
    flagged: np.ndarray
    risers: np.ndarray
    fallers: np.ndarray
    public_top: int
    public_top_tiers: int | None
    public_tier1_size: int | None
    noise: str
    reason: str | None
    left_out: str | None = None
    compared: ShakeupStats | None = None


def has_both_scores(table) -> bool:
    """Whether a table carries enough entries with a public and a private score."""
    if "public_score" not in table or "private_score" not in table:
        return False
    both = np.isfinite(table["public_score"].to_numpy(float)) & \
        np.isfinite(table["private_score"].to_numpy(float))
    return int(both.sum()) >= MIN_ENTRIES


def shakeup_from_scores(public: np.ndarray, private: np.ndarray, settings: Settings, *,
                        correlation: float = 0.0, progress=None,
                        noise: SliceNoise | None = None,
                        estimated: CorrelationChoice | None = None,
                        distinct: bool = False) -> Shakeup:
    """The shake-up of a leaderboard file: observed statistics always; the noise baseline and the
    overfitting test when both slice sizes are known and the metric can be simulated.

    ``settings`` (:class:`~leaderboard.pipelines.scores.Settings`) gives the metric and its
    direction, the slices' sizes (``n_public``, ``n_private``, ``two_stage``), the universe
    (``prevalence``, ``universe``, ``draws``, ``seed``) and the comparisons (``alpha``,
    ``replicates``, ``tier_method``).

    The noise is the universe's (:func:`~leaderboard.noise.grid.build_noise_model`) standard
    deviation at each true score for each slice's size, drawn as normal errors with
    ``correlation`` between entries (0: independent, which overstates the noise of differences, so
    the shake-up looks more explainable by luck and the overfitting test errs on the cautious side).
    The true scores are the private scores pulled together by
    :func:`~leaderboard.shakeup.truth.estimate_truth`. ``noise``: the slices' simulated noise when
    the caller already has it (:func:`slice_noise` with the same settings).

    ``estimated``: the correlation choice when ``--correlation auto`` estimated it from the gaps
    (``correlation`` is then its lower end). The overfitting test's power statement then draws
    its honest boards at the point estimate and re-reads the correlation from an inflated
    board's gaps as the analysis would (:mod:`leaderboard.shakeup.power`; ``distinct``: each pair
    of scores counted once, as the estimate was).
    """
    s = settings
    metric, higher_is_better, options = s.metric, s.higher_is_better, s.universe
    n_public, n_private, two_stage = s.n_public, s.n_private, s.two_stage
    alpha, replicates, seed, tier_method = s.alpha, s.replicates, s.seed, s.tier_method
    public, private = np.asarray(public, float), np.asarray(private, float)
    reason = not_simulable_reason(metric, options)
    if reason is None and (n_public is None or n_private is None):
        reason = said("the sizes of the public and private slices were not given (--n-public "
                      "and --n-private, or --n-test with --public-fraction)")
    if reason is not None:
        stats = shakeup_stats(public, private, higher_is_better)
        return _result(public, private, stats, None, None, n_public, n_private, two_stage,
                       "none", reason)
    stats = shakeup_stats(public, private, higher_is_better)   # the board's own, every entry
    both = stats.keep
    if noise is None:
        noise = slice_noise(public, private, settings, progress=progress)
    models, noisy = noise.models, noise.sd
    modelled = both & np.isfinite(noisy[0]) & np.isfinite(noisy[1])
    compared = stats
    left_out = None
    if (both & ~modelled).any():
        compared = shakeup_stats(np.where(modelled, public, np.nan),
                                 np.where(modelled, private, np.nan), higher_is_better)
        count = int((both & ~modelled).sum())
        left_out = (f"{count:,} entr{'y scores' if count == 1 else 'ies score'} beyond what the "
                    f"{models[0].universe} universe can produce at one slice's size or both, so "
                    "their noise is unknown: the noise comparisons cover the other "
                    f"{compared.n_entries:,} entries, the observed statistics all "
                    f"{stats.n_entries:,}")
    keep = compared.keep
    # Only the noise entries do not share moves their ranks, so the truths are pulled together
    # by the SD of that part (the shared part, sqrt(correlation) of it, moves every entry alike).
    truth, truth_sd = truth_and_spread(private[keep], noisy[1][keep] * np.sqrt(1 - correlation))
    noise_draws = NoiseDraws.normal(truth, models[0].sd_at(truth), models[1].sd_at(truth),
                                    higher_is_better, correlation=correlation,
                                    replicates=replicates, seed=seed)
    order = np.argsort(-public[keep] if higher_is_better else public[keep], kind="stable")
    # made when the tiers need them, after the baseline's pass: never both in memory
    public_reps = partial(RankReplicates.normal, public[keep][order], noisy[0][keep][order],
                          correlation, higher_is_better, replicates=replicates, seed=seed)
    power = {}
    if estimated is not None and estimated.estimated:
        full = np.where(keep, public, np.nan)

        def draws_at(rho: float, truths: np.ndarray) -> NoiseDraws:
            return NoiseDraws.normal(truths, models[0].sd_at(truths), models[1].sd_at(truths),
                                     higher_is_better, correlation=rho, replicates=replicates,
                                     seed=seed)

        def refit(raised: np.ndarray) -> NoiseDraws:   # the analysis's draws for that board
            full[keep] = raised
            rho = choose_correlation("auto", noise.correlation(full, private, alpha,
                                                               distinct)).used
            return draws_at(rho, truth_and_spread(private[keep],
                                                  noisy[1][keep] * np.sqrt(1 - rho))[0])

        power = {"honest_draws": draws_at(float(min(max(estimated.value, 0.0), 0.99)), truth),
                 "refit": refit}
    return _result(public, private, stats, noise_draws, public_reps, n_public, n_private,
                   two_stage, f"the {models[0].universe} universe at each slice's size, "
                   f"{noise_draws.source}", None, alpha, tier_method, left_out, compared,
                   truth_sd=truth_sd, seed=seed, power=power)


@dataclass(frozen=True)
class SliceNoise:
    """The universe simulated at each slice's size, and every entry's noise there.

    Attributes
    ----------
    models : tuple of NoiseModel
        At the public and at the private slice's size.
    sd : tuple of ndarray
        Each entry's SD at each slice, at its own score on that slice: the one its interval
        implies (never zero at a perfect or constant score); NaN for entries without both scores
        and for scores no model of the universe produces (left out of the noise comparisons, not
        of the observed statistics, and named).
    """

    models: tuple[NoiseModel, NoiseModel]
    sd: tuple[np.ndarray, np.ndarray]

    def correlation(self, public: np.ndarray, private: np.ndarray,
                    alpha: float = DEFAULT_ALPHA, distinct: bool = False) -> CorrelationEstimate:
        """``--correlation auto``: :func:`~leaderboard.noise.correlation.estimate_correlation` of
        the public/private gaps, with both slices' SDs taken at the entry's *private* score: the
        larger slice's, and free of public over-fitting and of any shift between the boards, which
        would otherwise bias the SDs (measured in :mod:`leaderboard.studies.correlation`'s model: SDs
        at each slice's own score overstate 1 - rho by 2-5%, and by 10-28% after a two-SD shift
        between the boards; at the private score by 1-2%). ``distinct``: each (public, private)
        pair counted once (regression boards, :mod:`leaderboard.pipelines.tails`)."""
        at = np.where(np.isfinite(public), private, np.nan)
        return estimate_correlation(public, private, self.models[0].interval_sd(at),
                                    self.models[1].interval_sd(at), alpha=alpha,
                                    distinct=distinct)


def slice_noise(public: np.ndarray, private: np.ndarray, settings: Settings, *,
                progress=None) -> SliceNoise:
    """The universe's noise at both slices' sizes (``settings.n_public``, ``n_private``), on one
    grid of the entries' scores."""
    s = settings
    public, private = np.asarray(public, float), np.asarray(private, float)
    both = np.isfinite(public) & np.isfinite(private)
    scores = np.concatenate([public[both], private[both]])
    leader = float(scores.max() if s.higher_is_better else scores.min())
    built: dict[int, NoiseModel] = {}
    for n in (s.n_public, s.n_private):
        # equal slices (a 50/50 split) share one model: the same arguments give the same model
        if n not in built:
            built[n] = build_noise_model(s.metric, scores, leader_score=leader, n_test=n,
                                         prevalence=s.prevalence, draws=s.draws, seed=s.seed,
                                         alpha=s.alpha, options=s.universe, progress=progress)
    models = (built[s.n_public], built[s.n_private])
    noisy = (np.full(public.size, np.nan), np.full(public.size, np.nan))   # one per model
    for values, model, out in zip((public, private), models, noisy):
        out[both] = model.interval_sd(values[both])
    return SliceNoise(models, noisy)


def shakeup_from_bootstrap(public: np.ndarray, private: np.ndarray, public_replicates: np.ndarray,
                           private_replicates: np.ndarray, *, higher_is_better: bool,
                           n_public: int, n_private: int, alpha: float = DEFAULT_ALPHA,
                           tier_method: str = DEFAULT_TIERS) -> Shakeup:
    """The shake-up of scored submissions: the noise is each slice's paired bootstrap (the
    deviations of the replicates from the point scores), which keeps the correlation between
    entries that share the rows. Rows of ``*_replicates`` align with ``public``/``private``."""
    public, private = np.asarray(public, float), np.asarray(private, float)
    stats = shakeup_stats(public, private, higher_is_better)
    keep = stats.keep
    # Entries scored on the same rows share much of their noise, and the shared part moves every
    # entry alike: the truths are pulled together only by the noise of each entry against the
    # board's mean (pulling by the whole SD would collapse a board of similar models).
    private_reps = private_replicates[keep]
    relative = private_reps - np.nanmean(private_reps, axis=0, keepdims=True)
    truth, truth_sd = truth_and_spread(private[keep], np.nanstd(relative, axis=1, ddof=1))
    noise_draws = NoiseDraws.from_bootstrap(truth, public_replicates[keep], public[keep],
                                            private_replicates[keep], private[keep],
                                            higher_is_better)
    order = np.argsort(-public[keep] if higher_is_better else public[keep], kind="stable")
    public_reps = RankReplicates.from_bootstrap(public[keep][order],
                                                public_replicates[keep][order], higher_is_better)
    return _result(public, private, stats, noise_draws, public_reps, n_public, n_private, False,
                   noise_draws.source, None, alpha, tier_method, truth_sd=truth_sd)


def _result(public, private, stats, noise_draws, public_reps, n_public, n_private, two_stage,
            noise, reason, alpha=DEFAULT_ALPHA, tier_method=DEFAULT_TIERS, left_out=None,
            compared=None, truth_sd=None, seed=DEFAULT_SEED, power=None) -> Shakeup:
    compared = stats if compared is None else compared
    risers, fallers = risers_fallers(stats)
    flagged = np.zeros(public.size, dtype=bool)
    baseline = overfit = top_tiers = tier1 = None
    top = compared.top_size   # the same top as every other sentence of the post-mortem
    if noise_draws is not None:
        baseline = shakeup_baseline(noise_draws, compared)
        overfit = overfit_test(public[compared.keep], private[compared.keep], noise_draws,
                               compared.higher_is_better, alpha=alpha, truth_sd=truth_sd,
                               seed=seed, **(power or {}))
        flagged[np.flatnonzero(compared.keep)[overfit.drivers]] = True
        reps = public_reps() if callable(public_reps) else public_reps
        tiers = tier_entries(reps, tier_method, alpha).tier
        top_tiers, tier1 = int(np.unique(tiers[:top]).size), int((tiers == 1).sum())
    return Shakeup(public=public, private=private, stats=stats, n_public=n_public,
                   n_private=n_private, two_stage=two_stage, baseline=baseline, overfit=overfit,
                   flagged=flagged, risers=risers, fallers=fallers, public_top=top,
                   public_top_tiers=top_tiers, public_tier1_size=tier1, noise=noise, reason=reason,
                   left_out=left_out, compared=compared)
