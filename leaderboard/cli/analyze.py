"""`leaderboard analyze`: its options, and the run of one command from them.

The parsed arguments become the options objects of :mod:`leaderboard.options` and the
:class:`~leaderboard.pipelines.run.Inputs` they name (:mod:`leaderboard.cli.analyze_args`);
:func:`leaderboard.pipelines.run.run_analysis` (the same function the Python API calls) reads
them and runs the statistics; :mod:`leaderboard.cli.analyze_outputs` writes the outputs.
"""
from __future__ import annotations

import argparse
from dataclasses import replace

from leaderboard.cli.analyze_args import analysis_from_args
from leaderboard.cli.analyze_outputs import write_analysis
from leaderboard.cli.common import (COMMANDS, FRACTION, N_MAX, ROWS,
                                    add_engine_options, add_max_file_size, add_output_options,
                                    add_parameter, add_solution_columns, add_universe_options)
from leaderboard.cli.battles import add_battles_options, run_battles
from leaderboard.cli.given import analyze_mode, refuse_unread
from leaderboard.cli.several import metric_names_given, run_several
from typing import TYPE_CHECKING

from leaderboard.choices import EXAMPLES
from leaderboard.errors import InputError

if TYPE_CHECKING:   # the pipelines load when a command runs, not to parse its options
    from leaderboard.api_battles import BattlesResult
    from leaderboard.pipelines.scores import Analysis



def add_parser(commands) -> None:
    """The ``analyze`` command's options (every check where it is parsed)."""
    run = commands.add_parser("analyze", help=COMMANDS["analyze"])
    run.add_argument("file", nargs="?", help="leaderboard CSV: Kaggle's download "
                     "(TeamId,TeamName,SubmissionDate,Score) or a table of teams and scores")
    run.add_argument("--example", nargs="?", const="scores", choices=EXAMPLES,
                     help="analyse a bundled example: 'scores' (the default: public and private "
                          "scores of 40 teams), 'kaggle' (the same competition's public board as "
                          "Kaggle's download), 'submissions' (a solution and 45 submission "
                          "files), 'items' (per-item results of 10 models) or 'battles' (an "
                          "arena); its settings are preset, options given here override")
    add_parameter(run, "metric", "analyze")
    add_parameter(run, "n_test", "analyze", type=ROWS)
    add_parameter(run, "prevalence", "analyze", type=FRACTION)
    add_parameter(run, "team_col", "analyze")
    add_parameter(run, "score_col", "analyze")
    add_parameter(run, "public_col", "analyze")
    add_parameter(run, "private_col", "analyze")
    add_parameter(run, "split")
    post = run.add_argument_group("post-mortem: public vs private (a board with both columns)")
    add_parameter(post, "n_public", "analyze", type=ROWS)
    add_parameter(post, "n_private", "analyze", type=ROWS)
    add_parameter(post, "public_fraction", "analyze", type=FRACTION)
    add_parameter(post, "two_stage", "analyze", action="store_true")
    sub = run.add_argument_group("submissions mode (predictions scored against a solution)")
    sub.add_argument("--solution", help="solution CSV: id column, target column(s), optional "
                     "Usage (Public/Private/Ignored)")
    sub.add_argument("--submissions", help="a folder of submission CSVs, a zip of them, or a "
                     "manifest CSV with columns team,file[,selected]")
    add_solution_columns(sub)
    items = run.add_argument_group("per-item results (one row per model and item)")
    items.add_argument("--items", help="a long table (CSV or Parquet) of per-item results, one "
                       "row per model and item, or what a benchmark publishes: "
                       "lm-evaluation-harness sample logs (--log_samples), SWE-bench results, "
                       "HELM runs or Inspect logs (--items-format); analysed with the paired "
                       "bootstrap of items")
    add_parameter(items, "items_format")
    add_parameter(items, "instances", "analyze", metavar="FILE")
    add_parameter(items, "missing_instances")
    for name in ("model_col", "item_col", "value_col"):
        add_parameter(items, name)
    add_parameter(items, "cluster_col", "analyze")
    add_parameter(items, "category_col", "analyze")
    add_parameter(items, "category_intervals")
    add_parameter(items, "harness_filter", "analyze")
    add_parameter(items, "sample_col", "analyze")
    add_parameter(items, "items_policy")
    add_parameter(items, "cost_col", "analyze")
    add_parameter(items, "published", "analyze", metavar="FILE")
    add_parameter(items, "published_col", "analyze", metavar="COL")
    add_parameter(items, "published_model_col", "analyze", metavar="COL")
    add_parameter(sub, "resample")
    add_parameter(sub, "replicates")
    add_parameter(sub, "beta", "analyze")
    add_parameter(sub, "costs", "analyze")
    direction = run.add_mutually_exclusive_group()
    direction.add_argument("--higher-is-better", dest="higher", action="store_const", const=True,
                           help="override the metric's direction")
    direction.add_argument("--lower-is-better", dest="higher", action="store_const", const=False)
    for name in ("alpha", "draws", "seed"):
        add_parameter(run, name)
    add_parameter(run, "correlation", type=_correlation)
    ranks = run.add_argument_group("tiers and ranks")
    add_parameter(ranks, "tiers")
    add_parameter(ranks, "prizes")
    add_parameter(ranks, "top_k", type=_positive_ints)
    add_parameter(run, "exclude_flagged", type=_flag_words)
    add_output_options(run, "analyze")
    run.add_argument("--csv", help="also write the tier table (ranks, intervals, tiers, rank "
                     "intervals, P(best)) as CSV to this path")
    run.add_argument("--markdown", help="also write the tier table as a Markdown table to this "
                     "path (a pull-request comment)")
    add_max_file_size(run)
    add_engine_options(run)
    add_universe_options(run)
    add_battles_options(run)


def _flag_words(text: str) -> tuple[str, ...]:
    """``'perfect,junk'`` -> ``('perfect', 'junk')``; argparse prints the error in one line."""
    from leaderboard.flags import EXCLUDABLE

    words = tuple(dict.fromkeys(w.strip().lower() for w in text.split(",") if w.strip()))
    if not words or any(w not in EXCLUDABLE for w in words):
        raise argparse.ArgumentTypeError(f"{text!r}: give perfect, junk or shared (comma "
                                         "separated)")
    return words


def _positive_ints(text: str) -> tuple[int, ...]:
    """``'10,50'`` -> ``(10, 50)``; argparse turns the ValueError into a one-line error."""
    values = tuple(int(part) for part in text.split(",") if part.strip())
    if not values or min(values) < 1 or max(values) > N_MAX:
        raise ValueError(text)
    return values


def _correlation(text: str) -> float | str:
    """``--correlation``: ``'auto'`` or a number in [0, 1) (anything else: a one-line error)."""
    if text.strip().lower() == "auto":
        return "auto"
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 <= value < 1:
        raise argparse.ArgumentTypeError(f"give 'auto' or a number at least 0 and below 1, not "
                                         f"{text!r}")
    return value


def run_analyze(args: argparse.Namespace) -> Analysis | BattlesResult | list[Analysis]:
    """Run ``leaderboard analyze`` from parsed arguments; returns the analysis it wrote (the
    battles' result with ``--battles``, one analysis per metric with several ``--metric``)."""
    refuse_unread(args, analyze_mode(args))   # before anything is read or started
    if args.static_charts and len(metric_names_given(args.metric)) < 2:   # (several: refused)
        from leaderboard.report.vega import renderer

        renderer.warm_up()   # asked for: the chart renderer starts (V8) while the statistics run
    if args.example == "battles":   # the bundled arena: --battles with the shipped file
        from leaderboard.resources import data_dir

        if args.battles is not None:
            raise InputError("give either --battles or --example battles, not both")
        args = argparse.Namespace(**{**vars(args), "example": None,
                                     "battles": str(data_dir() / "example_battles.csv")})
    if getattr(args, "battles", None) is not None:   # issue 26: its own API, a thin layer here
        return run_battles(args)
    if len(metric_names_given(args.metric)) > 1:
        return run_several(args, analysis_from_args)
    result = analysis_from_args(args)
    if result.ranking is not None:   # the pages need none of the error draws (0.8 GB at
        result = replace(result, ranking=result.ranking.without_errors())   # 100,000 entries)
    write_analysis(result, args)   # the report is the last stage
    return result


run = run_analyze   # the name every command's module runs by (leaderboard.cli.main)


def _make_submissions_example() -> dict:
    """The bundled submissions example, for ``choose --example`` and the tests that call it from
    here (:func:`leaderboard.pipelines.examples.make_submissions_example`)."""
    from leaderboard.pipelines.examples import make_submissions_example

    return make_submissions_example()
