"""The noise baseline: the shake-up that sampling noise alone produces at a competition's sizes.

A competition is re-run many times in simulation: every entry keeps a fixed true score, and each
replicate draws a fresh public and a fresh private error for every entry. Comparing the observed
shake-up with these simulated ones says whether it was more than the slice sizes make inevitable.

:class:`NoiseDraws` holds the true scores and the paired error draws, made in one of two ways:

- **scores only** (:meth:`NoiseDraws.normal`): normal errors with per-entry standard deviations (the
  universe simulation's SD at each score and slice size), an equal correlation between entries
  within a slice, the two slices independent;
- **submissions** (:meth:`NoiseDraws.from_bootstrap`): the paired bootstrap of each slice's rows,
  which keeps the real correlation between entries that share the rows.

The true scores are unknown; :func:`~leaderboard.shakeup.truth.estimate_truth` makes them from the private scores (see there
why those must first be pulled together). :func:`shakeup_baseline` computes, on every replicate,
the statistics :func:`~leaderboard.shakeup.observed.shakeup_stats` gives for the real board.

Scores and errors are oriented (higher is better) inside; results read the same for either
direction of metric.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from leaderboard.noise.rng import BLOCK, block_rng
from leaderboard.shakeup.observed import (ShakeupStats, board_ranks, row_pearson, tau_b_rows,
                                           top_count)

STREAM_PUBLIC, STREAM_PRIVATE = 5, 6  # random streams of the scores-only public and private errors
CHUNK_ELEMENTS = 1 << 20  # simulated scores handled per chunk: bounds the working memory


@dataclass(frozen=True)
class NoiseDraws:
    """True scores and paired draws of each slice's error, oriented so higher is better.

    Attributes
    ----------
    truth : ndarray, shape (E,)
        The true scores the simulated competitions share (oriented).
    public_errors, private_errors : ndarray, shape (E, R)
        Draws of "observed minus true" score on the public and the private slice (oriented).
        Column ``r`` of every entry belongs to one simulated competition; the two slices are
        independent (disjoint rows).
    source : str
        How the errors were made, in words.
    sign : float
        +1 if the metric's higher scores are better, -1 otherwise.
    dropped : int
        Bootstrap replicates left out because the metric was undefined on them (NaN).
    """

    truth: np.ndarray
    public_errors: np.ndarray
    private_errors: np.ndarray
    source: str
    sign: float = 1.0
    dropped: int = 0

    @property
    def n_entries(self) -> int:
        return self.truth.size

    @property
    def n_replicates(self) -> int:
        return self.public_errors.shape[1]

    def gap_sd(self) -> np.ndarray:
        """Per entry, the SD of public minus private error: the noise in its public-private gap."""
        return np.std(self.public_errors - self.private_errors, axis=1, ddof=1)

    @classmethod
    def normal(cls, truth: np.ndarray, sd_public, sd_private, higher_is_better: bool, *,
               correlation: float = 0.0, replicates: int = 2000, seed: int = 0) -> NoiseDraws:
        """Scores only: normal errors with per-entry SDs and an equal correlation within a slice.

        A slice's draw is ``sd_i * (sqrt(c) * Z0 + sqrt(1 - c) * Z_i)`` with ``Z0`` shared by all
        entries (as in :meth:`~leaderboard.tiers.replicates.RankReplicates.normal`), so two
        entries' errors have correlation ``c``; public draws use stream 5 and private draws stream
        6, so the slices are independent. Draws come in seeded blocks of 32 replicates: the numbers
        depend on ``seed`` and ``replicates`` only, and fewer replicates are a prefix of more.

        Parameters
        ----------
        truth : array_like, shape (E,)
            True scores on the metric's own scale (e.g. :func:`~leaderboard.shakeup.truth.estimate_truth`).
        sd_public, sd_private : float or array_like, shape (E,)
            Standard error of each entry's score at the public and the private slice size.
        higher_is_better : bool
        correlation : float
            Correlation in [0, 1) between two entries' errors on one slice.
        replicates : int
        seed : int

        Examples
        --------
        >>> d = NoiseDraws.normal([0.8, 0.7], [0.02, 0.03], 0.01, True, replicates=4000)
        >>> d.n_replicates, d.gap_sd().round(3).tolist()
        (4000, [0.022, 0.032])
        """
        truth = np.asarray(truth, dtype=float)
        sd_public = np.broadcast_to(np.asarray(sd_public, dtype=float), truth.shape)
        sd_private = np.broadcast_to(np.asarray(sd_private, dtype=float), truth.shape)
        if truth.ndim != 1 or not np.isfinite(truth).all():
            raise ValueError("truth must be a 1-D array of finite scores")
        if not (np.isfinite(sd_public).all() and np.isfinite(sd_private).all()
                and (sd_public >= 0).all() and (sd_private >= 0).all()):
            raise ValueError("standard deviations must be finite and non-negative")
        if not 0 <= correlation < 1:
            raise ValueError(f"correlation must be in [0, 1), got {correlation:g}")
        if int(replicates) < 2:
            raise ValueError(f"replicates must be at least 2, got {replicates}")
        sign = 1.0 if higher_is_better else -1.0
        # The errors are drawn on the oriented scale, so a board and its mirror image (negated
        # scores, other direction) get the very same simulated competitions.
        pub = _equicorrelated(sd_public, correlation, int(replicates), seed, STREAM_PUBLIC)
        priv = _equicorrelated(sd_private, correlation, int(replicates), seed, STREAM_PRIVATE)
        return cls(truth=sign * truth, public_errors=pub, private_errors=priv, sign=sign,
                   source=f"normal errors at the slice sizes, correlation {correlation:g} "
                          "between entries within a slice")

    @classmethod
    def from_bootstrap(cls, truth: np.ndarray, public_replicates: np.ndarray,
                       public_point: np.ndarray, private_replicates: np.ndarray,
                       private_point: np.ndarray, higher_is_better: bool) -> NoiseDraws:
        """Submissions: the errors are each slice's paired bootstrap deviations, replicate - point.

        Each slice is resampled on its own rows (run
        :func:`~leaderboard.noise.bootstrap.paired_bootstrap` once per slice, with DIFFERENT seeds:
        the same seed reuses the same random numbers for both slices and would tie their errors
        together). Pairing within a slice keeps the correlation between entries that the shared
        rows give them. Replicate columns on which the metric is undefined (NaN) for any entry on
        either slice are dropped from both (``dropped`` counts them).

        Parameters
        ----------
        truth : array_like, shape (E,)
            True scores on the metric's own scale.
        public_replicates, private_replicates : array_like, shape (E, R)
            Bootstrap replicates of each slice (same R).
        public_point, private_point : array_like, shape (E,)
            Each entry's score on the full slice.
        higher_is_better : bool

        Examples
        --------
        >>> reps = np.array([[0.9, 0.7, np.nan], [0.6, 0.5, 0.4]])
        >>> d = NoiseDraws.from_bootstrap([0.8, 0.5], reps, [0.8, 0.5], reps[::-1], [0.5, 0.8],
        ...                               False)
        >>> d.truth.tolist(), d.public_errors.round(2).tolist(), d.dropped
        ([-0.8, -0.5], [[-0.1, 0.1], [-0.1, -0.0]], 1)
        """
        truth = np.asarray(truth, dtype=float)
        sign = 1.0 if higher_is_better else -1.0
        parts = []
        for name, reps, point in (("public", public_replicates, public_point),
                                  ("private", private_replicates, private_point)):
            reps, point = np.asarray(reps, dtype=float), np.asarray(point, dtype=float)
            if reps.ndim != 2 or reps.shape[0] != truth.size or point.shape != truth.shape:
                raise ValueError(f"{name} replicates must have shape (E, R) and points shape (E,)"
                                 f" with E = {truth.size}, got {reps.shape} and {point.shape}")
            if not np.isfinite(point).all():
                raise ValueError(f"{name} point scores must be finite")
            parts.append((reps, point))
        (pub, pub_pt), (priv, priv_pt) = parts
        if truth.ndim != 1 or not np.isfinite(truth).all():
            raise ValueError("truth must be a 1-D array of finite scores")
        if pub.shape[1] != priv.shape[1]:
            raise ValueError(f"the slices need the same number of replicates, got {pub.shape[1]} "
                             f"and {priv.shape[1]}")
        keep = np.isfinite(pub).all(axis=0) & np.isfinite(priv).all(axis=0)
        if keep.sum() < 2:
            raise ValueError("fewer than 2 replicates have the metric defined on both slices")
        return cls(truth=sign * truth,
                   public_errors=sign * (pub[:, keep] - pub_pt[:, None]),
                   private_errors=sign * (priv[:, keep] - priv_pt[:, None]),
                   sign=sign, dropped=int((~keep).sum()),
                   source="paired bootstrap of the public and of the private rows")


def _equicorrelated(sd: np.ndarray, correlation: float, replicates: int, seed: int, stream: int
                    ) -> np.ndarray:
    """Normal draws, shape (n, replicates), with SDs ``sd`` and equal correlation between rows."""
    out = np.empty((replicates, sd.size))
    own_sd = sd * math.sqrt(1 - correlation)
    for b in range(-(-replicates // BLOCK)):
        rng = block_rng(seed, stream, b)
        shared = rng.standard_normal(BLOCK)
        own = rng.standard_normal((BLOCK, sd.size))
        rows = slice(b * BLOCK, min((b + 1) * BLOCK, replicates))
        m = rows.stop - rows.start
        np.multiply(own[:m], own_sd, out=out[rows])
        if correlation > 0:
            out[rows] += math.sqrt(correlation) * shared[:m, None] * sd
    return out.T  # a transposed view: each replicate's column is contiguous, as the chunks want


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
    every ``a``. The true scores are estimated (:func:`~leaderboard.shakeup.truth.estimate_truth`), so this holds
    approximately; measured with known truth at ``a = 0.05`` (see :func:`~leaderboard.shakeup.truth.estimate_truth`),
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
    e, r = np.shape(draws.public_errors)
    if np.shape(draws.private_errors) != (e, r) or np.shape(draws.truth) != (e,):
        raise ValueError("truth, public_errors and private_errors disagree in shape")
    if not (np.isfinite(draws.truth).all() and np.isfinite(draws.public_errors).all()
            and np.isfinite(draws.private_errors).all()):
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
    e, r = draws.public_errors.shape
    top = top_count(e, top_fraction)
    spearman, mean_abs, mean_abs_top = np.empty(r), np.empty(r), np.empty(r)
    taus = np.empty(r) if kendall else None
    winners = np.empty(r, dtype=np.int32)
    by_place = np.empty((e, r), dtype=np.int32)
    for r0 in range(0, r, batch):
        cols = slice(r0, min(r0 + batch, r))
        public = draws.truth + draws.public_errors[:, cols].T  # (c, E): one competition per row
        private = draws.truth + draws.private_errors[:, cols].T
        pub_rank, pub_avg, pub_order = board_ranks(public)
        priv_rank, priv_avg, _ = board_ranks(private)
        spearman[cols] = row_pearson(pub_avg, priv_avg)
        moved = np.abs(pub_rank - priv_rank)
        mean_abs[cols] = moved.mean(axis=1) / e
        in_top = priv_rank <= top
        mean_abs_top[cols] = (moved * in_top).sum(axis=1) / in_top.sum(axis=1) / e
        winners[cols] = np.where(priv_rank == 1, pub_rank, e + 1).min(axis=1)
        by_place[:, cols] = np.take_along_axis(priv_rank, pub_order, axis=1).T
        if kendall:
            out = np.empty(pub_rank.shape[0])
            xy_order = np.argsort(pub_rank.astype(np.int64) * (e + 1) + priv_rank, axis=1)
            tau_b_rows(pub_rank, priv_rank, xy_order, out)
            taus[cols] = out
    band = np.quantile(by_place, [0.025, 0.5, 0.975], axis=1, method="inverted_cdf")
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
