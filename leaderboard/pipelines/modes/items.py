"""Per-item results mode: many models scored on the same items (a long table, or what a
benchmark publishes), the items resampled by the paired bootstrap
(:func:`leaderboard.pipelines.submissions.analyze_submissions`); then the items' account, costs
(``--cost-col``), published scores checked (``--published``) and per-category tiers."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, cast

import numpy as np

from leaderboard.errors import InputError
from leaderboard.ingest.item_table import NUMERIC_KINDS
from leaderboard.metrics import get_metric, items_metric
from leaderboard.metrics.per_item import MeanOwnItems
from leaderboard.options import AnalyzeOptions, NoiseOptions
from leaderboard.pipelines.analysis import Analysis, Settings
from leaderboard.pipelines.modes.base import Inputs, with_card
from leaderboard.pipelines.modes.items_extras import benchmark_extras, predictions, with_items

if TYPE_CHECKING:
    from leaderboard.ingest.item_coverage import ItemCoverage
    from leaderboard.ingest.submissions import Solution, SubmissionSet


@dataclass(frozen=True)
class ItemsData:
    """The inputs (costs and published scores are read after the analysis), the items as a
    solution, the models as submissions, and the settings."""

    inputs: Inputs
    solution: Solution
    models: SubmissionSet
    settings: Settings


class ItemsMode:
    """``--items`` (``Inputs.items``, with ``Inputs.published``): the whole input."""

    name = "items"

    def read(self, inputs: Inputs, options: AnalyzeOptions) -> ItemsData:
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
        if resample == "stratified" and target_col is None:   # one class: plain, under its name
            raise InputError("--resample stratified draws items within each class of their "
                             "truth; per-item results without --target-col have no classes: "
                             "drop it, or give the items' truth with --target-col")
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
        coverage = cast("ItemCoverage", solution.coverage)   # items always have their account
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
        return ItemsData(inputs, solution, models, settings)

    def analyze(self, data: ItemsData, options: AnalyzeOptions, *,
                quiet: bool = True) -> Analysis:
        from leaderboard.pipelines.submissions import analyze_submissions

        solution, settings, ranks = data.solution, data.settings, options.ranks
        result = with_items(analyze_submissions(solution, data.models, settings, quiet=quiet,
                                                exclude=options.exclude_flagged), solution)
        result = benchmark_extras(result, data.inputs, options.read, solution)
        if solution.categories is None:
            return result
        from leaderboard.pipelines.categories import category_results

        assert result.submissions is not None   # the models, as submissions
        scored = result.submissions.scored    # without the models set aside
        return replace(result, categories=category_results(
            settings.metric, np.stack(predictions(scored)), [f.label for f in scored],
            solution.categories, groups=solution.groups, alpha=ranks.alpha,
            replicates=ranks.replicates, seed=options.noise.seed,
            higher_is_better=settings.higher_is_better, tier_method=ranks.method,
            shown=ranks.category_intervals))

    card = staticmethod(with_card)


ITEMS = ItemsMode()


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
