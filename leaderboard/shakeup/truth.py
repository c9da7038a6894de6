"""The true scores behind a noisy private board, for simulating competitions with noise alone.

The private scores are themselves noisy, so taking them as the truth spreads the simulated board
wider (and so makes it calmer) than the real one. :func:`estimate_truth` pulls them together first.
"""
from __future__ import annotations

import math
import threading

import numpy as np

TRUTH_METHODS = ("posterior-mean", "moments")
GRID_POINTS = 200   # support points of the estimated distribution of true scores
EM_ITERATIONS = 300  # the estimates barely move between 200 and 8000 steps (measured)


def estimate_truth(private: np.ndarray, sd_private, *, method: str = "posterior-mean"
                   ) -> np.ndarray:
    """True scores for the simulation, from the noisy private scores.

    The private scores are the truth plus noise, so they are more spread out than the truth. Used
    as the truth, they make the simulated boards more separated, hence more stable, than the real
    one: the noise baseline comes out too calm and every test built on it anti-conservative,
    exactly when true scores are close. Both methods pull the scores together:

    - ``"posterior-mean"`` (default): empirical Bayes. The distribution of true scores is
      estimated by nonparametric maximum likelihood (Kiefer and Wolfowitz 1956; Jiang and Zhang
      2009) from ``private_i ~ Normal(truth_i, sd_i**2)``, on a grid of 200 points (half even,
      half at quantiles of the scores) by 300 EM steps, and each entry gets its posterior mean
      (which keeps the order of equally precise entries; a less precise one is pulled harder).
      Posterior means are less spread than the truth (by the posterior variance, Louis 1984), and
      they pull together where entries are packed and leave clear gaps alone, so the simulated
      boards are, if anything, wilder than the real one: the tests built on them lean
      conservative.
    - ``"moments"``: shrink every score toward the mean by one factor (keeping the order), so
      that the estimates' variance is ``var(private) - mean(sd_private**2)`` (floored at 0).
      With independent errors ``E[var(private)] = var(truth) + mean(sd**2)`` (``ddof=1``), so
      the overall spread is right on average. But one factor serves the whole board: when a tail
      of weak entries makes most of the variance, the close-packed leaders are hardly pulled
      together and keep their noise.

    Measured by simulation (known truth, binomial-like errors; 24 settings of 100-1000 entries,
    public slices of 30-1000 rows, true scores tied, close, spread, clustered or with a weak tail;
    400 honest competitions each; the tests re-check some): on ``"posterior-mean"`` the share of
    p-values <= 0.05 was 0.015-0.060 for ``p_overfit``, 0-0.068 for ``p_shakeup`` and
    ``p_spearman`` and 0.030-0.082 for ``p_winner_jump`` (Monte Carlo SE 0.011), with the same
    power for the overfitting test as the other estimates. On ``"moments"``, a tight top with a
    tail of weak entries made 78-86% of honest shake-ups "significant" (overfitting test 8-15%).
    Placing the estimated distribution's quantiles in order instead (the spread-matching "GR"
    estimates of Shen and Louis 1998) rejected honest boards up to 13% of the time: a spread that
    is right on average is too wide too often.

    Both assume independent errors. Errors that entries share (a common test set) spread the
    scores less than ``sd`` says, so the estimates come out too close together: the simulated
    boards get wilder and the tests more conservative, not the other way. Neither needs the
    metric's direction (both commute with turning the scores around).

    Parameters
    ----------
    private : array_like, shape (E,)
        Observed private scores (finite).
    sd_private : float or array_like, shape (E,)
        Standard error of each private score.
    method : {"posterior-mean", "moments"}

    Returns
    -------
    ndarray, shape (E,)
        Estimated true scores, on the metric's own scale; the private scores themselves when
        there is nothing to estimate (one entry, all equal, or no noise).

    Examples
    --------
    Scores with SD 0.065 and standard errors 0.03 keep a spread of about sqrt(0.065**2 - 0.03**2)
    with moments; the posterior means pull them together a little more:

    >>> x = np.array([0.80, 0.85, 0.90, 0.75, 0.80, 0.70, 0.85, 0.75])
    >>> est = estimate_truth(x, 0.03, method="moments")
    >>> round(float(np.std(x, ddof=1)), 3), round(float(np.std(est, ddof=1)), 3)
    (0.065, 0.058)
    >>> round(float(np.std(estimate_truth(x, 0.03), ddof=1)), 3)
    0.052
    """
    private = np.asarray(private, dtype=float)
    sd = np.broadcast_to(np.asarray(sd_private, dtype=float), private.shape)
    if private.ndim != 1 or not np.isfinite(private).all():
        raise ValueError("private must be a 1-D array of finite scores")
    if not (np.isfinite(sd).all() and (sd >= 0).all()):
        raise ValueError("sd_private must be finite and non-negative")
    if method not in TRUTH_METHODS:
        raise ValueError(f"method must be one of {', '.join(TRUTH_METHODS)}, got {method!r}")
    if private.size < 2 or np.ptp(private) == 0 or not sd.any():
        return private.copy()
    if method == "moments":
        centre = private.mean()
        observed_var = private.var(ddof=1)
        factor = math.sqrt(max(observed_var - float(np.mean(sd ** 2)), 0.0) / observed_var)
        return centre + factor * (private - centre)
    return _posterior(private, sd)[0]


def truth_and_spread(private: np.ndarray, sd_private) -> tuple[np.ndarray, np.ndarray]:
    """The posterior means of :func:`estimate_truth` (``"posterior-mean"``) and each true score's
    posterior SD, from one fit.

    The posterior means are less spread than the truth (by the posterior variance); a truth drawn
    from each entry's posterior, ``mean + sd * Z``, has the spread of the estimated distribution
    of true scores. The overfitting test's power uses such draws
    (:func:`~leaderboard.shakeup.overfit.overfit_test`). Normal posteriors are an approximation
    (the fitted prior is discrete); zero SDs where there is nothing to estimate.

    Examples
    --------
    >>> x = np.array([0.80, 0.85, 0.90, 0.75, 0.80, 0.70, 0.85, 0.75])
    >>> mean, sd = truth_and_spread(x, 0.03)
    >>> bool(np.allclose(mean, estimate_truth(x, 0.03))), bool(0 < sd.max() < 0.03)
    (True, True)
    """
    private = np.asarray(private, dtype=float)
    sd = np.broadcast_to(np.asarray(sd_private, dtype=float), private.shape)
    if private.size < 2 or np.ptp(private) == 0 or not sd.any() or not (
            np.isfinite(private).all() and np.isfinite(sd).all()):
        return estimate_truth(private, sd), np.zeros(private.shape)   # its checks and shortcut
    return _posterior(private, sd)


KEPT_FITS = 4   # the latest fits, by their inputs
_FITS: dict[bytes, tuple[np.ndarray, np.ndarray]] = {}
_FITS_LOCK = threading.Lock()   # boards analysed on threads at once (Dask's threaded workers)


def _posterior(x: np.ndarray, sd: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Posterior means and SDs of ``t_i`` given ``x_i ~ N(t_i, sd_i^2)``, the prior of the ``t_i``
    fitted by grid NPMLE (EM from the uniform weights).

    The fit depends on the private scores and SDs alone, and its 300 EM steps are most of a small
    board's post-mortem (5 of 15 ms at 150 entries); a board analysed again with other public
    scores or options (a notebook's what-ifs; the known-truth tests' raised public tops) gets a
    copy of the same fit, bit for bit, from the :data:`KEPT_FITS` latest.
    """
    key = x.tobytes() + np.ascontiguousarray(sd).tobytes()   # both float64, of one length
    with _FITS_LOCK:
        fit = _FITS.pop(key, None)
    if fit is None:
        fit = _fit(x, sd)
    with _FITS_LOCK:
        _FITS[key] = fit                 # the most recent last
        while len(_FITS) > KEPT_FITS:
            del _FITS[next(iter(_FITS))]
    return fit[0].copy(), fit[1].copy()


def _fit(x: np.ndarray, sd: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_posterior`'s computation."""
    lo, hi = float(x.min()), float(x.max())
    half = GRID_POINTS // 2
    grid = np.unique(np.r_[np.linspace(lo, hi, half), np.quantile(x, np.linspace(0, 1, half))])
    sd = np.maximum(sd, 1e-9 * (hi - lo))  # an exact score: all its likelihood at the nearest point
    # One (E, grid) array, transformed in place (the same operations as
    # 0.5 * (z2 - z2.min(axis=1)) with z2 = ((x - grid) / sd) ** 2, then exp(-.)): 160 MB at
    # 100,000 entries, where the separate temporaries were five times that.
    lik = np.subtract(x[:, None], grid[None, :])
    lik /= sd[:, None]
    np.square(lik, out=lik)
    lik -= lik.min(axis=1, keepdims=True)
    lik *= 0.5
    # Each row is scaled by its largest value (EM is blind to row scale), so no row underflows;
    # values past exp(-700), and weights that EM has all but removed, are set to exactly 0: they
    # change nothing, and subnormal numbers would slow the products down tenfold.
    far = lik > 700
    np.negative(lik, out=lik)
    np.exp(lik, out=lik)
    lik[far] = 0.0
    del far
    weights = np.full(grid.size, 1.0 / grid.size)
    for _ in range(EM_ITERATIONS):
        weights *= lik.T @ (1.0 / np.maximum(lik @ weights, 1e-300)) / x.size
        weights[weights < 1e-200] = 0.0
    lik *= weights   # the posterior weights of each entry's grid points
    total = lik.sum(axis=1)
    mean = lik @ grid / total
    second = lik @ (grid - grid.mean()) ** 2 / total    # centred: no cancellation at 0.8 +- 1e-4
    return mean, np.sqrt(np.maximum(second - (mean - grid.mean()) ** 2, 0.0))
