"""The binormal universe: every binary metric from one calibrated model.

Each row has a latent score, standard normal among negatives and normal with mean ``mu`` among
positives. The model predicts the *calibrated* probability of the positive class given the score,

    p(x) = P(y = 1 | x) = expit(mu * x - mu^2 / 2 + logit(prevalence)),

so probability metrics (log loss, Brier) see an honest model, ranking metrics see AUC = Phi(mu/sqrt 2),
and label metrics see ``p(x) >= threshold`` (0.5: the decision that maximises expected accuracy).
``mu`` (0 = no skill) is solved so the metric on the universe equals the target. Each class is
represented by its quantiles: 8192 evenly spaced quantiles of its normal distribution.

Scores worse than no skill come from the path of :mod:`~leaderboard.noise.universes.miscalibrated`:
over-confident probabilities (log loss and Brier), or the model reversed (AUC below 0.5, negative
MCC, ...).
"""
from __future__ import annotations

import numpy as np
from scipy.special import expit, logit, ndtri   # ndtri: norm.ppf, bit for bit, without scipy.stats

from leaderboard.metrics import Metric
from leaderboard.noise.universes.exact import auc_sd
from leaderboard.noise.universes.finite import CalibratedUniverse
from leaderboard.noise.universes.miscalibrated import MiscalibrationPath
from leaderboard.noise.universes.seeds import class_counts
from leaderboard.noise.universes.sorted_auc import simulate_sorted_auc, sorted_classes_aucs
from leaderboard.params import DEFAULT_THRESHOLD

ROWS_PER_CLASS = 8192
MAX_SEPARATION = 12.0   # mu at which AUC = Phi(12 / sqrt 2), 1 to within 1e-17
# Metrics that read only the order of the scores: the latent score's shape (``spread``) can differ
# between the classes without breaking the model's calibration, which the others need.
SPREAD_METRICS = ("auc", "gini", "average_precision", "cap_ar")


class BinormalUniverse(MiscalibrationPath, CalibratedUniverse):
    """Binary classification with normal scores per class and calibrated probabilities.

    Parameters
    ----------
    metric : Metric
        A binary metric of labels, scores or probabilities.
    prevalence : float
        Share of positives in the test set (and in the universe's truth).
    threshold : float
        Label metrics: a row is predicted positive when its probability is at least this.

    Examples
    --------
    Calibrated to log loss 0.2 at 10% positives, the universe's truth is 0.2, and its AUC is then
    what a calibrated binormal model with that log loss has:

    >>> from leaderboard.metrics import get_metric
    >>> u = BinormalUniverse(get_metric("log_loss"), 0.1)
    >>> mu = u.calibrate([0.2])
    >>> round(float(u.truth(mu)[0]), 10)
    0.2
    """

    name = "binormal"

    def __init__(self, metric: Metric, prevalence: float, threshold: float = DEFAULT_THRESHOLD,
                 spread: float = 1.0) -> None:
        super().__init__(metric)
        self.prevalence, self.threshold = float(prevalence), float(threshold)
        # the minority class's latent SD relative to the majority's: ranking metrics only (their
        # predictions are the latent score itself, whatever its shape)
        self.spread = float(spread) if metric.name in SPREAD_METRICS else 1.0
        q = ndtri((np.arange(ROWS_PER_CLASS) + 0.5) / ROWS_PER_CLASS)
        self._quantiles = q
        self._sd = ((1.0, self.spread) if self.prevalence <= 0.5 else (self.spread, 1.0))
        # each class's scaled quantiles, made once (calibration builds thousands of models);
        # read-only: the negatives' are handed out as they are
        self._scaled = tuple(sd * q for sd in self._sd)
        for scaled in self._scaled:
            scaled.flags.writeable = False
        self.y = np.repeat([0, 1], ROWS_PER_CLASS)
        self.strata = [slice(0, ROWS_PER_CLASS), slice(ROWS_PER_CLASS, 2 * ROWS_PER_CLASS)]
        self.shares = np.array([1.0 - self.prevalence, self.prevalence])
        self.max_separation = MAX_SEPARATION
        self.param_range = self.path_range()

    def _path_key(self) -> tuple:
        return ("binormal", self.metric.name, self.metric.options, self.prevalence, self.threshold,
                self.spread)

    def _classes(self, mu: float) -> tuple[np.ndarray, np.ndarray]:
        """The latent scores of the negatives and the positives at separation ``mu``."""
        return self._scaled[0], mu + self._scaled[1]

    def _model(self, mu: float, temperature: float) -> np.ndarray:
        """Predictions of the model with separation ``mu`` whose log-likelihood ratio is scaled by
        ``temperature`` (1: calibrated; -1: reversed; +-inf: hard 0/1 labels)."""
        if self.spread != 1.0:   # a ranking metric: the latent score is the prediction
            return np.sign(temperature) * np.concatenate(self._classes(mu))
        latent = np.concatenate([self._quantiles, mu + self._quantiles])
        llr = mu * latent - 0.5 * mu * mu
        if np.isinf(temperature):
            probability = (llr > 0 if temperature > 0 else llr < 0).astype(float)
            log_odds = np.where(probability > 0, np.inf, -np.inf)
        else:
            log_odds = temperature * llr + logit(self.prevalence)
            if self.metric.kind == "scores":   # a decision function: the log-odds (AUC sees the
                return log_odds                # order); no probabilities to compute
            probability = expit(log_odds)
        if self.metric.kind == "scores":
            return log_odds
        if self.metric.kind == "probabilities":
            return probability
        return (probability >= self.threshold).astype(int)

    def _truth_of_rows(self, models: list[np.ndarray]) -> np.ndarray:
        """AUC: each model's rows run in order within each class (quantiles, shifted, scaled or
        reversed), so the truth is a merge of the two classes (:func:`sorted_classes_aucs`,
        exact, every model in one call) instead of a sort of the whole universe per model:
        calibration scores about 20 models a level. Other metrics, or a model whose classes are
        not in order, as before."""
        if self.metric.name != "auc":
            return super()._truth_of_rows(models)
        out = sorted_classes_aucs(models, ROWS_PER_CLASS)
        if np.isnan(out).any():
            return super()._truth_of_rows(models)
        return out

    def simulate(self, levels: np.ndarray, n_test: int, prevalence: float | None, draws: int,
                 seed: int, progress=None) -> np.ndarray:
        """AUC: the same test sets as :meth:`CalibratedUniverse.simulate` (the same random
        numbers), scored by :func:`simulate_sorted_auc` from the picked rows alone; the same
        values to the last bit. Other metrics as before."""
        if self.metric.name != "auc":
            return super().simulate(levels, n_test, prevalence, draws, seed, progress)
        models = self.predictions(self.calibrate(np.asarray(levels, dtype=float)))
        return simulate_sorted_auc(
            [(m[:ROWS_PER_CLASS], m[ROWS_PER_CLASS:]) for m in models],
            self.test_counts(n_test, prevalence), draws, seed, self._draw_rows, progress,
            fallback=lambda: super(BinormalUniverse, self).simulate(
                levels, n_test, prevalence, draws, seed, progress))

    def test_counts(self, n_test: int, prevalence: float | None) -> list[int]:
        m, k = class_counts(n_test, self.prevalence)   # the seeds' rounding of the positives
        return [k, m]

    def exact_sd(self, score: float, n_test: int, prevalence: float | None) -> float | None:
        """Exact SD for row means (log loss, Brier, accuracy, ...) and for AUC and Gini (the
        U-statistic variance over the universe's scores); None otherwise."""
        if self.metric.name not in ("auc", "gini"):
            return super().exact_sd(score, n_test, prevalence)
        # below AUC 0.5 the path reverses the model: the mirror image, with the same variance
        u = float(self.calibrate([score])[0])
        k, m = self.test_counts(n_test, prevalence)
        mu, temperature = self.path_point(u)
        neg, pos = self._classes(mu)
        sd = auc_sd(neg, pos, m, k) if temperature > 0 else auc_sd(-neg, -pos, m, k)
        return 2.0 * sd if self.metric.name == "gini" else sd

    def assumptions(self, n_test: int, prevalence: float | None) -> str:
        k, m = self.test_counts(n_test, prevalence)
        labels = (f" Labels are the probability thresholded at {self.threshold:g}."
                  if self.metric.kind == "labels" else "")
        if self.spread == 1.0:
            shape = ("each row's latent score is normal with unit variance, its mean shifted among "
                     "the positives by the amount that makes the metric on the universe equal the "
                     "true score, and the model predicts the calibrated probability of the "
                     f"positive class given the score.{labels} Real models whose scores are "
                     "skewed, miscalibrated or tied have a somewhat different noise")
        else:
            minority = "positives" if self.prevalence <= 0.5 else "negatives"
            shape = ("each row's score is normal, the positives' mean shifted by the amount that "
                     "makes the metric on the universe equal the true score, and the "
                     f"{minority}' scores (the rarer class) {self.spread:g} times as spread as the "
                     "others' (the metric reads only their order). That is the noisiest shape "
                     "among the real models' score distributions of the noise study, so its "
                     "intervals are not narrower than theirs")
        return (f"Every entry is scored on its own test set of {n_test:,} rows with exactly {m:,} "
                f"positives and {k:,} negatives, drawn with replacement from a binormal universe: "
                f"{shape}. Rows that are not independent (several per patient or per user) make "
                "the noise larger." + self.path_words())
