r"""Regression scores only: how heavy the residuals' tails are, read from a board's public/private gaps.

A regression score's noise depends on the residuals' tails, which a board of scores does not show:
the SD of a mean of squared residuals is ``sqrt((kurtosis - 1) / n) sigma^2`` (``Var(e^2) =
(kurtosis - 1) sigma^4``), so RMSE's noise at kurtosis 20 (a few gross errors) is three times its
noise at 3 (normal residuals). A board with public *and* private scores on disjoint slices shows
its own noise: an entry's gap ``public - private`` is free of its true score, and its spread over
the entries is the noise (:mod:`leaderboard.noise.correlation`).

Two unknowns, one identity
--------------------------
The gaps' spread is ``(1 - rho) (s_pub^2 + s_priv^2)``: ``rho`` the correlation between entries'
errors, ``s`` each score's noise, which grows with the kurtosis. One identity does not give both.
:func:`read_noise_scale` separates them by *reading the tails at a stated correlation*: 0 unless
``--correlation`` states one, so the tails are the lightest that explain the gaps (any correlation
above 0 would need heavier ones). In units of the normal universe's noise (every entry's SD at its
private score, at each slice's size), the gaps spread ``spread = R / df`` (the chi-square statistic
of :func:`~leaderboard.noise.correlation.estimate_correlation`, free of a common shift between the
boards), so each score's noise is that of normal residuals times ``sqrt(spread / (1 - rho))``.
The scale used is

    ``c = max(1, sqrt(spread / (1 - rho)) * t_{df, 1 - alpha/2} / z_{1 - alpha/2})``:

never narrower than normal residuals' noise, and with the t quantile of the gaps' degrees of
freedom in place of the normal's, as a t interval takes its SD from the data (the intervals are
the normal universe's, every simulated score's distance from its truth stretched by ``c``).

What each number then rests on
------------------------------
- **Comparisons** (tiers, rank sets, the best set, the post-mortem's noise) rest on the noise of
  *differences* between entries, ``(1 - rho)(s_i^2 + s_j^2)``: exactly what the gaps measure, at
  any correlation and any tails (the correlation is then estimated at the scaled noise, as for
  every metric).
- **Each entry's own interval** needs ``s`` itself, and so the separation: it holds when the
  entries' errors are independent, or share only light-tailed noise. Entries that share their
  largest errors (rows every model gets badly wrong) can have heavier tails than the gaps show,
  and then their own intervals are too narrow (measured in docs/scores_only_regression.md: 23%
  coverage for t(3) residuals 90% shared between entries, against 94% for independent entries).
- **Errs wide** whenever anything besides sampling noise moves the gaps: entries that over-fitted
  the public board, public scores of other submissions, and a two-stage competition's other data.
- Identical entries (the same public *and* private score) are one submission counted several
  times: their gaps are one gap, so each pair counts once.

Examples
--------
Thirty entries whose gaps have four times the variance normal residuals give (unit SDs); the
thirty gaps' own spread, 2.71, gives a scale of 1.72 with the t quantile of 29 degrees of freedom:

>>> rng = np.random.default_rng(0)
>>> public, private = 1 + 2 * rng.standard_normal(30), np.ones(30)
>>> s = read_noise_scale(public, private, np.full(30, 1 / np.sqrt(2)), np.full(30, 1 / np.sqrt(2)))
>>> s.df, round(s.spread, 2), round(s.scale, 2)
(29, 2.71, 1.72)
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtri, stdtrit   # norm.ppf and t.ppf, bit for bit, without scipy.stats

from leaderboard.noise.correlation import estimate_correlation
from leaderboard.params import DEFAULT_ALPHA

# metrics whose noise is a mean of squared residuals': their scale is a kurtosis (1 + 2 c^2)
SQUARED = ("rmse", "mse", "rmsle", "msle")


@dataclass(frozen=True)
class NoiseScale:
    """The regression noise read from a board's public/private gaps (module docstring).

    Attributes
    ----------
    scale : float
        ``c``: every simulated score's distance from its truth is multiplied by it (at least 1);
        NaN when there is nothing to read (``reason`` says why).
    spread : float
        The gaps' spread in units of the normal universe's noise of independent entries, divided
        by ``1 - correlation``: 1 if the residuals are normal.
    df : int
        Degrees of freedom of the spread (distinct pairs less the shift's directions).
    n_pairs : int
        Distinct (public, private) pairs read.
    duplicates : int
        Entries whose pair repeated another's (counted once).
    correlation : float
        The correlation the tails were read at (0, or ``--correlation``).
    alpha : float
    reason : str or None
    """

    scale: float
    spread: float
    df: int
    n_pairs: int
    duplicates: int
    correlation: float
    alpha: float
    reason: str | None = None

    @property
    def ok(self) -> bool:
        return self.reason is None

    @property
    def floored(self) -> bool:
        """The gaps showed no more noise than normal residuals give: the scale is 1."""
        return self.ok and self.scale == 1.0

    def kurtosis(self, metric: str) -> float | None:
        """For squared-error metrics, the residuals' kurtosis whose noise the scale is: normal
        residuals (3) have ``Var(e^2) = 2 sigma^4``, so ``c^2`` times that is ``1 + 2 c^2``;
        None for other metrics (their noise is not a kurtosis alone).

        Examples
        --------
        >>> NoiseScale(2.0, 4.0, 20, 22, 0, 0.0, 0.05).kurtosis("rmse")
        9.0
        """
        return 1.0 + 2.0 * self.scale ** 2 if self.ok and metric in SQUARED else None

    def to_json(self) -> dict:
        return {"scale": _num(self.scale), "spread": _num(self.spread), "df": int(self.df),
                "pairs": int(self.n_pairs), "duplicates": int(self.duplicates),
                "correlation": float(self.correlation), "reason": self.reason}


def read_noise_scale(public: np.ndarray, private: np.ndarray, sd_public: np.ndarray,
                     sd_private: np.ndarray, *, correlation: float = 0.0,
                     alpha: float = DEFAULT_ALPHA) -> NoiseScale:
    """The factor by which the board's gaps say its noise exceeds normal residuals'.

    Parameters
    ----------
    public, private : array of float, shape (E,)
        Each entry's scores on two disjoint slices (NaN where missing).
    sd_public, sd_private : array of float, shape (E,)
        Each entry's noise at each slice's size under *normal* residuals, independent entries
        (the universe's SD at its private score; NaN where it has none).
    correlation : float
        The correlation between entries' errors at which the tails are read (0: the lightest
        tails that explain the gaps).
    alpha : float
        The intervals' error rate (the t quantile of the scale).

    Returns
    -------
    NoiseScale

    Examples
    --------
    Two copies of one submission count once; gaps that spread less than normal noise keep the
    normal universe's (scale 1):

    >>> sd = np.full(4, 0.1)
    >>> s = read_noise_scale([1.0, 1.0, 1.1, 0.9], [1.0, 1.0, 1.05, 0.95], sd, sd)
    >>> s.n_pairs, s.duplicates, s.scale
    (3, 1, 1.0)
    """
    est = estimate_correlation(public, private, sd_public, sd_private, alpha=alpha,
                               distinct=True)
    nan = float("nan")
    if not est.ok:
        return NoiseScale(nan, nan, est.df, est.n_pairs, est.duplicates, float(correlation), alpha,
                          est.reason)
    spread = est.spread / (1.0 - correlation)
    t_over_z = float(stdtrit(est.df, 1 - alpha / 2) / -ndtri(alpha / 2))
    scale = max(1.0, float(np.sqrt(spread)) * t_over_z)
    return NoiseScale(scale, float(spread), est.df, est.n_pairs, est.duplicates, float(correlation),
                      alpha)


def _num(x: float) -> float | None:
    return float(x) if np.isfinite(x) else None
