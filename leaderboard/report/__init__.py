"""Stage 4, report: the analysis as a self-contained HTML page and as JSON.

The names below load their modules (Altair, the page's templates) on first use, so that a
submodule such as :mod:`leaderboard.report.vega.renderer` imports without them: the command
line starts the chart renderer before its statistics and writes the page after (issue 27).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from leaderboard._lazy import lazy_names

__all__ = ["json_text", "render_html", "render_summary", "to_json_dict", "write_html",
           "write_json"]

if TYPE_CHECKING:
    from leaderboard.report.html import render_html, render_summary, write_html
    from leaderboard.report.json_out import json_text, to_json_dict, write_json

__getattr__, __dir__ = lazy_names(__name__, {
    **dict.fromkeys(("render_html", "render_summary", "write_html"), "leaderboard.report.html"),
    **dict.fromkeys(("json_text", "to_json_dict", "write_json"), "leaderboard.report.json_out")},
    globals())
