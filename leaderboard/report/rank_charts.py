"""The rank section's charts: rank intervals of the top entries, Kendall's tau against the
resampled rankings, how often each top entry took each rank, and which top entry is shown to
beat which (the specifications are built in :mod:`leaderboard.report.vega.ranks`)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from leaderboard.report.ranks_text import ranked_rows
from leaderboard.report.vega import analyze, ranks
from leaderboard.report.vega.embed import PendingChart
from leaderboard.report.vega.embed import pending_block as chart   # drawn while the page goes on

if TYPE_CHECKING:
    from leaderboard.pipelines.scores import Analysis


def rank_charts(a: Analysis, conf: str) -> dict[str, PendingChart | None]:
    """The rank section's charts (None without rank statistics)."""
    out: dict[str, PendingChart | None] = dict.fromkeys(
        ("rank_intervals", "taus", "frequencies", "significance"))
    r = a.ranking
    if r is None:
        return out
    t = a.table.iloc[ranked_rows(a)]   # the ranking's entries, in its order
    teams = t["team"].astype(str).tolist()
    point = r.replicates.point   # ranks among the compared entries (ties share the better rank)
    observed = 1 + np.searchsorted(-point, -point, side="left")
    rows = analyze.entry_rows(t, limit=analyze.TOP + 1)   # what the chart keeps, and one more
    rows["rank"] = observed[:len(rows)]
    out["rank_intervals"] = chart(
        ranks.rank_interval_chart(rows, level=conf), "chart-rank-intervals",
        f"Rank intervals of the top {min(len(t), analyze.TOP)} of {len(t):,} entries, with "
        "the share of replicates each one won", static=False)
    if len(t) > 1:
        out["taus"] = chart(ranks.tau_chart(np.asarray(r.taus, dtype=float)), "chart-rank-tau",
                            "Kendall's tau between the observed ranking and each resampled "
                            "ranking", static=False)
    top = len(r.frequencies)
    tiers = t["tier"].to_numpy(dtype=int)
    out["frequencies"] = chart(
        ranks.frequency_chart(teams[:top], np.asarray(r.frequencies), observed[:top],
                              tiers[:top]), "chart-rank-frequencies",
        f"How often each of the top {top} entries took each rank over the resampled rankings",
        static=False)
    sig = r.significance
    k = len(sig.significant)
    if k > 1 and np.asarray(sig.significant).any():
        out["significance"] = chart(
            ranks.significance_chart(teams[:k], np.asarray(sig.significant, dtype=bool),
                                     np.asarray(sig.t, dtype=float),
                                     critical=sig.critical_value),
            "chart-rank-significance", f"Which of the top {k} entries is shown to beat which",
            static=False)
    return out
