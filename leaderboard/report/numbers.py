"""How the report writes a score and a d95: a precision that suits the metric, the data and the
noise (the page, the exports, the charts and the notebook summary all format through it)."""
from __future__ import annotations

import math

import numpy as np

from leaderboard.metrics import Metric


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
        if value is None or not np.isfinite(value):
            return "\u2014"
        text = f"{float(value):.{self.decimals}f}"
        return text.lstrip("-") if float(text) == 0 else text

    def d95_short(self, value: float) -> str:
        """A gap (d95, a spread) at the noise's precision, without the percentage points."""
        return f"{float(value):.{self.noise_decimals}f}"

    def d95(self, value: float) -> str:
        text = f"{float(value):.{self.noise_decimals}f}"
        if self.percent_points:
            return f"{text} ({100 * value:.{max(self.noise_decimals - 2, 1)}f} percentage points)"
        return text
