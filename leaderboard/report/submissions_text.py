"""The report's words for submissions mode: what was scored, how it was resampled, every file's fate.

Scores-only wording lives in html.py; this module holds only what differs when predictions were
scored against a solution and resampled with the paired bootstrap.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from leaderboard.report import ranks_text
from leaderboard.report.words import Fact, pct
from leaderboard.tiers.methods import TIER_METHODS

if TYPE_CHECKING:
    from leaderboard.ingest.submissions import SubmissionSet
    from leaderboard.noise.bootstrap import BootstrapResult
    from leaderboard.pipelines.scores import Analysis

RESAMPLING_WORDS = {
    "plain": "rows drawn with replacement from the test rows",
    "stratified": "rows drawn with replacement within each class, so every replicate keeps the "
                  "test set's class counts",
    "grouped": "whole groups drawn with replacement, every row of a drawn group counted, because "
               "rows within a group are not independent",
    "poisson": "every row counted an independent Poisson(1) number of times (the bootstrap for "
               "massive data; the rows drawn vary around the test set's size)",
}
# The same schemes in a benchmark's words (items mode): items, clusters of items.
ITEM_RESAMPLING_WORDS = {
    "plain": "items drawn with replacement from the benchmark's items",
    "stratified": "items drawn with replacement within each class of the items' truth",
    "grouped": "whole clusters of items drawn with replacement, every item of a drawn cluster "
               "counted, because items of one cluster are not independent",
    "poisson": "every item counted an independent Poisson(1) number of times",
}


def resampling_words(resample: str, items: bool) -> str:
    """How one replicate redraws the units, in a competition's or a benchmark's words.

    Examples
    --------
    >>> resampling_words("plain", items=True)
    "items drawn with replacement from the benchmark's items"
    """
    return (ITEM_RESAMPLING_WORDS if items else RESAMPLING_WORDS)[resample]


@dataclass(frozen=True)
class FileRow:
    team: str
    file: str
    status: str
    reason: str
    rows: str
    css: str


def _resampled(a: Analysis) -> tuple[SubmissionSet, BootstrapResult]:
    """The files and the paired bootstrap of submissions mode (an analysis in that mode has
    both)."""
    if a.submissions is None or a.bootstrap is None:
        raise ValueError("the submissions mode's words need its files and its bootstrap")
    return a.submissions, a.bootstrap


def facts(a: Analysis, conf: str) -> list[Fact]:
    """The "What was analysed" list for submissions mode."""
    s = a.settings
    subs, boot = _resampled(a)
    files = subs.files
    by_status: dict[str, int] = {}
    for f in files:
        by_status[f.status] = by_status.get(f.status, 0) + 1
    split = a.leaderboard.split
    other = "public" if split == "private" else "private"
    # the other split is shown only when the solution has one (no Usage column: every row ranks)
    shown = f"{other}_score" in a.table and a.table[f"{other}_score"].notna().any()
    rows = f"{s.n_test:,} {split + ' ' if shown and split is not None else ''}rows" + (
        f", {pct(s.prevalence)} positives" if s.prevalence is not None else "")
    status_text = ", ".join(f"{count:,} {status}" for status, count in by_status.items())
    items = subs.layout == "items"
    resampling = Fact("Resampling", f"paired bootstrap, {boot.replicates.shape[1]:,} replicates, "
                      f"{resampling_words(boot.resample, items)}" + (
                          f" ({boot.n_units:,} {'clusters' if items else 'groups'})"
                          if boot.resample == "grouped" else "")
                      + f"; seed {s.seed}")
    metric = Fact("Metric", f"{s.metric.label} ({'higher' if s.higher_is_better else 'lower'} "
                  "is better)")
    if subs.layout == "items":   # per-item results: one table, models instead of files
        extras = ([Fact("Cost", f"column {a.costs.column!r}: mean per item, from the same "
                        "replicates")] if a.costs is not None else []) + (
            [Fact("Published scores", f"{a.published.source} ({len(a.published.rows):,} "
                  "matched)")] if a.published is not None else [])
        return [Fact("Per-item results", str(subs.source)), metric,
                Fact("Items", a.items.fact() if a.items is not None and a.items.ragged
                     else f"{s.n_test:,} (every model scored on every item)"),
                Fact("Models", f"{len(files):,} found: {status_text}"), *extras, resampling,
                ranks_text.error_rate_fact(s, a.ranking)]
    out = [Fact("Solution", str(a.leaderboard.source)),
           Fact("Submissions", str(subs.source)),
           metric,
           Fact("Ranking split", f"{rows}; the other split is scored for display only" if shown
                else f"{rows}: every row of the solution (it has no {other} rows)"),
           Fact("Files", f"{len(files):,} found: {status_text}"), resampling,
           ranks_text.error_rate_fact(s, a.ranking)]
    return out


_STATUS_ORDER = {"rejected": 0, "set aside": 1, "not selected": 2, "skipped": 3, "ok": 4}


def file_rows(a: Analysis) -> list[FileRow]:
    """Every submission file found, valid or not: problems first, then in the order found."""
    if a.submissions is None:   # scores only: no files
        return []
    files = sorted(a.submissions.files, key=lambda f: _STATUS_ORDER.get(f.status, 0))
    return [FileRow(team=str(f.team), file=str(f.file), status=str(f.status),
                    reason=str(f.reason or ""), rows="" if f.rows is None else f"{f.rows:,}",
                    css=f.status.replace(" ", "-"))
            for f in files]


def resampling_box(a: Analysis) -> dict:
    """The method box of submissions mode; the tier words come from the method that ran."""
    subs, boot = _resampled(a)
    method = (a.ranking.description if a.ranking is not None
              else TIER_METHODS[a.settings.tier_method])
    if subs.layout == "items":
        unit = "clusters of items" if boot.resample == "grouped" else "items"
        return {
            "name": f"paired bootstrap of items ({boot.resample})",
            "assumptions": (
                "The benchmark's items are taken as a random sample from the population of items "
                f"it stands for ({unit} independent of each other). Each replicate redraws the "
                f"items once ({resampling_words(boot.resample, True)}) and scores every model on "
                "that same draw, so differences between models are measured on shared items "
                "(paired). No model of the scores is assumed: the noise comes from the models' "
                "own per-item values."),
            "method": (f"{boot.replicates.shape[1]:,} replicates of {boot.n_rows:,} items, seed "
                       f"{boot.seed}. Intervals are percentile intervals of each model's "
                       f"replicates; tiers by {method.label}: {method.test}."),
        }
    return {
        "name": f"paired bootstrap ({boot.resample})",
        "assumptions": (
            "The test rows are taken as a random sample from the population the competition cares "
            f"about ({'groups' if boot.resample == 'grouped' else 'rows'} independent of each "
            "other). Each replicate redraws the test rows once "
            f"({RESAMPLING_WORDS[boot.resample]}) and scores every entry on that same draw, so "
            "differences between entries are measured on shared rows (paired). No model of the "
            "scores is assumed: the noise comes from the predictions themselves."),
        "method": (f"{boot.replicates.shape[1]:,} replicates of {boot.n_rows:,} rows, seed "
                   f"{boot.seed}. Intervals are percentile intervals of each entry's replicates; "
                   f"tiers by {method.label}: {method.test}."),
    }


def how_to_read(conf: str, items: bool = False) -> dict[str, str]:
    """Explanations that replace the scores-only ones, keyed by label (``items``: a benchmark's
    words)."""
    if items:
        return {
            "interval": (f"A {conf} percentile bootstrap interval for the model's true score (its "
                         "mean over the whole population of items the benchmark's items were "
                         f"drawn from): the middle {conf} of its scores over the bootstrap "
                         "replicates. If the items are a random sample of that population, it "
                         f"covers the true score about {conf} of the time."),
            "d95": ("How far apart two equally good models land by chance, each scored on its "
                    "own set of this many items: the 95th percentile of the |difference| between "
                    "two independent bootstrap replicates of the model's score. Comparisons "
                    "between models use paired replicates instead, which are much less noisy."),
            "p": ("The one-sided p-value of the paired test \u201cthis model is at least as good "
                  "as its tier's anchor\u201d: the observed difference divided by the standard "
                  "deviation of the difference over the shared replicates (unadjusted; Holm "
                  "adjusts the threshold). The anchor itself has none."),
            "correlation": ("None needed: every model is scored on the same resampled items, so "
                            "the correlation between models is in the data."),
        }
    return {
        "interval": (f"A {conf} percentile bootstrap interval for the entry's true score (its score "
                     "on the whole population the test rows were drawn from): the middle "
                     f"{conf} of its scores over the bootstrap replicates. If the test rows are a "
                     f"random sample of that population, it covers the true score about {conf} "
                     "of the time."),
        "d95": ("How far apart two equally good models land by chance, each scored on its own test "
                "set of this size: the 95th percentile of the |difference| between two independent "
                "bootstrap replicates of the entry's score. Comparisons between entries use paired "
                "replicates instead, which are much less noisy."),
        "p": ("The one-sided p-value of the paired test \u201cthis entry is at least as good as its "
              "tier's anchor\u201d: the observed difference divided by the standard deviation of "
              "the difference over the shared replicates (unadjusted; Holm adjusts the "
              "threshold). The anchor itself has none."),
        "correlation": ("None needed: every entry is scored on the same resampled rows, so the "
                        "correlation between entries is in the data."),
    }


def curve_words(a: Analysis) -> dict | None:
    """The curves section's numbers, or its note when the board has no curves."""
    if a.mode != "submissions":
        return None
    c = a.curves
    if c is None:
        return {"note": a.curves_note or "No curves for this board."}
    from leaderboard.report.vega.curves import SHOW

    return {"show": min(SHOW, len(c.rows)), "kept": len(c.rows),
            "replicates": f"{c.replicates:,}", "prevalence": pct(c.prevalence)}
