"""Stage 2, noise: how much a score moves by chance alone for a given test set."""
from leaderboard.noise.model import NoiseModel, ScoreDistribution

__all__ = ["NoiseModel", "ScoreDistribution"]
