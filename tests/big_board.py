"""A board of any size for the report's page tests, without running the statistics.

The rank statistics of a 100,000-entry board take far longer than a test may (issue 16), and the
page only prints them, so :func:`big_analysis` ranks a real 40-entry board (for the charts that
show the top: the significance map, the rank frequencies, the winner's curse) and then fills every
per-entry column of ``n`` entries with plausible synthetic values: decreasing scores, intervals
from the hand-made noise model of ``test_report``, tiers of 250 entries, rank sets that widen down
the board, P(best) and P(top 3) over the top 30. The numbers mean nothing; the page's size, its
speed and its table are what the tests measure on it.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pandas as pd

from leaderboard.ingest.leaderboards import Leaderboard
from leaderboard.pipelines.scores import Analysis, join_ranking, rank_entries
from leaderboard.tiers import RankReplicates
from leaderboard.tiers.holm import Tiers

from tests.report.test_report import make_analysis


def big_analysis(n: int, names: list[str] | None = None, seed: int = 0) -> Analysis:
    """An ``n``-entry AUC analysis with every column the report prints (see the module)."""
    small = make_analysis(40, method="rank-sets")
    r, noise = small.ranking, small.noise
    rng = np.random.default_rng(seed)
    i = np.arange(n)
    scores = np.round(0.93 - 0.35 * np.sqrt(i / n) - rng.uniform(0, 2e-5, n), 5)
    scores = np.sort(np.clip(scores, 0.5, 0.999))[::-1]
    teams = list(names) if names is not None else [f"team_{k:06d}" for k in range(n)]
    teams += [f"team_{k:06d}" for k in range(len(teams), n)]
    entries = pd.DataFrame({"team": np.array(teams[:n], dtype=object), "score": scores,
                            "line": i + 2})
    lb = Leaderboard(entries=entries, source="synthetic/big_board.csv", format="table",
                     score_column="score", split=None, rows_read=n, dropped=())
    table = rank_entries(lb.entries, True)
    table["ci_low"], table["ci_high"] = noise.interval(scores)
    table["sd"], table["d95"] = noise.sd_at(scores), noise.d95_at(scores)
    width = 5 + i // 10
    low, high = np.maximum(1, i + 1 - width), np.minimum(n, i + 1 + width)
    p_best = np.where(i < 30, np.exp(-i / 5.0), 0.0)
    p_best = np.round(p_best / p_best.sum(), 4)
    p_top = np.round(np.where(i < 30, np.minimum(1.0, 3 * p_best * 1.3), 0.0), 4)
    tiers = Tiers(tier=1 + i // 250, p_vs_anchor=np.full(n, np.nan), method="rank-sets",
                  alpha=0.05)
    sd = table["sd"].to_numpy(dtype=float)
    ranking = replace(
        r, tiers=tiers,
        marginal=replace(r.marginal, low=low, high=high, critical_value=np.full(n, 2.0)),
        simultaneous=replace(r.simultaneous, low=np.maximum(1, low - width),
                             high=np.minimum(n, high + width), critical_value=np.full(n, 3.0)),
        in_best_set=i < 20,
        probabilities=replace(r.probabilities, p_best=p_best, p_top={3: p_top},
                              median_rank=i + 1, rank_percentiles=np.c_[low, high]),
        top_k=(3,),
        replicates=RankReplicates(point=scores, errors=rng.normal(0, 1, (n, 20)) * sd[:, None],
                                  sd=sd, correlation=0.0, sign=1.0,
                                  source="synthetic draws (big_board)"))
    return replace(small, leaderboard=lb, table=join_ranking(table, ranking), tiers=tiers,
                   ranking=ranking)
