"""Universes whose true score is known, and test sets drawn from them.

A *universe* is every row a model could ever be scored on. Its true score is the metric on all of
it; a test set is a random draw of ``n_test`` rows from it, and the observed score is the metric on
the draw. How far observed scores wander from the true one is the sampling noise of the test set.

Every universe is *calibrated*: given a target score it solves for the one parameter (separation of
the classes, or the residuals' scale) that makes the metric on the universe equal the target. The
families:

``linspace``   the seed articles' AUC universe, built exactly as they build it (AUC only).
``binomial``   accuracy as a binomial count of correct rows (accuracy only).
``bounded``    a mean of per-row values in [0, 1] (mean Dice, IoU) at its largest possible noise,
               the binomial's: conservative intervals for segmentation boards.
``binormal``   binary: scores normal within each class, predictions the calibrated probability
               P(positive | score); labels are that probability thresholded. Serves every binary
               metric: ranking (AUC, average precision), probabilities (log loss, Brier) and
               labels (accuracy, F1, MCC, ...).
``multiclass`` K classes: a normal score per class, predictions the calibrated softmax probabilities
               (labels: the most probable class).
``residuals``  regression: predictions are the truth plus residuals whose shape is selectable
               (normal, Laplace, Student t; by default t with 3 degrees of freedom, heavy tailed,
               see :data:`DEFAULT_RESIDUALS`, unless a board's public/private gaps show its noise:
               :mod:`leaderboard.pipelines.tails`); the residuals' scale is calibrated.

Every universe answers :meth:`Universe.simulate` (observed scores at many true scores, the *same*
random test sets at every level) and :meth:`Universe.exact_sd` (the exact standard deviation of the
observed score where it is known, else None).
"""
from __future__ import annotations

from functools import lru_cache
from typing import Protocol

import numpy as np

from leaderboard.api_words import said
from leaderboard.errors import InputError
from leaderboard.metrics import Metric
from leaderboard.noise.universes.binomial import BinomialAccuracyUniverse, BoundedMeanUniverse
from leaderboard.noise.universes.seeds import SeedsAUCUniverse, class_counts
from leaderboard.noise.universe_options import (  # noqa: F401 - the universes' names, here too
    BINARY_UNIVERSES, DEFAULT_DF, DEFAULT_RESIDUALS, DEFAULT_SPREAD, MIN_DF, RESIDUALS,
    UNIVERSE_NAMES, UniverseOptions)

_CLASSIFICATION_KINDS = ("labels", "scores", "probabilities")
_NO_UNIVERSE = {"kl_ctr": "its truth is a click-through rate per row, which no universe here "
                          "models (submit predictions instead)",
                "mean": "the spread of per-item values is unknown from the means alone (give the "
                        "per-item results with --items instead)"}


class Universe(Protocol):
    """What every universe offers (see the module docstring)."""

    @property
    def name(self) -> str:
        """The universe's name (:data:`UNIVERSE_NAMES`, or ``seeds-linspace``)."""

    def assumptions(self, n_test: int, prevalence: float | None) -> str:
        """One plain paragraph for the report: what the universe assumes."""

    def simulate(self, levels: np.ndarray, n_test: int, prevalence: float | None, draws: int,
                 seed: int, progress=None) -> np.ndarray:
        """Observed scores, shape ``(len(levels), draws)``; the same test sets at every level."""

    def exact_sd(self, score: float, n_test: int, prevalence: float | None) -> float | None:
        """Exact standard deviation of the observed score at true score ``score``, or None."""

    def reachable(self) -> tuple[float, float]:
        """The true scores the universe can be calibrated to (e.g. log loss up to the no-skill
        model's)."""


def default_universe(metric: Metric, options: UniverseOptions = UniverseOptions()) -> str | None:
    """The universe a metric uses unless told otherwise; None when it cannot be simulated."""
    multiclass = options.class_shares is not None and len(options.class_shares) > 2
    if metric.noise_model == "bounded":
        return "bounded"
    if metric.kind in _CLASSIFICATION_KINDS:
        if multiclass:
            return "multiclass"
        return metric.noise_model or "binormal"
    if metric.kind == "values":
        return "residuals"
    return None


def not_simulable_reason(metric: Metric, options: UniverseOptions = UniverseOptions()) -> str | None:
    """Why ``metric`` cannot be simulated with ``options``, in one sentence; None if it can."""
    try:
        _check(metric, options)
    except InputError as error:   # :func:`_check`'s words: the package's, on checked options
        return said(str(error))
    return None


def universe_name(metric: Metric, options: UniverseOptions = UniverseOptions()) -> str:
    """The name of the universe :func:`get_universe` would build (InputError if none fits)."""
    return _check(metric, options)


def get_universe(metric: Metric, n_test: int, prevalence: float | None,
                 options: UniverseOptions = UniverseOptions()) -> Universe:
    """The calibrated universe that simulates ``metric`` on a test set of ``n_test`` rows.

    Raises :class:`~leaderboard.errors.InputError` with one sentence when the metric cannot be
    simulated, or the settings it needs (``prevalence`` for binary metrics) are missing or invalid.

    Examples
    --------
    >>> from leaderboard.metrics import get_metric
    >>> get_universe(get_metric("auc"), 1000, 0.01).name
    'binormal'
    >>> get_universe(get_metric("auc"), 1000, 0.01, UniverseOptions(name="linspace")).name
    'seeds-linspace'
    >>> get_universe(get_metric("accuracy"), 1000, None).name
    'binomial'
    """
    name = _check(metric, options)
    if name == "binomial":
        return BinomialAccuracyUniverse()
    if name == "bounded":
        return BoundedMeanUniverse()
    if name in BINARY_UNIVERSES:
        if prevalence is None:
            raise InputError(f"--prevalence is needed for {metric.label}: the share of positives in "
                             "the test set (e.g. --prevalence 0.1)")
        class_counts(n_test, prevalence)
        if name == "linspace":
            return SeedsAUCUniverse()
    try:
        return _calibrated_universe(name, metric, prevalence, options)
    except TypeError:   # unhashable options (a list from the Python API): build it afresh
        return _calibrated_universe.__wrapped__(name, metric, prevalence, options)


@lru_cache(maxsize=8)
def _calibrated_universe(name: str, metric: Metric, prevalence: float | None,
                         options: UniverseOptions) -> Universe:
    """One instance per universe, metric and options: its calibrations (solved per level, and
    the same for every test-set size) are kept, so a post-mortem's public and private slices and
    the main analysis solve each level once."""
    if name == "binormal":
        from leaderboard.noise.universes.binary import BinormalUniverse
        spread = DEFAULT_SPREAD if options.spread is None else options.spread
        if prevalence is None:   # get_universe refuses a binary universe without one first
            raise InputError("the binormal universe needs --prevalence")
        return BinormalUniverse(metric, prevalence, threshold=options.threshold, spread=spread)
    if name == "multiclass":
        from leaderboard.noise.universes.multiclass import MulticlassUniverse
        if options.class_shares is None:   # _check refuses multiclass without shares first
            raise InputError("--universe multiclass needs --classes K or --class-shares")
        return MulticlassUniverse(metric, tuple(options.class_shares))
    from leaderboard.noise.universes.regression import ResidualUniverse
    return ResidualUniverse(metric, options.residuals, options.df,
                            noise_scale=options.noise_scale)


def _spread_metrics() -> tuple[str, ...]:
    from leaderboard.noise.universes.binary import SPREAD_METRICS

    return SPREAD_METRICS


def _takes_multiclass(metric: Metric) -> bool:
    """Whether the metric scores three classes (tried on a tiny example: the registry knows)."""
    y = np.array([0, 1, 2, 0, 1, 2])
    pred = (y if metric.kind == "labels"
            else np.eye(3)[y] * 0.7 + 0.1)   # rows of probabilities that sum to 1
    try:
        metric.impl.score(y, pred)
    except ValueError:
        return False
    return True


def _check(metric: Metric, options: UniverseOptions) -> str:
    """The universe's name after checking that it fits the metric and options."""
    name = options.name or default_universe(metric, options)
    if name is None:
        raise InputError(f"{metric.label} cannot be simulated from scores alone: it takes "
                         f"{metric.kind} predictions, for which there is no universe (submit "
                         "predictions instead, with --solution and --submissions)")
    if name not in UNIVERSE_NAMES:
        raise InputError(f"--universe {name!r} is not one of {', '.join(UNIVERSE_NAMES)}")
    if metric.name in _NO_UNIVERSE:
        raise InputError(f"{metric.label} cannot be simulated from scores alone: "
                         f"{_NO_UNIVERSE[metric.name]}")
    if not metric.can_score and name not in ("linspace", "binomial", "bounded"):
        raise InputError(f"{metric.label} cannot be simulated: the project cannot compute it")
    fits = {"linspace": metric.name == "auc", "binomial": metric.name == "accuracy",
            "bounded": metric.noise_model == "bounded",
            "binormal": metric.kind in _CLASSIFICATION_KINDS,
            "multiclass": metric.kind in _CLASSIFICATION_KINDS,
            "residuals": metric.kind == "values"}
    if not fits[name]:
        raise InputError(f"--universe {name} does not fit {metric.label} (its default universe is "
                         f"{default_universe(metric, UniverseOptions()) or 'none'})")
    shares = options.class_shares
    if name == "multiclass":
        if shares is None or len(shares) < 3:
            raise InputError("--universe multiclass needs --classes K (3 or more) or --class-shares")
        if min(shares) <= 0 or abs(sum(shares) - 1) > 1e-6:
            raise InputError("--class-shares must be positive and sum to 1, got "
                             + ",".join(f"{s:g}" for s in shares))
        if not _takes_multiclass(metric):
            raise InputError(f"{metric.label} takes binary predictions; it cannot be simulated "
                             f"with {len(shares)} classes (give --prevalence for a binary test set, "
                             "or use a metric that averages over the classes)")
    if name != "residuals" and (options.kurtosis is not None or options.noise_scale != 1.0):
        raise InputError(f"--kurtosis describes regression residuals; {metric.label} is simulated "
                         f"by the {name} universe, which has none")
    # an option this universe does not read, given away from its default: refused, not ignored
    spread_read = name == "binormal" and metric.name in _spread_metrics()
    reads = {"--residuals": name == "residuals",
             "--df": name == "residuals" and options.residuals == "t",
             "--spread": spread_read,
             "--threshold": name == "binormal" and metric.kind == "labels"}
    unread = [option for option in options.stated() if not reads.get(option, True)]
    if unread:
        raise InputError(f"{unread[0]} does not apply to {metric.label}: it is simulated by the "
                         f"{name} universe, which does not read it; drop it")
    if not (np.isfinite(options.noise_scale) and options.noise_scale > 0):
        raise InputError(f"the noise scale must be a positive number, got {options.noise_scale:g}")
    if options.residuals not in RESIDUALS:
        raise InputError(f"--residuals {options.residuals!r} is not one of {', '.join(RESIDUALS)}")
    if options.residuals == "t" and not options.df >= MIN_DF:
        raise InputError(f"--df must be at least {MIN_DF:g}, got {options.df:g}")
    if options.spread is not None and not 0.1 <= options.spread <= 10:
        raise InputError(f"--spread must be between 0.1 and 10, got {options.spread:g}")
    if not 0 < options.threshold < 1:
        raise InputError(f"--threshold must be strictly between 0 and 1, got {options.threshold:g}")
    return name


__all__ = ["BINARY_UNIVERSES", "DEFAULT_DF", "DEFAULT_RESIDUALS", "MIN_DF", "RESIDUALS",
           "UNIVERSE_NAMES", "BinomialAccuracyUniverse", "BoundedMeanUniverse", "SeedsAUCUniverse",
           "Universe", "UniverseOptions", "class_counts", "default_universe", "get_universe",
           "not_simulable_reason", "universe_name"]
