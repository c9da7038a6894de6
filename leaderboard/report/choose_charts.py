"""Chart geometry of the `choose` page: each candidate's public score and its winner's-curse-
corrected estimate with the 95% interval, one row per candidate, the recommended pair marked.

Pure numbers; ``templates/choose.html.j2`` loops over these frozen dataclasses and escapes names.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from leaderboard.report.charts import PALETTE, PlotBox, Scale, Tick, padded, px
from leaderboard.report.rank_charts import _short, share_text

PICK, OTHER, PUBLIC = PALETTE[3], PALETTE[0], "#6b7280"
MAX_ROWS = 40


@dataclass(frozen=True)
class CandidateRow:
    y: float
    text_y: float
    name: str
    badge: str
    public_x: float
    x: float
    lo_x: float
    hi_x: float
    colour: str
    tooltip: str


@dataclass(frozen=True)
class EstimateChart(PlotBox):
    rows: list[CandidateRow]
    ticks: list[Tick]
    name_x: float
    badge_x: float
    x_label: str
    shown: int
    total: int


def estimate_chart(table, fmt: Callable[[float], str], higher_is_better: bool,
                   metric_label: str) -> EstimateChart:
    """Rows in the order of the corrected estimate, best first (at most :data:`MAX_ROWS`).

    ``table`` is :attr:`~leaderboard.pipelines.choose.ChooseResult.table`.
    """
    order = np.argsort(-table["expected"].to_numpy(float) if higher_is_better
                       else table["expected"].to_numpy(float), kind="stable")[:MAX_ROWS]
    shown = table.iloc[order]
    values = np.concatenate([shown[c].to_numpy(float) for c in
                             ("public_score", "expected", "ci_low", "ci_high")])
    row_h, top, left, right = 22.0, 30.0, 300.0, 1040.0
    bottom = top + row_h * len(shown)
    scale = Scale(*padded(float(np.nanmin(values)), float(np.nanmax(values))), left, right)
    rows = []
    for i, (_, r) in enumerate(shown.iterrows()):
        y = top + row_h * (i + 0.5)
        badge = {1: "1st pick", 2: "2nd pick"}.get(int(r["pick"]), "")
        tip = (f"{_short(str(r['candidate']), 60)}: public {fmt(r['public_score'])}, corrected "
               f"{fmt(r['expected'])} (95% {fmt(r['ci_low'])} to {fmt(r['ci_high'])}), "
               f"P(best) {share_text(r['p_best'])}")
        rows.append(CandidateRow(px(y), px(y + 4), _short(str(r["candidate"]), 36), badge,
                                 scale(r["public_score"]), scale(r["expected"]),
                                 scale(r["ci_low"]), scale(r["ci_high"]),
                                 PICK if badge else OTHER, tip))
    better = "higher is better \u2192" if higher_is_better else "\u2190 lower is better"
    return EstimateChart(1100, int(bottom + 46), left, right, top, bottom, rows, scale.ticks(8),
                         16.0, left - 14, f"{metric_label} ({better})", len(shown), len(table))
