"""Stage 2, noise: how much a score moves by chance alone for a given test set.

``NoiseModel`` and ``ScoreDistribution`` load :mod:`leaderboard.noise.model` (SciPy, the
universes) on first use, so a module that needs only the bootstrap's weights
(:mod:`leaderboard.noise.bootstrap`, as a Dask worker does) does not import it (issue 27).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from leaderboard._lazy import lazy_names

__all__ = ["NoiseModel", "ScoreDistribution"]

if TYPE_CHECKING:
    from leaderboard.noise.model import NoiseModel, ScoreDistribution

__getattr__, __dir__ = lazy_names(__name__, dict.fromkeys(__all__, "leaderboard.noise.model"),
                                  globals())
