"""`leaderboard simulate`: the seeds' experiment for any simulable metric.

Draws many test sets from a universe whose true score is known and reports how far the observed
score wanders (95% range, d95), whether the truly better of several models finishes ahead, and in
grid mode how d95 depends on the true score, the test-set size and the prevalence.
"""
from __future__ import annotations

import argparse
import shlex
from collections.abc import Callable
from typing import TypeVar

from leaderboard.api_plan import simulate
from leaderboard.cli.common import (COMMANDS, DRAWS_MAX, FRACTION, ROWS,
                                    add_output_options, add_parameter, add_universe_options, count, echo,
                                    number_list, real, write_output)
from leaderboard.errors import InputError
from leaderboard.noise.universe_options import DEFAULT_DF, DEFAULT_RESIDUALS
from leaderboard.pipelines.simulate import Experiment

N = TypeVar("N", int, float)


def _csv(values) -> str:
    return ",".join(f"{v:g}" for v in values)


def add_parser(commands) -> None:
    """Register the `simulate` command on the top-level subparsers."""
    p = commands.add_parser(
        "simulate", help=COMMANDS["simulate"],
        description="Simulate the noise of a test set: draw many test sets from a universe whose "
                    "true score is known and report the 95% range of the observed score, d95 (the "
                    "gap two equally good models exceed one time in 20) and, for several true "
                    "scores, how often the truly better one is observed ahead.")
    add_parameter(p, "metric", "simulate")
    add_parameter(p, "score", "simulate", type=number_list(real()))
    add_parameter(p, "n_test", "simulate", type=number_list(ROWS))
    add_parameter(p, "prevalence", "simulate", type=number_list(FRACTION, percent=True))
    add_parameter(p, "grid", "simulate", action="store_true")
    add_parameter(p, "draws", "simulate", type=count(100, DRAWS_MAX))
    add_parameter(p, "seed", "simulate")
    add_output_options(p, "simulate")
    add_universe_options(p)


def _list(text: str | None, option: str, value: Callable[[str], N], what: str) -> list[N] | None:
    """A comma-separated option as numbers, each read by ``value`` (``what`` names what a bad one
    is not), or None."""
    if text is None:
        return None
    values: list[N] = []
    for item in text.split(","):
        item = item.strip()
        try:
            values.append(value(item))
        except (ValueError, OverflowError):
            raise InputError(f"{option} {text!r}: {item!r} is not {what}") from None
    return values


def _whole(item: str) -> int:
    """A whole number, written as one (``5000``, ``5e3``)."""
    number = float(item)
    if number != int(number):
        raise ValueError
    return int(number)


def _share(item: str) -> float:
    """A share, percent sign allowed (``20%`` is 0.2)."""
    return float(item[:-1]) / 100 if item.endswith("%") else float(item)


def command_line(args: argparse.Namespace) -> str:
    """The command that reproduces this run (shell-quoted)."""
    words = ["leaderboard", "simulate", "--metric", args.metric]
    for option, value in (("--score", args.score), ("--n-test", args.n_test),
                          ("--prevalence", args.prevalence)):
        if value is not None:
            words += [option, value]
    if args.grid:
        words.append("--grid")
    if args.draws is not None:
        words += ["--draws", str(args.draws)]
    words += ["--seed", str(args.seed)]
    for option, value, default in (("--universe", args.universe, None),
                                   ("--classes", args.classes, None),
                                   ("--class-shares", args.class_shares, None),
                                   ("--residuals", args.residuals, DEFAULT_RESIDUALS),
                                   ("--df", args.df, DEFAULT_DF),
                                   ("--threshold", args.threshold, 0.5),
                                   ("--spread", args.spread, None),
                                   ("--kurtosis", args.kurtosis, None)):
        if value != default:
            words += [option, f"{value:g}" if isinstance(value, float) else str(value)]
    words += ["-o", args.output] + (["--json", args.json] if args.json else [])
    if getattr(args, "static_charts", False):   # the page it made holds the drawings
        words.append("--static-charts")
    return shlex.join(words)


def run(args: argparse.Namespace) -> Experiment:
    """Run `leaderboard simulate` from parsed arguments; returns the experiment it wrote."""
    from leaderboard.report.simulate_report import write_html, write_json  # last stage

    # One default per question: with or without --grid, the universe analyze uses for the metric
    # (binormal for AUC: the noisiest real score shape of the noise study, so its d95 is not
    # smaller than real models'); --universe linspace reruns the seed articles' own universe.
    # The lists are read here, so that a bad one is named by its option.
    for option, value, seeds in (("--score", args.score, "0.7,0.8,0.9"),
                                 ("--n-test", args.n_test, "1000,5000,10000")):
        if value is None and not args.grid:   # said in the command's words, not the API's
            raise InputError(f"{option} is required (or --grid for the seeds' {seeds})")
    experiment = simulate(metric=args.metric,
                          scores=_list(args.score, "--score", float, "a number"),
                          n_tests=_list(args.n_test, "--n-test", _whole, "a whole number"),
                          prevalences=_list(args.prevalence, "--prevalence", _share, "a number"),
                          grid=args.grid, draws=args.draws, seed=args.seed,
                          universe=args.universe, classes=args.classes,
                          class_shares=args.class_shares, residuals=args.residuals, df=args.df,
                          threshold=args.threshold, spread=args.spread,
                          kurtosis=args.kurtosis, quiet=args.quiet)
    write_output(lambda path: write_html(experiment, path, command_line(args),
                                         static_charts=args.static_charts), args.output)
    if args.json:
        write_output(lambda path: write_json(experiment, path), args.json)
    if not args.quiet:
        echo(summary(experiment, [p for p in (args.output, args.json) if p]))
    return experiment


def summary(e: Experiment, written=()) -> str:
    """A few plain lines for the terminal: per case the d95 and the 95% range."""
    from leaderboard.report.simulate_report import Fmt, setting_words

    f = Fmt(e)
    lines = [f"{e.metric_label}: {len(e.cases)} case{'s' if len(e.cases) != 1 else ''}, "
             f"{e.draws:,} simulated test sets each, universe {e.universe}, seed {e.seed}"]
    width = max(len(f"{c.score:g}") for c in e.cases)
    where = {c.setting: setting_words(*c.setting) for c in e.cases}
    pad = max(len(w) for w in where.values())
    for c in e.cases:
        lines.append(f"  true {c.score:<{width}g}  {where[c.setting]:<{pad}}  d95 {f(c.d95)}  "
                     f"95% of observed scores in [{f(c.quantiles[0])}, {f(c.quantiles[2])}]")
    if not e.grid:
        for a in e.ahead:
            lines.append(f"  true {a.better:g} observed ahead of true {a.worse:g} on independent "
                         f"test sets: {100 * a.probability:.1f}%")
    if e.partial:
        lines.append("  partial correlation with d95: " + ", ".join(
            f"{k} {v:+.2f}" if v is not None else f"{k} undefined" for k, v in e.partial.items()))
    if written:
        lines.append("wrote " + " and ".join(written))
    return "\n".join(lines)
