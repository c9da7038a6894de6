"""How the report writes a score and a d95: a precision that suits the metric, the data and the
noise (the page, the exports, the charts and the notebook summary all format through it)."""
from __future__ import annotations

import math

import numpy as np

from leaderboard.metrics import Metric

#: How every number of the report that is not defined (NaN, infinite, None) is written: the page
#: says why beside it; the text never shows "nan" or "inf"
MISSING = "\u2014"


def defined(value) -> bool:
    """Whether ``value`` is a finite number the report can write."""
    try:
        return value is not None and math.isfinite(float(value))
    except (TypeError, ValueError):
        return False


def number(value, spec: str) -> str:
    """``value`` written by the format ``spec`` (``".2f"``), or :data:`MISSING` when it is not
    defined (a correlation of tied scores, a statistic of nothing); the caller says why.

    Examples
    --------
    >>> number(0.91234, ".2f"), number(float("nan"), ".2f")
    ('0.91', '—')
    """
    return format(float(value), spec) if defined(value) else MISSING


def json_number(value) -> float | None:
    """A finite Python float for the JSON, or None (null) for None, NaN or an infinity: strict
    JSON has no NaN, and a statistic that is not defined is missing, not a crash."""
    return float(value) if defined(value) else None


def spread_of(values) -> tuple[float, float, float, int] | None:
    """(median, 2.5% and 97.5% quantiles, how many were left out) of the defined values among
    ``values`` (a resampled statistic undefined in some replicates: tied scores), None when no
    value is defined.

    Examples
    --------
    >>> spread_of([0.5, float("nan"), 0.7, 0.6])[0], spread_of([float("nan")])
    (0.6, None)
    """
    values = np.asarray(values, dtype=float).ravel()
    kept = values[np.isfinite(values)]
    if not kept.size:
        return None
    low, mid, high = np.quantile(kept, [0.025, 0.5, 0.975])
    return float(mid), float(low), float(high), int(values.size - kept.size)


class Numbers:
    """Formats scores with a precision that suits the metric, the data and the noise.

    Scores are shown with as many decimals as the leaderboard gave them (Kaggle rounds to 5), at
    least 4 for metrics bounded within [-1, 1] or about 4 significant figures of the median score
    otherwise, and at most 6. d95 keeps at least 2 significant figures. Scores that are not
    round decimals (computed from predictions) stop one digit past d95's precision, as soon as
    no two different scores print alike.
    """

    def __init__(self, metric: Metric, scores: np.ndarray, d95: float | None):
        finite = scores[np.isfinite(scores)]
        if metric.lower_bound >= -1 and metric.upper_bound <= 1:
            decimals = 4
        else:
            # the median, not the maximum: one junk submission (RMSLE 35) must not cost precision
            typical = float(np.median(np.abs(finite))) if finite.size else 1.0
            decimals = min(max(3 - math.floor(math.log10(typical)), 0), 6) if typical > 0 else 4
        if d95 is not None and d95 > 0:
            decimals = max(decimals, min(1 - math.floor(math.log10(d95)), 6))
        self.noise_decimals = decimals
        distinct = np.unique(finite)
        while decimals < 6 and not np.allclose(finite, np.round(finite, decimals), rtol=0,
                                               atol=1e-12):
            # computed scores (accuracy on 418 rows is k/418) never round exactly: stop once a
            # digit is finer than a tenth of d95 and no two different scores print alike
            if (decimals > self.noise_decimals
                    and np.unique(np.round(distinct, decimals)).size == distinct.size):
                break
            decimals += 1
        self.decimals = decimals
        self.percent_points = metric.lower_bound == 0 and metric.upper_bound == 1

    def score(self, value) -> str:
        if not defined(value):
            return MISSING
        text = f"{float(value):.{self.decimals}f}"
        return text.lstrip("-") if float(text) == 0 else text

    def d95_short(self, value: float) -> str:
        """A gap (d95, a spread) at the noise's precision, without the percentage points."""
        if not defined(value):
            return MISSING
        return f"{float(value):.{self.noise_decimals}f}"

    def d95(self, value: float) -> str:
        if not defined(value):
            return MISSING
        text = f"{float(value):.{self.noise_decimals}f}"
        if self.percent_points:
            return f"{text} ({100 * value:.{max(self.noise_decimals - 2, 1)}f} percentage points)"
        return text
