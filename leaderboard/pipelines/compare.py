"""Is the candidate better than the baseline? A paired bootstrap test, for a CI gate.

Both entries are scored on the same resampled test rows (or items), so the noise they share
cancels in their difference. The gate is a one-sided test at level ``alpha`` of "the candidate
is not better": the candidate is *shown better* when the ``alpha`` quantile of the bootstrap
differences (oriented so that positive means better) is above zero, i.e. when the one-sided
``1 - alpha`` lower confidence bound of the true difference is positive.

Guarantee: the percentile bootstrap's one-sided level is ``alpha`` asymptotically (many test
rows); with two equally good models the gate passes in about ``alpha`` of test sets (measured by
simulation in the tests, within Monte Carlo error), and the bootstrap SD of an AUC difference
matches DeLong's. Identical predictions give a difference of exactly zero on every replicate and
never pass.

With few clusters (``resample="grouped"``, fewer than 30 clusters or one holding a quarter of the
items or more) the cluster bootstrap is too narrow; the bound and interval then use a t reference
with ``G - 1`` degrees of freedom (:mod:`leaderboard.noise.clusters`), measured to keep the level
at alpha with 6 to 20 clusters (tests/noise/test_clusters.py).

Per-item results with a column that groups the items but was not declared: the gate also needs
the candidate shown better with that column's groups resampled as wholes
(:mod:`~leaderboard.pipelines.compare_groups`, issue 39).
"""
from __future__ import annotations

import dataclasses
import math
import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from leaderboard import limits
from leaderboard.metrics import Metric
from leaderboard.errors import InputError
from leaderboard.flags import Flag
from leaderboard.ingest.in_memory import InMemory
from leaderboard.noise.bootstrap import paired_bootstrap, too_few_units
from leaderboard.noise.clusters import ClusterCount, cluster_count
from leaderboard.options import NoiseOptions, RankOptions, ReadOptions, SliceOptions
from leaderboard.params import (DEFAULT_ALPHA, DEFAULT_REPLICATES, DEFAULT_RESAMPLE, DEFAULT_SEED, check)

if TYPE_CHECKING:
    from leaderboard.pipelines.card import PairResolution


@dataclass(frozen=True)
class Comparison:
    """The paired difference, candidate minus baseline, positive when the candidate is better.

    Attributes
    ----------
    baseline, candidate : float
        Each entry's score on the test rows.
    difference : float
        ``candidate - baseline`` oriented by the metric's direction (positive: better).
    lower : float
        One-sided ``1 - alpha`` lower confidence bound of the true difference (the gate).
    low, high : float
        Two-sided ``1 - alpha`` percentile interval of the true difference.
    sd : float
        Bootstrap standard error of the difference.
    p_value : float
        Share of replicates in which the candidate is not better (an approximate one-sided
        p-value, at least ``1 / replicates``).
    better : bool
        Whether the candidate is shown better at level ``alpha`` (``lower > 0``).
    alpha : float
    replicates : int
    identical : bool
        The two predictions are identical on every row.
    clusters : ClusterCount or None
        Resampling whole clusters: how many (few clusters: the t-corrected bound was used).
    resolution : PairResolution or None
        The pair's own resolution (issue 40): the SD of the paired difference against the SD
        were the two scored independently, the units on which they differ and the units that
        would separate them at this gap (:func:`leaderboard.pipelines.card.pair_resolution`).
    """

    baseline: float
    candidate: float
    difference: float
    lower: float
    low: float
    high: float
    sd: float
    p_value: float
    better: bool
    alpha: float
    replicates: int
    identical: bool
    clusters: ClusterCount | None = None
    resolution: PairResolution | None = None


def compare_pair(metric: Metric, y_true: np.ndarray, baseline: np.ndarray,
                 candidate: np.ndarray, *, alpha: float = DEFAULT_ALPHA, replicates: int = DEFAULT_REPLICATES,
                 seed: int = DEFAULT_SEED, resample: str = DEFAULT_RESAMPLE, groups: np.ndarray | None = None,
                 higher_is_better: bool | None = None, unit: str = "test row") -> Comparison:
    """Paired bootstrap test of "the candidate is better than the baseline".

    Refused (:class:`~leaderboard.errors.InputError`, naming the minimum) with fewer than
    :data:`~leaderboard.noise.bootstrap.MIN_UNITS` rows or clusters: there the bootstrap's
    interval collapses (2 items: [-1, -1]) and the gate would pass on nothing.

    Parameters
    ----------
    metric : Metric
    y_true : ndarray
        The truth, one row per test row (ignored by ``mean``).
    baseline, candidate : ndarray
        Predictions aligned with ``y_true``.
    alpha : float
        Level of the one-sided test (default 0.05).
    replicates, seed, resample, groups
        As :func:`~leaderboard.noise.bootstrap.paired_bootstrap`.
    unit : str
        What a row is, for the refusal's words (``"item"`` for per-item results).
    higher_is_better : bool, optional
        Overrides the metric's direction.

    Examples
    --------
    The gate's level, by simulation: two equally accurate classifiers on 150 test sets of 400
    rows; the gate should pass in about 5% of them (Monte Carlo SE about 1.8 points).

    >>> import numpy as np
    >>> from leaderboard.metrics import get_metric
    >>> rng = np.random.default_rng(0)
    >>> passed = 0
    >>> for k in range(150):
    ...     y = rng.integers(0, 2, 400)
    ...     a = np.where(rng.random(400) < 0.8, y, 1 - y)
    ...     b = np.where(rng.random(400) < 0.8, y, 1 - y)
    ...     passed += compare_pair(get_metric("accuracy"), y, a, b, replicates=400, seed=k).better
    >>> passed / 150 < 0.05 + 3 * 0.018
    True
    """
    higher = metric.higher_is_better if higher_is_better is None else higher_is_better
    sign = 1.0 if higher else -1.0
    grouped = resample == "grouped" and groups is not None
    few = too_few_units(len(np.unique(groups)) if grouped and groups is not None
                        else len(np.asarray(baseline)),
                        "cluster" if grouped else unit)
    if few:   # a gate from 2 items would say [-1, -1]: certainty from nothing
        raise InputError(few)
    limits.current().check_replicates(replicates, 2)   # the cap analyze applies, before any draw
    boot = paired_bootstrap(metric.impl, y_true, [baseline, candidate], replicates=replicates,
                            seed=seed, resample=resample, groups=groups)
    diffs = sign * (boot.replicates[1] - boot.replicates[0])
    diffs = diffs[np.isfinite(diffs)]
    identical = bool(np.array_equal(np.asarray(baseline), np.asarray(candidate)))
    point = float(sign * (boot.point[1] - boot.point[0]))
    clusters = (cluster_count(groups) if boot.resample == "grouped" and groups is not None
                else None)   # a grouped bootstrap had its groups
    if identical or diffs.size == 0:
        lower = low = high = point
        sd, p_value = 0.0, 1.0
    else:
        one, two = ((1.0, 1.0) if clusters is None
                    else (clusters.factor(alpha, sides=1), clusters.factor(alpha)))
        lower = point + one * (float(np.quantile(diffs, alpha)) - point)
        low, high = (point + two * (float(q) - point)
                     for q in np.quantile(diffs, [alpha / 2, 1 - alpha / 2]))
        sd = float(diffs.std(ddof=1)) * (1.0 if one == 1.0 or clusters is None else np.sqrt(
            clusters.clusters / (clusters.clusters - 1)))
        p_value = max(float((point + one * (diffs - point) <= 0).mean()), 1.0 / diffs.size)
    resolution = _resolution(boot, sign, point, baseline, candidate, clusters, unit, alpha)
    return Comparison(baseline=float(boot.point[0]), candidate=float(boot.point[1]),
                      difference=point, lower=lower, low=low, high=high, sd=sd,
                      p_value=p_value, better=bool(not identical and lower > 0), alpha=alpha,
                      replicates=int(diffs.size), identical=identical, clusters=clusters,
                      resolution=resolution)


def _resolution(boot, sign: float, point: float, baseline, candidate, clusters, unit: str,
                alpha: float):
    """The pair's own resolution, the better-scored first (the card's top pair, for two)."""
    from leaderboard.pipelines.card import pair_resolution

    first, second = (1, 0) if point >= 0 else (0, 1)
    a, b = np.asarray(baseline), np.asarray(candidate)
    differ = (np.any(a != b, axis=tuple(range(1, a.ndim))) if a.ndim > 1 else a != b)
    grouped = clusters is not None
    return pair_resolution(("candidate", "baseline") if first == 1 else ("baseline", "candidate"),
                           abs(point), sign * boot.replicates[first],
                           sign * boot.replicates[second],
                           current=clusters.clusters if grouped else int(boot.n_units),
                           unit="cluster" if grouped else unit, alpha=alpha,
                           n_eff=int(differ.sum()),
                           n_eff_among=(int(differ.size), unit) if grouped else None)


# --- the gate: inputs read, the pair compared, what makes it untrustworthy flagged -----------------

@dataclass(frozen=True)
class GateOptions:
    """What ``leaderboard compare`` and :func:`leaderboard.compare` are told besides the inputs:
    the metric and seed (``noise``), the test's level and replicates (``ranks``), the columns and
    size cap (``read``), the solution's rows compared (``slices.split``), each checked once in
    its options object (:mod:`leaderboard.options`), and whether a perfect score is expected
    (``allow_perfect``). Built by :func:`gate_options`, which refuses another mode's options."""

    noise: NoiseOptions = field(default_factory=NoiseOptions)
    ranks: RankOptions = field(default_factory=RankOptions)
    read: ReadOptions = field(default_factory=ReadOptions)
    slices: SliceOptions = field(default_factory=SliceOptions)
    allow_perfect: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "allow_perfect", check("allow_perfect", self.allow_perfect))


# Options that belong to one mode only: given in the other they would be silently ignored.
_FILES_ONLY = (("--split", "split"), ("--id-col", "id_col"), ("--target-col", "target_col"),
               ("--pred-col", "pred_col"), ("--group-col", "group_col"))
_ITEMS_ONLY = (("--model-col", "model_col"), ("--item-col", "item_col"),
               ("--value-col", "value_col"), ("--cluster-col", "cluster_col"))


def one_mode(solution: object, items: object) -> None:
    """The gate compares files against a solution, or models in per-item results: one of them."""
    if (solution is None) == (items is None):
        raise InputError("give --solution (baseline and candidate are files) or --items "
                         "(they are model names), one of them")


def gate_options(*, items: bool, metric: str | None = None, alpha: float = RankOptions.alpha,
                 replicates: int = RankOptions.replicates, seed: int = NoiseOptions.seed,
                 allow_perfect: bool = False, max_file_size: int = ReadOptions.max_file_size,
                 **columns: object) -> GateOptions:
    """The gate's options from what was given (``None``: not given): an option of the other mode
    (``--group-col`` with ``--items``, ``--cluster-col`` with ``--solution``, ...) is refused
    rather than ignored; the mode's defaults fill the rest. ``columns`` are ``split`` and the
    column names of :data:`_FILES_ONLY` and :data:`_ITEMS_ONLY`.

    Examples
    --------
    >>> gate_options(items=True, metric="mean", group_col="passage")
    Traceback (most recent call last):
    ...
    leaderboard.errors.InputError: --group-col does not apply with --items (clusters of items: --cluster-col)
    >>> gate_options(items=True).read.model_col
    'model'
    """
    wrong, mode = (_FILES_ONLY, "--items") if items else (_ITEMS_ONLY, "--solution")
    for option, name in wrong:
        if columns.get(name) is not None:
            hint = " (clusters of items: --cluster-col)" if option == "--group-col" else (
                " (groups of rows: --group-col)" if option == "--cluster-col" else "")
            raise InputError(f"{option} does not apply with {mode}{hint}")
    given: dict[str, Any] = {name: value for name, value in columns.items() if value is not None}
    split = given.pop("split", SliceOptions.split)
    return GateOptions(noise=NoiseOptions(metric=metric, seed=seed),
                       ranks=RankOptions(alpha=alpha, replicates=replicates),
                       read=ReadOptions(max_file_size=max_file_size, **given),
                       slices=SliceOptions(split=split), allow_perfect=allow_perfect)


@dataclass(frozen=True)
class Gate:
    """The gate's answer: the paired comparison and what to know before trusting it.

    Attributes
    ----------
    comparison : Comparison
        Its ``better`` is the gate's decision (False when ``held``).
    metric : Metric
    baseline, candidate : str
        The entries as given (file paths, or model names with per-item results).
    items : bool
        Per-item results (the bootstrap resampled items) rather than a solution's test rows.
    clustered : bool
        Whole clusters or groups were resampled together.
    seed : int
    flags : tuple of Flag
        Groups nobody declared, few clusters (:func:`~leaderboard.pipelines.submission_checks.cluster_flags`).
    gate_flags : tuple of (kind, message)
        What makes this comparison untrustworthy as a gate (:func:`gate_flags`).
    held : bool
        The test alone would pass the candidate, but a flag holds the gate.
    assumptions : tuple of Assumption
        What the paired test takes as given.
    """

    comparison: Comparison
    metric: Metric
    baseline: str
    candidate: str
    items: bool
    clustered: bool
    seed: int
    flags: tuple[Flag, ...] = ()
    gate_flags: tuple[tuple[str, str], ...] = ()
    held: bool = False
    assumptions: tuple = ()

    @property
    def better(self) -> bool:
        """Whether the gate passes: the candidate is shown better and nothing holds it."""
        return self.comparison.better


def run_compare(baseline: str | os.PathLike | InMemory, candidate: str | os.PathLike | InMemory,
                options: GateOptions, *, solution: str | os.PathLike | InMemory | None = None,
                items: str | os.PathLike | InMemory | None = None) -> Gate:
    """The gate end to end, for the command line and :func:`leaderboard.compare`: the inputs read
    (ingest), the pair compared (:func:`compare_pair`), cluster and gate flags raised, and the gate
    held on a flag unless ``options.allow_perfect``.

    With ``solution``, ``baseline`` and ``candidate`` are submission files (paths, or tables in
    memory) compared on the solution's ``options.slices.split`` rows; with ``items`` (per-item results),
    they are model names.
    """
    from leaderboard.pipelines.assumptions import comparison_assumptions
    from leaderboard.pipelines.submission_checks import cluster_flags

    from leaderboard.pipelines.compare_read import files_pair, items_pair

    one_mode(solution, items)
    if items is not None:
        metric, y, base, cand, groups, table = items_pair(items, baseline, candidate, options)
        bounds = _item_bounds(base, cand)
    else:
        metric, y, base, cand, groups, table = files_pair(solution, baseline, candidate, options)
        bounds = (metric.lower_bound, metric.upper_bound)
    result = compare_pair(metric, y, base, cand, alpha=options.ranks.alpha,
                          replicates=options.ranks.replicates, seed=options.noise.seed,
                          resample="grouped" if groups is not None else "plain", groups=groups,
                          unit="item" if items is not None else "test row")
    flags = cluster_flags(table, result.clusters)   # issue 25: groups found, few clusters
    found = gate_flags(result, metric, bounds, None if items is not None else (y, base, cand))
    held = bool(found and result.better and not options.allow_perfect)
    if held:   # shown better only by a perfect score: the gate does not pass on a likely leak
        result = dataclasses.replace(result, better=False)
    if items is not None and groups is None and result.better:
        from leaderboard.pipelines.compare_groups import undeclared_groups_hold

        grouped = undeclared_groups_hold(items, baseline, candidate, options, table)
        if grouped is not None:   # related items resampled as wholes: not shown better
            found, held = found + [grouped], True
            result = dataclasses.replace(result, better=False)
    read = options.read
    return Gate(comparison=result, metric=metric, baseline=_named(baseline),
                candidate=_named(candidate), items=items is not None,
                clustered=bool(read.cluster_col or read.group_col), seed=options.noise.seed,
                flags=tuple(flags), gate_flags=tuple(found), held=held,
                assumptions=comparison_assumptions(result, table, items=items is not None))


def _named(entry) -> str:
    """An entry as the output names it: its path or model name as given, or its DataFrame."""
    return str(entry.source) if isinstance(entry, InMemory) else str(entry)


def _item_bounds(base: np.ndarray, cand: np.ndarray) -> tuple[float, float]:
    """The mean's range: [0, 1] when every per-item value is in it (correct/incorrect, a
    score), else unbounded (no perfect score to flag)."""
    values = np.concatenate([np.ravel(base), np.ravel(cand)]).astype(float)
    inside = values.size and values.min() >= 0 and values.max() <= 1
    return (0.0, 1.0) if inside else (-math.inf, math.inf)


def gate_flags(r: Comparison, metric, bounds: tuple[float, float],
               rows: tuple[np.ndarray, np.ndarray, np.ndarray] | None) -> list[tuple[str, str]]:
    """What makes this comparison untrustworthy as a gate: an entry whose predictions are the
    solution's targets (``rows`` = truth, baseline, candidate; files mode), or that scores the
    metric's perfect value while the other does not.

    Examples
    --------
    >>> from leaderboard.metrics import get_metric
    >>> r = Comparison(0.98, 1.0, 0.02, 0.01, 0.0, 0.04, 0.01, 0.001, True, 0.05, 1000, False)
    >>> gate_flags(r, get_metric("auc"), (0.0, 1.0), None)  # doctest: +NORMALIZE_WHITESPACE
    [('perfect_score', 'the candidate scores a perfect ROC AUC (1) while the baseline scores
    0.98: a leak of the solution until shown otherwise')]
    """
    out = []
    if rows is not None:
        truth = rows[0]
        for role, pred in (("baseline", rows[1]), ("candidate", rows[2])):
            if np.shape(pred) == np.shape(truth) and np.array_equal(pred, truth):
                out.append(("solution_targets", f"the {role}'s predictions are the solution's "
                                                "targets on every compared row: the solution "
                                                "itself, or a leak of it"))
    perfect = bounds[1] if metric.higher_is_better else bounds[0]
    if math.isfinite(perfect) and not out:
        at_best = {role: math.isfinite(score) and abs(score - perfect) <= 1e-12
                   for role, score in (("baseline", r.baseline), ("candidate", r.candidate))}
        for role, other in (("candidate", "baseline"), ("baseline", "candidate")):
            if at_best[role] and not at_best[other]:
                out.append(("perfect_score", f"the {role} scores a perfect {metric.label} "
                                             f"({perfect:g}) while the {other} scores "
                                             f"{getattr(r, other):.5g}: a leak of the solution "
                                             "until shown otherwise"))
    return out
