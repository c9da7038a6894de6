"""The analysis page's charts, from an :class:`~leaderboard.pipelines.scores.Analysis`: which
chart shows what, with the page's words for axes and labels (the specifications are built in
:mod:`leaderboard.report.vega`)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from leaderboard.report.vega import analyze
from leaderboard.report.vega.embed import ChartBlock, block

if TYPE_CHECKING:
    from leaderboard.pipelines.scores import Analysis
    from leaderboard.report.html import Numbers


def analysis_charts(a: Analysis, num: Numbers, conf: str, *, summary: bool = False
                    ) -> dict[str, ChartBlock | None]:
    """Every chart of the page by name (None where the analysis has nothing to show).

    With ``summary`` only the scores chart, for the notebook summary (static drawing only)."""
    s, t = a.settings, a.table
    better = "higher is better \u2192" if s.higher_is_better else "\u2190 lower is better"
    label = s.metric.label
    has_noise = a.tiers is not None
    rows = analyze.entry_rows(t)
    scores = analyze.scores_chart(rows, decimals=num.decimals, x_title=f"{label} ({better})",
                                  interval=f"{conf} interval" if has_noise else None,
                                  leader=float(t["score"].iloc[0]))
    title = (f"Scores of the top {min(len(t), analyze.TOP)} entries"
             + (f" with {conf} intervals, coloured by tier" if has_noise else ""))
    out: dict[str, ChartBlock | None] = {"scores": block(scores, "chart-scores", title)}
    if summary:
        return out
    out.update(_noise(a, num))
    return out


def _noise(a: Analysis, num: Numbers) -> dict[str, ChartBlock | None]:
    """The leader's noise (histogram and pairwise-difference ECDF) and the board's histogram."""
    s, t = a.settings, a.table
    label = s.metric.label
    out: dict[str, ChartBlock | None] = {"hist": None, "ecdf": None, "board_hist": None}
    lead = a.leader_distribution
    if lead is not None:
        simulated = a.noise is not None
        q_low, q_high = np.quantile(lead.draws, [0.025, 0.975])
        where = "a simulated test set" if simulated else "a bootstrap replicate"
        hist = analyze.distribution_chart(
            lead.draws, lead.true_score, q_low, q_high, x_title=f"{label} on {where}",
            y_title="share of test sets" if simulated else "share of replicates",
            centre_name="true score" if simulated else "observed score", fmt_text=num.score,
            decimals=num.decimals)
        out["hist"] = block(hist, "chart-noise-hist", "Histogram of the leader's "
                            + ("simulated scores" if simulated else "bootstrap scores"))
        ecdf = analyze.ecdf_chart(lead.pair_ecdf[0], lead.pair_ecdf[1], lead.d95,
                                  x_title=f"|difference| in {label} between two draws",
                                  d95_text=num.score(lead.d95))
        out["ecdf"] = block(ecdf, "chart-noise-ecdf", "Share of pairs of draws at most a given "
                            "distance apart")
    scores = t["score"].to_numpy(dtype=float)
    if np.isfinite(scores).sum() > 1:
        d95 = a.d95 if a.d95 is not None and np.isfinite(a.d95) else None
        board = analyze.board_histogram(scores, float(scores[0]), d95,
                                        higher=s.higher_is_better,
                                        x_title=f"{label} of every entry", decimals=num.decimals,
                                        d95_text=None if d95 is None else num.score(d95))
        out["board_hist"] = block(board, "chart-board-hist", f"Histogram of the {len(t):,} "
                                  "entries' scores, with the band within d95 of the leader")
    return out
