"""The Python API: ``leaderboard.analyze``, ``analyze_submissions`` and ``analyze_items``.

Each function takes explicit keyword parameters (the command line's options, dashes as
underscores, with the same defaults), builds the options objects of :mod:`leaderboard.options`
(every value checked there, once, against :data:`leaderboard.params.PARAMETERS`; numpy scalars
welcome) and runs :func:`leaderboard.pipelines.run.run_analysis`, the function ``leaderboard
analyze`` runs too. DataFrames are read in memory by the same readers as files, and an error in
one names the DataFrame, its row and column. Same data, same options, same seed: the same numbers
as the command line.

Imports flow one way: the command line sits on this layer's pipeline; nothing here imports it.
"""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd

from leaderboard.errors import InputError
from leaderboard.ingest.in_memory import InMemory
from leaderboard.provenance import recorded
from leaderboard.options import (AnalyzeOptions, NoiseOptions, RankOptions, ReadOptions,
                                 SliceOptions, universe_from)
from leaderboard.api_words import speaks_python
from leaderboard.params import DEFAULT_DF, DEFAULT_RESIDUALS, DEFAULT_THRESHOLD, check
from leaderboard.pipelines.run import Inputs, run_analysis
from leaderboard.result import Result
from leaderboard.ingest.safe_read import DEFAULT_MAX_BYTES

PathLike = str | os.PathLike

__all__ = ["Result", "analyze", "analyze_items", "analyze_submissions"]


@speaks_python
@recorded
def analyze(data: pd.DataFrame | PathLike, *, metric: str, n_test: int | None = None,
            prevalence: float | None = None, team_col: str | None = None,
            score_col: str | None = None, public_col: str | None = None,
            private_col: str | None = None, split: str = SliceOptions.split,
            n_public: int | None = None, n_private: int | None = None,
            public_fraction: float | None = None, two_stage: bool = False,
            higher_is_better: bool | None = None, alpha: float = RankOptions.alpha,
            draws: int = NoiseOptions.draws, replicates: int = RankOptions.replicates,
            seed: int = NoiseOptions.seed, correlation: float | str = NoiseOptions.correlation,
            tiers: str = RankOptions.method, prizes: int = RankOptions.prizes,
            top_k: Sequence[int] = (), beta: float | None = None, costs: str | None = None,
            universe: str | None = None, classes: int | None = None,
            class_shares: Sequence[float] | None = None, residuals: str = DEFAULT_RESIDUALS,
            df: float = DEFAULT_DF, threshold: float = DEFAULT_THRESHOLD, spread: float | None = None,
            kurtosis: float | None = None,
            exclude_flagged: Sequence[str] = (), max_file_size: int = DEFAULT_MAX_BYTES,
            quiet: bool = True) -> Result:
    """Analyse a leaderboard of scores: intervals, tiers, rank intervals and P(best).

    Parameters
    ----------
    data : DataFrame or path
        A table with a team column and a score column (or public and private score columns),
        or a path to one (CSV, or Kaggle's leaderboard download). A string is always a path.
    metric : str
        The metric that ranks the board (``"auc"``, ``"rmsle"``, ...; any name of
        ``leaderboard analyze --help``).
    n_test : int, optional
        Rows in the test set that ranks the board (at least 2).
    prevalence : float, optional
        Share of positives in that test set, strictly between 0 and 1 (binary metrics).
    team_col, score_col, public_col, private_col : str, optional
        The columns of team names, scores, public and private scores (default: detected).
    split : {"private", "public"}, default "private"
        With public and private scores, the one that ranks.
    n_public, n_private : int, optional
        Rows of the public and private slices (a post-mortem: public vs private).
    public_fraction : float, optional
        With ``n_test`` as the whole test set: the share of its rows on the public board.
    two_stage : bool, default False
        The public board was scored on other data than the private one.
    higher_is_better : bool, optional
        Overrides the metric's direction.
    alpha : float, default 0.05
        Error rate of every interval and tier.
    draws : int, default 2000
        Simulated test sets per score level (100 to 10^7).
    replicates : int, default 2000
        Normal draws behind rank intervals, P(best) and stability (100 to 10^7).
    seed : int, default 0
        Random seed (0 to 2^32 - 1).
    correlation : float or "auto", default "auto"
        Correlation between entries' scores: a number in [0, 1), or estimated from the
        public/private pairs when the board has both (else 0, the conservative choice).
    tiers : {"rank-sets", "holm", "scott-knott"}, default "rank-sets"
        How tiers are cut.
    prizes : int, default 3
        Prize places: each entry's chance of finishing in the top ``prizes``.
    top_k : sequence of int, default ()
        More P(top k) lines, e.g. medal lines ``(10, 50)``.
    beta, costs : optional
        The fbeta metrics' beta; expected_cost's matrix as text (``"0,1;5,0"``).
    universe, classes, class_shares, residuals, df, threshold, spread : optional
        The simulated universe and its shape (``leaderboard analyze --help``); regression
        residuals default to Student t with 3 df (docs/scores_only_regression.md), with the
        noise read from the public/private gaps when the board has both.
    kurtosis : float, optional
        Regression: the residuals' kurtosis (3 for normal), stating their tails instead of
        ``residuals`` and ``df``.
    exclude_flagged : sequence of {"perfect", "junk", "shared"}, default ()
        Set the entries of these flags aside before the analysis (perfect scores such as leaked
        labels, junk far worse than the rest, the board's most shared score); the report counts
        them among the rows dropped (``--exclude-flagged``).
    max_file_size : int, default 1 GiB
        Refuse an input file larger than this (bytes), on disk or decompressed.
    quiet : bool, default True
        No progress bar.

    Returns
    -------
    Result
        ``.table``, ``.tiers``, ``.d95``, ``.to_html()``, ``.to_json()``, ``.save(path)``;
        displays a summary in Jupyter.

    Raises
    ------
    InputError
        A bad parameter or bad data, in one line naming the parameter, or the file (the
        DataFrame), row and column.

    Examples
    --------
    >>> import numpy as np, pandas as pd, leaderboard
    >>> board = pd.DataFrame({"team": [f"t{i}" for i in range(8)],
    ...                       "score": np.linspace(0.90, 0.80, 8)})
    >>> result = leaderboard.analyze(board, metric="auc", n_test=2000,
    ...                              prevalence=np.float64(0.2), draws=200, replicates=200)
    >>> result.table[["team", "tier"]].head(2).values.tolist()
    [['t0', 1], ['t1', 1]]
    >>> leaderboard.analyze(board, metric="auc", n_test=2000, prevalence=0.2, seed=-1)
    Traceback (most recent call last):
    ...
    leaderboard.errors.InputError: seed= must be at least 0 and at most 4294967295 (a whole number), got -1
    """
    board = data if isinstance(data, pd.DataFrame) else _path(data, "data")
    options = AnalyzeOptions(
        noise=NoiseOptions(metric=metric, higher_is_better=higher_is_better,
                           prevalence=prevalence, draws=draws, seed=seed,
                           correlation=correlation, beta=beta, costs=costs,
                           universe=universe_from(universe=universe, classes=classes,
                                                  class_shares=class_shares,
                                                  residuals=residuals, df=df,
                                                  threshold=threshold, spread=spread,
                                                  kurtosis=kurtosis)),
        ranks=RankOptions(alpha=alpha, replicates=replicates, method=tiers, prizes=prizes,
                          top_k=top_k),
        slices=SliceOptions(n_test=n_test, n_public=n_public, n_private=n_private,
                            public_fraction=public_fraction, two_stage=two_stage, split=split),
        read=ReadOptions(team_col=team_col, score_col=score_col, public_col=public_col,
                         private_col=private_col, max_file_size=max_file_size),
        exclude_flagged=exclude_flagged)
    return Result.of(run_analysis(Inputs(board=board), options, quiet=check("quiet", quiet)))


@speaks_python
@recorded
def analyze_submissions(solution: pd.DataFrame | PathLike,
                        submissions: Mapping[str, pd.DataFrame | np.ndarray] | PathLike, *,
                        metric: str, id_col: str | None = None,
                        target_col: str | Sequence[str] | None = None,
                        pred_col: str | Sequence[str] | None = None,
                        group_col: str | None = None, resample: str = RankOptions.resample,
                        split: str = SliceOptions.split,
                        higher_is_better: bool | None = None, alpha: float = RankOptions.alpha,
                        replicates: int = RankOptions.replicates,
                        seed: int = NoiseOptions.seed, tiers: str = RankOptions.method,
                        prizes: int = RankOptions.prizes, top_k: Sequence[int] = (),
                        beta: float | None = None, costs: str | None = None,
                        workers: int | None = None, scheduler: str | None = None,
                        exclude_flagged: Sequence[str] = (),
                        max_file_size: int = DEFAULT_MAX_BYTES, quiet: bool = True) -> Result:
    """Analyse teams' predictions against a solution: a paired bootstrap of the test rows.

    Parameters
    ----------
    solution : DataFrame or path
        One row per test row: an id column, the target column(s), optionally ``Usage``
        (Public/Private/Ignored) and a group column.
    submissions : mapping or path
        A mapping of team name to a DataFrame (id and prediction columns, as a submission file)
        or to an array of predictions in the solution's row order; or a path to a folder, a zip
        or a manifest of submission files.
    metric : str
        The metric that scores the predictions.
    id_col, target_col, pred_col, group_col : optional
        The solution's id, target column(s) and group column; the submissions' prediction
        column(s) (default: the target columns' names).
    resample : {"plain", "stratified", "grouped", "poisson"}, default "plain"
        The paired bootstrap's resampling (grouped: by ``group_col``).
    split : {"private", "public"}, default "private"
        The rows that rank, by the solution's Usage.
    higher_is_better : bool, optional
        Overrides the metric's direction.
    alpha : float, default 0.05
    replicates : int, default 2000
        Bootstrap replicates.
    seed : int, default 0
    tiers, prizes, top_k
        As :func:`analyze`.
    beta, costs : optional
        The fbeta metrics' beta; expected_cost's matrix (``"0,1;5,0"``).
    workers, scheduler : optional
        Run on a Dask cluster (same numbers).
    exclude_flagged : sequence of {"perfect", "junk", "shared"}, default ()
        As :func:`analyze`: the entries these flags name are set aside before the ranking,
        listed among the files with the status "set aside" (``--exclude-flagged``).
    max_file_size : int, default 1 GiB
    quiet : bool, default True

    Returns
    -------
    Result

    Notes
    -----
    DataFrames and arrays are read in memory by the same validation as uploaded files: every
    check, refusal and file-table line is the command line's, with the mapping's keys as team
    names and ``submissions['key']`` as their file.

    Examples
    --------
    >>> import numpy as np, pandas as pd, leaderboard
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 400)
    >>> solution = pd.DataFrame({"id": range(400), "target": y})
    >>> teams = {name: np.clip(y * skill + rng.random(400), 0, 2) / 2
    ...          for name, skill in [("good", 0.8), ("fair", 0.4), ("weak", 0.1)]}
    >>> result = leaderboard.analyze_submissions(solution, teams, metric="auc", replicates=200)
    >>> result.table["team"].tolist()
    ['good', 'fair', 'weak']
    """
    table = _table(solution, "solution")
    subs: dict | PathLike
    if isinstance(submissions, Mapping):
        if not submissions:
            raise InputError("submissions: the mapping is empty")
        subs = dict(submissions)
    else:
        subs = _path(submissions, "submissions")
    options = AnalyzeOptions(
        noise=NoiseOptions(metric=metric, higher_is_better=higher_is_better, seed=seed,
                           beta=beta, costs=costs),
        ranks=RankOptions(alpha=alpha, replicates=replicates, resample=resample, method=tiers,
                          prizes=prizes, top_k=top_k),
        slices=SliceOptions(split=split),   # the solution gives the rows and their split
        read=ReadOptions(id_col=id_col, target_col=target_col, pred_col=pred_col,
                         group_col=group_col, max_file_size=max_file_size),
        workers=workers, scheduler=scheduler, exclude_flagged=exclude_flagged)
    return Result.of(run_analysis(Inputs(solution=table, submissions=subs), options,
                                  quiet=check("quiet", quiet)))


@speaks_python
@recorded
def analyze_items(data: pd.DataFrame | PathLike, *, metric: str = "mean",
                  model_col: str = ReadOptions.model_col, item_col: str = ReadOptions.item_col,
                  value_col: str = ReadOptions.value_col, cluster_col: str | None = None,
                  category_col: str | None = None, target_col: str | None = None,
                  harness_filter: str | None = None, sample_col: str | None = None,
                  items_policy: str = ReadOptions.items_policy,
                  items_format: str = ReadOptions.items_format, instances: PathLike | None = None,
                  missing_instances: str = ReadOptions.missing_instances,
                  resample: str = RankOptions.resample,
                  higher_is_better: bool | None = None, alpha: float = RankOptions.alpha,
                  replicates: int = RankOptions.replicates, seed: int = NoiseOptions.seed,
                  tiers: str = RankOptions.method, prizes: int = RankOptions.prizes,
                  top_k: Sequence[int] = (), cost_col: str | None = None,
                  published: pd.DataFrame | PathLike | None = None,
                  published_col: str | None = None, published_model_col: str | None = None,
                  category_intervals: str = RankOptions.category_intervals,
                  exclude_flagged: Sequence[str] = (),
                  max_file_size: int = DEFAULT_MAX_BYTES, quiet: bool = True) -> Result:
    """Analyse per-item results: many models scored on the same items (benchmarks, LLM evals).

    Parameters
    ----------
    data : DataFrame or path
        One row per (model, item): a long table (CSV or Parquet), or what a benchmark
        publishes: lm-evaluation-harness sample logs, SWE-bench results, HELM runs, Inspect
        logs (``items_format``; docs/benchmark-formats.md).
    metric : str, default "mean"
        ``mean`` averages each model's per-item values (``accuracy``, ``pass@1`` and
        ``resolved`` too, checking that they are 0/1); with ``target_col``, a metric that
        scores the predictions (``auc``, ``logloss``, ...).
    model_col, item_col, value_col : str, default "model", "item", "value"
        The columns naming the model, the item and the model's value on it.
    cluster_col : str, optional
        Items of one cluster (passage, conversation) are resampled together.
    category_col : str, optional
        Each item's category: tiers within each category and the macro mean.
    target_col : str, optional
        Each item's truth: ``value_col`` then holds predictions scored by ``metric``.
    harness_filter : str, optional
        lm-evaluation-harness logs: the filter to read when they hold several.
    sample_col : str, optional
        Several values per (model, item), one per sample: the item's mean is the unit, and
        ``result.analysis.items.samples`` says what the samples add to the noise.
    items_policy : {"common", "drop-items", "drop-models", "pairwise"}, default "common"
        Models scored on different item sets: a complete table, dropping the items some model
        lacks or the models lacking some item, whichever keeps more (model, item) cells
        (``drop-items`` and ``drop-models`` force one way); or each model on its own items with
        each pair compared on the items they share.
    items_format : str, default "auto"
        ``auto``, ``table``, ``harness``, ``swebench``, ``helm`` or ``inspect``; for a benchmark's
        files ``value_col`` names the harness metric, HELM stat or Inspect scorer.
    instances : path, optional
        SWE-bench: the split's instance ids, the denominator when results list only the
        resolved ones.
    missing_instances : str, default "unresolved"
        SWE-bench: an instance without a result counts ``unresolved`` or is left ``missing``.
    resample, higher_is_better, alpha, replicates, seed, tiers, prizes, top_k
        As :func:`analyze_submissions`.
    cost_col : str, optional
        Each row's cost (dollars, tokens, seconds; at least 0): the report adds every model's
        mean cost per item and total cost, with intervals from the same bootstrap replicates as
        the scores, the cost-accuracy frontier, and the top-tier models cheaper than the best
        (docs/commands/analyze-items.md).
    published : DataFrame or path, optional
        Published scores as published (a table or a JSON list of records; ``52.8%`` or plain
        numbers): each one outside its model's interval is flagged; names absent from the data
        are counted and listed, and only a model of the data given twice with different scores
        is refused.
    published_col, published_model_col : str, optional
        The published file's score and model columns (default: ``published``, ``score``, ...
        or the one column of numbers; the column naming the most models of the data).
    category_intervals : {"marginal", "simultaneous"}, default "marginal"
        With ``category_col``: the per-category intervals the page shows. Marginal: each holds
        its own model's true score in its category with probability ``1 - alpha / C``; they do
        not all hold together. Simultaneous: all of them, every model in every category, hold
        together with probability at least ``1 - alpha`` for values in [0, 1] (binomial bounds;
        approximate with clusters, rough for other values: docs/categories.md). The JSON and
        ``result.analysis.categories.table`` hold both (``ci_low``/``ci_high``,
        ``ci_sim_low``/``ci_sim_high``).
    exclude_flagged : sequence of {"perfect", "junk", "shared"}, default ()
        As :func:`analyze`: the models these flags name are set aside before the ranking,
        listed among the models with the status "set aside" (``--exclude-flagged``). A model
        whose values lie far outside the typical models' (a count or a metadata line) is set
        aside always.
    max_file_size : int, default 1 GiB
    quiet : bool, default True

    Returns
    -------
    Result

    Examples
    --------
    >>> import numpy as np, pandas as pd, leaderboard
    >>> rng = np.random.default_rng(0)
    >>> results = pd.DataFrame({"model": np.repeat(["a", "b"], 300),
    ...                         "item": np.tile(np.arange(300), 2),
    ...                         "value": (rng.random(600) < np.repeat([0.8, 0.6], 300)) * 1})
    >>> result = leaderboard.analyze_items(results, replicates=200)
    >>> result.table[["team", "tier"]].values.tolist()     # 0.8 vs 0.6 on 300 items: separated
    [['a', 1], ['b', 2]]
    """
    options = AnalyzeOptions(
        noise=NoiseOptions(metric=metric, higher_is_better=higher_is_better, seed=seed),
        ranks=RankOptions(alpha=alpha, replicates=replicates, resample=resample, method=tiers,
                          prizes=prizes, top_k=top_k, category_intervals=category_intervals),
        read=ReadOptions(model_col=model_col, item_col=item_col, value_col=value_col,
                         cluster_col=cluster_col, category_col=category_col,
                         target_col=target_col, harness_filter=harness_filter,
                         sample_col=sample_col, items_policy=items_policy,
                         items_format=items_format,
                         instances=None if instances is None else str(_path(instances,
                                                                            "instances")),
                         missing_instances=missing_instances,
                         cost_col=cost_col, published_col=published_col,
                         published_model_col=published_model_col,
                         max_file_size=max_file_size),
        exclude_flagged=exclude_flagged)
    published = check("published", published)
    return Result.of(run_analysis(
        Inputs(items=_table(data, "data"),
               published=None if published is None else _table(published, "published")),
        options, quiet=check("quiet", quiet)))


def _table(value: object, name: str) -> InMemory | PathLike:
    """A DataFrame as a table in memory named after its parameter; a path as it is."""
    return InMemory.of(value, name) if isinstance(value, pd.DataFrame) else _path(value, name)


def _path(value: object, what: str) -> PathLike:
    if not isinstance(value, (str, os.PathLike)):
        raise InputError(f"{what}: expected a pandas DataFrame or a path, got "
                         f"{type(value).__name__}")
    return value


# Battles mode (issue 26) lives in its own module; re-exported so the API is one import.
from leaderboard.api_battles import BattlesResult, analyze_battles  # noqa: E402,F401
