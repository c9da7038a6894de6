"""What the Python API returns: one analysed leaderboard, its parts by name and its outputs."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import ClassVar

import pandas as pd

from leaderboard.pipelines.analysis import Analysis, Settings
from leaderboard.confidence import confidence_label
from leaderboard.result_protocol import Saves, static_page


@dataclass(frozen=True, eq=False)
class Result(Saves):
    """One analysed leaderboard: its table and statistics, the report as HTML or JSON, and a
    notebook summary. ``save(path)`` writes the report (``.html``), the JSON (``.json``), the
    tier table (``.csv``, ``.md``) or the scores-and-intervals chart (``.png``, ``.svg``), chosen
    by the path's suffix (``save(path, static_charts=True)``: the page's top charts also drawn as
    static SVG) (:class:`~leaderboard.result_protocol.Saves`; another suffix, or a path
    that cannot be written, is one :class:`~leaderboard.errors.InputError` naming the path).

    Attributes
    ----------
    table : DataFrame
        One row per entry, best first: ``rank``, ``team``, ``score``, its interval
        (``ci_low``, ``ci_high``), ``tier``, rank intervals, ``p_best``, ``p_top_<k>``, ...
    tiers : Tiers or None
        The tiers and the method that cut them.
    d95 : float or None
        The gap chance alone exceeds 5% of the time, at the leader's score.
    flags : tuple of Flag
        What a reader should know before any number (ties at the top, junk, a tiny class, ...).
    ranking : Ranking or None
        Rank intervals, P(best), stability and the winner's curse.
    shakeup : Shakeup or None
        Public vs private: rank changes against the noise baseline, the overfitting test.
    settings : Settings
        Everything the analysis was told (metric, alpha, seed, ...).
    notes : tuple of str
        Plain sentences: why a number is missing, what was assumed.
    analysis : Analysis
        Everything else (noise model, bootstrap, submissions, categories, curves).
    costs, published : DataFrame or None
        Per-item results' cost per model (``cost_col``) and published scores checked
        (``published``), as tables.
    card : dict or None
        The leaderboard card, as in the JSON.

    Examples
    --------
    >>> import numpy as np, pandas as pd, leaderboard
    >>> board = pd.DataFrame({"team": ["a", "b", "c"], "score": [0.9, 0.85, 0.6]})
    >>> r = leaderboard.analyze(board, metric="auc", n_test=2000, prevalence=0.3, draws=200,
    ...                         replicates=200)
    >>> r.table["tier"].tolist(), r.settings.alpha
    ([1, 2, 3], 0.05)
    """

    SUFFIXES: ClassVar[Mapping[str, str]] = {
        ".html": "to_html", ".htm": "to_html", ".json": "to_json", ".csv": "to_csv",
        ".md": "to_markdown", ".png": "_png", ".svg": "_svg"}
    CHARTS: ClassVar[bool] = True

    analysis: Analysis = field(repr=False)
    table: pd.DataFrame = field(repr=False)
    settings: Settings = field(repr=False)
    tiers: object = field(repr=False)
    d95: float | None
    flags: tuple = field(repr=False)
    ranking: object = field(repr=False)
    shakeup: object = field(repr=False)
    notes: tuple[str, ...] = field(repr=False)

    @classmethod
    def of(cls, analysis: Analysis) -> Result:
        """The result of one :class:`~leaderboard.pipelines.scores.Analysis`."""
        return cls(analysis=analysis, table=analysis.table, settings=analysis.settings,
                   tiers=analysis.tiers, d95=analysis.d95, flags=analysis.flags,
                   ranking=analysis.ranking, shakeup=analysis.shakeup, notes=analysis.notes)

    @property
    def costs(self) -> pd.DataFrame | None:
        """Per-item results with ``cost_col``: one row per model, best score first (``model``,
        ``score``, ``tier``, ``mean_cost`` and its interval, ``total_cost`` and its interval,
        ``on_frontier``); None without costs. The JSON's ``costs`` holds the cheaper top-tier
        models too."""
        from leaderboard.report.benchmark_text import costs_json

        data = costs_json(self.analysis)
        return None if data is None else pd.DataFrame(data["models"])

    @property
    def published(self) -> pd.DataFrame | None:
        """Per-item results with ``published``: each matched published score beside the
        measured one and its interval (``outside``); None without it."""
        from leaderboard.report.benchmark_text import published_json

        data = published_json(self.analysis)
        return None if data is None else pd.DataFrame(
            data["models"], columns=["model", "published", "measured", "ci_low", "ci_high",
                                     "outside"])

    @property
    def card(self) -> dict | None:
        """The leaderboard card (issue 40) as the JSON's ``card``: shape and SHA-256 of the
        matrix, the share of pairs established, the positions resolved, the top pair's
        resolution and the provenance (docs/reading-the-report.md)."""
        from leaderboard.report.card_text import card_json

        return card_json(self.analysis.card)

    def to_html(self, static_charts: bool = False) -> str:
        """The full self-contained report, as ``leaderboard analyze -o`` writes it; with
        ``static_charts`` the top charts also drawn as static SVG, for readers without
        JavaScript (``--static-charts``)."""
        from leaderboard.report import render_html

        return render_html(self.analysis, static_page(self, static_charts, "to_html"))

    def to_json(self) -> str:
        """The JSON ``leaderboard analyze --json`` writes."""
        from leaderboard.report import json_text

        return json_text(self.analysis)

    def to_dict(self) -> dict:
        """The JSON as a dictionary."""
        from leaderboard.report import to_json_dict

        return to_json_dict(self.analysis)

    def to_csv(self) -> str:
        """The tier table as CSV (``--csv``): formulas in team names neutralised."""
        from leaderboard.report import exports

        return exports.to_csv(self.analysis)

    def to_markdown(self) -> str:
        """The tier table as a Markdown table (``--markdown``)."""
        from leaderboard.report import exports

        return exports.to_markdown(self.analysis)

    def _png(self) -> str | bytes:
        return self._figure(".png")

    def _svg(self) -> str | bytes:
        return self._figure(".svg")

    def _figure(self, suffix: str) -> str | bytes:
        """The scores-and-intervals chart, as the page draws it."""
        from leaderboard.report.chart_context import scores_figure

        return scores_figure(self.analysis, suffix)

    def charts(self) -> dict:
        """The report's charts as Altair charts, by name (``"scores"``, ``"hist"``, ``"ecdf"``,
        ``"board_hist"``, the ranks', post-mortem's and curves' charts where the analysis has
        them): in Jupyter each displays natively, with its tooltips and zoom."""
        from leaderboard.report.chart_context import analysis_charts
        from leaderboard.report.numbers import Numbers
        from leaderboard.report.vega.embed import altair_chart, specifications_only

        a = self.analysis
        num = Numbers(a.settings.metric, a.table["score"].to_numpy(dtype=float), a.d95)
        with specifications_only():   # displayed by Altair: no static drawings to wait for
            blocks = analysis_charts(a, num, confidence_label(a.settings.alpha))
        return {name: altair_chart(b) for name, b in blocks.items() if b is not None}

    def _repr_html_(self) -> str:
        # In an iframe of its own: the report's styles never reach the notebook's.
        from leaderboard.report import render_summary

        page = render_summary(self.analysis)
        escaped = page.replace("&", "&amp;").replace('"', "&quot;")
        return (f'<iframe srcdoc="{escaped}" style="width:100%;height:560px;border:1px solid '
                '#d0d7de;border-radius:6px" sandbox title="leaderboard summary"></iframe>')

    def __repr__(self) -> str:
        t = self.table
        return (f"<leaderboard.Result: {len(t):,} entries, {self.settings.metric.label}; "
                f"tier 1: {int((t['tier'] == 1).sum()):,}>")
