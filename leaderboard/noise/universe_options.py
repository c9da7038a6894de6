"""The universes' names and options (:class:`UniverseOptions`), apart from the universes
themselves: the command line's parser and :mod:`leaderboard.options` read them without importing
numba, SciPy and the metrics that :mod:`leaderboard.noise.universes` needs (issue 27: a fast
``--help``). :mod:`leaderboard.noise.universes` imports them from here.

Examples
--------
>>> UniverseOptions().residuals, UniverseOptions().df, "binormal" in UNIVERSE_NAMES
('t', 3.0, True)
>>> UniverseOptions().tails_stated, UniverseOptions(residuals="normal").tails_stated
(False, True)
"""
from __future__ import annotations

from dataclasses import dataclass

from leaderboard.params import DEFAULT_DF, DEFAULT_RESIDUALS, DEFAULT_THRESHOLD  # noqa: F401 - the table's

UNIVERSE_NAMES = ("linspace", "binomial", "bounded", "binormal", "multiclass", "residuals")
BINARY_UNIVERSES = ("linspace", "binormal")  # the universes that need a prevalence
RESIDUALS = ("normal", "laplace", "t")
MIN_DF = 2.0   # t with 2 df has infinite variance; on the finite universe its RMSE is still defined
MIN_KURTOSIS = 1.0   # no distribution has less (E[e^4] >= E[e^2]^2)


def residuals_for_kurtosis(kurtosis: float) -> tuple[str, float]:
    """The residual shape ``(residuals, df)`` of a stated kurtosis (``--kurtosis``, the residuals'
    own, not the excess): normal at 3 or less (lighter tails than normal are taken as normal, a
    little wider than they need), else Student t with ``4 + 6 / (kurtosis - 3)`` degrees of
    freedom, whose kurtosis it is. RMSE's and MSE's noise depends on the residuals only through
    their kurtosis (``Var(e^2) = (kurtosis - 1) sigma^4``), so for them the choice of family is
    immaterial once the kurtosis is matched.

    Examples
    --------
    >>> residuals_for_kurtosis(2.5), residuals_for_kurtosis(9.0)
    (('normal', 3.0), ('t', 5.0))
    """
    if kurtosis <= 3.0:
        return "normal", DEFAULT_DF
    return "t", 4.0 + 6.0 / (kurtosis - 3.0)
# Binormal ranking metrics (AUC, Gini, average precision): the minority class's SD over the
# majority's. Two: the noisiest of the real-model score shapes in docs/noise_study.md, so that the
# intervals cover the truth for each of them (equal SDs covered only 85% for that shape).
DEFAULT_SPREAD = 2.0


@dataclass(frozen=True)
class UniverseOptions:
    """How to build the universe; every field has a default that suits most boards.

    Attributes
    ----------
    name : str or None
        One of :data:`UNIVERSE_NAMES`; None picks the metric's default (``linspace`` for AUC, as the
        seeds do; ``binomial`` for accuracy; otherwise by the metric's predictions).
    class_shares : tuple of float or None
        Multi-class: each class's share of the test set (sums to 1). None: binary.
    residuals : str
        Regression: the residuals' distribution, one of :data:`RESIDUALS`; default ``"t"`` (with
        ``df`` 3: heavy tails, so that intervals are not narrower than under real residuals;
        ``"normal"`` gives narrower intervals that hold only when the residuals are normal).
    df : float
        Degrees of freedom of Student-t residuals, at least 2 (default 3). The universe is a
        finite grid of quantiles whose tails reach a probability of 1e-12, so its RMSE noise is
        finite even where the t's is not, and as large as real t residuals' at any test size.
    threshold : float
        Binary label metrics: a row is predicted positive when its calibrated probability is at
        least this.
    spread : float or None
        Binormal universe, ranking metrics (AUC, Gini, average precision): the minority class's
        score SD relative to the majority's. None: :data:`DEFAULT_SPREAD` (see
        ``docs/noise_study.md``).
    kurtosis : float or None
        Regression: the residuals' kurtosis as stated (``--kurtosis``); ``residuals`` and ``df``
        are then :func:`residuals_for_kurtosis`'s. None: not stated.
    noise_scale : float
        Regression: every simulated score's deviation from its true score is multiplied by this
        (1: none). Set by the analysis from a board's public/private gaps
        (:mod:`leaderboard.noise.tails`), never by the user.
    """

    name: str | None = None
    class_shares: tuple[float, ...] | None = None
    residuals: str = DEFAULT_RESIDUALS
    df: float = DEFAULT_DF
    threshold: float = DEFAULT_THRESHOLD
    spread: float | None = None
    kurtosis: float | None = None
    noise_scale: float = 1.0

    def stated(self) -> tuple[str, ...]:
        """The options given away from their defaults, by the command line's names: what was
        asked of a universe, refused where no universe (or not this one) reads it.

        Examples
        --------
        >>> UniverseOptions().stated(), UniverseOptions(df=5.0, spread=1.0).stated()
        ((), ('--df', '--spread'))
        """
        given = (("--universe", self.name is not None),
                 ("--classes", self.class_shares is not None),
                 ("--residuals", self.residuals != DEFAULT_RESIDUALS),
                 ("--df", self.df != DEFAULT_DF), ("--threshold", self.threshold != DEFAULT_THRESHOLD),
                 ("--spread", self.spread is not None), ("--kurtosis", self.kurtosis is not None))
        return tuple(option for option, differs in given if differs)

    @property
    def tails_stated(self) -> bool:
        """Whether the residuals' tails were stated (``--residuals``, ``--df`` or ``--kurtosis``
        away from the default), so that the analysis must not second-guess them."""
        return self.kurtosis is not None or (self.residuals, self.df) != (DEFAULT_RESIDUALS,
                                                                           DEFAULT_DF)
