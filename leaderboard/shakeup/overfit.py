"""Adaptive overfitting: did entries climb the public board by chasing it?

Under the null hypothesis of no adaptive overfitting, an entry's gap between its public and its
private score (oriented, ``gap = public - private``) is noise around a COMMON shift: the public
slice can simply be easier or harder than the private one for everybody (and in two-stage
competitions the two boards are scored on different data). Teams that tuned to the public board
have public scores above what their private scores predict, and they sit near the public top.

:func:`overfit_test` gives

- a per-entry test of ``z = (gap - shift) / sd_gap`` with Holm's correction (the *drivers*);
- a global test: the mean ``z`` of the public top, compared with the same statistic on competitions
  simulated by noise alone, which already contain the regression to the mean of lucky public
  leaders;
- the noise band for the public-vs-private scatter;
- the global test's power: the inflation of the public top's scores (in gap SDs, and in score
  units) that it detects with probability 80% (:func:`detectable_inflation`), so that "no sign of
  adaptive overfitting" comes with how large an overfit could hide.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr, ndtri   # norm.sf(z), norm.ppf(q) bit for bit, without scipy.stats

from collections.abc import Callable

from leaderboard.params import DEFAULT_ALPHA, DEFAULT_SEED, check_alpha
from leaderboard.shakeup.baseline import CHUNK_ELEMENTS, NoiseDraws, check_draws
from leaderboard.shakeup.observed import top_count
from leaderboard.shakeup.power import (POWER, critical_value, detectable_inflation,  # noqa: F401
                                       statistics, top_means, truth_noise)
from leaderboard.tiers.holm import holm_reject

BAND_Z = float(ndtri(0.975))  # the scatter's band is the central 95% under noise


@dataclass(frozen=True)
class NoiseBand:
    """The 95% range of the private score that noise alone gives at each public score (raw scale).

    ``x`` ascending public scores; ``low <= centre <= high`` private scores at each.
    """

    x: np.ndarray
    low: np.ndarray
    centre: np.ndarray
    high: np.ndarray


@dataclass(frozen=True)
class OverfitTest:
    """Per-entry and global tests of adaptive overfitting to the public board.

    Attributes
    ----------
    gap : ndarray, shape (E,)
        Oriented ``public - private`` (positive: better on the public board).
    shift : float
        The common shift, the median gap (oriented).
    sd_gap : ndarray, shape (E,)
        Noise SD of each gap under the noise model (from the draws).
    z : ndarray, shape (E,)
        ``(gap - shift) / sd_gap``; 0 for an entry whose gap has no noise at all.
    p_entry : ndarray, shape (E,)
        One-sided normal p-value ``1 - Phi(z)`` of "this entry's public score is inflated".
    drivers : ndarray of int
        Entries rejected by Holm's procedure at ``alpha``, largest ``z`` first. Like every array
        here, indexed as the scores passed in (the kept entries), not the full input board.
    statistic : float
        Mean ``z`` over the public top ``top_size`` entries.
    null : ndarray, shape (R,)
        The statistic on each simulated competition (noise alone).
    p_overfit : float
        ``(1 + #{null >= statistic}) / (1 + R)``.
    top_size : int
        ``ceil(top_fraction * E)``, at least 5 and at most E.
    alpha : float
    sign : float
        +1 if higher scores are better.
    public : ndarray, shape (E,)
        Raw public scores (for the noise band).
    detectable_sd : float
        The inflation, in gap SDs, of every public-top entry's public score that the global test
        detects (``p_overfit < alpha``) with probability :data:`POWER` (see
        :func:`detectable_inflation`).
    detectable : float
        The same in score units: ``detectable_sd`` times the public top's median gap SD.
    """

    gap: np.ndarray
    shift: float
    sd_gap: np.ndarray
    z: np.ndarray
    p_entry: np.ndarray
    drivers: np.ndarray
    statistic: float
    null: np.ndarray
    p_overfit: float
    top_size: int
    alpha: float
    sign: float
    public: np.ndarray
    detectable_sd: float = float("nan")
    detectable: float = float("nan")

    @property
    def flagged(self) -> np.ndarray:
        """Boolean mask of the drivers, shape (E,)."""
        mask = np.zeros(self.gap.size, dtype=bool)
        mask[self.drivers] = True
        return mask

    def entry_band(self) -> tuple[np.ndarray, np.ndarray]:
        """Per entry, the 95% range of its private score under noise alone (raw scale).

        ``public - shift +- 1.96 sd_gap`` (turned back to the metric's direction): an entry whose
        private score lies beyond it on the worse side did worse privately than noise and the
        common shift explain. Not adjusted for multiplicity (about 2.5% of honest entries fall
        there); the drivers are the Holm-adjusted verdict.
        """
        centre = self.public - self.sign * self.shift
        return _ordered(centre - BAND_Z * self.sd_gap, centre + BAND_Z * self.sd_gap)

    def band(self, grid: np.ndarray | None = None, points: int = 50) -> NoiseBand:
        """The noise band for the scatter: at each public score, the private range noise allows.

        The centre is ``public - shift`` and the half-width ``1.96 sd_gap``, with ``sd_gap`` taken
        as a function of the public score: the entries are split by public score into up to 20
        groups of near-equal size, each group's median SD is placed at its median public score, and
        the grid is interpolated linearly between them (flat beyond the ends). Like
        :meth:`entry_band`, a per-point 95% range, not adjusted for multiplicity or selection.

        Parameters
        ----------
        grid : array_like, optional
            Public scores (raw). Default: ``points`` evenly spaced over the observed range.
        points : int
        """
        order = np.argsort(self.public, kind="stable")
        groups = np.array_split(order, min(20, order.size))
        xs = np.array([np.median(self.public[g]) for g in groups])
        sds = np.array([np.median(self.sd_gap[g]) for g in groups])
        if grid is None:
            grid = np.linspace(self.public.min(), self.public.max(), points)
        x = np.sort(np.asarray(grid, dtype=float))
        sd = np.interp(x, xs, sds)
        centre = x - self.sign * self.shift
        low, high = _ordered(centre - BAND_Z * sd, centre + BAND_Z * sd)
        return NoiseBand(x=x, low=low, centre=centre, high=high)


def _ordered(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return np.minimum(a, b), np.maximum(a, b)


def _overfit_iv(public, private, draws, higher_is_better, alpha, top_fraction, batch):
    public = np.asarray(public, dtype=float)
    private = np.asarray(private, dtype=float)
    check_draws(draws)
    if public.ndim != 1 or public.shape != private.shape or public.size != draws.n_entries:
        raise ValueError(f"public and private must be 1-D with one score per entry of the draws "
                         f"({draws.n_entries}), got shapes {public.shape} and {private.shape}")
    if not (np.isfinite(public).all() and np.isfinite(private).all()):
        raise ValueError("scores must be finite: pass the kept entries (ShakeupStats.keep)")
    if public.size < 2:
        raise ValueError("need at least 2 entries")
    if (1.0 if higher_is_better else -1.0) != draws.sign:
        raise ValueError("higher_is_better disagrees with the direction the draws were made for")
    check_alpha(alpha)   # the one check of an error rate (a ValueError)
    if not 0 < top_fraction <= 1:
        raise ValueError(f"top_fraction must be in (0, 1], got {top_fraction:g}")
    batch = max(1, CHUNK_ELEMENTS // public.size) if batch is None else int(batch)
    if batch < 1:
        raise ValueError(f"batch must be at least 1, got {batch}")
    return public, private, batch


def _centred_z(gap: np.ndarray, sd_gap: np.ndarray) -> np.ndarray:
    """``(gap - median gap) / sd_gap`` along the last axis; 0 where ``sd_gap`` is 0."""
    centred = gap - np.median(gap, axis=-1, keepdims=True)
    safe = np.where(sd_gap > 0, sd_gap, 1.0)
    return np.where(sd_gap > 0, centred / safe, 0.0)


def overfit_test(public: np.ndarray, private: np.ndarray, draws: NoiseDraws,
                 higher_is_better: bool, *, alpha: float = DEFAULT_ALPHA, top_fraction: float = 0.1,
                 batch: int | None = None, truth_sd: np.ndarray | None = None,
                 seed: int = DEFAULT_SEED, honest_draws: NoiseDraws | None = None,
                 refit: Callable[[np.ndarray], NoiseDraws] | None = None) -> OverfitTest:
    """Test whether public scores beat private scores by more than noise and a common shift.

    Per entry: ``z = (gap - shift) / sd_gap`` with ``gap`` the oriented public-minus-private score,
    ``shift`` the median gap and ``sd_gap`` the SD of ``public_errors - private_errors`` in the
    draws. ``p_entry = 1 - Phi(z)`` is the normal tail rather than the draws' empirical tail,
    because Holm over E entries needs p-values near ``alpha / E``, far below the ``1 / R`` that R
    draws can resolve; the gap is a difference of two averages over many rows, and the scores-only
    draws are normal by construction. The drivers are Holm's rejections at ``alpha``.

    Globally: ``S`` = mean ``z`` over the ``top_size`` entries with the best public scores. The
    null distribution is ``S`` recomputed on each simulated competition (replicate ``r`` of the
    draws): the top by simulated public score ``truth + public_errors[:, r]``, the gaps
    ``public_errors - private_errors`` centred by that replicate's median. Because the null picks
    its top by public score too, it contains the regression to the mean that lucky public leaders
    show anyway, so ``p_overfit`` measures what luck cannot explain.

    Guarantees, and what they assume: with the true scores and the noise model right, ``S`` and
    the simulated ``S`` are exchangeable and ``P(p_overfit <= a) <= a`` (up to Monte Carlo error);
    the per-entry tests keep the family-wise rate of falsely flagged entries at about ``alpha``
    (Holm is valid under any dependence; the normal tail and the estimated shift are
    approximations, good when entries are many). In practice the truth is estimated from the
    private scores (:func:`~leaderboard.shakeup.truth.estimate_truth`) and, for scores only,
    the errors are normal with the universe simulation's SDs. Measured with known truth (150-1000
    entries, 24 settings, 400 honest competitions each): ``p_overfit <= 0.05`` in 1.5-6.0% of
    them; in the tests, any false driver in 3.3% of 240 competitions, and with the top 10% by truth
    given 2 gap-SDs on the public board only, ``p_overfit <= 0.05`` in 97% (65 of 67 drivers
    among the inflated entries). A noise model that understates the errors makes both tests
    reject too often.

    Parameters
    ----------
    public, private : array_like, shape (E,)
        Raw scores of the entries the draws describe (the kept ones), finite.
    draws : NoiseDraws
    higher_is_better : bool
    alpha : float
        Family-wise error rate of the drivers.
    top_fraction : float
        Share of the public board in the global statistic (at least 5 entries, at most E).
    batch : int, optional
        Replicates handled at once (memory); the results do not depend on it.
    truth_sd : array_like, shape (E,), optional
        The posterior SD of each entry's true score (:func:`~leaderboard.shakeup.truth.truth_and_spread`):
        the power statement (``detectable_sd``) then rests on honest competitions whose truths are
        drawn from their posteriors (see :func:`detectable_inflation`); the test itself is the same.
    seed : int
        The seed of those truth draws (blocks of 32 replicates, so ``batch`` changes nothing).
    honest_draws : NoiseDraws, optional
        The errors of those honest competitions, when they differ from the null's: scores only,
        normal errors at the point estimate of the correlation between entries (the null's is
        the lower end of its interval). Default: ``draws``.
    refit : callable, optional
        ``refit(public)``: the draws the analysis would make for a board whose raw public scores
        are ``public`` (the correlation between entries read again from its gaps): the power
        statement then re-reads the inflated board as the analysis would
        (:mod:`leaderboard.shakeup.power`).

    Returns
    -------
    OverfitTest

    Examples
    --------
    Forty equal entries; the top four on the public board gained 0.1 there only:

    >>> from leaderboard.shakeup.baseline import NoiseDraws
    >>> rng = np.random.default_rng(0)
    >>> truth = np.full(40, 0.8)
    >>> public = truth + 0.02 * rng.standard_normal(40)
    >>> private = truth + 0.01 * rng.standard_normal(40)
    >>> public[:4] += 0.1
    >>> draws = NoiseDraws.normal(truth, 0.02, 0.01, True, replicates=500)
    >>> res = overfit_test(public, private, draws, True)
    >>> res.p_overfit < 0.01, sorted(res.drivers.tolist())
    (True, [0, 1, 2, 3])
    """
    public, private, batch = _overfit_iv(public, private, draws, higher_is_better, alpha,
                                         top_fraction, batch)
    e, r = draws.n_entries, draws.n_replicates
    gap = draws.sign * (public - private)
    top = top_count(e, top_fraction)
    # The null's pass over the simulated competitions is gap_sd's own second pass: each
    # replicate's public top and its centred gaps are kept (R x top) until the SDs are known.
    sim_leaders = np.empty((r, top), dtype=np.int64)
    sim_centred = np.empty((r, top))
    # the same competitions, their truths drawn from the posteriors: honest boards for the power
    spread = None if truth_sd is None or not np.any(np.asarray(truth_sd) > 0) \
        else np.asarray(truth_sd, dtype=float)
    honest_leaders = np.empty((r, top), dtype=np.int64) if spread is not None else None
    honest_centred = np.empty((r, top)) if spread is not None else None

    def simulated_top(cols, pub_err, priv_err):  # (c, E): one simulated competition per row
        sim_gap = pub_err - priv_err
        centred = sim_gap - np.median(sim_gap, axis=-1, keepdims=True)
        # The simulated public top; ties (identical entries) are interchangeable here.
        leaders = np.argpartition(-(draws.truth + pub_err), top - 1, axis=1)[:, :top]
        sim_leaders[cols] = leaders
        sim_centred[cols] = np.take_along_axis(centred, leaders, axis=1)
        if spread is not None:
            drawn = draws.truth + spread * truth_noise(cols, e, seed)
            leaders = np.argpartition(-(drawn + pub_err), top - 1, axis=1)[:, :top]
            honest_leaders[cols] = leaders
            honest_centred[cols] = np.take_along_axis(centred, leaders, axis=1)

    sd_gap = draws.gap_sd(each=simulated_top, batch=batch)
    z = _centred_z(gap, sd_gap)
    p_entry = ndtr(-z)
    rejected = np.flatnonzero(holm_reject(p_entry, alpha))
    drivers = rejected[np.argsort(-z[rejected], kind="stable")]
    leaders = np.argsort(-draws.sign * public, kind="stable")[:top]
    statistic = float(z[leaders].mean())
    null = top_means(sim_leaders, sim_centred, sd_gap, batch)
    honest: np.ndarray | None = None
    if spread is not None and honest_draws is not None:   # honest boards of their own errors
        honest = statistics(honest_draws, top, sd_gap, batch, truth_sd=spread, seed=seed)
    elif honest_leaders is not None and honest_centred is not None:   # spread is given
        honest = top_means(honest_leaders, honest_centred, sd_gap, batch)
    p_overfit = (1 + int(np.count_nonzero(null >= statistic))) / (1 + r)

    critical_at: Callable[[float], float] | None = None
    if refit is not None:
        board_of = refit

        def critical_at(delta: float) -> float:   # the inflated board, re-read as the analysis would
            raised = public + draws.sign * delta * np.where(np.isin(np.arange(e), leaders),
                                                            sd_gap, 0.0)
            return critical_value(statistics(board_of(raised), top, sd_gap, batch), alpha)

    detectable_sd = detectable_inflation(null, alpha, gap=gap, sd_gap=sd_gap, leaders=leaders,
                                         honest=honest, critical_at=critical_at)
    return OverfitTest(gap=gap, shift=float(np.median(gap)), sd_gap=sd_gap, z=z, p_entry=p_entry,
                       drivers=drivers, statistic=statistic, null=null, p_overfit=p_overfit,
                       top_size=top, alpha=float(alpha), sign=draws.sign, public=public,
                       detectable_sd=detectable_sd,
                       detectable=detectable_sd * float(np.median(sd_gap[leaders])))
