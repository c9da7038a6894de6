"""Per-category results of per-item boards: tiers within each category, and two aggregates.

Items come in categories (subjects, tasks, languages). Each category is resampled on its own (a
bootstrap stratified by category: the number of items per category stays fixed, as in the
benchmark), with every model scored on the same draws of that category's items (paired), and
whole clusters drawn together when there are clusters. From these joint replicates come:

* **within each category**: each model's mean, its interval, its simultaneous rank set and its
  tier (layers of "shown better"). The family is every category at once: each category's rank
  sets are computed at ``alpha / C`` (Bonferroni over the ``C`` categories), so all rank sets of
  all categories hold together with probability at least ``1 - alpha``. The intervals stay in
  the values' range and are as lopsided as the data (issue 39; :mod:`leaderboard.noise.mean_bounds`,
  chosen by the kind of values, ``method``): exact binomial bounds for 0/1 values, the binomial
  bound for values in [0, 1], Korn and Graubard's effective number of items for clustered items;
  values outside [0, 1] keep the bootstrap (percentile, max-|t)), approximate. The **marginal**
  intervals (``ci_low``, ``ci_high``) each hold at ``1 - alpha / C``, not all at once; the
  **simultaneous** ones (``ci_sim_low``, ``ci_sim_high``) are each at ``1 - alpha / K`` for the
  ``K`` model-category cells, so (Bonferroni) all hold together with probability at least
  ``1 - alpha`` for 0/1 values and values in [0, 1]. Measured with known truth (400 boards a
  shape, docs/categories.md, benchmarks/study_category_intervals.py): 94.2-99.2% for 0/1 values
  at 10-200 items a category and 24-600 cells, where the symmetric max-|t| intervals used before
  held on 0-91.5%. ``shown`` (``--category-intervals``) picks the ones the report shows.
* **macro mean**: the unweighted mean of a model's category means, with its percentile interval
  and simultaneous rank set at ``alpha`` from the same replicates (a linear statistic, so the
  percentile bootstrap is unbiased for it).

Clusters that cross categories (a passage with questions of two subjects) are resampled once
for all categories: one draw of whole clusters, each category's statistic from its own items on
that draw (a category none of whose clusters was drawn leaves that replicate out). With few
clusters (:mod:`leaderboard.noise.clusters`) each category's replicates, and the macro mean's,
are stretched by the t correction for its number of clusters.

* **mean win rate**: the share of (category, other model) pairs a model wins (ties one half).
  It jumps with the means, so its percentile bootstrap is biased near 0 and 1 (tried: the
  leader's observed rate fell outside its own percentile interval); its interval is instead the
  projection of the categories' simultaneous verdicts (:func:`win_rate`), conservative and
  valid for every model at once.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import overload

import numpy as np
import pandas as pd

from leaderboard.metrics import Metric
from leaderboard.errors import InputError
from leaderboard.noise.bootstrap import MIN_UNITS, BootstrapResult, paired_bootstrap, too_few_units
from leaderboard.noise.clusters import cluster_count, stretch
from leaderboard.noise.mean_bounds import ClusterDesign, bounded_interval, value_range
from leaderboard.noise.rng import BLOCK, Stream
from leaderboard.noise.weights import count_block, resampling
from leaderboard.ingest.toolkit.messages import show
from leaderboard.tiers import RankReplicates
from leaderboard.tiers.rank_sets import rank_confidence_sets
from leaderboard.tiers.ranking import tier_entries
from leaderboard.params import DEFAULT_ALPHA, DEFAULT_REPLICATES, DEFAULT_SEED, DEFAULT_TIERS

CATEGORY_STREAM = int(Stream.CATEGORIES)   # category k draws from CATEGORY_STREAM + k


@dataclass(frozen=True)
class CategoryResults:
    """Per-category and aggregate tables, models in the order given.

    Attributes
    ----------
    table : DataFrame
        One row per (category, model): ``category``, ``items``, ``team``, ``score``,
        ``ci_low``, ``ci_high`` (marginal, level ``1 - alpha / C``), ``rank``, ``rank_sim_low``,
        ``rank_sim_high``, ``tier``, ``ci_sim_low``, ``ci_sim_high`` (simultaneous over every
        model and category, level ``1 - alpha``: each at ``1 - alpha / K``).
    aggregates : dict of str to DataFrame
        ``"macro_mean"`` and ``"win_rate"``: one row per model, best first, with ``score``,
        ``ci_low``, ``ci_high``, ``rank_sim_low``, ``rank_sim_high``, ``tier``.
    alpha : float
        The family-wise error rate; each category's sets use ``alpha / len(categories)``.
    categories : tuple of str
    replicates : int
    shown : {"marginal", "simultaneous"}
        The intervals the report shows (``--category-intervals``); both are in ``table``.
    method : {"clopper-pearson", "binomial-bound", "korn-graubard", "max-t"}
        How the intervals are built, by the kind of values (:func:`_cell_bounds`).
    """

    table: pd.DataFrame
    aggregates: dict[str, pd.DataFrame]
    alpha: float
    categories: tuple[str, ...]
    replicates: int
    shown: str = "marginal"
    method: str = "max-t"

    @property
    def shown_columns(self) -> tuple[str, str]:
        """The table's columns of the intervals shown: ``ci_low``/``ci_high`` (marginal) or
        ``ci_sim_low``/``ci_sim_high`` (simultaneous)."""
        return ("ci_sim_low", "ci_sim_high") if self.shown == "simultaneous" \
            else ("ci_low", "ci_high")

    @property
    def shown_level(self) -> float:
        """The confidence level of each shown interval: ``1 - alpha / C`` for a marginal one,
        ``1 - alpha`` for all the simultaneous ones together."""
        return 1 - (self.alpha if self.shown == "simultaneous"
                    else self.alpha / len(self.categories))


def category_results(metric: Metric, values: np.ndarray, teams: list[str],
                     categories: np.ndarray, *, groups: np.ndarray | None = None,
                     alpha: float = DEFAULT_ALPHA, replicates: int = DEFAULT_REPLICATES,
                     seed: int = DEFAULT_SEED,
                     higher_is_better: bool = True, tier_method: str = DEFAULT_TIERS,
                     shown: str = "marginal") -> CategoryResults:
    """Per-category and aggregate intervals, rank sets and tiers from joint replicates.

    Parameters
    ----------
    metric : Metric
        The per-item metric (``mean``).
    values : ndarray, shape (models, items)
        Each model's value on each item.
    teams : list of str
        The models' names, in the rows' order.
    categories : ndarray, shape (items,)
        Each item's category.
    groups : ndarray, optional
        Each item's cluster; clusters may span categories (then resampled once for all).
    shown : {"marginal", "simultaneous"}, default "marginal"
        The intervals the report shows; both are computed.
    """
    codes, found = pd.factorize(categories.astype(str))   # in order of first appearance
    names = tuple(str(name) for name in found)
    k = len(names)
    per_alpha = alpha / k
    sign = 1.0 if higher_is_better else -1.0
    rows, point_by_cat, reps_by_cat, verdicts = [], [], [], []
    masks = _Masks(codes, k)
    sizes = np.bincount(codes, minlength=k)
    units = sizes if groups is None else \
        pd.Series(groups).groupby(codes).nunique().reindex(range(k)).to_numpy()
    for name, count in zip(names, units):   # every category checked before any is resampled
        few = too_few_units(int(count), "item" if groups is None else "cluster")
        if few:
            small = int((sizes < MIN_UNITS).sum())
            raise InputError(f"category {show(name)} has {few}; per-category tiers need that in "
                             f"every category ({small:,} of {k:,} categories have fewer than "
                             f"{MIN_UNITS} items): merge the small categories or leave out "
                             "--category-col")
    crossing = groups is not None and _crossing(groups, categories)
    joint = (_joint_replicates(metric, values, masks, groups, replicates, seed)
             if crossing and groups is not None else None)   # (crossing needs groups)
    for c in range(len(names)):
        mask = masks[c]
        g = groups[mask] if groups is not None else None
        if joint is not None:
            boot = joint[c]
        else:
            boot = paired_bootstrap(metric.impl, np.zeros(int(mask.sum())), list(values[:, mask]),
                                    replicates=replicates, seed=seed, stream=CATEGORY_STREAM + c,
                                    resample="grouped" if g is not None else "plain", groups=g)
        point_by_cat.append(boot.point)
        reps_by_cat.append(boot.replicates)
        if g is not None:
            boot = stretch(boot, cluster_count(g).factor(per_alpha))
        columns, better = _ranked_columns(boot.point, boot.replicates, sign, per_alpha,
                                          tier_method)
        verdicts.append(better)
        rows.append(columns)
    points, reps = np.stack(point_by_cat), np.stack(reps_by_cat)     # (C, M), (C, M, R)
    kind = value_range(values)
    bounds = _cell_bounds(values, masks, groups, kind, points, reps, rows, alpha)
    macro_point, macro_reps = points.mean(axis=0), reps.mean(axis=0)
    if groups is not None:
        macro_reps = stretch(BootstrapResult(macro_point, macro_reps, "grouped", 0, 0, seed),
                             cluster_count(groups).factor(alpha)).replicates
    aggregates = {"macro_mean": _ranked(macro_point, macro_reps, teams, sign, alpha,
                                        tier_method)[0],
                  "win_rate": win_rate(sign * points, np.stack(verdicts), teams)}
    return CategoryResults(table=_category_table(names, masks, teams, rows, bounds),
                           aggregates=aggregates, alpha=alpha, categories=names,
                           replicates=replicates, shown=shown,
                           method=_METHOD[kind.kind if groups is None or not kind.bounded
                                          else "clusters"])


# How the intervals are built, by the values' kind (leaderboard.noise.mean_bounds)
_METHOD = {"binary": "clopper-pearson", "unit": "binomial-bound", "clusters": "korn-graubard",
           "unbounded": "max-t"}


def _cell_bounds(values: np.ndarray, masks: Sequence[np.ndarray], groups: np.ndarray | None,
                 kind, points: np.ndarray, reps: np.ndarray, rows: list[dict],
                 alpha: float) -> dict[str, np.ndarray]:
    """The marginal (level ``1 - alpha / C``) and simultaneous (``1 - alpha / (C M)`` each,
    Bonferroni) intervals of every (category, model) cell, each ``(C, M)`` in the teams' order.

    Values in [0, 1]: binomial bounds (:mod:`leaderboard.noise.mean_bounds`), inside [0, 1] and
    skewed as the data are. Other values: the percentile intervals (marginal) and the max-|t|
    bootstrap (:func:`simultaneous_half_widths`), approximate."""
    c, m = points.shape
    if not kind.bounded:
        marginal_low, marginal_high = np.empty((c, m)), np.empty((c, m))
        for k, columns in enumerate(rows):       # the percentile intervals, in the teams' order
            marginal_low[k, columns["order"]] = columns["ci_low"]
            marginal_high[k, columns["order"]] = columns["ci_high"]
        half = simultaneous_half_widths(points, reps, alpha)
        return {"ci_low": marginal_low, "ci_high": marginal_high,
                "ci_sim_low": points - half, "ci_sim_high": points + half}
    designs = [None if groups is None else
               ClusterDesign(np.unique(groups[mask].astype(str), return_inverse=True)[1])
               for mask in masks]
    deffs = np.concatenate([d.design_effects(values[:, mask]) for d, mask in zip(designs, masks)
                            if d is not None] or [np.array([np.nan])])
    fallback = float(np.nanmedian(deffs)) if np.isfinite(deffs).any() else None
    sim = [bounded_interval(values[:, mask], 1 - alpha / (c * m), d, fallback)
           for d, mask in zip(designs, masks)]
    out = {"ci_sim_low": np.stack([s[0] for s in sim]),
           "ci_sim_high": np.stack([s[1] for s in sim])}
    each = [bounded_interval(values[:, mask], 1 - alpha / c, d, fallback)
            for d, mask in zip(designs, masks)]
    out["ci_low"], out["ci_high"] = np.stack([e[0] for e in each]), np.stack([e[1] for e in each])
    return out


def _category_table(names: tuple[str, ...], masks: Sequence[np.ndarray], teams: list[str],
                    rows: list[dict[str, np.ndarray]],
                    bounds: dict[str, np.ndarray]) -> pd.DataFrame:
    """The per-category rows, category after category, each best first: one frame built from
    the columns of all categories (a frame per category cost more than the statistics);
    ``bounds`` (:func:`_cell_bounds`) gives the intervals, ``(C, M)`` in the teams' order."""
    order = [columns.pop("order") for columns in rows]
    size = [len(o) for o in order]
    frame = {"category": np.repeat(np.array(names, dtype=object), size),
             "items": np.repeat([int(m.sum()) for m in masks], size).astype(np.int64),
             "team": np.array([teams[i] for o in order for i in o], dtype=object)}
    for key in rows[0]:
        frame[key] = np.concatenate([columns[key] for columns in rows])
    for key, cells in bounds.items():
        frame[key] = np.concatenate([cells[c, o] for c, o in enumerate(order)])
    return pd.DataFrame(frame)


def _crossing(groups: np.ndarray, categories: np.ndarray) -> bool:
    """Whether some cluster holds items of two categories: more distinct (cluster, category)
    pairs than clusters. (Integer codes and ``np.unique``: 0.2 ms at 240 items, where a pandas
    frame's ``drop_duplicates`` took 1.7, on every category run.)"""
    _, g = np.unique(groups.astype(str), return_inverse=True)
    _, c = np.unique(categories.astype(str), return_inverse=True)
    pairs = np.unique(g.astype(np.int64) * (int(c.max(initial=0)) + 1) + c)
    return bool(pairs.size > np.unique(g).size)


class _Masks(Sequence):
    """Each category's items as a boolean mask, made when asked: a list of them all holds
    categories x items booleans (50,000 categories of one item each took 2.5 GB before the
    first was checked)."""

    def __init__(self, codes: np.ndarray, k: int) -> None:
        self.codes, self.k = codes, k

    def __len__(self) -> int:
        return self.k

    @overload
    def __getitem__(self, c: int) -> np.ndarray: ...

    @overload
    def __getitem__(self, c: slice) -> list[np.ndarray]: ...

    def __getitem__(self, c):
        if isinstance(c, slice):
            return [self[i] for i in range(*c.indices(self.k))]
        if not -self.k <= c < self.k:
            raise IndexError(c)
        return self.codes == (c % self.k)


def _joint_replicates(metric: Metric, values: np.ndarray, masks: Sequence[np.ndarray],
                      groups: np.ndarray, replicates: int, seed: int) -> list[BootstrapResult]:
    """One draw of whole clusters per replicate, shared by every category; each category's
    scores from its own items' counts on that draw (NaN where none of them was drawn)."""
    impl = metric.impl
    plan = resampling(np.zeros(len(groups)), "grouped", None, groups)
    prepared = [impl.prepare(np.zeros(int(m.sum())), list(values[:, m])) for m in masks]
    parts: list[list[np.ndarray]] = [[] for _ in masks]
    for block in range(-(-replicates // BLOCK)):
        counts = count_block(plan, seed, block, int(Stream.CROSSING_CLUSTERS))[
            :replicates - block * BLOCK]
        for c, m in enumerate(masks):
            w = counts[:, m].astype(float)
            drawn = w.sum(axis=1) > 0
            scores = np.full((values.shape[0], len(w)), np.nan)
            if drawn.any():
                scores[:, drawn] = impl.evaluate(prepared[c], w[drawn])
            parts[c].append(scores)
    return [BootstrapResult(point=impl.point(prepared[c], int(m.sum())),
                            replicates=np.hstack(parts[c]), resample="grouped",
                            n_rows=int(m.sum()), n_units=plan.n_groups, seed=int(seed))
            for c, m in enumerate(masks)]


def simultaneous_half_widths(points: np.ndarray, replicates: np.ndarray,
                             alpha: float) -> np.ndarray:
    """Half-widths of intervals that hold every model's true mean in every category at once.

    Max-|t| bootstrap: ``t_r = max over (c, m) of |rep[c, m, r] - point[c, m]| / sd[c, m]``; the
    half-width is the ``1 - alpha`` quantile of ``t_r`` times ``sd[c, m]`` (the bootstrap SD).
    The replicates sample the joint law of all deviations (categories resampled independently, or
    by one shared draw of clusters when clusters cross categories; a replicate where a category
    drew none of its items is NaN there and ignored). A model with no spread in a category gets
    width 0 there only if every replicate agrees (its mean cannot move).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> reps = rng.standard_normal((2, 3, 4000))
    >>> half = simultaneous_half_widths(np.zeros((2, 3)), reps, 0.05)
    >>> bool(1.96 < half.mean() < 3.0)   # wider than one interval's 1.96, less than Bonferroni+
    True
    """
    sd = np.nanstd(replicates, axis=2)
    safe = np.where(sd > 0, sd, 1.0)
    t = np.abs(replicates - points[..., None]) / safe[..., None]
    worst = np.fmax.reduce(t.reshape(-1, t.shape[-1]), axis=0)       # NaN only if all are
    critical = float(np.nanquantile(worst, 1 - alpha))
    return critical * sd


def _ranked(point: np.ndarray, replicates: np.ndarray, teams: list[str], sign: float,
            alpha: float, tier_method: str) -> tuple[pd.DataFrame, np.ndarray]:
    """Best first: score, percentile interval, simultaneous rank set and tier; and the verdicts
    ``better[i, j]`` in the teams' order (i shown better than j)."""
    columns, better = _ranked_columns(point, replicates, sign, alpha, tier_method)
    order = columns.pop("order")
    return pd.DataFrame({"team": [teams[i] for i in order], **columns}), better


def _ranked_columns(point: np.ndarray, replicates: np.ndarray, sign: float, alpha: float,
                    tier_method: str) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """:func:`_ranked`'s columns as arrays, with ``order`` (the teams' indices, best first)."""
    order = np.argsort(-sign * point, kind="stable")
    point, replicates = point[order], replicates[order]
    reps = RankReplicates.from_bootstrap(point, replicates, sign > 0)
    sets = rank_confidence_sets(reps, alpha, simultaneous=True)
    tiers = tier_entries(reps, tier_method, alpha, sets)
    low, high = _quantiles(replicates, [alpha / 2, 1 - alpha / 2])
    m = len(order)
    better = np.zeros((m, m), dtype=bool)        # in the teams' order: i shown better than j
    assert sets.shown_better is not None   # simultaneous sets carry their verdicts
    better[np.ix_(order, order)] = sets.shown_better.matrix(m)
    return {"order": order, "score": point, "ci_low": low, "ci_high": high,
            "rank": _min_ranks(-sign * point), "rank_sim_low": sets.low,
            "rank_sim_high": sets.high, "tier": tiers.tier}, better


def _quantiles(replicates: np.ndarray, q: list[float]) -> np.ndarray:
    """``np.nanquantile(replicates, q, axis=1)``: the same numbers, and without NaN one
    vectorised ``np.quantile`` (``nanquantile`` sorts row by row in Python)."""
    if np.isnan(replicates).any():
        return np.nanquantile(replicates, q, axis=1)
    return np.quantile(replicates, q, axis=1)


def _min_ranks(x: np.ndarray) -> np.ndarray:
    """Ranks, lowest first, ties sharing the lowest (``pandas`` ``rank(method="min")``), int64:
    SciPy's ``rankdata(x, method="min")`` (as shakeup/observed.py ranks), computed as one plus
    the number of strictly smaller values (a sorted copy searched: 3 us against SciPy's 58).

    Examples
    --------
    >>> _min_ranks(np.array([0.3, 0.1, 0.3, 0.2])).tolist()
    [3, 1, 3, 2]
    """
    if np.isnan(x).any():         # pandas' NaN ranks, as before
        return pd.Series(x).rank(method="min").astype(int).to_numpy()
    return np.searchsorted(np.sort(x), x, side="left").astype(np.int64) + 1


def win_rate(points: np.ndarray, better: np.ndarray, teams: list[str]) -> pd.DataFrame:
    """The mean win rate over categories and opponents, with a simultaneous interval.

    ``points`` (C, M) are oriented category means (higher is better); ``better`` (C, M, M) the
    per-category verdicts ``better[c, i, j]``: model i shown better than model j in category c,
    all of them holding at once with probability at least ``1 - alpha`` (Bonferroni over the
    categories' simultaneous families). A win counts 1, a tie one half.

    The win rate is a jump function of the means, so no bootstrap percentile can back an
    interval for it. The interval here is a projection instead: a pair shown better is a sure
    win (or loss); an undecided pair may be either. ``ci_low`` counts the sure wins only,
    ``ci_high`` every pair but the sure losses, so whenever the verdicts hold (probability at
    least ``1 - alpha``) every model's true win rate lies in its interval, all at once. Rank sets
    and tiers follow from the intervals: model j is shown better than model i when j's lower end
    is above i's upper end; tiers are the layers of that relation.

    Examples
    --------
    >>> pts = np.array([[0.9, 0.7, 0.5]])
    >>> sure = np.array([[[0, 1, 1], [0, 0, 0], [0, 0, 0]]], dtype=bool)  # a beats b and c
    >>> win_rate(pts, sure, ["a", "b", "c"])[["team", "score", "ci_low", "ci_high", "tier"]
    ...                                      ].values.tolist()
    [['a', 1.0, 1.0, 1.0, 1], ['b', 0.5, 0.0, 0.5, 2], ['c', 0.0, 0.0, 0.5, 2]]
    """
    c, m = points.shape
    pairs = max(c * (m - 1), 1)
    wins = (points[:, :, None] > points[:, None, :]).sum(axis=(0, 2))
    ties = (points[:, :, None] == points[:, None, :]).sum(axis=(0, 2)) - c   # minus itself
    point = (wins + 0.5 * ties) / pairs
    low = better.sum(axis=(0, 2)) / pairs
    high = 1.0 - better.sum(axis=(0, 1)) / pairs
    above = low[None, :] > high[:, None]          # above[i, j]: j is shown better than i
    tier = np.zeros(m, dtype=int)
    left = np.ones(m, dtype=bool)
    layer = 0
    while left.any():                              # layers: not shown beaten by anyone left
        layer += 1
        top = left & ~(above & left[None, :]).any(axis=1)
        tier[top], left = layer, left & ~top
    order = np.argsort(-point, kind="stable")
    columns = {"score": point, "ci_low": low, "ci_high": high, "rank": _min_ranks(-point),
               "rank_sim_low": 1 + above.sum(axis=1), "rank_sim_high": m - above.sum(axis=0),
               "tier": tier}
    # the rows best first, taken from the arrays (a frame's iloc and reset_index cost more)
    return pd.DataFrame({"team": [teams[i] for i in order],
                         **{key: values[order] for key, values in columns.items()}})
