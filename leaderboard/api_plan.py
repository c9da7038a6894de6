"""The Python API of the organizer's questions before a competition: how big must the test set be
(:func:`plan`, ``leaderboard plan``), and how far a score wanders by chance alone at a given size
and prevalence (:func:`simulate`, ``leaderboard simulate``).

As :mod:`leaderboard.api`: explicit keyword parameters (the command line's options, dashes as
underscores, same defaults), every value checked once against
:data:`leaderboard.params.PARAMETERS` (numpy scalars welcome), and the pipeline the command line
runs (:func:`leaderboard.pipelines.plan.plan`,
:func:`leaderboard.pipelines.simulate.run_experiment`).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from leaderboard.errors import InputError
from leaderboard.metrics import get_metric
from leaderboard.noise.spread import TYPICAL_CORRELATION
from leaderboard.options import NoiseOptions, RankOptions, SliceOptions, universe_from
from leaderboard.api_words import speaks_python
from leaderboard.params import (DEFAULT_DF, DEFAULT_DRAWS, DEFAULT_POWER, DEFAULT_RESIDUALS,
                                DEFAULT_THRESHOLD, check)
from leaderboard.pipelines import plan as plan_pipeline
from leaderboard.pipelines import simulate as simulate_pipeline
from leaderboard.pipelines.plan import PlanSettings
from leaderboard.pipelines.plan import plan as run_plan
from leaderboard.pipelines import plan_board as plan_board_pipeline
from leaderboard.pipelines.plan_board import BOARDS, REPLICATES, plan_board, truth_of
from leaderboard.pipelines.simulate import (DRAWS, GRID_DRAWS, grid_lists, needs_prevalence,
                                            run_experiment)
from leaderboard.progress import Progress
from leaderboard.result_protocol import Reported, adopt

__all__ = ["BoardPlan", "Experiment", "Plan", "plan", "plan_from", "simulate"]

PLAN_DRAWS = DEFAULT_DRAWS   # the command line's --draws default: simulated test sets per score level


class Plan(plan_pipeline.Plan, Reported):
    """:func:`plan`'s answers (the fields of :class:`leaderboard.pipelines.plan.Plan`) and their
    outputs: the page (:meth:`to_html`, ``.html``) and the JSON (:meth:`to_json`, ``.json``) of
    ``leaderboard plan``, written by :meth:`save` (:class:`~leaderboard.result_protocol.Reported`).
    """

    REPORT = "leaderboard.report.plan_report"
    CHARTS = True


class Experiment(simulate_pipeline.Experiment, Reported):
    """:func:`simulate`'s experiment (the fields of
    :class:`leaderboard.pipelines.simulate.Experiment`) and its outputs: the page
    (:meth:`to_html`, ``.html``; without the command line it shows when the command wrote it) and
    the JSON (:meth:`to_json`, ``.json``) of ``leaderboard simulate``, written by :meth:`save`."""

    REPORT = "leaderboard.report.simulate_report"
    CHARTS = True


class BoardPlan(plan_board_pipeline.BoardPlan, Reported):
    """:func:`plan_from`'s answers (the fields of
    :class:`leaderboard.pipelines.plan_board.BoardPlan`) and their outputs: the page
    (:meth:`to_html`, ``.html``) and the JSON (:meth:`to_json`, ``.json``) of ``leaderboard plan
    --from``, written by :meth:`save` (:class:`~leaderboard.result_protocol.Reported`)."""

    REPORT = "leaderboard.report.plan_board_report"


@speaks_python
def plan(*, metric: str, score: float, delta: float | None = None, n_test: int | None = None,
         prevalence: float | None = None, alpha: float = RankOptions.alpha, power: float = DEFAULT_POWER,
         public_fraction: float | None = None, correlation: float = TYPICAL_CORRELATION,
         draws: int = PLAN_DRAWS, seed: int = NoiseOptions.seed, universe: str | None = None,
         classes: int | None = None, class_shares: Sequence[float] | None = None,
         residuals: str = DEFAULT_RESIDUALS, df: float = DEFAULT_DF, threshold: float = DEFAULT_THRESHOLD,
         spread: float | None = None, kurtosis: float | None = None,
         quiet: bool = True) -> Plan:
    """Before a competition: the test-set size that tells apart two entries ``delta`` apart,
    and the smallest difference ``n_test`` rows resolve (give either or both).

    Under the normal approximation, a two-sided test at level ``alpha`` detects a true
    difference ``delta`` with probability at least ``power`` when ``delta >= (z_{1-alpha/2} +
    z_power) * sd_diff(n)``; ``sd_diff`` comes from the universe's exact SD where it has one,
    else from simulated test sets, and each answer is checked by simulation
    (:mod:`leaderboard.pipelines.plan` states the method and its assumptions).

    Parameters
    ----------
    metric : str
        The metric of the competition (any name of ``leaderboard plan --help``).
    score : float
        True score of the weaker entry.
    delta : float, optional
        Difference in true score to detect (the better entry is ``score + delta`` in the
        metric's better direction): gives ``min_n``.
    n_test : int, optional
        Rows in the test set: gives its minimum detectable difference ``mdd``.
    prevalence : float, optional
        Share of positives (binary metrics).
    alpha : float, default 0.05
        Two-sided test level.
    power : float, default 0.8
        Chance of detecting the difference.
    public_fraction : float, optional
        Share of the test rows that score the public board (adds ``min_n_public`` and
        ``mdd_public``).
    correlation : float, default 0.5
        Assumed correlation between the two entries' scores (entries scored on one shared test
        set; the answers for independent entries, 0, are given too as ``*_independent``).
    draws : int, default 2000
        Simulated test sets per score level.
    seed : int, default 0
    universe, classes, class_shares, residuals, df, threshold, spread, kurtosis : optional
        The simulated universe (as :func:`leaderboard.analyze`).
    quiet : bool, default True
        No progress bar on stderr.

    Returns
    -------
    Plan
        ``min_n``, ``mdd`` (None for a question not asked), their ``*_independent`` and
        ``*_public`` variants, ``check`` (the simulated power at the answer), ``table``,
        ``assumptions`` and ``notes``; ``.to_html()``, ``.to_json()`` and ``.save(path)`` give
        and write the command's page and JSON.

    Raises
    ------
    InputError
        A value out of range, neither ``delta`` nor ``n_test``, or a score the universe cannot
        reach.

    Examples
    --------
    The two-proportion formula gives n = (z_0.975 + z_0.8)^2 (0.8 * 0.2 + 0.82 * 0.18) /
    0.02^2 = 6035.8 rows for independent entries:

    >>> import leaderboard
    >>> p = leaderboard.plan(metric="accuracy", score=0.80, delta=0.02, correlation=0, draws=200)
    >>> p.min_n, p.sd_method
    (6036, 'exact')
    """
    noise = NoiseOptions(metric=metric, prevalence=prevalence, correlation=correlation,
                         draws=draws, seed=seed,
                         universe=universe_from(universe=universe, classes=classes,
                                                class_shares=class_shares, residuals=residuals,
                                                df=df, threshold=threshold, spread=spread,
                                                kurtosis=kurtosis))
    settings = PlanSettings(get_metric(check("metric", metric)), score, noise,
                            RankOptions(alpha=alpha),
                            SliceOptions(n_test=n_test, public_fraction=public_fraction),
                            delta=delta, power=power)
    progress = Progress("simulating", quiet=check("quiet", quiet))
    try:
        return adopt(Plan, run_plan(settings, progress=progress))
    finally:
        progress.close()


@speaks_python
def plan_from(result, *, power: float = DEFAULT_POWER, separate: int = 3, boards: int = BOARDS,
              replicates: int = REPLICATES, seed: int | None = None,
              quiet: bool = True) -> BoardPlan:
    """With a board like this one, how many units (test rows, items or battles) until the current
    leader stands alone in tier 1 with probability ``power``, and until the top ``separate``
    separate (each alone in its own tier, in order)? By simulation from the board's own scores,
    spread and correlation (:mod:`leaderboard.pipelines.plan_board` states the method and what
    it assumes).

    Parameters
    ----------
    result : Result or BattlesResult
        An analysed board (:func:`leaderboard.analyze`, :func:`leaderboard.analyze_submissions`,
        :func:`leaderboard.analyze_items`, :func:`leaderboard.analyze_battles`): its scores,
        their measured covariance, its tier method and alpha are the plan's truth and rules.
    power : float, default 0.8
        The share of boards of the answer's size on which the goal is met.
    separate : int, default 3
        The ``k`` of the second question (at most the models less one).
    boards : int, default 200
        Simulated boards per size (Monte Carlo SE of a share about sqrt(0.16 / boards) at 0.8).
    replicates : int, default 500
        Normal replicates behind each simulated board's tiers.
    seed : int, optional
        Default: the analysis's seed.
    quiet : bool, default True
        No progress bar on stderr.

    Returns
    -------
    BoardPlan
        ``leader.needed``, ``top.needed`` (None with the reason when no size in reach does it),
        each with its share of boards now (``current_share``) and at the answer; ``current``
        (the board's units), ``curve`` (every size simulated); ``.to_html()``, ``.to_json()``
        and ``.save(path)`` give and write the page and JSON of ``leaderboard plan --from``.

    Examples
    --------
    >>> import numpy as np, pandas as pd, leaderboard
    >>> rng = np.random.default_rng(0)
    >>> items = pd.DataFrame({"model": np.repeat(["a", "b", "c"], 300),
    ...                       "item": np.tile(np.arange(300), 3),
    ...                       "value": (rng.random(900) < np.repeat([0.75, 0.7, 0.5], 300)) * 1})
    >>> p = leaderboard.plan_from(leaderboard.analyze_items(items, replicates=300), boards=100)
    >>> p.current, p.leader.needed > p.current, p.unit
    (300, True, 'item')
    """
    analysis = getattr(result, "analysis", result)
    settings = analysis.settings
    method = getattr(settings, "tier_method", None) or settings.ranks.method
    power, seed = check("power", power), settings.seed if seed is None else check("seed", seed)
    boards, replicates = check("boards", boards), check("replicates", replicates)
    separate = check("separate", separate)
    progress = Progress("planning", quiet=check("quiet", quiet))
    mode = "battles" if getattr(analysis, "mode", "") == "battles" else (
        "items" if getattr(analysis, "items", None) is not None else analysis.mode)
    source = (analysis.battles.source if mode == "battles" else analysis.leaderboard.source)
    try:
        planned = plan_board(truth_of(analysis), power=power, k=separate, method=method,
                             alpha=settings.alpha, boards=boards, replicates=replicates,
                             seed=seed, progress=progress, mode=mode, source=str(source))
    finally:
        progress.close()
    ranking = analysis.ranking
    if ranking is not None:   # how sure the board is of the leader the plan takes as the truth
        p_best = float(ranking.probabilities.p_best[0])
        doubt = ("" if p_best >= 0.95 else
                 ": it may not be the true leader, and its lead may be partly luck (the "
                 "winner's curse), which makes the answer optimistic")
        planned = dataclasses.replace(planned, notes=planned.notes + (
            f"The plan takes {planned.models[0]} as the best. On this board it is best on "
            f"{100 * p_best:.0f}% of the replicates (P(best)){doubt}.",))
    return adopt(BoardPlan, planned)


@speaks_python
def simulate(*, metric: str, scores: Sequence[float] | float | None = None,
             n_tests: Sequence[int] | int | None = None,
             prevalences: Sequence[float] | float | None = None, grid: bool = False,
             draws: int | None = None, seed: int = NoiseOptions.seed, universe: str | None = None,
             classes: int | None = None, class_shares: Sequence[float] | None = None,
             residuals: str = DEFAULT_RESIDUALS, df: float = DEFAULT_DF, threshold: float = DEFAULT_THRESHOLD,
             spread: float | None = None, kurtosis: float | None = None,
             quiet: bool = True) -> Experiment:
    """The seeds' experiment: draw many test sets from a universe whose true score is known and
    measure how far the observed score wanders (its 95% range, and d95, the gap two equally good
    models exceed one time in 20), and how often the truly better of several models is observed
    ahead on independent test sets.

    Every number assumes the universe's shape (named in each setting's ``assumptions``) and
    independent rows; the same seed gives the same numbers, and a case the same numbers alone as
    in a grid.

    Parameters
    ----------
    metric : str
        Any simulable metric (``leaderboard simulate --help``).
    scores, n_tests, prevalences : numbers, optional
        True scores, rows per test set, and shares of positives (binary metrics only); each
        combination is one case.
    grid : bool, default False
        Every combination, any list not given taking the seeds' values (27 cases for AUC), with
        the partial correlations of d95 with each factor.
    draws : int, optional
        Simulated test sets per case (default 5000; 2000 with ``grid``).
    seed : int, default 0
    universe, classes, class_shares, residuals, df, threshold, spread, kurtosis : optional
        The simulated universe (as :func:`leaderboard.analyze`).
    quiet : bool, default True
        No progress bar on stderr.

    Returns
    -------
    Experiment
        ``cases`` (per case ``d95``, ``quantiles``, ...), ``ahead`` (how often the truly better
        is observed ahead), ``settings``, ``partial`` (grid only).
        ``.to_html()``, ``.to_json()`` and ``.save(path)`` give and write the command's page and
        JSON.

    Examples
    --------
    >>> import leaderboard
    >>> e = leaderboard.simulate(metric="auc", scores=[0.80, 0.81], n_tests=1000,
    ...                          prevalences=0.05, draws=1000)
    >>> [c.score for c in e.cases], 0.5 < e.ahead[0].probability < 1
    ([0.8, 0.81], True)
    """
    configured = universe_from(universe=universe, classes=classes, class_shares=class_shares,
                               residuals=residuals, df=df, threshold=threshold, spread=spread,
                               kurtosis=kurtosis)
    scores, n_tests, prevalences, grid = (check(name, value) for name, value in (
        ("scores", scores), ("n_tests", n_tests), ("prevalences", prevalences), ("grid", grid)))
    measure = get_metric(check("metric", metric))
    for name, value, seeds in (("scores", scores, "0.7,0.8,0.9"),
                               ("n_tests", n_tests, "1000,5000,10000")):
        if value is None and not grid:
            raise InputError(f"{name}= is required (or grid=True for the seeds' {seeds})")
    if grid:
        scores, n_tests, prevalences = grid_lists(scores, n_tests, prevalences,
                                                  needs_prevalence(measure, configured))
    noise = NoiseOptions(metric=metric, seed=seed, universe=configured,
                         draws=draws if draws is not None else (GRID_DRAWS if grid else DRAWS))
    progress = Progress("simulating", quiet=check("quiet", quiet))
    try:
        return adopt(Experiment, run_experiment(
            measure, scores or [], n_tests or [], prevalences, draws=noise.draws,
            seed=noise.seed, options=noise.universe, grid=True if grid else None,
            progress=progress))
    finally:
        progress.close()
