"""The residual universe for regression: predictions are the truth plus residuals of a chosen shape.

The universe holds 16,384 quantile cells. The truth ``y`` takes evenly spaced quantiles of a standard normal
(or, for metrics on a log or percentage scale, of a standard log-normal, so that every value is
positive). The residuals take evenly spaced quantiles of the chosen distribution with unit variance
(normal, Laplace, or Student t with ``df`` degrees of freedom), paired with the truths in a fixed
random order, so that they are independent of ``y``. One scale ``sigma`` is solved so the metric on the
universe equals the target:

    additive scale (MAE, RMSE, MSE, MedAE, R^2, explained variance):  pred = y + sigma * e
    multiplicative (MAPE, SMAPE, MSLE, RMSLE):                        pred = y * exp(sigma * e)

The residuals' two extreme cells (probability 1/16,384 each) are split into ``TAIL_CELLS`` finer
cells, weighted by their probabilities, down to a tail probability of ``TAIL_DEPTH`` (1e-12), and a
test set draws each row with its probability. Without them a t(3) universe's tail stopped at
1/32,768, which a test set of 5,000 rows passes one time in three: its 95% intervals held t(3)
boards' true RMSE for 79% of entries at 5,000 rows; with them its simulated RMSEs have the spread
of real t(3) residuals' at any size (``tests/noise/test_regression_tails.py``). MAPE keeps the plain
grid: its rows are ``|exp(sigma e) - 1|``, whose mean a deep t tail would swamp.

The shape matters: heavy-tailed residuals (Laplace, t) make squared-error metrics noisier at the same
score, which is why it is selectable. The default is Student t with 3 degrees of freedom
(:data:`~leaderboard.noise.universes.DEFAULT_RESIDUALS`): real residuals are rarely normal, and t(3)
residuals (infinite kurtosis) are as noisy as the families of the study get. Since issue 39 the
default holds only where nothing shows the tails: a board with public and private scores reads its
noise from their gaps (normal residuals with ``noise_scale``, :mod:`leaderboard.noise.tails`), and
a one-column board's first sentence gives the verdict under normal residuals too
(:mod:`leaderboard.pipelines.tails`). ``noise_scale`` stretches every simulated score's distance
from its truth. The study
(docs/scores_only_regression.md; data/regression_study.json, quoted on the page) measures how
often its intervals hold the true RMSE, MAE, RMSLE, MAPE and R2 under normal, Laplace, t(3),
outlying and skewed residuals, and the price: intervals several times as wide as a normal
universe's when the residuals are in fact normal (``--residuals normal`` then, or a larger
``--df``). ``df`` may be as low as 2 (infinite variance): the universe's finite tail keeps every
moment finite.
"""
from __future__ import annotations

import numpy as np
# norm.ppf(q) is ndtri(q) and t.ppf(q, df) is stdtrit(df, q), bit for bit (scipy/stats/
# _continuous_distns.py), without scipy.stats' ~1 s import
from scipy.special import ndtri, stdtrit

from leaderboard.metrics import Metric
from leaderboard.noise.rng import BLOCK, MULTINOMIAL_ROWS, draw_rows, multinomial_rows
from leaderboard.noise.universes.finite import CalibratedUniverse
from leaderboard.params import DEFAULT_DF, DEFAULT_RESIDUALS

_PICKS_PER_CALL = 1 << 20  # bounds the memory of counted draws

ROWS = 16384
# The two extreme cells of the 16,384 split into TAIL_CELLS cells each, down to a tail probability
# of TAIL_DEPTH (1e-12): without them a t(3) universe's tail stopped at probability 1/32,768, which a
# test set of 5,000 rows passes one time in three, and its 95% RMSE intervals held the truth of
# t(3) residuals in 79% of entries at 5,000 rows (docs/scores_only_regression.md).
TAIL_DEPTH = 1e-12
_TAIL_RATIO = 0.75        # each tail cell's width over the next one in: e changes ~10% across it
TAIL_CELLS = int(np.ceil(np.log(TAIL_DEPTH * ROWS) / np.log(_TAIL_RATIO)))
# MAPE's rows are |exp(sigma e) - 1|: the deep tails' exponentials would swamp its truth (a t's
# is infinite), so its universe keeps the plain grid.
_SHALLOW_TAILS = ("mape",)
_MULTIPLICATIVE = ("mape", "smape", "msle", "rmsle")
_PAIRING_SEED = 20260402  # fixes which residual goes with which truth; part of the universe
_MAX_EXPONENT = 700.0     # exp() of more overflows float64


def _quantile_cells(deep_tails: bool) -> tuple[np.ndarray, np.ndarray]:
    """Cells of the unit interval: their probability midpoints and their probabilities.

    ``ROWS`` equal cells; with ``deep_tails`` the first and the last are each split into
    ``TAIL_CELLS`` cells whose widths shrink by ``_TAIL_RATIO`` down to ``TAIL_DEPTH``, so the grid
    holds the distribution's tail as far out as a test set of millions of rows reaches. The
    midpoints come back ordered: the low tail's cells, the body's ``ROWS - 2`` cells, the high
    tail's.
    """
    body = (np.arange(ROWS) + 0.5) / ROWS
    if not deep_tails:
        return body, np.full(ROWS, 1.0 / ROWS)
    bounds = np.append((1.0 / ROWS) * _TAIL_RATIO ** np.arange(TAIL_CELLS), 0.0)  # 1/ROWS .. 0
    low_mid, low_p = 0.5 * (bounds[:-1] + bounds[1:]), bounds[:-1] - bounds[1:]
    mid = np.concatenate([low_mid[::-1], body[1:-1], 1.0 - low_mid])
    return mid, np.concatenate([low_p[::-1], np.full(ROWS - 2, 1.0 / ROWS), low_p])


def _unit_residuals(shape: str, df: float, deep_tails: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """The residual distribution on quantile cells, scaled to unit variance: values and
    probabilities (see :func:`_quantile_cells`)."""
    u, p = _quantile_cells(deep_tails)
    if shape == "normal":
        e = ndtri(u)
    elif shape == "laplace":
        from scipy.stats import laplace   # lazily: scipy.stats takes ~1 s to import
        e = laplace.ppf(u) / np.sqrt(2.0)
    else:   # the factor only tidies the scale (the grid is rescaled below); none at 2 df
        e = stdtrit(df, u) * (np.sqrt((df - 2.0) / df) if df > 2.0 else 1.0)
    e = e - np.dot(p, e)
    return e / np.sqrt(np.dot(p, e * e)), p   # exactly unit root mean square on the grid


class ResidualUniverse(CalibratedUniverse):
    """Regression with residuals independent of the truth, their scale calibrated.

    Parameters
    ----------
    metric : Metric
        A regression metric (predictions of kind ``values``).
    residuals : str
        ``"normal"``, ``"laplace"`` or ``"t"``.
    df : float
        Degrees of freedom of t residuals, at least 2.

    Examples
    --------
    RMSE is the residuals' scale times their root mean square, so the calibrated scale is the
    target itself (the residuals have unit variance):

    >>> from leaderboard.metrics import get_metric
    >>> u = ResidualUniverse(get_metric("rmse"), "normal")
    >>> log_sigma = u.calibrate([2.5])
    >>> round(float(np.exp(log_sigma[0])), 6)
    2.5
    """

    def __init__(self, metric: Metric, residuals: str = DEFAULT_RESIDUALS, df: float = DEFAULT_DF,
                 deep_tails: bool = True, noise_scale: float = 1.0) -> None:
        super().__init__(metric)
        self.residuals, self.df = residuals, float(df)
        self.noise_scale = float(noise_scale)
        self.name = (f"residuals-{residuals}" + (f"(df={df:g})" if residuals == "t" else "")
                     + (f" x{self.noise_scale:.3g}" if self.noise_scale != 1.0 else ""))
        self.multiplicative = metric.name in _MULTIPLICATIVE
        z = ndtri((np.arange(ROWS) + 0.5) / ROWS)
        y = np.exp(z) if self.multiplicative else z
        # ``deep_tails=False`` (plan): a root-n plan needs a score whose spread shrinks as
        # 1/sqrt(n), which t tails with df <= 4 break (the squared residuals' variance is infinite)
        deep = deep_tails and metric.name not in _SHALLOW_TAILS
        self._shallow_reason = ("they would swamp the mean of |exp(scale x residual) - 1|"
                                if metric.name in _SHALLOW_TAILS else
                                "a plan needs a score whose spread shrinks as 1/sqrt(n), which "
                                "deeper t tails (df 4 or less) break; heavier real tails need a "
                                "larger test set than planned")
        self._residuals, self.row_weights = _unit_residuals(residuals, self.df, deep)
        self._tail = TAIL_CELLS if deep else 1   # cells each extreme quantile cell became
        # Each of the ROWS quantile cells of the residual goes with one truth in a fixed random
        # order (as a pair they are one row of the universe); a split extreme cell's pieces share
        # the truth of the cell they split.
        order = np.random.default_rng(_PAIRING_SEED).permutation(ROWS)
        truth_of_cell = y[np.argsort(order)]
        cell = np.concatenate([np.zeros(self._tail, int), np.arange(1, ROWS - 1),
                               np.full(self._tail, ROWS - 1)])
        self.y = truth_of_cell[cell]
        tail_p = self.row_weights[:self._tail]
        self._tail_cdf = np.cumsum(tail_p) / tail_p.sum()   # deepest cell first
        self.strata = [slice(0, self.y.size)]
        self.shares = np.array([1.0])
        # The parameter is log(sigma), from useless to nearly exact. The useless end must reach any
        # score a junk submission gets (an RMSE in the millions on a unit-scale truth, an RMSLE of
        # 35): additive errors up to 1e13 times the truth's spread, multiplicative ones up to
        # exp(400 e), with the exponent capped where float64 would overflow.
        self.param_range = (6.0 if self.multiplicative else 30.0, -25.0)

    def simulate(self, levels: np.ndarray, n_test: int, prevalence: float | None, draws: int,
                 seed: int, progress=None) -> np.ndarray:
        """Observed scores as :meth:`CalibratedUniverse.simulate` gives them, each one's distance
        from its true score multiplied by ``noise_scale`` (kept within the metric's range).

        Examples
        --------
        >>> from leaderboard.metrics import get_metric
        >>> plain, wide = (ResidualUniverse(get_metric("rmse"), "normal", noise_scale=c)
        ...                for c in (1.0, 2.0))
        >>> a, b = (u.simulate(np.array([1.0]), 500, None, 256, 0) for u in (plain, wide))
        >>> bool(np.allclose(b - 1.0, 2.0 * (a - 1.0)))
        True
        """
        out = super().simulate(levels, n_test, prevalence, draws, seed, progress)
        if self.noise_scale == 1.0:
            return out
        centre = np.asarray(levels, dtype=float)[:, None]
        return np.clip(centre + self.noise_scale * (out - centre), self.metric.lower_bound,
                       self.metric.upper_bound)

    def exact_sd(self, score: float, n_test: int, prevalence: float | None) -> float | None:
        sd = super().exact_sd(score, n_test, prevalence)
        return None if sd is None else sd * self.noise_scale

    def predictions(self, params: np.ndarray) -> list[np.ndarray]:
        out = []
        for log_sigma in np.atleast_1d(params):
            step = np.exp(float(log_sigma)) * self._residuals
            out.append(self.y * np.exp(np.clip(step, -_MAX_EXPONENT, _MAX_EXPONENT))
                       if self.multiplicative else self.y + step)
        return out

    def _pick(self, rng: np.random.Generator, shape) -> np.ndarray:
        """Rows drawn with their probabilities: one of the ROWS equal cells, then, for an extreme
        cell, which of its pieces (by its cumulative probabilities)."""
        cell = rng.integers(0, ROWS, size=shape)
        rows = cell + (self._tail - 1)
        for end, first in ((0, 0), (ROWS - 1, self._tail + ROWS - 2)):
            hit = cell == end
            count = int(hit.sum())
            if count and self._tail > 1:
                piece = np.searchsorted(self._tail_cdf, rng.random(count), side="right")
                # the deepest piece first in the low tail, last in the high one
                rows[hit] = first + (np.minimum(piece, self._tail - 1) if end == 0
                                     else self._tail - 1 - np.minimum(piece, self._tail - 1))
        return rows

    def _draw_rows(self, rng: np.random.Generator, rows: int, size: int,
                   sort: bool = True) -> np.ndarray:
        if self._tail == 1:   # every row equally likely
            return draw_rows(rng, rows, size, sort=sort)
        if rows <= size:
            picks = self._pick(rng, (BLOCK, rows))
            return np.sort(picks, axis=1) if sort else picks
        if rows > MULTINOMIAL_ROWS:   # the picks' counts in distribution, at no cost per row
            assert self.row_weights is not None   # set with the tail's pieces (here _tail > 1)
            return multinomial_rows(rng, rows, self.row_weights)
        counts = np.zeros((BLOCK, size), dtype=np.int64)   # counted in bounded chunks
        for draw in counts:
            for start in range(0, rows, _PICKS_PER_CALL):
                draw += np.bincount(self._pick(rng, min(_PICKS_PER_CALL, rows - start)),
                                    minlength=size)
        return counts

    def _best_words(self) -> str:
        return "a nearly exact model"

    def assumptions(self, n_test: int, prevalence: float | None) -> str:
        tails = (f"the residuals' tails reaching a probability of {TAIL_DEPTH:g}" if self._tail > 1
                 else f"the residuals' tails stopping at a probability of 1/{2 * ROWS:,}: deeper, "
                      f"{self._shallow_reason}")
        scale = ("its truth times exp(scale x residual)" if self.multiplicative
                 else "its truth plus scale x residual")
        shape = {"normal": "normal" + ("" if self.noise_scale != 1.0 else
                                       " (narrower intervals than heavier tails give, which hold "
                                       "only if the real residuals' tails are no heavier than a "
                                       "normal's)"),
                 "laplace": "Laplace (heavier tails than normal)",
                 "t": f"Student t with {self.df:g} degrees of freedom (heavy tails"
                      + ("; the default, wider than normal residuals would need: see the "
                         "regression study's numbers)" if self.df == 3.0 else ")")}[self.residuals]
        stretched = ("" if self.noise_scale == 1.0 else
                     f" Every simulated score's distance from its true score is then multiplied "
                     f"by {self.noise_scale:.3g}: the noise the board's own public and private "
                     "scores show (see the note on the residuals' tails).")
        return (f"Every entry is scored on its own test set of {n_test:,} rows drawn with replacement "
                f"from a universe of {self.y.size:,} rows ({tails}) in which each "
                f"prediction is {scale}; the "
                f"residuals are {shape}, independent of the truth, and their scale is set so that "
                f"the metric on the universe equals the true score.{stretched} Residuals with "
                "heavier tails than assumed (outliers) make squared-error metrics noisier than "
                "shown; rows that are not independent make every metric noisier.")
