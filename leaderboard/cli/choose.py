"""`leaderboard choose`: which two final submissions should a team select?

Candidates come as a table of public scores (``--public-scores FILE --n-public N``), as predictions
with the solution (``--solution FILE --submissions PATH``, as for ``analyze``), or both. argparse
-> the options objects -> :func:`leaderboard.pipelines.choose_run.run_choose` (which reads the
inputs; :func:`leaderboard.choose_finals` runs it too); :mod:`leaderboard.report.choose_report`
words it, as the page and the JSON.
"""
from __future__ import annotations

import argparse
from functools import partial

from leaderboard.pipelines.choose import ChooseResult, ChooseSettings
from leaderboard.pipelines.choose_run import ChooseInputs, run_choose
from leaderboard.cli.common import (COMMANDS, CORRELATION, FRACTION, ROWS,
                                    add_max_file_size, add_output_options, add_parameter,
                                    add_universe_options, echo, universe_options,
                                    write_output)
from leaderboard.errors import InputError
from leaderboard.metrics import get_metric, metric_names
from leaderboard.options import NoiseOptions, RankOptions, ReadOptions, SliceOptions


def add_parser(commands) -> None:
    """Register the `choose` command on the top-level subparsers."""
    p = commands.add_parser(
        "choose", help=COMMANDS["choose"],
        description="Pick the two final submissions: each candidate's public score corrected for "
                    "having been picked as best, the pair with the highest expected best-of-two "
                    "private score, the pair most likely to hold a top-tier candidate, and how much "
                    "of the public climb was within noise.")
    p.add_argument("--example", action="store_true", help="run on the bundled submissions "
                   "example (its files as one team's candidates)")
    p.add_argument("--public-scores", help="CSV of the candidates and their public scores, in "
                   "submission order (columns detected as for analyze: team/name/model and score)")
    p.add_argument("--name-col", help="column of candidate names in --public-scores")
    add_parameter(p, "score_col", "choose")
    p.add_argument("--solution", help="solution CSV (with a Usage column, its public rows are "
                   "what the team has seen; the private labels are never used for the choice)")
    p.add_argument("--submissions", help="folder, zip or manifest of the candidates' prediction "
                   "files")
    add_parameter(p, "id_col", "choose")
    add_parameter(p, "target_col", "choose", action="append")
    add_parameter(p, "pred_col", "choose", action="append")
    add_parameter(p, "metric", "choose")
    add_parameter(p, "n_public", "choose", type=ROWS)
    add_parameter(p, "n_private", "choose", type=ROWS)
    add_parameter(p, "prevalence", "choose", type=FRACTION)
    add_parameter(p, "correlation", "choose", type=CORRELATION)
    direction = p.add_mutually_exclusive_group()
    direction.add_argument("--higher-is-better", dest="higher", action="store_const", const=True)
    direction.add_argument("--lower-is-better", dest="higher", action="store_const", const=False)
    for name in ("alpha", "replicates"):
        add_parameter(p, name, "choose")
    add_parameter(p, "draws", "choose")
    add_parameter(p, "seed", "choose")
    add_output_options(p, "choose")
    add_max_file_size(p, unread=("max_models",))   # reads no battles
    add_universe_options(p)


def _settings(args: argparse.Namespace) -> ChooseSettings:
    if args.metric is None:
        raise InputError(f"--metric is required; known metrics: {', '.join(metric_names())}")
    noise = NoiseOptions(metric=args.metric, higher_is_better=args.higher,
                         prevalence=args.prevalence,
                         correlation="auto" if args.correlation is None else args.correlation,
                         draws=args.draws, seed=args.seed, universe=universe_options(args))
    ranks = RankOptions(alpha=args.alpha, replicates=args.replicates)
    return ChooseSettings(get_metric(args.metric), noise, ranks,
                          SliceOptions(n_public=args.n_public, n_private=args.n_private))


def run(args: argparse.Namespace) -> ChooseResult:
    """Run `leaderboard choose` from parsed arguments; returns the result it wrote."""
    from leaderboard.report.choose_report import terminal_text, write_html, write_json

    if args.example:
        if args.public_scores or args.solution or args.submissions:
            raise InputError("give either input files or --example, not both")
        from leaderboard.pipelines.examples import make_submissions_example
        preset = make_submissions_example()
        args.solution, args.submissions = preset["solution"], preset["submissions"]
        args.metric = args.metric or preset["metric"]
    if args.solution is None and args.submissions is None and args.public_scores is None:
        raise InputError("give the candidates: --public-scores FILE (with --n-public), and/or "
                         "--solution with --submissions (or use --example)")
    read = ReadOptions(team_col=args.name_col, score_col=args.score_col, id_col=args.id_col,
                       target_col=args.target_col, pred_col=args.pred_col,
                       max_file_size=args.max_file_size)
    result = run_choose(ChooseInputs(public_scores=args.public_scores, solution=args.solution,
                                     submissions=args.submissions), _settings(args), read,
                        quiet=args.quiet)
    if args.example:   # named as the example's files, not by their temporary folder
        from dataclasses import replace

        from leaderboard.pipelines.examples import example_source
        result = replace(result, inputs=tuple(example_source(p) for p in result.inputs))
    if args.output:
        write_output(partial(write_html, result, static_charts=args.static_charts), args.output)
    if args.json:
        write_output(partial(write_json, result), args.json)
    if not args.quiet:
        echo(terminal_text(result, [p for p in (args.output, args.json) if p]))
    return result
