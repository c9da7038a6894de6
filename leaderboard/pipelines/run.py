"""``analyze`` from inputs and options to an :class:`~leaderboard.pipelines.scores.Analysis`: the
one function behind both ``leaderboard analyze`` and :func:`leaderboard.analyze`.

Three inputs, one pipeline each: a leaderboard of scores (:func:`leaderboard.pipelines.scores.analyze`), a
solution with submissions, and per-item results (both through
:func:`leaderboard.pipelines.submissions.analyze_submissions`). Every input is a path or, from the
Python API, a table in memory (:class:`~leaderboard.ingest.in_memory.InMemory`); the readers are called
here, never by the command line.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, replace

import numpy as np

from leaderboard import limits
from leaderboard.errors import FrameSource, InputError
from leaderboard.ingest.in_memory import InMemory
from leaderboard.ingest.leaderboards import leaderboard_from_frame, read_leaderboard
from leaderboard.metrics import get_metric, items_metric, metric_names
from leaderboard.options import AnalyzeOptions, NoiseOptions, SliceOptions
from leaderboard.pipelines.scores import Analysis, Settings, analyze
from leaderboard.set_aside import board_not_entries, board_set_aside
from leaderboard.slices import SliceSizes, resolve_sizes
from leaderboard.ingest.item_table import NUMERIC_KINDS
from leaderboard.metrics.per_item import MeanOwnItems


@dataclass(frozen=True)
class Inputs:
    """What ``analyze`` reads: a leaderboard (``board``), a ``solution`` with ``submissions``,
    per-item results (``items``, with optionally a file of ``published`` scores to check), or a
    bundled ``example`` (a name of :data:`leaderboard.choices.EXAMPLES` but battles, which
    :func:`leaderboard.analyze_battles` reads).

    Each is a path, an :class:`~leaderboard.ingest.in_memory.InMemory` table (the leaderboard may also
    be a DataFrame), and ``submissions`` may be a mapping of team to an InMemory table or an
    array of predictions in the solution's row order.
    """

    board: object = None
    solution: object = None
    submissions: object = None
    items: object = None
    example: str | None = None
    published: object = None


def run_analysis(inputs: Inputs, options: AnalyzeOptions, *, quiet: bool = True) -> Analysis:
    """The statistics of ``leaderboard analyze``, without writing anything.

    Examples
    --------
    >>> from leaderboard.options import NoiseOptions, RankOptions
    >>> options = AnalyzeOptions(noise=NoiseOptions(draws=200), ranks=RankOptions(replicates=200))
    >>> run_analysis(Inputs(example="scores"), options).table["team"].iloc[0]
    'Lunar Ensemble'
    """
    if inputs.example:   # a bundled example (leaderboard.pipelines.examples)
        from leaderboard.pipelines.examples import example_named, with_example

        example, (inputs, options) = inputs.example, with_example(inputs, options)
        result = with_card(_analysis(inputs, options, quiet), inputs, options)
        return example_named(result) if example == "submissions" else result
    return with_card(_analysis(inputs, options, quiet), inputs, options)


def with_card(analysis: Analysis, inputs: Inputs, options: AnalyzeOptions) -> Analysis:
    """The analysis with its leaderboard card (:mod:`leaderboard.pipelines.card`): the inputs'
    SHA-256 in the card's provenance, each under the option that named it."""
    from leaderboard.provenance import provenance
    from leaderboard.pipelines.card_modes import analysis_card

    roles = [("FILE", inputs.board), ("--solution", inputs.solution),
             ("--submissions", inputs.submissions), ("--items", inputs.items),
             ("--published", inputs.published), ("--instances", options.read.instances)]
    return replace(analysis, card=analysis_card(
        analysis, provenance(roles, analysis.settings.seed)))


def _analysis(inputs: Inputs, options: AnalyzeOptions, quiet: bool) -> Analysis:
    """:func:`run_analysis` without the card, once the inputs are files, tables or frames."""
    submissions_mode = inputs.solution is not None or inputs.submissions is not None
    if (options.workers is not None or options.scheduler is not None) and (
            inputs.items is not None or not submissions_mode):
        raise InputError("--workers and --scheduler run submissions mode (--solution with "
                         "--submissions) on a Dask cluster; other inputs run in this process")
    if options.ranks.category_intervals != "marginal" and (
            inputs.items is None or options.read.category_col is None):
        raise InputError("--category-intervals chooses the per-category intervals of --items: "
                         "it needs --category-col")
    if inputs.items is not None:
        return _run_items(inputs, options, quiet)
    read = options.read
    stray = next((option for option, given in (
        ("--published", inputs.published is not None), ("--cost-col", read.cost_col),
        ("--published-col", read.published_col),
        ("--published-model-col", read.published_model_col)) if given), None)
    if stray is not None:
        raise InputError(f"{stray} goes with per-item results (--items)")
    if submissions_mode and inputs.board is not None:
        raise InputError("give either a leaderboard FILE or --solution with --submissions, not both")
    if not submissions_mode and inputs.board is None:
        raise InputError("no leaderboard file given (or use --example, or --solution with "
                         "--submissions)")
    noise, ranks, read = options.noise, options.ranks, options.read
    if noise.metric is None:
        raise InputError(f"--metric is required; known metrics: {', '.join(metric_names())}")
    metric = configured_metric(get_metric(noise.metric), noise)
    settings = Settings(metric, noise, ranks, slice_sizes(options.slices, submissions_mode))
    if submissions_mode:
        return _run_submissions(inputs, options, settings, quiet)
    columns = dict(team_col=read.team_col, score_col=read.score_col, public_col=read.public_col,
                   private_col=read.private_col, split=options.slices.split)
    if hasattr(inputs.board, "columns"):   # a DataFrame, read in memory
        board = leaderboard_from_frame(inputs.board, higher_is_better=settings.higher_is_better,
                                       source=FrameSource.named("data"), **columns)
    else:
        board = read_leaderboard(inputs.board, higher_is_better=settings.higher_is_better,
                                 max_bytes=read.max_file_size, **columns)
    board, not_entry = board_not_entries(board, metric, settings.higher_is_better)
    if options.exclude_flagged:
        board = board_set_aside(board, options.exclude_flagged, metric,
                                settings.higher_is_better, noise.prevalence)
    # before any is drawn: --replicates 10000000 on 40 entries filled the machine (issue 29)
    limits.current().check_replicates(settings.replicates, len(board.entries),
                                      limits.BYTES_PER_RANK_CELL)
    result = analyze(board, settings, quiet=quiet)
    return result if not_entry is None else replace(result, flags=(not_entry,) + result.flags)


def slice_sizes(slices: SliceOptions, submissions_mode: bool) -> SliceSizes:
    """The test slices' sizes from the options (a solution file gives its own)."""
    given = [name for name in ("n_public", "n_private", "public_fraction")
             if getattr(slices, name) is not None] + (["two_stage"] if slices.two_stage else [])
    if submissions_mode:
        if given:
            raise InputError(f"--{given[0].replace('_', '-')}: in submissions mode the sizes come "
                             "from the solution file (its Usage column)")
        return SliceSizes(ranking=slices.n_test, public=None, private=None)
    return resolve_sizes(n_test=slices.n_test, n_public=slices.n_public,
                         n_private=slices.n_private, public_fraction=slices.public_fraction,
                         split=slices.split, two_stage=slices.two_stage)


def configured_metric(metric, noise: NoiseOptions):
    """The metric with ``beta`` / ``costs`` applied (a one-line error if it takes neither)."""
    options = {}
    if noise.beta is not None:
        options["beta"] = noise.beta
    if noise.costs is not None:  # parsed here, into the matrix the metric takes
        try:
            costs = tuple(tuple(float(x) for x in row.split(",")) for row in noise.costs.split(";"))
        except ValueError:
            costs = ()
        if not costs or len({len(r) for r in costs}) != 1 or not all(
                math.isfinite(x) for r in costs for x in r):
            raise InputError(f"--costs {noise.costs!r}: give rows of finite numbers of one "
                             "length, like '0,1;5,0'")
        options["costs"] = costs
    try:
        return metric.configure(**options) if options else metric
    except ValueError as error:
        raise InputError(str(error)) from None


def _run_items(inputs: Inputs, options: AnalyzeOptions, quiet: bool) -> Analysis:
    """Per-item results, every model on the same items, the paired bootstrap."""
    from leaderboard.pipelines.submissions import analyze_submissions
    from leaderboard.ingest.items import read_items
    from leaderboard.noise.bootstrap import too_few_units

    others = [option for option, given in (("FILE", inputs.board is not None),
                                           ("--solution", inputs.solution is not None),
                                           ("--submissions", inputs.submissions is not None))
              if given]
    if others:
        raise InputError(f"--items is the whole input: drop {others[0]}")
    read, ranks, noise = options.read, options.ranks, options.noise
    resample = ranks.resample
    if read.cluster_col is not None and resample not in ("plain", "grouped"):
        raise InputError(f"--cluster-col resamples whole clusters; it cannot be combined with "
                         f"--resample {resample}")
    resample = "grouped" if read.cluster_col is not None else resample
    if resample == "grouped" and read.cluster_col is None:
        raise InputError("--resample grouped needs --cluster-col with --items")
    if read.target_col and len(read.target_col) > 1:   # never silently drop the second one
        raise InputError(f"--items takes one --target-col (each item's truth), got "
                         f"{len(read.target_col)}: {', '.join(map(repr, read.target_col))}")
    target_col = read.target_col[0] if read.target_col else None
    metric, binary = (items_metric(noise.metric or "mean") if target_col is None
                      else (get_metric(noise.metric or "mean"), False))
    if target_col is None and metric.name != "mean" and not binary:
        raise InputError(f"--items: each row holds a model's value on an item, so the metric is "
                         f"their mean (--metric mean; accuracy, pass@1 or resolved for 0/1 "
                         f"values), not {metric.label}; or give the items' truth with "
                         "--target-col and the predictions with --value-col")
    if target_col is not None and (metric.name == "mean" or metric.kind not in NUMERIC_KINDS):
        raise InputError(f"--items with --target-col scores numeric predictions (a metric taking "
                         f"{', '.join(NUMERIC_KINDS)}), not {metric.label}")
    pairwise = read.items_policy == "pairwise"
    if pairwise and (target_col is not None or read.category_col is not None):
        raise InputError(f"--items-policy pairwise averages each model's own items; it cannot "
                         f"be combined with {'--target-col' if target_col else '--category-col'}"
                         " (use the default, --items-policy common)")
    solution, models = read_items(inputs.items, model_col=read.model_col, item_col=read.item_col,
                                  value_col=read.value_col, cluster_col=read.cluster_col,
                                  category_col=read.category_col, target_col=target_col,
                                  harness_filter=read.harness_filter,
                                  sample_col=read.sample_col, items_policy=read.items_policy,
                                  binary=metric.name if binary else None,
                                  items_format=read.items_format, instances=read.instances,
                                  missing_instances=read.missing_instances,
                                  max_bytes=read.max_file_size)
    coverage = solution.coverage
    if read.cluster_col is not None and solution.groups is not None:
        _few_clusters(solution, read.cluster_col, read.category_col)
    few = too_few_units(len(solution), "item") if coverage.complete else None
    if few and coverage.dropped == "items" and read.cluster_col is None:   # say why so few
        models_way = (f"--items-policy drop-models (the {coverage.cells[2]:,} models that have "
                      f"all {coverage.cells[3]:,} items), or "
                      if len(coverage.cells) == 4 and coverage.cells[2] >= 2 else "")
        raise InputError(f"the models share only {len(solution):,} of the file's "
                         f"{coverage.items_in_file:,} items{coverage.shrink_words()}: {few}; or "
                         f"give {models_way}--items-policy pairwise (each pair on the items it "
                         "shares)")
    if pairwise:   # NaN where a model lacks an item: the mean over its own items
        metric = replace(metric, factory=MeanOwnItems)
    settings = Settings(metric, NoiseOptions(higher_is_better=noise.higher_is_better,
                                             seed=noise.seed),
                        replace(ranks, resample=resample))
    higher = settings.higher_is_better
    result = with_items(analyze_submissions(solution, models, settings, quiet=quiet,
                                            exclude=options.exclude_flagged), solution)
    result = _benchmark_extras(result, inputs, read, solution)
    if solution.categories is None:
        return result
    from leaderboard.pipelines.categories import category_results

    scored = result.submissions.scored    # without the models set aside
    return replace(result, categories=category_results(
        metric, np.stack([f.prediction for f in scored]), [f.label for f in scored],
        solution.categories, groups=solution.groups, alpha=ranks.alpha,
        replicates=ranks.replicates, seed=noise.seed, higher_is_better=higher,
        tier_method=ranks.method, shown=ranks.category_intervals))


def _few_clusters(solution, column: str, category_col: str | None) -> None:
    """Too few clusters to resample (MathArena's 5 competitions as clusters, issue 40): refused,
    offering the two analyses the data can carry, each saying what it assumes."""
    from leaderboard.ingest.toolkit.messages import show
    from leaderboard.noise.bootstrap import too_few_units

    groups = len(np.unique(solution.groups))
    few = too_few_units(groups, "cluster")
    if few is None:
        return
    name = show(column)
    as_categories = (f"give --category-col {name} instead of --cluster-col (each {name} gets its "
                     f"own tiers on its own items, and the overall ranking resamples the "
                     f"{len(solution):,} items one by one: it speaks for these {groups:,} "
                     f"{name} groups, not for new ones), or " if category_col is None else "")
    raise InputError(f"--cluster-col {name}: {few}. With {groups:,} groups: "
                     f"{as_categories}drop --cluster-col (every item resampled one by one: the "
                     f"intervals are too narrow if the items of one {name} group are related)")


def with_items(result: Analysis, solution) -> Analysis:
    """The analysis with the items' account (:class:`~leaderboard.ingest.item_coverage.ItemCoverage`):
    which items, models merged or rejected, samples, and the pairwise table when asked."""
    from leaderboard.flags import Flag

    coverage = solution.coverage
    if coverage is None:
        return result
    flags = [Flag(kind="item_samples" if sentence.startswith("Each item's value") else
                  "item_sets", message=sentence) for sentence in coverage.sentences()]
    rejected = [f for f in result.submissions.files if f.status == "rejected"]
    if rejected:
        named = "; ".join(f"{f.team}: {f.reason}" for f in rejected[:3])
        flags.append(Flag(kind="models_rejected", message=(
            f"{len(rejected):,} model{'s' if len(rejected) > 1 else ''} not analysed "
            f"({named}{'; ...' if len(rejected) > 3 else ''}); the list of models gives every "
            "reason."), teams=tuple(str(f.team) for f in rejected)))
    pairs = None
    if coverage.policy == "pairwise":
        from leaderboard.pipelines.item_pairs import pairwise_on_shared, too_many_pairs

        by_label = {f.label: f.prediction for f in result.submissions.files if f.status == "ok"}
        names = result.table["team"].tolist()
        s = result.settings
        pairs = pairwise_on_shared(np.stack([by_label[n] for n in names]), names,
                                   replicates=s.replicates, seed=s.seed, alpha=s.alpha,
                                   higher_is_better=s.higher_is_better, resample=s.resample,
                                   groups=solution.groups)
        flags.append(Flag(kind="item_pairs", message=pairs.sentence() if pairs is not None
                          else "No pairwise table: " + str(too_many_pairs(
                              len(names), len(solution))) + "."))
    own = coverage.policy == "pairwise" and coverage.ragged
    board = replace(result.leaderboard, score_column=(
        "each model's mean over its own items" if own else
        f"the {len(coverage.used):,} items every model has" if coverage.ragged
        else result.leaderboard.score_column))
    return replace(result, leaderboard=board, items=coverage, item_pairs=pairs,
                   flags=tuple(flags) + result.flags)
def _benchmark_extras(result: Analysis, inputs: Inputs, read, solution) -> Analysis:
    """Per-item results' costs (``--cost-col``) and published scores checked (``--published``)."""
    coverage = getattr(solution, "coverage", None)
    if inputs.published is None and (read.published_col or read.published_model_col):
        raise InputError(f"{'--published-col' if read.published_col else '--published-model-col'}"
                         " names a column of --published FILE: give the file")
    if read.cost_col is not None and coverage is not None and coverage.policy == "pairwise" \
            and coverage.ragged:
        raise InputError("--cost-col compares every model's cost on the same items: use "
                         "--items-policy common (the default), not pairwise, when the models "
                         "were scored on different items")
    if read.cost_col is not None:
        from leaderboard.ingest.item_costs import read_item_costs
        from leaderboard.pipelines.item_costs import cost_analysis

        names = result.table["team"].astype(str).tolist()
        costs = read_item_costs(inputs.items, names, solution.ids, cost_col=read.cost_col,
                                model_col=read.model_col, item_col=read.item_col,
                                items_format=read.items_format, instances=read.instances,
                                missing_instances=read.missing_instances,
                                max_bytes=read.max_file_size)
        result = replace(result, costs=cost_analysis(result, solution, costs, read.cost_col))
    if inputs.published is not None:
        from leaderboard.ingest.published import read_published
        from leaderboard.pipelines.published import check_published, published_flags

        table = inputs.published
        rejected = {str(f.label): str(f.reason or f.status) for f in result.submissions.files
                    if f.status != "ok"}
        known = set(result.table["team"].astype(str)) | set(rejected)
        published = read_published(InMemory.of(table, "published") if hasattr(table, "columns")
                                   else table, max_bytes=read.max_file_size, known=known,
                                   model_col=read.published_model_col,
                                   score_col=read.published_col)
        check = check_published(published, result.table, rejected, result.settings.alpha,
                                items=_measured_on(coverage, read))
        percent = check.percent_assumed or bool(published.percent.any())
        fmt = (lambda x: f"{100 * x:.1f}%") if percent else (lambda x: f"{x:.4g}")
        result = replace(result, published=check,
                         flags=tuple(result.flags) + tuple(published_flags(check, fmt)))
    return result


def _measured_on(coverage, read) -> str:
    """What each measured score is a mean over, for the published check's words (a published
    number over other items, or counting missing ones otherwise, can differ for that alone)."""
    if coverage is None:
        return ""
    n = len(coverage.used)
    if not coverage.complete and coverage.ragged:
        words = "each model's own items (--items-policy pairwise)"
    elif coverage.dropped == "items":
        words = f"the {n:,} items every analysed model has (of the file's {coverage.items_in_file:,})"
    else:
        words = f"all {n:,} items"
    if read.items_format in ("auto", "swebench") and read.missing_instances == "unresolved":
        words += ("; for SWE-bench results, an instance without a result counts as unresolved "
                  "(the leaderboard's denominator; --missing-instances missing leaves it out)")
    return words


def _run_submissions(inputs: Inputs, options: AnalyzeOptions, settings: Settings,
                     quiet: bool) -> Analysis:
    from leaderboard.pipelines.submissions import analyze_submissions
    from leaderboard.ingest.submissions import read_solution
    from leaderboard.ingest.submissions.files import list_submissions, memory_listing

    if inputs.solution is None or inputs.submissions is None:
        raise InputError("submissions mode needs both --solution and --submissions")
    metric, read = settings.metric, options.read
    if not metric.can_score:
        raise InputError(f"{metric.label} can rank a leaderboard of scores, but scoring its "
                         "predictions is not supported")
    if settings.resample == "grouped" and read.group_col is None:
        raise InputError("--resample grouped needs --group-col (the solution column of group ids)")
    solution = read_solution(inputs.solution, id_col=read.id_col, target_cols=read.target_col,
                             group_col=read.group_col, kind=metric.kind,
                             max_bytes=read.max_file_size)
    if isinstance(inputs.submissions, Mapping):
        tables = [(str(team), submission_table(team, value, solution, read.pred_col))
                  for team, value in inputs.submissions.items()]
        found = memory_listing(tables, solution, kind=metric.kind, pred_cols=read.pred_col,
                               id_col=read.id_col)
    else:
        found = list_submissions(inputs.submissions, solution, kind=metric.kind,
                                 pred_cols=read.pred_col, id_col=read.id_col,
                                 max_bytes=read.max_file_size)
    engine = engine_for(options.workers, options.scheduler)
    try:
        return analyze_submissions(solution, found, settings, split=options.slices.split,
                                   quiet=quiet, engine=engine, exclude=options.exclude_flagged)
    finally:
        if engine is not None:
            engine.close()


def submission_table(team: object, value: object, solution, pred_cols) -> InMemory:
    """One team's predictions as a table: a DataFrame as it is, an array under the solution's
    ids and the prediction columns (``pred_col``, else the solution's target columns)."""
    name = f"submissions[{str(team)!r}]"
    if isinstance(value, InMemory):
        return value
    if hasattr(value, "columns"):
        return InMemory.of(value, name)
    import pandas as pd

    names = list(pred_cols or solution.target_columns)
    given = np.asarray(value)
    values = given[:, None] if given.ndim == 1 else given
    if values.ndim != 2 or values.shape != (len(solution), len(names)):
        raise InputError(f"{name}: an array of shape {given.shape}; the solution has "
                         f"{len(solution):,} rows and {len(names)} prediction "
                         f"column{'s' if len(names) > 1 else ''} ({', '.join(names)})")
    frame = pd.DataFrame(values, columns=names)
    frame.insert(0, solution.id_column, solution.ids)
    return InMemory.of(frame, name)


def engine_for(workers: int | None, scheduler: str | None):
    """The engine ``workers`` or ``scheduler`` ask for (Dask), else None (this process)."""
    if workers is None and scheduler is None:
        return None
    if scheduler is not None and not scheduler.strip():
        raise InputError("--scheduler: give the scheduler's address, e.g. tcp://host:8786")
    from leaderboard.engine.dask import DaskEngine   # only when asked: Dask is optional

    return DaskEngine(workers=workers, scheduler=scheduler)
