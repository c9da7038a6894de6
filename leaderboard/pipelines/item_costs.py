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
from leaderboard.noise.weights import stratum_labels
from leaderboard.params import DEFAULT_ALPHA


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
    measured : MeasuredCoverage
        The 95% interval's coverage on known-truth costs of this board's tail and size.
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
    measured: MeasuredCoverage | None = None


def cost_replicates(costs: np.ndarray, solution, resample: str, replicates: int,
                    seed: int, alpha: float = DEFAULT_ALPHA) -> BootstrapResult:
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

    y = np.asarray(solution.target)
    groups = solution.groups
    plan = resampling(y, resample, stratum_labels(y) if resample == "stratified" else None, groups)
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


# Coverage of the 95% bootstrap-t interval of a mean of lognormal costs, by log-SD (rows) and
# number of items (columns): benchmarks/study_cost_intervals.py, 2,000 benchmarks a cell (Monte
# Carlo SE 0.5 points), 1,000 replicates, seed 0 (docs/commands/analyze-items.md).
COVERAGE = {
    0.5: {50: 0.944, 100: 0.943, 150: 0.943, 300: 0.956, 1000: 0.953, 3000: 0.945},
    0.75: {50: 0.934, 100: 0.942, 150: 0.937, 300: 0.943, 1000: 0.945, 3000: 0.95},
    1.0: {50: 0.929, 100: 0.941, 150: 0.937, 300: 0.943, 1000: 0.949, 3000: 0.947},
    1.25: {50: 0.915, 100: 0.928, 150: 0.926, 300: 0.939, 1000: 0.942, 3000: 0.946},
    1.5: {50: 0.905, 100: 0.915, 150: 0.92, 300: 0.928, 1000: 0.92, 3000: 0.943},
    2.0: {50: 0.839, 100: 0.856, 150: 0.884, 300: 0.888, 1000: 0.909, 3000: 0.926},
}


@dataclass(frozen=True)
class MeasuredCoverage:
    """What the cost intervals covered on known-truth costs shaped like the board's.

    ``log_sd``: the largest SD of a model's log costs (over its positive costs), the tail the
    heaviest-tailed model's interval has to cover; ``coverage``: :data:`COVERAGE` at that log-SD
    (linear between the measured rows; the lightest row below 0.5) and at the measured number of
    items at or below the board's, ``items``; None when the tail is heavier than any measured.
    """

    log_sd: float
    coverage: float | None
    items: int


def measured_coverage(costs: np.ndarray) -> MeasuredCoverage:
    """The 95% cost interval's coverage measured at this board's shape (:data:`COVERAGE`).

    Examples
    --------
    >>> x = np.random.default_rng(0).lognormal(0, 1.1, (3, 400))
    >>> m = measured_coverage(x)
    >>> round(m.log_sd, 2), m.items, m.coverage
    (1.11, 300, 0.941)
    """
    costs = np.asarray(costs, dtype=float)
    spread = [float(np.log(row[row > 0]).std()) if (row > 0).sum() > 1 else 0.0
              for row in costs]
    log_sd = max(spread, default=0.0)
    items = max([n for n in COVERAGE[0.5] if n <= costs.shape[1]], default=min(COVERAGE[0.5]))
    sds = sorted(COVERAGE)
    coverage = (None if log_sd > sds[-1] + 1e-12 else
                float(np.interp(log_sd, sds, [COVERAGE[sd][items] for sd in sds])))
    return MeasuredCoverage(log_sd=log_sd, coverage=None if coverage is None
                            else round(coverage, 3), items=int(items))


def studentized_interval(rows: np.ndarray, solution, resample: str, replicates: int,
                         seed: int, alpha: float = DEFAULT_ALPHA) -> tuple[np.ndarray, np.ndarray]:
    """Bootstrap-t intervals of each row's mean per item, on the scores' own draws of items.

    Each replicate's mean ``A*`` comes with its own standard error ``se*`` (the plug-in variance
    of a mean of the drawn items, or of the drawn clusters' totals: the cluster-robust form, with
    ``G / (G - 1)``), so ``t* = (A* - A) / se*`` is resampled instead of ``A*`` itself and the
    interval is ``[A - t*_{1 - alpha/2} se, A - t*_{alpha/2} se]``. A mean of heavy-tailed costs
    is skewed, and the percentile interval inherits too little of that skew; the studentized one
    corrects it to a higher order (Hall 1988). Measured on lognormal costs in docs (issue 39):
    see :data:`COVERAGE`. The lower end is at least 0 when every value is (costs). With few
    clusters both ends are stretched away from the mean by the t correction
    (:mod:`leaderboard.noise.clusters`), as the scores are.

    Every moment is a weighted mean of a per-row value on the same draws (one set of weights for
    all): with ``S_g``, ``m_g`` cluster ``g``'s total and size, ``sum w_g (S_g - A m_g)^2`` is ``W
    (mean*(x S) - 2 A mean*(x m) + A^2 mean*(m))`` and ``W = G / mean*(1 / m)``.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> sol = SimpleNamespace(target=np.zeros(200), groups=None)
    >>> x = np.random.default_rng(0).lognormal(0, 1, (1, 200))
    >>> low, high = studentized_interval(x, sol, "plain", 1000, 0)
    >>> mean = x.mean()
    >>> bool(low[0] < mean < high[0]) and bool(high[0] - mean > mean - low[0])   # skewed up
    True
    """
    from leaderboard.metrics import get_metric

    x = np.asarray(rows, dtype=float)
    e = x.shape[0]
    y = np.asarray(solution.target)
    groups = solution.groups if resample == "grouped" else None
    plan = resampling(y, resample, stratum_labels(y) if resample == "stratified" else None, groups)
    if groups is not None:
        _, code = np.unique(np.asarray(groups).astype(str), return_inverse=True)
    else:
        code = np.arange(x.shape[1])
    g = int(code.max()) + 1
    sizes = np.bincount(code, minlength=g).astype(float)
    totals = np.zeros((e, g))
    np.add.at(totals.T, code, x.T)
    m_row, s_row = sizes[code], totals[:, code]
    aux = np.vstack([x, x * s_row, x * m_row, m_row[None, :], 1.0 / m_row[None, :]])
    impl = get_metric("mean").impl
    prepared = impl.prepare(y, list(aux))
    point = impl.point(prepared, len(y))
    reps = replicate_scores(impl, prepared, plan, replicates, seed, STREAM)

    def se(moments: np.ndarray) -> np.ndarray:
        a, b, c = moments[:e], moments[e:2 * e], moments[2 * e:3 * e]
        d, inverse = moments[3 * e], moments[3 * e + 1]
        w = g / inverse
        var = (b - 2 * a * c + a ** 2 * d) / w * (g / max(g - 1, 1))
        return np.sqrt(np.maximum(var, 0.0))

    mean, se0 = point[:e], se(point[:, None])[:, 0]
    se_r = se(reps)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(se_r > 0, (reps[:e] - mean[:, None]) / se_r, np.nan)
    t_low, t_high = np.nanquantile(t, [alpha / 2, 1 - alpha / 2], axis=1) \
        if np.isfinite(t).any() else (np.zeros(e), np.zeros(e))
    low, high = mean - np.nan_to_num(t_high) * se0, mean - np.nan_to_num(t_low) * se0
    if groups is not None:
        factor = cluster_count(np.asarray(groups)).factor(alpha)
        low, high = mean - factor * (mean - low), mean + factor * (high - mean)
    if (x >= 0).all():
        low = np.maximum(low, 0.0)
    return low, high


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
    return np.asarray(~(as_good & better).any(axis=1))


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
    replicates = boot.replicates.shape[1]
    low, high = studentized_interval(costs, solution, s.resample, replicates, s.seed, s.alpha)
    n = int(boot.n_rows)
    scores = table["score"].to_numpy(float)
    tiers = table["tier"].to_numpy(int)
    mean = np.asarray(costs, dtype=float).mean(axis=1)
    best = 0   # the table is in rank order
    q = [s.alpha / 2, 1 - s.alpha / 2]
    sign = 1.0 if s.higher_is_better else -1.0
    cheaper = []
    picked = [k for k in np.argsort(mean, kind="stable")
              if k != best and tiers[k] == 1 and mean[k] < mean[best]]
    savings = (studentized_interval(costs[best] - costs[picked], solution, s.resample,
                                    replicates, s.seed, s.alpha) if picked else ((), ()))
    for k, s_low, s_high in zip(picked, *savings):
        gap = sign * (boot.replicates[best] - boot.replicates[k])
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
                      replicates=int(replicates), resample=boot.resample,
                      alpha=float(s.alpha), measured=measured_coverage(costs))
