"""Submissions mode's post-mortem: the public board against the private one (the shake-up), from
the paired bootstrap replicates of both splits.

The split that did not rank was scored and resampled with the files
(:mod:`leaderboard.pipelines.submission_scoring`) on its own random stream: its rows are disjoint
from the ranking split's, so its replicates are independent of the ranking's.
:mod:`leaderboard.pipelines.shakeup` turns the two sets of replicates into the shake-up.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from leaderboard.errors import InputError
from leaderboard.pipelines.shakeup import Shakeup, has_both_scores, shakeup_from_bootstrap

if TYPE_CHECKING:
    from leaderboard.ingest.submissions import Solution
    from leaderboard.noise.bootstrap import BootstrapResult
    from leaderboard.pipelines.analysis import Settings


def submissions_shakeup(solution: Solution, replicates: dict[str, np.ndarray],
                        order: np.ndarray, unplanned: dict[str, str], boot: BootstrapResult,
                        table: pd.DataFrame, settings: Settings, split: str) -> Shakeup | None:
    """Public vs private for the ranked entries, or None when the table lacks either score.

    ``replicates``: every file's replicates per split, in file order (the engine's
    :class:`~leaderboard.engine.Scored`), ``order`` the ranked entries' positions among them;
    ``unplanned``: the error message of each split whose resampling could not be planned,
    raised as an :class:`InputError` when the other split's replicates are needed (e.g. grouped
    resampling without groups on its rows); ``boot``: the ranking split's replicates in rank
    order.
    """
    if not has_both_scores(table):
        return None
    other = "public" if split == "private" else "private"
    if other in unplanned:
        raise InputError(unplanned[other])
    reps = {split: boot.replicates, other: replicates[other][order]}
    return shakeup_from_bootstrap(table["public_score"].to_numpy(float),
                                  table["private_score"].to_numpy(float), reps["public"],
                                  reps["private"], higher_is_better=settings.higher_is_better,
                                  n_public=int((solution.usage == "public").sum()),
                                  n_private=int((solution.usage == "private").sum()),
                                  alpha=settings.alpha, tier_method=settings.tier_method)
