"""`leaderboard plan`: how many test rows separate two entries, and how small a gap n rows resolve;
with ``--from FILE``, how many units a board like this one needs for its leader to stand alone.

Asked before a competition starts; the command runs :func:`leaderboard.plan`. See
:mod:`leaderboard.pipelines.plan` for the method and
:mod:`leaderboard.report.plan_report` for the words, the page and the JSON. ``--from`` reads the
board as ``leaderboard analyze`` does (its reading options are analyze's own, taken from its
parser) and runs :func:`leaderboard.plan_from` (:mod:`leaderboard.pipelines.plan_board`).
"""
from __future__ import annotations

import argparse
from functools import partial
from pathlib import Path

from leaderboard.api_plan import Plan, plan
from leaderboard.cli.common import (COMMANDS, CORRELATION, FRACTION, ROWS,
                                    add_parameter, add_universe_options, echo, write_output)
from leaderboard.cli.plan_from import FROM_ONLY, add_from_options, run_from
from leaderboard.errors import InputError
from leaderboard.noise.spread import TYPICAL_CORRELATION


def add_parser(commands) -> None:
    """Register the `plan` command on the top-level subparsers."""
    p = commands.add_parser(
        "plan", help=COMMANDS["plan"],
        description="Minimum test-set size to detect a difference --delta between two entries, "
                    "and the minimum detectable difference (MDD) for --n-test rows (give either or "
                    "both), from the normal approximation delta >= (z_{1-alpha/2} + z_power) * "
                    "sd_diff(n), checked by simulation.")
    add_parameter(p, "metric", "plan")
    add_parameter(p, "score", "plan")
    add_parameter(p, "prevalence", "plan", type=FRACTION)
    add_parameter(p, "delta", "plan")
    add_parameter(p, "n_test", "plan", type=ROWS)
    for name in ("alpha", "power"):
        add_parameter(p, name, "plan")
    add_parameter(p, "public_fraction", "plan", type=FRACTION)
    add_parameter(p, "correlation", "plan", type=CORRELATION)
    for name in ("draws", "seed"):
        add_parameter(p, name, "plan")
    p.add_argument("-o", "--output", help="write the HTML report here (e.g. plan.html)")
    add_parameter(p, "static_charts", action="store_true")
    p.add_argument("--json", help="write the results as JSON here")
    add_parameter(p, "quiet", "plan", action="store_true")
    add_universe_options(p)
    add_from_options(p)


def run(args: argparse.Namespace) -> Plan:
    """Run `leaderboard plan` from parsed arguments; returns the plan it wrote."""
    from leaderboard.report.plan_report import terminal_text, write_html, write_json

    if args.static_charts and (args.from_file is not None or not args.output):
        raise InputError("--static-charts draws the chart of plan's page: give -o FILE, without "
                         "--from (the page of a plan from a board has no chart)")
    if args.from_file is not None:
        return run_from(args)
    given = [option for option, dest in FROM_ONLY if getattr(args, dest) is not None]
    if given:
        raise InputError(f"{given[0]} goes with --from FILE (a board to plan from)")
    for option, value in (("--metric", args.metric), ("--score", args.score)):
        if value is None:
            raise InputError(f"{option} is required (or --from FILE: a board to plan from)")
    if args.correlation is None:
        args.correlation = TYPICAL_CORRELATION
    result = plan(metric=args.metric, score=args.score, delta=args.delta, n_test=args.n_test,
                  prevalence=args.prevalence, alpha=args.alpha, power=args.power,
                  public_fraction=args.public_fraction, correlation=args.correlation,
                  draws=args.draws, seed=args.seed, universe=args.universe, classes=args.classes,
                  class_shares=args.class_shares, residuals=args.residuals, df=args.df,
                  threshold=args.threshold, spread=args.spread,
                  kurtosis=args.kurtosis, quiet=args.quiet)
    if args.output:
        write_output(partial(write_html, result, static_charts=args.static_charts), args.output)
    if args.json:
        write_output(partial(write_json, result), args.json)
    if not args.quiet or not (args.output or args.json):   # --quiet alone still answers
        echo(terminal_text(result))
        written = [str(Path(x)) for x in (args.output, args.json) if x]
        if written:
            echo("wrote " + " and ".join(written))
    return result
