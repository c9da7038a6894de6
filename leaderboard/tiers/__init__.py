"""Stage 4, tiers and ranks: who is distinguishable from whom, and how sure the order is.

Every method here reads one :class:`RankReplicates`: the entries' scores (oriented so higher is
better, in rank order) and paired draws of their estimation error, made either by the paired
bootstrap (submissions) or from the simulated noise with a stated correlation (scores only).

The public names load their modules (numba's kernels, SciPy) on first use, so that
:mod:`leaderboard.tiers.methods` (the methods' names and words, which the command line's parser
lists) imports nothing heavy (issue 27).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from leaderboard._lazy import lazy_names

__all__ = ["RankReplicates", "Tiers", "holm_reject", "leader_anchored_tiers"]

if TYPE_CHECKING:
    from leaderboard.tiers.holm import Tiers, holm_reject, leader_anchored_tiers
    from leaderboard.tiers.replicates import RankReplicates

__getattr__, __dir__ = lazy_names(__name__, {
    "RankReplicates": "leaderboard.tiers.replicates", "Tiers": "leaderboard.tiers.holm",
    "holm_reject": "leaderboard.tiers.holm", "leader_anchored_tiers": "leaderboard.tiers.holm"},
    globals())
