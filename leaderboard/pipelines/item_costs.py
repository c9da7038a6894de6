"""Cost per model and the cost-accuracy frontier (``--cost-col``, issue 26 item 6).

A benchmark that publishes a cost per item (dollars, tokens, seconds) lets the reader ask the
question agent papers ask: is there a model as good as the best, for less? Every model's cost is
its mean cost per item; its interval comes from the *same* paired bootstrap replicates as its
score (the same items drawn on every replicate: same plan, seed and random stream), so a
replicate's score and cost belong together and the saving of a cheaper model and its loss in
score are measured on one resampling.

What the numbers assume: the items are a random sample of the population of items the benchmark
stands for (independent items, or independent clusters with ``--cluster-col``), as the scores'
intervals do; the total cost is the mean times the number of items (the cost of running this
benchmark once), so its interval is the mean's scaled, not a model of how the number of items
varies. Nothing here imports the report.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from leaderboard.noise.bootstrap import STREAM, BootstrapResult, replicate_scores, resampling
from leaderboard.noise.clusters import cluster_count, stretch


@dataclass(frozen=True)
class CheaperModel:
    """A model of the top tier that costs less than the best-scored model.

    ``saving`` is the best model's mean cost per item minus this one's (positive: cheaper),
    ``saving_low``/``saving_high`` its paired percentile interval; ``shown_cheaper`` when that
    interval lies above 0. ``score_gap`` is the best model's score minus this one's (in the
    direction of better), with its paired interval from the same replicates.
    """

    model: str
    mean_cost: float
    saving: float
    saving_low: float
    saving_high: float
    shown_cheaper: bool
    score_gap: float
    score_gap_low: float
    score_gap_high: float


@dataclass(frozen=True)
class CostResult:
    """Every model's cost, in the analysis table's order (best score first).

    Attributes
    ----------
    column : str
        The cost column.
    models : tuple of str
    scores, tiers : ndarray
        The models' scores and tiers (as in the analysis table).
    mean, mean_low, mean_high : ndarray
        Mean cost per item and its percentile interval.
    total, total_low, total_high : ndarray
        The cost of the whole benchmark (mean times ``n_items``) and its interval.
    on_frontier : ndarray of bool
        On the cost-accuracy frontier: no other model scores at least as well for at most the
        cost, better in one of the two (point estimates).
    best : str
        The best-scored model.
    cheaper : tuple of CheaperModel
        Top-tier models cheaper than ``best``, cheapest first.
    n_items, replicates : int
    resample : str
    alpha : float
    """

    column: str
    models: tuple[str, ...]
    scores: np.ndarray
    tiers: np.ndarray
    mean: np.ndarray
    mean_low: np.ndarray
    mean_high: np.ndarray
    total: np.ndarray
    total_low: np.ndarray
    total_high: np.ndarray
    on_frontier: np.ndarray
    best: str
    cheaper: tuple[CheaperModel, ...]
    n_items: int
    replicates: int
    resample: str
    alpha: float


def cost_replicates(costs: np.ndarray, solution, resample: str, replicates: int,
                    seed: int, alpha: float = 0.05) -> BootstrapResult:
    """Mean cost per item of every model (rows of ``costs``) on the paired bootstrap replicates
    the scores were drawn on: the same plan (items, strata or clusters), seed and stream, so
    column ``r`` is the same draw of items as the scores' column ``r``; stretched by the same
    few-clusters factor as the scores (:func:`leaderboard.noise.clusters.stretch`).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> sol = SimpleNamespace(target=np.zeros(4), groups=None)
    >>> boot = cost_replicates(np.array([[1.0, 2.0, 3.0, 4.0]]), sol, "plain", 200, 0)
    >>> float(boot.point[0]), boot.replicates.shape
    (2.5, (1, 200))
    """
    from leaderboard.metrics import get_metric
    from leaderboard.pipelines.submissions import _strata

    y = np.asarray(solution.target)
    groups = solution.groups
    plan = resampling(y, resample, _strata(y) if resample == "stratified" else None, groups)
    impl = get_metric("mean").impl
    prepared = impl.prepare(y, list(costs))
    point = impl.point(prepared, len(y))
    reps = replicate_scores(impl, prepared, plan, replicates, seed, STREAM)
    boot = BootstrapResult(point=np.asarray(point, dtype=float), replicates=reps,
                           resample=plan.resample, n_rows=plan.n_rows,
                           n_units=plan.n_groups if plan.resample == "grouped" else plan.n_rows,
                           seed=int(seed))
    if plan.resample == "grouped":
        boot = stretch(boot, cluster_count(np.asarray(groups)).factor(alpha))
    return boot


def frontier(scores: np.ndarray, costs: np.ndarray, higher_is_better: bool) -> np.ndarray:
    """Whether each model is on the cost-accuracy frontier: no other model scores at least as
    well for at most the cost, strictly better in one of the two.

    Examples
    --------
    >>> frontier(np.array([0.9, 0.8, 0.7, 0.85]), np.array([5.0, 1.0, 2.0, 6.0]), True).tolist()
    [True, True, False, False]
    """
    s = np.asarray(scores, float) * (1 if higher_is_better else -1)
    c = np.asarray(costs, float)
    as_good = (s[None, :] >= s[:, None]) & (c[None, :] <= c[:, None])
    better = (s[None, :] > s[:, None]) | (c[None, :] < c[:, None])
    return ~(as_good & better).any(axis=1)


def cost_analysis(analysis, solution, costs: np.ndarray, column: str) -> CostResult:
    """Costs per model with intervals from the scores' own replicates, the frontier and the
    top-tier models cheaper than the best.

    Parameters
    ----------
    analysis : Analysis
        Per-item results analysed (its ``table`` and ``bootstrap`` in rank order).
    solution : Solution
        The items (their order, clusters and truth) the analysis resampled.
    costs : ndarray, shape (models, items)
        Mean cost per item, rows in ``analysis.table`` order.
    column : str
        The cost column's name.
    """
    s, table, boot = analysis.settings, analysis.table, analysis.bootstrap
    cost = cost_replicates(costs, solution, s.resample, boot.replicates.shape[1], s.seed,
                           s.alpha)
    low, high = cost.percentile_interval(s.alpha)
    n = int(boot.n_rows)
    scores = table["score"].to_numpy(float)
    tiers = table["tier"].to_numpy(int)
    mean = cost.point
    best = 0   # the table is in rank order
    q = [s.alpha / 2, 1 - s.alpha / 2]
    sign = 1.0 if s.higher_is_better else -1.0
    cheaper = []
    for k in np.argsort(mean, kind="stable"):
        if k == best or tiers[k] != 1 or not mean[k] < mean[best]:
            continue
        saving = cost.replicates[best] - cost.replicates[k]
        gap = sign * (boot.replicates[best] - boot.replicates[k])
        s_low, s_high = np.nanquantile(saving, q)
        g_low, g_high = np.nanquantile(gap, q)
        cheaper.append(CheaperModel(
            model=str(table["team"].iloc[k]), mean_cost=float(mean[k]),
            saving=float(mean[best] - mean[k]), saving_low=float(s_low),
            saving_high=float(s_high), shown_cheaper=bool(s_low > 0),
            score_gap=float(sign * (scores[best] - scores[k])), score_gap_low=float(g_low),
            score_gap_high=float(g_high)))
    return CostResult(column=column, models=tuple(table["team"].astype(str)), scores=scores,
                      tiers=tiers, mean=mean, mean_low=low, mean_high=high, total=mean * n,
                      total_low=low * n, total_high=high * n,
                      on_frontier=frontier(scores, mean, s.higher_is_better),
                      best=str(table["team"].iloc[best]), cheaper=tuple(cheaper), n_items=n,
                      replicates=int(boot.replicates.shape[1]), resample=cost.resample,
                      alpha=float(s.alpha))
