"""Stage 4, tiers and ranks: who is distinguishable from whom, and how sure the order is.

Every method here reads one :class:`RankReplicates`: the entries' scores (oriented so higher is
better, in rank order) and paired draws of their estimation error, made either by the paired
bootstrap (submissions) or from the simulated noise with a stated correlation (scores only).
"""
from leaderboard.tiers.holm import Tiers, holm_reject, leader_anchored_tiers
from leaderboard.tiers.replicates import RankReplicates

__all__ = ["RankReplicates", "Tiers", "holm_reject", "leader_anchored_tiers"]
