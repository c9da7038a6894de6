"""Stage 4, report: the analysis as a self-contained HTML page and as JSON."""
from leaderboard.report.html import render_html, render_summary, write_html
from leaderboard.report.json_out import json_text, to_json_dict, write_json

__all__ = ["json_text", "render_html", "render_summary", "to_json_dict", "write_html",
           "write_json"]
