"""What per-item results add to their analysis once the models are ranked: the items' account
(:func:`with_items`: which items, models merged or rejected, samples, the pairwise table), and
the costs (``--cost-col``) and published scores (``--published``) of :func:`benchmark_extras`."""
from __future__ import annotations

from dataclasses import replace
from typing import cast

import numpy as np

from leaderboard.api_words import said
from leaderboard.errors import InputError
from leaderboard.ingest.in_memory import InMemory
from leaderboard.pipelines.analysis import Analysis
from leaderboard.pipelines.modes.base import Inputs


def predictions(files) -> list[np.ndarray]:
    """The predictions of files that hold them (the models analysed: never None there)."""
    out = [f.prediction for f in files]
    assert all(p is not None for p in out)
    return cast("list[np.ndarray]", out)


def with_items(result: Analysis, solution) -> Analysis:
    """The analysis with the items' account (:class:`~leaderboard.ingest.item_coverage.ItemCoverage`):
    which items, models merged or rejected, samples, and the pairwise table when asked."""
    from leaderboard.flags import Flag

    coverage = solution.coverage
    if coverage is None:
        return result
    flags = [Flag(kind="item_samples" if sentence.startswith("Each item's value") else
                  "item_sets", message=sentence) for sentence in coverage.sentences()]
    assert result.submissions is not None   # the models, as submissions
    files = result.submissions.files
    rejected = [f for f in files if f.status == "rejected"]
    if rejected:
        named = "; ".join(f"{f.team}: {f.reason}" for f in rejected[:3])
        flags.append(Flag(kind="models_rejected", message=(
            f"{len(rejected):,} model{'s' if len(rejected) > 1 else ''} not analysed "
            f"({named}{'; ...' if len(rejected) > 3 else ''}); the list of models gives every "
            "reason."), teams=tuple(str(f.team) for f in rejected)))
    pairs = None
    if coverage.policy == "pairwise":
        from leaderboard.pipelines.item_pairs import pairwise_on_shared, too_many_pairs

        ok = [f for f in files if f.status == "ok"]
        by_label = dict(zip((f.label for f in ok), predictions(ok)))
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


def benchmark_extras(result: Analysis, inputs: Inputs, read, solution) -> Analysis:
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
        assert result.submissions is not None   # the models, as submissions
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
        words = said("each model's own items (--items-policy pairwise)")
    elif coverage.dropped == "items":
        words = f"the {n:,} items every analysed model has (of the file's {coverage.items_in_file:,})"
    else:
        words = f"all {n:,} items"
    if read.items_format in ("auto", "swebench") and read.missing_instances == "unresolved":
        words += said("; for SWE-bench results, an instance without a result counts as "
                      "unresolved (the leaderboard's denominator; --missing-instances missing "
                      "leaves it out)")
    return words
