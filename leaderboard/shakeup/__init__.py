"""Post-mortems of a competition: the public-to-private shake-up and what noise alone explains.

- :mod:`~leaderboard.shakeup.observed`: rank changes and rank correlations of the real boards;
- :mod:`~leaderboard.shakeup.baseline`: the same statistics on competitions simulated with noise
  alone at the real slice sizes, and the p-values of the observed ones;
- :mod:`~leaderboard.shakeup.overfit`: a test for adaptive overfitting to the public board, with
  the entries that drive it.

Arrays in, small frozen dataclasses out; no files, no printing.
"""
from leaderboard.shakeup.baseline import (NoiseDraws, ShakeupBaseline,
                                          shakeup_baseline)
from leaderboard.shakeup.truth import estimate_truth
from leaderboard.shakeup.observed import ShakeupStats, risers_fallers, shakeup_stats
from leaderboard.shakeup.overfit import NoiseBand, OverfitTest, overfit_test

__all__ = ["NoiseBand", "NoiseDraws", "OverfitTest", "ShakeupBaseline", "ShakeupStats",
           "estimate_truth", "overfit_test", "risers_fallers", "shakeup_baseline", "shakeup_stats"]
