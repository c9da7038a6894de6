"""`leaderboard analyze`: its options, and the run from parsed options to an Analysis.

Three inputs, one pipeline each: a leaderboard of scores (:func:`leaderboard.pipelines.scores.analyze`), a
solution with submission files, and per-item results (both through
:func:`leaderboard.pipelines.submissions.analyze_submissions`). :func:`analysis_from_args` is also
what the Python API runs, so both give the same numbers.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
from dataclasses import replace
from functools import partial
from pathlib import Path

import numpy as np

from leaderboard.pipelines.scores import Analysis, Settings, analyze
from leaderboard.cli.common import (DRAWS_MAX, FRACTION, N_MAX, ROWS, add_engine_options,
                                    add_max_file_size, add_output_options, add_seed,
                                    add_solution_columns, add_universe_options, count, echo,
                                    engine_from_args, real, universe_options, write_output)
from leaderboard.cli.several import metric_names_given, run_several
from leaderboard.cli.summary import summary
from leaderboard.errors import InputError, printable
from leaderboard.ingest import Leaderboard, read_leaderboard
from leaderboard.metrics import get_metric, metric_names
from leaderboard.noise.bootstrap import RESAMPLING
from leaderboard.resources import data_dir
from leaderboard.slices import SliceSizes, resolve_sizes
from leaderboard.submissions.items import NUMERIC_KINDS
from leaderboard.tiers.ranking import TIER_METHODS



def add_parser(commands) -> None:
    """The ``analyze`` command's options (every check where it is parsed)."""
    run = commands.add_parser("analyze", help="analyse a leaderboard file: intervals, d95, tiers, "
                              "HTML report and JSON")
    run.add_argument("file", nargs="?", help="leaderboard CSV: Kaggle's download "
                     "(TeamId,TeamName,SubmissionDate,Score) or a table of teams and scores")
    run.add_argument("--example", nargs="?", const="scores", choices=("scores", "submissions"),
                     help="analyse a bundled example: 'scores' (the default, a leaderboard file) or "
                          "'submissions' (a solution and 45 submission files, generated into a "
                          "temporary folder); its settings are preset, options given here override")
    run.add_argument("--metric", help="metric that ranks the board (several, comma separated, "
                     f"on the same predictions: one page for all): {', '.join(metric_names())}")
    run.add_argument("--n-test", type=ROWS, help="rows in the test set that ranks the board")
    run.add_argument("--prevalence", type=FRACTION, help="share of positives in that test set (binary "
                     "metrics)")
    run.add_argument("--team-col", help="column of team names (default: detected)")
    run.add_argument("--score-col", help="column of scores (default: detected)")
    run.add_argument("--public-col", help="column of public-board scores")
    run.add_argument("--private-col", help="column of private-board scores")
    run.add_argument("--split", choices=("private", "public"), default="private",
                     help="with public and private scores (columns, or Usage in the solution), the "
                          "one that ranks (default: private)")
    post = run.add_argument_group("post-mortem: public vs private (a board with both columns)")
    post.add_argument("--n-public", type=ROWS, help="rows of the public slice (the board teams saw)")
    post.add_argument("--n-private", type=ROWS, help="rows of the private slice (the final board)")
    post.add_argument("--public-fraction", type=FRACTION, help="with --n-test as the whole test set: "
                      "the share of its rows on the public board (e.g. 0.3)")
    post.add_argument("--two-stage", action="store_true", help="the public board was scored on "
                      "other data (a stage-1 test set), not on a slice of the private test set")
    sub = run.add_argument_group("submissions mode (predictions scored against a solution)")
    sub.add_argument("--solution", help="solution CSV: id column, target column(s), optional "
                     "Usage (Public/Private/Ignored)")
    sub.add_argument("--submissions", help="a folder of submission CSVs, a zip of them, or a "
                     "manifest CSV with columns team,file[,selected]")
    add_solution_columns(sub)
    items = run.add_argument_group("per-item results (one row per model and item)")
    items.add_argument("--items", help="a long table (CSV or Parquet) of per-item results, one "
                       "row per model and item, or a folder of lm-evaluation-harness sample logs "
                       "(--log_samples); analysed with the paired bootstrap of items")
    items.add_argument("--model-col", default="model", help="its model column (default model)")
    items.add_argument("--item-col", default="item", help="its item column (default item)")
    items.add_argument("--value-col", default="value", help="its per-item value: 0/1 "
                       "correctness or a score (default value)")
    items.add_argument("--cluster-col", help="items of one cluster (passage, conversation) are "
                       "resampled together")
    items.add_argument("--category-col", help="each item's category (subject, task): tiers "
                       "within each category and the macro mean over categories")
    items.add_argument("--harness-filter", help="--items as a folder of lm-evaluation-harness "
                       "sample logs: the filter to read when they hold several")
    sub.add_argument("--resample", choices=RESAMPLING, default="plain",
                     help="paired bootstrap of test rows: plain, stratified by class (fixed "
                          "prevalence), grouped by --group-col, or poisson (independent "
                          "Poisson(1) row weights, for massive test sets) (default: plain)")
    sub.add_argument("--replicates", type=count(100, DRAWS_MAX), default=2000,
                     help="bootstrap replicates; with scores only, the normal draws behind rank "
                          "intervals, P(best) and stability (default 2000)")
    sub.add_argument("--beta", type=real(0, 1e6), help="beta of the fbeta metrics, 0 or more "
                     "(default 1)")
    sub.add_argument("--costs", help="cost matrix of expected_cost, rows = true class, columns = "
                     "predicted class, e.g. '0,1;5,0' (default: 0/1 costs, the error rate)")
    direction = run.add_mutually_exclusive_group()
    direction.add_argument("--higher-is-better", dest="higher", action="store_const", const=True,
                           help="override the metric's direction")
    direction.add_argument("--lower-is-better", dest="higher", action="store_const", const=False)
    run.add_argument("--alpha", type=FRACTION, default=0.05, help="error rate of intervals and "
                     "tiers (default 0.05)")
    run.add_argument("--draws", type=count(100, DRAWS_MAX), default=2000, help="simulated test "
                     "sets per score level (default 2000)")
    add_seed(run)
    run.add_argument("--correlation", type=_correlation, default="auto", help="correlation "
                     "between entries' scores: a number at least 0 and below 1, or 'auto' (the "
                     "default): estimated from the public/private pairs when the board has both "
                     "scores and both slices' sizes, else 0 (independent, the conservative choice)")
    ranks = run.add_argument_group("tiers and ranks")
    ranks.add_argument("--tiers", choices=tuple(TIER_METHODS), default="rank-sets",
                       help="how tiers are cut (default rank-sets): " + "; ".join(
                           f"{m.key}, {m.label}" for m in TIER_METHODS.values())
                       + " (the README's tier methods say what each guarantees)")
    ranks.add_argument("--prizes", type=count(1, N_MAX), default=3, help="prize places: the "
                       "report gives each entry's chance of finishing in the top PRIZES (default 3)")
    ranks.add_argument("--top-k", type=_positive_ints, default=(), help="more lines for P(top k), "
                       "comma separated, e.g. medal lines '10,50'")
    add_output_options(run, "report.html")
    run.add_argument("--csv", help="also write the tier table (ranks, intervals, tiers, rank "
                     "intervals, P(best)) as CSV to this path")
    run.add_argument("--markdown", help="also write the tier table as a Markdown table to this "
                     "path (a pull-request comment)")
    add_max_file_size(run)
    add_engine_options(run)
    add_universe_options(run)


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


def _example_defaults(args: argparse.Namespace) -> None:
    if args.file is not None or args.solution is not None or args.submissions is not None:
        raise InputError("give either input files or --example, not both")
    if args.example == "submissions":
        preset = _make_submissions_example()
        args.solution, args.submissions = preset["solution"], preset["submissions"]
        options = ("metric",)
    else:
        preset = json.loads((data_dir() / "example_leaderboard.json").read_text(encoding="utf-8"))
        args.file = str(data_dir() / preset["file"])
        # the slices' sizes imply --n-test (the private slice ranks the board)
        sized = args.n_test is None and args.public_fraction is None
        options = ("metric", "prevalence") + (("n_public", "n_private") if sized else ("n_test",))
    for option in options:
        if getattr(args, option) is None:
            setattr(args, option, preset[option])


def _make_submissions_example() -> dict:
    """Run data/make_submissions_example.py into a temporary folder; its settings, with paths."""
    import atexit
    import importlib.util
    import shutil
    import tempfile

    script = data_dir() / "make_submissions_example.py"
    spec = importlib.util.spec_from_file_location("make_submissions_example", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    folder = Path(tempfile.mkdtemp(prefix="leaderboard-example-"))
    # Removed when the process ends, however the run ends (its files are read by then).
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    module.main(folder)
    preset = json.loads((folder / "example_submissions.json").read_text(encoding="utf-8"))
    preset["solution"] = str(folder / preset["solution"])
    preset["submissions"] = str(folder / preset["submissions"])
    return preset


def run_analyze(args: argparse.Namespace) -> Analysis:
    """Run ``leaderboard analyze`` from parsed arguments; returns the analysis it wrote."""
    from leaderboard.report import write_html, write_json  # the report is the last stage

    from leaderboard.report import exports

    if len(metric_names_given(args.metric)) > 1:
        return run_several(args, analysis_from_args)
    result = analysis_from_args(args)
    write_output(partial(write_html, result), args.output)
    if args.json:
        write_output(partial(write_json, result), args.json)
    for path, text in ((args.csv, exports.to_csv), (args.markdown, exports.to_markdown)):
        if path:
            write_output(lambda p, text=text: Path(p).write_text(text(result), encoding="utf-8"),
                         path)
    if not args.quiet:
        echo(summary(result, args.output, args.json))
    return result


def analysis_from_args(args: argparse.Namespace, board: Leaderboard | None = None) -> Analysis:
    """The statistics of ``leaderboard analyze`` from parsed arguments, without writing anything.

    ``board`` is a leaderboard already read (the Python API's DataFrame); otherwise ``args.file``
    or the submissions options say what to read.
    """
    if args.example:
        _example_defaults(args)
    submissions_mode = args.solution is not None or args.submissions is not None
    if (args.workers is not None or args.scheduler is not None) and (
            args.items is not None or not submissions_mode):
        raise InputError("--workers and --scheduler run submissions mode (--solution with "
                         "--submissions) on a Dask cluster; other inputs run in this process")
    if args.items is not None:
        return _run_items(args, board)
    if board is not None and submissions_mode:
        raise InputError("give either a leaderboard or a solution with submissions, not both")
    if submissions_mode and (args.file is not None):
        raise InputError("give either a leaderboard FILE or --solution with --submissions, not both")
    if not submissions_mode and args.file is None and board is None:
        raise InputError("no leaderboard file given (or use --example, or --solution with "
                         "--submissions)")
    if args.metric is None:
        raise InputError(f"--metric is required; known metrics: {', '.join(metric_names())}")
    metric = _configured(get_metric(args.metric), args)
    higher = metric.higher_is_better if args.higher is None else args.higher
    sizes = _sizes(args, submissions_mode)
    settings = Settings(metric=metric, higher_is_better=higher, n_test=sizes.ranking,
                        prevalence=args.prevalence, alpha=args.alpha, draws=args.draws,
                        seed=args.seed, correlation=args.correlation,
                        replicates=args.replicates, resample=args.resample,
                        universe=universe_options(args), tier_method=args.tiers,
                        top_k=tuple(sorted({args.prizes, *args.top_k})),
                        n_public=sizes.public, n_private=sizes.private, two_stage=sizes.two_stage)
    if submissions_mode:
        return _run_submissions(args, settings)
    if board is None:
        board = read_leaderboard(args.file, higher_is_better=higher, team_col=args.team_col,
                                 score_col=args.score_col, public_col=args.public_col,
                                 private_col=args.private_col, split=args.split,
                                 max_bytes=args.max_file_size)
    return analyze(board, settings, quiet=args.quiet)


def _sizes(args: argparse.Namespace, submissions_mode: bool) -> SliceSizes:
    """The test slices' sizes from the options (a solution file gives its own)."""
    given = [name for name in ("n_public", "n_private", "public_fraction")
             if getattr(args, name) is not None] + (["two_stage"] if args.two_stage else [])
    if submissions_mode:
        if given:
            raise InputError(f"--{given[0].replace('_', '-')}: in submissions mode the sizes come "
                             "from the solution file (its Usage column)")
        return SliceSizes(ranking=args.n_test, public=None, private=None)
    return resolve_sizes(n_test=args.n_test, n_public=args.n_public, n_private=args.n_private,
                         public_fraction=args.public_fraction, split=args.split,
                         two_stage=args.two_stage)


def _configured(metric, args: argparse.Namespace):
    """The metric with --beta / --costs applied (a one-line error if it takes neither)."""
    options = {}
    if args.beta is not None:
        options["beta"] = args.beta
    if args.costs is not None:  # parsed here, into the matrix the metric takes
        try:
            costs = tuple(tuple(float(x) for x in row.split(",")) for row in args.costs.split(";"))
        except ValueError:
            costs = ()
        if not costs or len({len(r) for r in costs}) != 1 or not all(
                math.isfinite(x) for r in costs for x in r):
            raise InputError(f"--costs {args.costs!r}: give rows of finite numbers of one "
                             "length, like '0,1;5,0'")
        options["costs"] = costs
    try:
        return metric.configure(**options) if options else metric
    except ValueError as error:
        raise InputError(str(error)) from None


def _run_items(args: argparse.Namespace, board: Leaderboard | None) -> Analysis:
    """``--items``: per-item results, every model on the same items, the paired bootstrap."""
    from leaderboard.pipelines.submissions import analyze_submissions
    from leaderboard.submissions.items import read_items

    others = [option for option, given in (("FILE", args.file or board is not None),
                                           ("--solution", args.solution),
                                           ("--submissions", args.submissions)) if given]
    if others:
        raise InputError(f"--items is the whole input: drop {others[0]}")
    if args.cluster_col is not None and args.resample not in ("plain", "grouped"):
        raise InputError(f"--cluster-col resamples whole clusters; it cannot be combined with "
                         f"--resample {args.resample}")
    args.resample = "grouped" if args.cluster_col is not None else args.resample
    if args.resample == "grouped" and args.cluster_col is None:
        raise InputError("--resample grouped needs --cluster-col with --items")
    target_col = args.target_col[0] if args.target_col else None
    metric = get_metric(args.metric or "mean")
    if target_col is None and metric.name != "mean":
        raise InputError(f"--items: each row holds a model's value on an item, so the metric is "
                         f"their mean (--metric mean), not {metric.label}; or give the items' "
                         "truth with --target-col and the predictions with --value-col")
    if target_col is not None and (metric.name == "mean" or metric.kind not in NUMERIC_KINDS):
        raise InputError(f"--items with --target-col scores numeric predictions (a metric taking "
                         f"{', '.join(NUMERIC_KINDS)}), not {metric.label}")
    solution, models = read_items(args.items, model_col=args.model_col, item_col=args.item_col,
                                  value_col=args.value_col, cluster_col=args.cluster_col,
                                  category_col=args.category_col, target_col=target_col,
                                  harness_filter=args.harness_filter,
                                  max_bytes=args.max_file_size)
    settings = Settings(metric=metric, higher_is_better=metric.higher_is_better
                        if args.higher is None else args.higher, n_test=None, prevalence=None,
                        alpha=args.alpha, seed=args.seed, replicates=args.replicates,
                        resample=args.resample, tier_method=args.tiers,
                        top_k=tuple(sorted({args.prizes, *args.top_k})))
    result = analyze_submissions(solution, models, settings, quiet=args.quiet)
    if not args.quiet:
        for flag in result.flags:
            if flag.kind in ("undeclared_groups", "few_clusters"):
                print(f"warning: {printable(flag.message)}", file=sys.stderr)
    if solution.categories is None:
        return result
    from leaderboard.pipelines.categories import category_results

    scored = models.scored
    return replace(result, categories=category_results(
        metric, np.stack([f.prediction for f in scored]), [f.label for f in scored],
        solution.categories, groups=solution.groups, alpha=args.alpha,
        replicates=args.replicates, seed=args.seed, higher_is_better=settings.higher_is_better,
        tier_method=args.tiers))


def _run_submissions(args: argparse.Namespace, settings: Settings) -> Analysis:
    from leaderboard.pipelines.submissions import analyze_submissions
    from leaderboard.submissions import read_solution
    from leaderboard.submissions.files import list_submissions

    if args.solution is None or args.submissions is None:
        raise InputError("submissions mode needs both --solution and --submissions")
    metric = settings.metric
    if not metric.can_score:
        raise InputError(f"{metric.label} can rank a leaderboard of scores, but scoring its "
                         "predictions is not supported")
    if args.resample == "grouped" and args.group_col is None:
        raise InputError("--resample grouped needs --group-col (the solution column of group ids)")
    solution = read_solution(args.solution, id_col=args.id_col, target_cols=args.target_col,
                             group_col=args.group_col, kind=metric.kind,
                             max_bytes=args.max_file_size)
    found = list_submissions(args.submissions, solution, kind=metric.kind,
                             pred_cols=args.pred_col, id_col=args.id_col,
                             max_bytes=args.max_file_size)
    engine = engine_from_args(args)
    try:
        return analyze_submissions(solution, found, settings, split=args.split, quiet=args.quiet,
                                   engine=engine)
    finally:
        if engine is not None:
            engine.close()
