"""The seeds' experiment: how far chance moves a score whose true value is known.

For each *case* (a true score, a test-set size and a prevalence) a calibrated universe is simulated
(:mod:`leaderboard.noise.universes`): many test sets are drawn from it and the metric is computed on
each, giving the distribution of *observed* scores of a model whose *true* score is known. From it:

``d95``          the 95th percentile of |difference| between two observed scores: two equally good
                 models, each scored on its own test set, land further apart only one time in 20.
``ahead``        for two true scores at the same test-set size, the probability that the truly
                 better model is observed strictly ahead (ties count half) on independent test sets.
``partial``      grid mode: the partial correlation of each parameter with d95, the others held.

Cases that share a test-set size and prevalence are simulated in one call with all their scores as
levels, so they see the *same* random test sets (common random numbers). Because the universes draw
their random numbers in blocks seeded by ``(seed, block)`` whatever the levels, a case gives the same
numbers alone as inside a grid. No report code is imported here.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from leaderboard.errors import InputError
from leaderboard.metrics import Metric
from leaderboard.noise.model import ScoreDistribution
from leaderboard.noise.universes import (BINARY_UNIVERSES, UniverseOptions, get_universe,
                                         universe_name)
from leaderboard.params import DEFAULT_SEED
# the seeds' grid (true ROC AUCs, test-set sizes, shares of positives) and the simulated test sets
# per case (one case, a grid): the parameter table's, where the command line's help says them
from leaderboard.params import (DEFAULT_N_TESTS, DEFAULT_PREVALENCES,  # noqa: F401
                                DEFAULT_SCORES, GRID_DRAWS)
from leaderboard.params import SIMULATE_DRAWS as DRAWS  # noqa: F401

MIN_DRAWS = 100   # fewer leave fewer than 3 draws beyond each of the 2.5% / 97.5% quantiles
PARAMETERS = ("score", "n_test", "prevalence")


@dataclass(frozen=True)
class Case:
    """The simulated distribution of one true score on one kind of test set.

    Attributes
    ----------
    metric, score, n_test, prevalence, universe
        What was simulated: the metric's name, its true score, the test-set size, the share of
        positives (None when the universe has none) and the universe's name.
    draws : ndarray
        The observed scores, sorted, without the draws where the metric is undefined.
    undefined : int
        Simulated test sets on which the metric was undefined (left out of every number).
    mean, sd : float
        Mean and standard deviation (ddof 1) of the observed scores.
    exact_sd : float or None
        The universe's exact standard deviation of the observed score, where it is known.
    d95 : float
        95th percentile of |x_i - x_j| over all pairs of draws: two equally good models, each scored
        on its own test set of this kind, differ by more than d95 one time in 20.
    quantiles : (float, float, float)
        The 2.5%, 50% and 97.5% quantiles: 95% of test sets give a score in the outer two.
    pair_ecdf : (ndarray, ndarray)
        Thresholds t and the share of pairs of draws at most t apart.
    """

    metric: str
    score: float
    n_test: int
    prevalence: float | None
    universe: str
    draws: np.ndarray
    undefined: int
    mean: float
    sd: float
    exact_sd: float | None
    d95: float
    quantiles: tuple[float, float, float]
    pair_ecdf: tuple[np.ndarray, np.ndarray]

    @property
    def setting(self) -> tuple[int, float | None]:
        return self.n_test, self.prevalence


@dataclass(frozen=True)
class Ahead:
    """P(the truly better of two models is observed strictly ahead), ties counting one half.

    Both models are scored on independent test sets of the same kind; ``better`` and ``worse`` are
    their true scores (better in the metric's direction).
    """

    n_test: int
    prevalence: float | None
    better: float
    worse: float
    probability: float


@dataclass(frozen=True)
class Setting:
    """One kind of test set and the universe that simulated it."""

    n_test: int
    prevalence: float | None
    universe: str
    assumptions: str


@dataclass(frozen=True)
class Experiment:
    """Everything ``leaderboard simulate`` computed; ``partial`` maps each parameter that varies
    to its partial correlation with d95 (None where it is undefined); it is None outside a grid."""

    metric: str
    metric_label: str
    higher_is_better: bool
    draws: int
    seed: int
    grid: bool
    settings: tuple[Setting, ...]
    cases: tuple[Case, ...]
    ahead: tuple[Ahead, ...]
    partial: dict[str, float | None] | None

    @property
    def universe(self) -> str:
        return ", ".join(dict.fromkeys(s.universe for s in self.settings))


def needs_prevalence(metric: Metric, options: UniverseOptions = UniverseOptions()) -> bool:
    """Whether ``metric``'s universe needs a share of positives (binary universes do).

    Examples
    --------
    >>> from leaderboard.metrics import get_metric
    >>> needs_prevalence(get_metric("auc")), needs_prevalence(get_metric("accuracy"))
    (True, False)
    """
    try:
        return universe_name(metric, options) in BINARY_UNIVERSES
    except InputError:
        return False  # no universe at all: get_universe says why when it is asked


def grid_lists(scores, n_tests, prevalences, with_prevalence: bool = True):
    """The seeds' grid, with any list the user gave (not None) in place of its default."""
    return (tuple(scores) if scores else DEFAULT_SCORES,
            tuple(n_tests) if n_tests else DEFAULT_N_TESTS,
            tuple(prevalences) if prevalences else
            (DEFAULT_PREVALENCES if with_prevalence else (None,)))


def ahead_probability(better: np.ndarray, worse: np.ndarray, higher_is_better: bool = True,
                      shared_test_sets: bool = True) -> float:
    """P(a model of the better true score is observed strictly ahead of one of the worse), ties 1/2.

    Every pair (r, s) of a draw of ``better`` and a draw of ``worse`` is compared, as if the two were
    scored on independent test sets: a Mann-Whitney count from one sort and two binary searches,
    O(B log B), with no B x B matrix. With ``shared_test_sets`` draw r of both came from the same
    test set (common random numbers), so the pairs r == s are not independent and are left out.
    Undefined draws (NaN) are left out.

    Examples
    --------
    >>> ahead_probability(np.array([0.3, 0.5]), np.array([0.4, 0.2]), shared_test_sets=False)
    0.75
    >>> ahead_probability(np.array([0.3, 0.5]), np.array([0.4, 0.2]))  # pairs (0.3,0.2), (0.5,0.4)
    1.0
    """
    x, y = np.asarray(better, dtype=float), np.asarray(worse, dtype=float)
    if not higher_is_better:  # ahead means lower: P(x < y) = P(-x > -y)
        x, y = -x, -y
    ok_x, ok_y = np.isfinite(x), np.isfinite(y)
    ys = np.sort(y[ok_y])
    below = np.searchsorted(ys, x[ok_x], "left")
    at_or_below = np.searchsorted(ys, x[ok_x], "right")
    wins = float(below.sum()) + 0.5 * float((at_or_below - below).sum())
    pairs = float(ok_x.sum()) * float(ok_y.sum())
    if shared_test_sets:
        both = ok_x & ok_y
        diff = x[both] - y[both]
        wins -= float((diff > 0).sum()) + 0.5 * float((diff == 0).sum())
        pairs -= float(both.sum())
    if pairs <= 0:
        return float("nan")
    return wins / pairs


def partial_correlations(cases) -> dict[str, float | None]:
    """Partial correlation of each parameter (score, n_test, prevalence) with d95 over ``cases``.

    For each parameter, it and d95 are both regressed by ordinary least squares on an intercept and
    the *other* parameters that vary; the partial correlation is the correlation of the two sets of
    residuals. Negative means: raising the parameter, the others held fixed, lowers d95.

    The parameters and d95 enter *raw*, not logged. The seeds report one coefficient per parameter
    and mention no transformation (their values are in a picture, so only the signs can be
    compared), so raw values follow what they describe. Raw is not the
    best description of the law: d95 falls roughly like 1 / sqrt(n * prevalence), which a linear fit
    in raw units follows only loosely (on the default grid the raw coefficients are about -0.57,
    -0.68 and -0.60; on logs of everything they are about -0.95, -0.97 and -0.97). Either way the
    signs agree, and the signs are what the seeds conclude from.
    A parameter that takes one value, or too few cases to leave a residual, gives None.

    Examples
    --------
    >>> from types import SimpleNamespace as C
    >>> cases = [C(score=s, n_test=n, prevalence=p, d95=1 / np.sqrt(n * p) * (1.1 - s))
    ...          for s in (.7, .8, .9) for n in (1000, 5000) for p in (.05, .2)]
    >>> r = partial_correlations(cases)
    >>> all(v < 0 for v in r.values())
    True
    """
    table = {name: np.array([np.nan if getattr(c, name) is None else float(getattr(c, name))
                             for c in cases]) for name in PARAMETERS}
    d95 = np.array([c.d95 for c in cases], dtype=float)
    varying = [p for p in PARAMETERS if np.isfinite(table[p]).all() and np.ptp(table[p]) > 0]
    out: dict[str, float | None] = {}
    for name in varying:
        others = np.column_stack([np.ones(d95.size)] + [table[p] for p in varying if p != name])
        if d95.size <= others.shape[1] + 1:
            out[name] = None
            continue
        res_x = _residuals(others, table[name])
        res_y = _residuals(others, d95)
        scale = np.sqrt((res_x @ res_x) * (res_y @ res_y))
        out[name] = float(res_x @ res_y / scale) if scale > 1e-300 else None
    return out


def _residuals(design: np.ndarray, y: np.ndarray) -> np.ndarray:
    coef, *_ = np.linalg.lstsq(design, y, rcond=None)
    return y - design @ coef


def summarize(metric: str, score: float, n_test: int, prevalence: float | None, universe,
              observed: np.ndarray) -> Case:
    """One :class:`Case` from a row of observed scores (any order, NaN where undefined)."""
    observed = np.asarray(observed, dtype=float)
    finite = np.sort(observed[np.isfinite(observed)])
    if finite.size < MIN_DRAWS // 2:
        raise InputError(f"{metric} is undefined on {observed.size - finite.size:,} of "
                         f"{observed.size:,} simulated test sets at score {score:g} and "
                         f"{n_test} rows; try a larger --n-test")
    q = np.quantile(finite, [0.025, 0.5, 0.975])
    dist = ScoreDistribution.from_draws(score, finite, universe.exact_sd(score, n_test, prevalence))
    return Case(metric=metric, score=float(score), n_test=int(n_test), prevalence=prevalence,
                universe=universe.name, draws=dist.draws, undefined=int(observed.size - finite.size),
                mean=float(finite.mean()), sd=dist.sd, exact_sd=dist.exact_sd, d95=dist.d95,
                quantiles=(float(q[0]), float(q[1]), float(q[2])), pair_ecdf=dist.pair_ecdf)


def check_inputs(metric: Metric, scores, n_tests, prevalences, draws: int) -> None:
    """One-sentence :class:`InputError` for values no universe can take."""
    if not scores:
        raise InputError("--score is required (or --grid for the seeds' 0.7,0.8,0.9)")
    if not n_tests:
        raise InputError("--n-test is required (or --grid for the seeds' 1000,5000,10000)")
    for name, values in (("--score", scores), ("--n-test", n_tests),
                         ("--prevalence", [p for p in prevalences if p is not None])):
        repeated = sorted({v for v in values if list(values).count(v) > 1})
        if repeated:
            raise InputError(f"{name} lists {repeated[0]:g} more than once")
    for s in scores:
        if not np.isfinite(s) or not metric.lower_bound <= s <= metric.upper_bound:
            raise InputError(f"--score {s:g} is outside the range of {metric.label} "
                             f"[{metric.lower_bound:g}, {metric.upper_bound:g}]")
    for n in n_tests:
        if n < 2:
            raise InputError(f"--n-test must be at least 2 rows, got {n}")
    for p in prevalences:
        if p is not None and not 0 < p < 1:
            raise InputError(f"--prevalence must be strictly between 0 and 1, got {p:g}")
    if draws < MIN_DRAWS:
        raise InputError(f"--draws must be at least {MIN_DRAWS} (the 2.5% and 97.5% quantiles "
                         f"need draws beyond them), got {draws}")


def run_experiment(metric: Metric, scores, n_tests, prevalences, *, draws: int = 5000,
                   seed: int = DEFAULT_SEED, options: UniverseOptions = UniverseOptions(),
                   grid: bool | None = None, progress=None) -> Experiment:
    """Simulate every case of scores x n_tests x prevalences; see the module docstring.

    ``prevalences`` may be ``[None]`` for metrics whose universe has no classes. ``grid`` (default:
    more than one test-set kind) adds the partial correlations. Each test-set kind is one call of
    ``universe.simulate`` with all the scores as levels and the same ``seed``.

    Examples
    --------
    The seeds' three universes at 1000 rows and 1% positives (see :func:`ahead_probability`):

    >>> from leaderboard.metrics import get_metric
    >>> e = run_experiment(get_metric("auc"), [0.75, 0.80, 0.81], [1000], [0.01], draws=2000)
    >>> [round(c.score, 2) for c in e.cases], len(e.ahead)
    ([0.75, 0.8, 0.81], 3)
    >>> p = {(a.better, a.worse): a.probability for a in e.ahead}
    >>> 0.5 < p[(0.81, 0.80)] < p[(0.80, 0.75)] < 1
    True
    """
    scores = [float(s) for s in scores]
    n_tests = [int(n) for n in n_tests]
    prevalences = list(prevalences) if prevalences else [None]
    check_inputs(metric, scores, n_tests, prevalences, draws)
    kinds = list(itertools.product(n_tests, prevalences))
    grid = len(kinds) > 1 if grid is None else grid
    settings, by_case, ahead = [], {}, []
    needs = needs_prevalence(metric, options) if any(p is not None for p in prevalences) else False
    for i, (n, p) in enumerate(kinds):
        universe = get_universe(metric, n, p, options)
        if p is not None and not needs:
            raise InputError(f"--prevalence does not apply to {metric.label} in the "
                             f"{universe.name} universe, which has no classes; leave it out")
        low, high = universe.reachable()
        for s in scores:
            if not low <= s <= high:
                where = f"{n} rows" + (f" and prevalence {p:g}" if p is not None else "")
                raise InputError(f"--score {s:g}: the {universe.name} universe of {metric.label} "
                                 f"reaches only true scores from {low:.4g} to {high:.4g} "
                                 f"(at {where})")
        settings.append(Setting(n, p, universe.name, universe.assumptions(n, p)))
        step = None if progress is None else _Labelled(progress, f"simulating {i + 1}/{len(kinds)}")
        rows = universe.simulate(np.array(scores), n, p, draws, seed, progress=step)
        for s, row in zip(scores, rows):
            by_case[(s, n, p)] = summarize(metric.name, s, n, p, universe, row)
        ahead.extend(_pairs(scores, rows, n, p, metric.higher_is_better))
    if progress is not None:
        progress.close()
    cases = tuple(by_case[key] for key in itertools.product(scores, n_tests, prevalences))
    return Experiment(metric=metric.name, metric_label=metric.label,
                      higher_is_better=metric.higher_is_better, draws=int(draws), seed=int(seed),
                      grid=grid, settings=tuple(settings), cases=cases, ahead=tuple(ahead),
                      partial=partial_correlations(cases) if grid else None)


def _pairs(scores, rows, n, p, higher: bool) -> list[Ahead]:
    """Ahead probabilities for every pair of distinct scores, the better one first."""
    order = sorted(range(len(scores)), key=lambda i: scores[i], reverse=higher)
    out = []
    for a, b in itertools.combinations(order, 2):  # a is truly better than b
        out.append(Ahead(n, p, scores[a], scores[b],
                         ahead_probability(rows[a], rows[b], higher)))
    return out


class _Labelled:
    """Forwards a universe's progress calls, naming which test-set kind is being simulated."""

    def __init__(self, progress, label: str):
        self.progress, self.label = progress, label

    def start(self, total: int) -> None:
        self.progress.start(total, label=self.label)

    def advance(self, steps: int = 1) -> None:
        self.progress.advance(steps)
