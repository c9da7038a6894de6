"""``leaderboard analyze``'s parsed arguments as the Python API's inputs and options objects, and
the statistics run from them (nothing written).

The command line sits on the Python API: :func:`options_from_args` builds the same
:class:`~leaderboard.options.AnalyzeOptions` a caller of :func:`leaderboard.analyze` would, and
:func:`analysis_from_args` hands them to the same pipeline
(:func:`leaderboard.pipelines.run.run_analysis`). ``plan --from`` and the benchmarks use it to
get an analysis without writing a page.
"""
from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from leaderboard.cli.common import universe_options
from leaderboard.options import (AnalyzeOptions, NoiseOptions, RankOptions, ReadOptions,
                                 SliceOptions)

if TYPE_CHECKING:   # the pipelines load when a command runs, not to parse its options
    from leaderboard.pipelines.run import Inputs
    from leaderboard.pipelines.scores import Analysis


def analysis_from_args(args: argparse.Namespace) -> Analysis:
    """The statistics of ``leaderboard analyze`` from parsed arguments, without writing anything:
    the arguments become the options objects and inputs the Python API builds, and the same
    pipeline (:func:`leaderboard.pipelines.run.run_analysis`) runs."""
    from leaderboard.pipelines.run import run_analysis

    return run_analysis(inputs_from_args(args), options_from_args(args), quiet=args.quiet)


def inputs_from_args(args: argparse.Namespace) -> Inputs:
    """The inputs the arguments name (paths, or a bundled example)."""
    from leaderboard.pipelines.run import Inputs

    return Inputs(board=args.file, solution=args.solution, submissions=args.submissions,
                  items=args.items, example=args.example,
                  published=getattr(args, "published", None))


def options_from_args(args: argparse.Namespace) -> AnalyzeOptions:
    """The options objects of parsed arguments (already checked by the option types)."""
    noise = NoiseOptions(metric=args.metric, higher_is_better=args.higher,
                         prevalence=args.prevalence, draws=args.draws, seed=args.seed,
                         correlation=args.correlation, beta=args.beta, costs=args.costs,
                         universe=universe_options(args))
    ranks = RankOptions(alpha=args.alpha, replicates=args.replicates, resample=args.resample,
                        method=args.tiers, prizes=args.prizes, top_k=tuple(args.top_k),
                        category_intervals=args.category_intervals)
    slices = SliceOptions(n_test=args.n_test, n_public=args.n_public, n_private=args.n_private,
                          public_fraction=args.public_fraction, two_stage=args.two_stage,
                          split=args.split)
    read = ReadOptions(team_col=args.team_col, score_col=args.score_col,
                       public_col=args.public_col, private_col=args.private_col,
                       id_col=args.id_col, target_col=args.target_col, pred_col=args.pred_col,
                       group_col=args.group_col, model_col=args.model_col,
                       item_col=args.item_col, value_col=args.value_col,
                       cluster_col=args.cluster_col, category_col=args.category_col,
                       harness_filter=args.harness_filter, sample_col=args.sample_col,
                       items_policy=args.items_policy, cost_col=getattr(args, "cost_col", None),
                       published_col=getattr(args, "published_col", None),
                       published_model_col=getattr(args, "published_model_col", None),
                       items_format=args.items_format,
                       instances=args.instances, missing_instances=args.missing_instances,
                       max_file_size=args.max_file_size)
    return AnalyzeOptions(noise=noise, ranks=ranks, slices=slices, read=read,
                          workers=args.workers, scheduler=args.scheduler,
                          exclude_flagged=tuple(args.exclude_flagged))
