"""The noise baseline: the shake-up that sampling noise alone produces at a competition's sizes.

A competition is re-run many times in simulation: every entry keeps a fixed true score, and each
replicate draws a fresh public and a fresh private error for every entry. Comparing the observed
shake-up with these simulated ones says whether it was more than the slice sizes make inevitable.

:class:`~leaderboard.shakeup.draws.NoiseDraws` holds the true scores and the paired error draws:
normal errors from the universe simulation's SDs (scores only, drawn again block by block when
read) or each slice's paired bootstrap (submissions).

The true scores are unknown; :func:`~leaderboard.shakeup.truth.estimate_truth` makes them from the private
scores (see there
why those must first be pulled together). :func:`shakeup_baseline` computes, on every replicate,
the statistics :func:`~leaderboard.shakeup.observed.shakeup_stats` gives for the real board.

Scores and errors are oriented (higher is better) inside; results read the same for either
direction of metric.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from leaderboard.shakeup.draws import CHUNK_ELEMENTS, NoiseDraws
from leaderboard.shakeup.observed import (ShakeupStats, board_ranks, board_taus, row_pearson,
                                           top_count)
from leaderboard.tiers.rank_quantiles import collect

__all__ = ["CHUNK_ELEMENTS", "NoiseDraws", "ShakeupBaseline", "check_draws", "shakeup_baseline"]
QUANTILES = (0.025, 0.5, 0.975)  # of the private rank of each public place


@dataclass(frozen=True)
class ShakeupBaseline:
    """The shake-up statistics of simulated competitions, and where the observed ones fall.

    Attributes
    ----------
    spearman, mean_abs_rank_change, mean_abs_rank_change_top10 : ndarray, shape (R,)
        Each simulated competition's value of the statistic of the same name in
        :class:`~leaderboard.shakeup.observed.ShakeupStats`.
    kendall : ndarray, shape (R,), or None
        Kendall's tau-b per simulated competition (None when not asked for).
    winner_public_ranks : ndarray of int, shape (R,)
        Public rank of each simulated competition's private winner (the best of tied winners).
    p_spearman : float
        ``(1 + #{simulated spearman <= observed}) / (1 + R)``: small when the real boards agree
        less than noise alone makes them. NaN when the observed correlation is undefined.
    p_shakeup : float
        ``(1 + #{simulated mean_abs_rank_change >= observed}) / (1 + R)``.
    winner_public_rank : float
        Observed: the private winner's public rank.
    p_winner_jump : float
        ``(1 + #{simulated winner's public rank >= observed}) / (1 + R)``: about the share of
        simulated competitions whose private winner came from that far down the public board (the
        ``1 +`` keeps it a valid p-value, and never 0).
    private_rank_given_public_place : ndarray, shape (3, E)
        For public place ``p`` (column ``p - 1``), the 2.5%, 50% and 97.5% quantiles of the
        private rank of the entry that held that public place (inverted-CDF quantiles, so ranks
        that occurred).
    top_fraction : float
    source : str
        How the errors were made.

    Notes
    -----
    What the p-values guarantee: if the true scores and the noise model were exactly right, the
    observed statistic and the simulated ones would be exchangeable, and ``P(p <= a) <= a`` for
    every ``a``. The true scores are estimated (:func:`~leaderboard.shakeup.truth.estimate_truth`), so this
    holds
    approximately; measured with known truth at ``a = 0.05`` (see
    :func:`~leaderboard.shakeup.truth.estimate_truth`),
    ``p_shakeup`` and ``p_spearman`` rejected 0-6.8% of honest competitions (mostly far below
    5%: conservative) and ``p_winner_jump`` 3.0-8.2% (slightly liberal when true scores are
    tied: the estimated truths still separate the leaders a little, so simulated private winners
    come from higher public places). A small p-value says the boards differ more than noise at
    these slice sizes explains: adaptive overfitting, a public slice unlike the private one (two
    stages), or a noise model that understates the errors.
    """

    spearman: np.ndarray
    kendall: np.ndarray | None
    mean_abs_rank_change: np.ndarray
    mean_abs_rank_change_top10: np.ndarray
    winner_public_ranks: np.ndarray
    p_spearman: float
    p_shakeup: float
    winner_public_rank: float
    p_winner_jump: float
    private_rank_given_public_place: np.ndarray
    top_fraction: float
    source: str

    @property
    def n_replicates(self) -> int:
        return self.spearman.size

    @property
    def noise_mean_abs_rank_change(self) -> float:
        """Average simulated mean |rank change| / N: the shake-up noise alone gives."""
        return float(self.mean_abs_rank_change.mean())

    @property
    def noise_spearman(self) -> float:
        """Median simulated Spearman correlation."""
        return float(np.median(self.spearman))


def check_draws(draws: NoiseDraws) -> None:
    """Shapes agree and every number is finite (shared by the baseline and the overfitting test)."""
    if not isinstance(draws, NoiseDraws):
        raise TypeError("draws must be a NoiseDraws")
    if not draws.shapes_agree():
        raise ValueError("truth, public_errors and private_errors disagree in shape")
    if not draws.finite():
        raise ValueError("the draws must be finite")


def _baseline_iv(draws, observed, top_fraction, batch):
    check_draws(draws)
    if not isinstance(observed, ShakeupStats):
        raise TypeError("observed must be a ShakeupStats (from shakeup_stats)")
    e = draws.n_entries
    if observed.n_entries != e:
        raise ValueError(f"the draws cover {e} entries but the board kept {observed.n_entries}; "
                         "make the draws for the kept entries (observed.keep) only")
    if e < 2:
        raise ValueError("need at least 2 entries")
    top_fraction = observed.top_fraction if top_fraction is None else float(top_fraction)
    if not 0 < top_fraction <= 1:
        raise ValueError(f"top_fraction must be in (0, 1], got {top_fraction:g}")
    batch = max(1, CHUNK_ELEMENTS // e) if batch is None else int(batch)
    if batch < 1:
        raise ValueError(f"batch must be at least 1, got {batch}")
    return top_fraction, batch


def _mc_p(count: int, n: int) -> float:
    return (1 + count) / (1 + n)


def shakeup_baseline(draws: NoiseDraws, observed: ShakeupStats, *,
                     top_fraction: float | None = None, kendall: bool = True,
                     batch: int | None = None) -> ShakeupBaseline:
    """How much shake-up sampling noise alone produces, and how the observed one compares.

    Replicate ``r`` is one simulated competition: public scores ``truth + public_errors[:, r]``,
    private scores ``truth + private_errors[:, r]``. Each is ranked and summarised exactly as
    :func:`~leaderboard.shakeup.observed.shakeup_stats` does the real boards (min ranks, Spearman
    as the Pearson correlation of average ranks, tau-b, the private top by ``private rank <=
    ceil(top_fraction * E)``).

    Parameters
    ----------
    draws : NoiseDraws
        For the entries the board kept (``observed.keep``), in the same order.
    observed : ShakeupStats
    top_fraction : float, optional
        Default: the one ``observed`` was computed with.
    kendall : bool
        Also compute Kendall's tau-b per replicate (a compiled O(E log E) loop).
    batch : int, optional
        Replicates handled at once (memory); the results do not depend on it.

    Returns
    -------
    ShakeupBaseline
        See there for what the p-values guarantee.

    Examples
    --------
    Twenty entries 0.01 apart, standard errors 0.03 on the public slice and 0.01 on the private
    one: noise alone keeps the boards' rank correlation near 0.9, so a private board that turns
    the public one upside down is far beyond noise.

    >>> from leaderboard.shakeup.observed import shakeup_stats
    >>> truth = np.linspace(0.70, 0.89, 20)
    >>> obs = shakeup_stats(truth, truth[::-1], True)
    >>> draws = NoiseDraws.normal(truth, 0.03, 0.01, True, replicates=500)
    >>> base = shakeup_baseline(draws, obs)
    >>> round(base.noise_spearman, 1), round(base.p_spearman, 3), round(base.p_shakeup, 3)
    (0.9, 0.002, 0.002)
    """
    top_fraction, batch = _baseline_iv(draws, observed, top_fraction, batch)
    e, r = draws.n_entries, draws.n_replicates
    top = top_count(e, top_fraction)
    spearman, mean_abs, mean_abs_top = np.empty(r), np.empty(r), np.empty(r)
    taus = np.empty(r) if kendall else None
    winners = np.empty(r, dtype=np.int32)

    def competitions():
        """Each batch's boards, ranked; ``(r0, private rank of each public place)``."""
        for cols, pub_err, priv_err in draws.blocks(batch):
            pub_rank, pub_avg, pub_order = board_ranks(draws.truth + pub_err)  # (c, E)
            priv_rank, priv_avg, _ = board_ranks(draws.truth + priv_err)
            yield cols, (pub_rank, pub_avg, pub_order, priv_rank, priv_avg)

    def summarised():
        for cols, (pub_rank, pub_avg, pub_order, priv_rank, priv_avg) in competitions():
            spearman[cols] = row_pearson(pub_avg, priv_avg)
            moved = np.abs(pub_rank - priv_rank)
            mean_abs[cols] = moved.mean(axis=1) / e
            in_top = priv_rank <= top
            mean_abs_top[cols] = (moved * in_top).sum(axis=1) / in_top.sum(axis=1) / e
            winners[cols] = np.where(priv_rank == 1, pub_rank, e + 1).min(axis=1)
            if kendall:
                taus[cols] = board_taus(pub_rank, priv_rank, pub_order)
            yield cols.start, np.take_along_axis(priv_rank, pub_order, axis=1)

    def by_place():   # a second pass, for places whose percentiles need exact ranks
        for cols, (_, _, pub_order, priv_rank, _) in competitions():
            yield cols.start, np.take_along_axis(priv_rank, pub_order, axis=1)

    # The inverted-CDF quantiles are order statistics: which ones, numpy's own rule says.
    at = np.quantile(np.arange(r), QUANTILES, method="inverted_cdf").astype(int).tolist()
    band = collect(None, r, at, summarised(), by_place).T
    nan = math.nan
    p_spearman = (_mc_p(int(np.count_nonzero(spearman <= observed.spearman)), r)
                  if np.isfinite(observed.spearman) else nan)
    p_shakeup = _mc_p(int(np.count_nonzero(mean_abs >= observed.mean_abs_rank_change)), r)
    jump = observed.winner_public_rank
    return ShakeupBaseline(
        spearman=spearman, kendall=taus, mean_abs_rank_change=mean_abs,
        mean_abs_rank_change_top10=mean_abs_top, winner_public_ranks=winners,
        p_spearman=p_spearman, p_shakeup=p_shakeup, winner_public_rank=jump,
        p_winner_jump=_mc_p(int(np.count_nonzero(winners >= jump)), r),
        private_rank_given_public_place=band.astype(np.int32), top_fraction=top_fraction,
        source=draws.source)
