"""One page and one JSON for several metrics on the same predictions (``--metric a,b``)."""
from __future__ import annotations

import json
from typing import TYPE_CHECKING

from leaderboard.report.headline import ANSWER_WORDS, fit_answer, who, words
from leaderboard.report.html import build_context
from leaderboard.report.json_out import to_json_dict
from leaderboard.report.render import render_page

if TYPE_CHECKING:
    from leaderboard.pipelines.scores import Analysis


def render_several(results: list[Analysis]) -> str:
    """The page: one answer box with each metric's answer in a sentence, then every entry's
    rank and tier under each metric (the first table), then each metric's own answer box and
    what its numbers assume, then each metric's tier table."""
    contexts = [build_context(a, static_rows=None, interactive=False) for a in results]
    teams = list(results[0].table["team"])
    by_metric = [{row.team: row for row in c["rows"]} for c in contexts]
    cross = [{"team": team, "cells": [m.get(team) for m in by_metric]} for team in teams]
    return render_page("several.html.j2", contexts[0], metrics=contexts, cross=cross,
                       together=together(results, contexts))


def together(results: list[Analysis], contexts: list[dict]) -> list[tuple[str, bool]]:
    """The several-metrics page's answer box (issue 43: at most 75 words before its first
    table, the side-by-side one): each metric's answer (who could be the best; the count alone
    when the names do not fit, the table right below names them), then every metric's caveats;
    what still does not fit is said to follow under each metric's own answer. Pairs of (sentence,
    set in bold)."""
    room = ANSWER_WORDS - 5    # the table's heading, "Every entry under every metric"
    cautions = [f"Caution ({c['metric']}): {x[9:]}" if x.startswith("Caution: ") else
                f"{c['metric']}: {x}" for c in contexts for x in c["caveats"]]
    for names in (True, False):
        said = [f"{c['metric']}: {who(a, names) if c['has_noise'] else c['answer'][0]}"
                for a, c in zip(results, contexts)]
        if words(said + cautions) <= room:
            return [(x, True) for x in said] + [(x, False) for x in cautions]
    kept, rest = fit_answer(said[0], said[1:] + cautions, limit=room - 15)
    n = len(rest)
    return [(x, k < len(said)) for k, x in enumerate([said[0], *kept])] + [
        (f"{n:,} more sentence{'s' if n > 1 else ''} of the answer {'is' if n == 1 else 'are'} "
         "below the table, under each metric's own answer.", False)]


def json_text(results: list[Analysis]) -> str:
    """``{"metrics": [names], "analyses": {name: the one-metric JSON}}``."""
    from leaderboard import __version__

    data = {"version": __version__, "command": "analyze",
            "metrics": [a.settings.metric.name for a in results],
            "analyses": {a.settings.metric.name: to_json_dict(a) for a in results}}
    return json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n"
