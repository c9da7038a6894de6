"""Stage 4, report: the analysis as a self-contained HTML page and as JSON."""
from leaderboard.report.html import render_html, write_html
from leaderboard.report.json_out import to_json_dict, write_json

__all__ = ["render_html", "to_json_dict", "write_html", "write_json"]
