"""``leaderboard analyze --metric a,b,c``: several metrics on the same predictions, one report.

Each metric runs the whole submissions pipeline on the same files with the same seed, so every
metric's replicates are drawn from the same resampled rows (paired across metrics too). The page
puts the metrics side by side; the JSON holds each metric's full analysis.
"""
from __future__ import annotations

import argparse
import copy
from collections.abc import Callable
from typing import TYPE_CHECKING

from leaderboard.cli.common import echo, write_output
from leaderboard.cli.summary import summary
from leaderboard.errors import InputError
from leaderboard.safe_write import write_text

if TYPE_CHECKING:
    from leaderboard.pipelines.scores import Analysis


def metric_names_given(text: str | None) -> list[str]:
    """The metrics named by ``--metric`` (comma separated), each once, in the order given."""
    names = [part.strip() for part in (text or "").split(",") if part.strip()]
    return list(dict.fromkeys(names))


def run_several(args: argparse.Namespace,
                analyse: Callable[[argparse.Namespace], Analysis]) -> list[Analysis]:
    """Analyse once per metric with ``analyse(args)``; write one page, one JSON; returns them."""
    from leaderboard.metrics import get_metric   # the registry imports every metric's code
    from leaderboard.report.several import json_text, render_several

    names = metric_names_given(args.metric)
    if args.items is not None or (args.solution is None and args.submissions is None
                                  and args.example != "submissions"):
        raise InputError("--metric with several names needs predictions (--solution with "
                         "--submissions): each metric scores the same predictions")
    if args.csv or args.markdown:
        raise InputError("--csv and --markdown export one metric's tier table: run once per metric")
    if args.static_charts:
        raise InputError("--static-charts draws a page's charts, and the page of several metrics "
                         "has none: drop it, or run once per metric")
    metrics = [get_metric(name) for name in names]          # every name checked before any run
    results = []
    for metric in metrics:
        one = copy.copy(args)
        one.metric = metric.name
        results.append(analyse(one))
    write_output(lambda p: write_text(p, render_several(results)),
                 args.output)
    if args.json:
        write_output(lambda p: write_text(p, json_text(results)), args.json)
    if not args.quiet:
        for result in results:
            echo(summary(result))
        echo("wrote " + " and ".join(p for p in (args.output, args.json) if p))
    return results
