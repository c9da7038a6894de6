"""Which two final submissions should a team select? Winner's-curse-corrected estimates of its
candidates (:mod:`~leaderboard.choose.posterior`), the pair with the best expected best-of-two
private score (:mod:`~leaderboard.choose.pairs`), and how much of a public climb is within noise
(:mod:`~leaderboard.choose.ladder`)."""
from leaderboard.choose.ladder import Ladder, ladder_check
from leaderboard.choose.pairs import Choice, choose_pair
from leaderboard.choose.posterior import Posterior, candidate_posterior

__all__ = ["Choice", "Ladder", "Posterior", "candidate_posterior", "choose_pair", "ladder_check"]
