"""One page and one JSON for several metrics on the same predictions (``--metric a,b``)."""
from __future__ import annotations

import json
from typing import TYPE_CHECKING

from leaderboard.report.html import build_context
from leaderboard.report.json_out import to_json_dict
from leaderboard.report.render import render_page

if TYPE_CHECKING:
    from leaderboard.pipelines.scores import Analysis


def render_several(results: list[Analysis]) -> str:
    """The page: each metric's answer, then every entry's rank and tier under each metric, then
    each metric's tier table."""
    contexts = [build_context(a, static_rows=None, interactive=False) for a in results]
    teams = list(results[0].table["team"])
    by_metric = [{row.team: row for row in c["rows"]} for c in contexts]
    cross = [{"team": team, "cells": [m.get(team) for m in by_metric]} for team in teams]
    return render_page("several.html.j2", contexts[0], metrics=contexts, cross=cross)


def json_text(results: list[Analysis]) -> str:
    """``{"metrics": [names], "analyses": {name: the one-metric JSON}}``."""
    from leaderboard import __version__

    data = {"version": __version__, "command": "analyze",
            "metrics": [a.settings.metric.name for a in results],
            "analyses": {a.settings.metric.name: to_json_dict(a) for a in results}}
    return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
