"""The binomial universe of accuracy: every row right with probability equal to the true accuracy."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from leaderboard.noise.rng import BLOCK, Stream, block_rng


@dataclass(frozen=True)
class BinomialAccuracyUniverse:
    """A universe in which every row is classified correctly with probability equal to the accuracy.

    The number of correct rows in a test set of ``n_test`` is then Binomial(n_test, accuracy), so the
    simulation and its exact variance, accuracy (1 - accuracy) / n_test, are the binomial's. If the
    test set's classes are fixed in number and each class has the same accuracy, the count is still
    this binomial, so the prevalence does not enter.
    """

    name: str = "binomial"

    def assumptions(self, n_test: int, prevalence: float | None) -> str:
        return (f"Every entry is scored on its own test set of {n_test:,} rows, each row classified "
                "correctly with probability equal to the entry's true accuracy, independently of the "
                "others; the number of correct rows is then binomial. Rows that are not independent "
                "(several rows per patient, per user, per day) make the real noise larger.")

    def reachable(self) -> tuple[float, float]:
        """The true scores this universe can be calibrated to."""
        return 0.0, 1.0

    def exact_sd(self, accuracy: float, n_test: int, prevalence: float | None = None) -> float:
        """Binomial standard deviation of the observed accuracy."""
        return float(np.sqrt(accuracy * (1.0 - accuracy) / n_test))

    def simulate(self, levels: np.ndarray, n_test: int, prevalence: float | None, draws: int,
                 seed: int, progress=None) -> np.ndarray:
        """Observed accuracies, shape (len(levels), draws), by inverting the binomial CDF at uniforms
        shared across levels (common random numbers)."""
        levels = np.asarray(levels, dtype=float)
        n_blocks = -(-draws // BLOCK)
        uniforms = np.concatenate([block_rng(seed, Stream.BINOMIAL_UNIVERSE, b).random(BLOCK)
                                   for b in range(n_blocks)])
        uniforms = uniforms[:draws]
        if progress is not None:
            progress.start(1)
        from scipy.stats import binom   # lazily: scipy.stats takes ~1 s to import
        out = binom.ppf(uniforms[None, :], n_test, levels[:, None]) / n_test
        if progress is not None:
            progress.advance()
        return out


@dataclass(frozen=True)
class BoundedMeanUniverse(BinomialAccuracyUniverse):
    """The noisiest universe for a score that is a mean of per-row values in [0, 1].

    Kaggle's segmentation scores (mean Dice or IoU per image) average one value in [0, 1] per row.
    A value in [0, 1] with mean ``m`` has variance at most ``m (1 - m)`` (the Bhatia-Davis bound),
    reached when every row scores exactly 0 or 1, so the observed mean of ``n_test`` independent rows
    has standard deviation at most ``sqrt(m (1 - m) / n_test)``: the binomial's. Simulating that
    extreme gives intervals and tiers that are conservative (never narrower than the truth's) for
    any per-row distribution with that mean. Real boards, where many rows score in between, are
    less noisy than this.

    Examples
    --------
    >>> u = BoundedMeanUniverse()
    >>> round(u.exact_sd(0.75, 1200), 5)  # the upper bound on the SD of a mean of 1,200 rows
    0.0125
    """

    name: str = "bounded"

    def assumptions(self, n_test: int, prevalence: float | None) -> str:
        return (f"The score is a mean over {n_test:,} rows of a per-row value between 0 and 1 (e.g. "
                "the Dice or IoU of each image). The simulation takes the noisiest such rows, each "
                "scoring 0 or 1, so its spread is an upper bound for any rows with that mean score: "
                "intervals are conservative (at least as wide as needed) when the rows are "
                "independent. Rows that are not independent (several images per patient) make the "
                "real noise larger.")
