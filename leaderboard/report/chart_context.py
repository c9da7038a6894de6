"""The analysis page's charts, from an :class:`~leaderboard.pipelines.scores.Analysis`: which
chart shows what, with the page's words for axes and labels (the specifications are built in
:mod:`leaderboard.report.vega`)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from leaderboard.confidence import confidence_label
from leaderboard.report.numbers import Numbers
from leaderboard.report.rank_charts import rank_charts
from leaderboard.report.shakeup_charts import shakeup_charts
from leaderboard.report.tier_marks import out_of_order_mask
from leaderboard.report.vega import analyze, categories, curves
from leaderboard.report.vega.common import PALETTE, tier_class
from leaderboard.report.vega.embed import ChartBlock, PendingChart, static_drawings
from leaderboard.report.vega.embed import pending_block as chart   # drawn while the page goes on

if TYPE_CHECKING:
    from leaderboard.pipelines.scores import Analysis


def scores_legend(tiers: np.ndarray, shown: int) -> tuple[list[tuple[str, str]], str]:
    """The scores chart's legend (label and colour class of each tier among the ``shown`` rows)
    and its note on the tiers below the chart and colours repeating."""
    shown_tiers = sorted({int(x) for x in tiers[:shown]} - {0})
    n_tiers = int(tiers.max()) if tiers.size else 0
    note = ""
    if shown_tiers and n_tiers > shown_tiers[-1]:
        below = (f"tier {n_tiers}" if n_tiers == shown_tiers[-1] + 1
                 else f"tiers {shown_tiers[-1] + 1}\u2013{n_tiers}")
        note = f"{below} below the chart, in the table"
    if n_tiers > len(PALETTE):
        note += ("; " if note else "") + f"colours repeat every {len(PALETTE)} tiers"
    return [(f"tier {k}", tier_class(k)) for k in shown_tiers], note


def moved_marks(tier: np.ndarray, shown: int) -> dict[str, int | bool]:
    """How many of the ``shown`` (charted) entries carry the scores chart's \u2195 (in a better
    tier than an entry ranked above them), and whether one of them is in tier 1.

    Examples
    --------
    >>> moved_marks(np.array([1, 2, 1, 3, 2]), shown=4)   # the third entry; the fifth not shown
    {'moved': 1, 'moved_tier1': True}
    """
    moved = out_of_order_mask(tier[:shown])
    return {"moved": int(moved.sum()), "moved_tier1": bool((tier[:shown][moved] == 1).any())}


def analysis_charts(a: Analysis, num: Numbers, conf: str, *, summary: bool = False
                    ) -> dict[str, ChartBlock | None]:
    """Every chart of the page by name (None where the analysis has nothing to show).

    With ``summary`` only the scores chart, for the notebook summary (static drawing only)."""
    return finished(pending_charts(a, num, conf, summary=summary))


def finished(charts: dict[str, PendingChart | None]) -> dict[str, ChartBlock | None]:
    """The charts of :func:`pending_charts` with their static drawings done."""
    return {name: None if c is None else c.result() for name, c in charts.items()}


def pending_charts(a: Analysis, num: Numbers, conf: str, *, summary: bool = False
                   ) -> dict[str, PendingChart | None]:
    """:func:`analysis_charts` with the static drawings, where asked for
    (:func:`~leaderboard.report.vega.embed.static_drawings`), started, not awaited (the renderer
    draws them while the page builds its other parts)."""
    s, t = a.settings, a.table
    better = "higher is better \u2192" if s.higher_is_better else "\u2190 lower is better"
    label = s.metric.label
    has_noise = a.tiers is not None
    rows = analyze.entry_rows(t, limit=analyze.TOP + 1)   # what the chart keeps, and one more
    scores = analyze.scores_chart(rows, decimals=num.decimals, x_title=f"{label} ({better})",
                                  interval=f"{conf} interval" if has_noise else None,
                                  leader=float(t["score"].iloc[0]))
    title = (f"Scores of the top {min(len(t), analyze.TOP)} entries"
             + (f" with {conf} intervals, coloured by tier" if has_noise else ""))
    out: dict[str, PendingChart | None] = {"scores": chart(scores, "chart-scores", title)}
    if summary:
        return out
    out.update(_noise(a, num))
    out.update(rank_charts(a, conf))
    out.update(shakeup_charts(a, num))
    out.update(_curves(a, conf))
    out["costs"] = _costs(a, num, conf)
    out["categories"] = None
    c = a.categories
    if c is not None:
        low, high = c.shown_columns     # the intervals the table shows (--category-intervals)
        shown = c.table.drop(columns=["ci_low", "ci_high"]).rename(
            columns={low: "ci_low", high: "ci_high"}) if low != "ci_low" else c.table
        out["categories"] = chart(
            categories.category_chart(shown, c.aggregates["macro_mean"],
                                      decimals=num.decimals, metric=s.metric.label,
                                      conf=confidence_label(1 - c.shown_level),
                                      higher_is_better=s.higher_is_better),
            "chart-categories", "The leading models' score in every category, tier 1 marked",
            static=False)
    return out


def _costs(a: Analysis, num: Numbers, conf: str) -> PendingChart | None:
    """The cost-accuracy chart (``--cost-col``), or None."""
    if a.costs is None:
        return None
    from leaderboard.report.vega.costs import cost_chart, cost_rows

    rows = cost_rows(a.costs)
    rows["lo"] = a.table["ci_low"].to_numpy(float)
    rows["hi"] = a.table["ci_high"].to_numpy(float)
    better = "higher is better" if a.settings.higher_is_better else "lower is better"
    spec = cost_chart(rows, decimals=num.decimals, interval=f"{conf} interval",
                      x_title=f"mean {a.costs.column} per item",
                      y_title=f"{a.settings.metric.label} ({better})")
    return chart(spec, "chart-costs", f"Cost and score of every model, with {conf} intervals; "
                 "the dashed line is the cost-accuracy frontier")


_CURVE_TITLES = {
    "roc": "ROC curves of the leading entries, with bootstrap bands",
    "pr": "Precision-recall curves of the leading entries, with bootstrap bands",
    "cap": "Cumulative accuracy profiles (CAP) of the leading entries, with their accuracy ratios",
    "cost": "Cost curves of the leading entries: normalised expected cost by probability-cost"}


def _curves(a: Analysis, conf: str) -> dict[str, PendingChart | None]:
    """The seeds' figures (submissions mode, binary target): ROC, PR, CAP and cost curves."""
    if a.curves is None:
        return dict.fromkeys(_CURVE_TITLES)
    teams = a.table["team"].astype(str).tolist()
    specs = curves.curve_charts(a.curves, [teams[i] for i in a.curves.rows], conf=conf)
    return {k: chart(spec, f"chart-curves-{k}", _CURVE_TITLES[k], static=False)
            for k, spec in specs.items()}


def _noise(a: Analysis, num: Numbers) -> dict[str, PendingChart | None]:
    """The leader's noise (histogram and pairwise-difference ECDF) and the board's histogram."""
    s, t = a.settings, a.table
    label = s.metric.label
    out: dict[str, PendingChart | None] = {"hist": None, "ecdf": None, "board_hist": None}
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
        out["hist"] = chart(hist, "chart-noise-hist", "Histogram of the leader's "
                            + ("simulated scores" if simulated else "bootstrap scores"))
        ecdf = analyze.ecdf_chart(lead.pair_ecdf[0], lead.pair_ecdf[1], lead.d95,
                                  x_title=f"|difference| in {label} between two draws",
                                  d95_text=num.score(lead.d95) if lead.d95 > 0 else
                                  "0 (no draw moved the score)")
        out["ecdf"] = chart(ecdf, "chart-noise-ecdf", "Share of pairs of draws at most a given "
                            "distance apart")
    scores = t["score"].to_numpy(dtype=float)
    if np.isfinite(scores).sum() > 1:
        d95 = a.d95 if a.d95 is not None and np.isfinite(a.d95) else None
        board = analyze.board_histogram(scores, float(scores[0]), d95,
                                        higher=s.higher_is_better,
                                        x_title=f"{label} of every entry", decimals=num.decimals,
                                        d95_text=None if d95 is None else num.score(d95))
        out["board_hist"] = chart(board, "chart-board-hist", f"Histogram of the {len(t):,} "
                                  "entries' scores, with the band within d95 of the leader")
    return out


def scores_figure(a: Analysis, suffix: str) -> str | bytes:
    """The scores-and-intervals chart as a file: SVG text (``.svg``) or a PNG at twice the
    pixels (``.png``), from the page's own specification (vl-convert draws it)."""
    from leaderboard.errors import InputError
    from leaderboard.report.vega import renderer

    num = Numbers(a.settings.metric, a.table["score"].to_numpy(dtype=float), a.d95)
    with static_drawings():   # the file is the drawing
        chart = analysis_charts(a, num, confidence_label(a.settings.alpha), summary=True)["scores"]
    if chart is None:   # every analysis has its scores chart
        raise ValueError("the analysis has no scores chart")
    drawn = None if chart.svg is None else (str(chart.svg) if suffix == ".svg" else
                                             renderer.png(str(chart.svg), scale=2))
    if drawn is None:
        raise InputError(f"cannot draw the chart as {suffix}: the chart renderer (vl-convert) "
                         f"cannot run on this machine ({renderer.unavailable()})")
    return drawn
