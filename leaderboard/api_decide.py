"""The Python API's two decisions: which two final submissions a team should select
(:func:`choose_finals`, ``leaderboard choose``) and whether a change passes a CI gate
(:func:`compare`, ``leaderboard compare``).

As :mod:`leaderboard.api`: explicit keyword parameters (the command line's options, dashes as
underscores, same defaults), every value checked once by the options objects against
:data:`leaderboard.params.PARAMETERS` (numpy scalars welcome), DataFrames read in memory by the
same readers as files, and the same pipeline the command line runs
(:func:`~leaderboard.pipelines.choose_run.run_choose`,
:func:`~leaderboard.pipelines.compare.run_compare`). ``choose_finals`` is not called ``choose``:
``leaderboard.choose`` is the package of the choice's statistics.
"""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import ClassVar

import numpy as np
import pandas as pd

from leaderboard.api import _path, _table   # a DataFrame in memory, or a path
from leaderboard.errors import InputError
from leaderboard.ingest.safe_read import DEFAULT_MAX_BYTES
from leaderboard.metrics import get_metric
from leaderboard.options import NoiseOptions, RankOptions, ReadOptions, SliceOptions, universe_from
from leaderboard.api_words import speaks_python
from leaderboard.params import DEFAULT_DF, DEFAULT_RESIDUALS, DEFAULT_THRESHOLD, check
from leaderboard.pipelines import choose as choose_pipeline
from leaderboard.pipelines import compare as compare_pipeline
from leaderboard.pipelines.choose import CHOOSE_DRAWS, ChooseSettings
from leaderboard.pipelines.choose_run import ChooseInputs, run_choose
from leaderboard.pipelines.compare import gate_options, one_mode, run_compare
from leaderboard.result_protocol import Reported, Saves, adopt

PathLike = str | os.PathLike

__all__ = ["ChooseResult", "Gate", "choose_finals", "compare"]


class ChooseResult(choose_pipeline.ChooseResult, Reported):
    """:func:`choose_finals`'s answer (the fields of
    :class:`leaderboard.pipelines.choose.ChooseResult`) and its outputs: the page
    (:meth:`to_html`, ``.html``) and the JSON (:meth:`to_json`, ``.json``) of ``leaderboard
    choose``, written by :meth:`save` (:class:`~leaderboard.result_protocol.Reported`)."""

    REPORT = "leaderboard.report.choose_report"
    CHARTS = True


class Gate(compare_pipeline.Gate, Saves):
    """:func:`compare`'s answer (the fields of :class:`leaderboard.pipelines.compare.Gate`,
    ``.better`` the decision) and its outputs: the JSON (:meth:`to_json`, ``.json``) and the
    pull-request comment (:meth:`to_markdown`, ``.md``) of ``leaderboard compare``, written by
    :meth:`save`. The gate has no page."""

    SUFFIXES: ClassVar[Mapping[str, str]] = {".json": "to_json", ".md": "to_markdown"}

    def to_dict(self) -> dict:
        """The JSON as a dictionary (``leaderboard/schema/compare.schema.json``)."""
        from leaderboard import __version__
        from leaderboard.report.compare_report import gate_json

        return gate_json(self, __version__)

    def to_json(self) -> str:
        """The JSON ``leaderboard compare --json`` writes."""
        from leaderboard.report.compare_report import gate_json_text

        return gate_json_text(self)

    def to_markdown(self) -> str:
        """The pull-request comment ``leaderboard compare --markdown`` writes."""
        from leaderboard.report.compare_report import gate_markdown

        return gate_markdown(self)


@speaks_python
def choose_finals(public_scores: pd.DataFrame | PathLike | None = None, *,
                  solution: pd.DataFrame | PathLike | None = None,
                  submissions: Mapping[str, pd.DataFrame | np.ndarray] | PathLike | None = None,
                  metric: str, n_public: int | None = None, n_private: int | None = None,
                  prevalence: float | None = None, correlation: float | str = "auto",
                  higher_is_better: bool | None = None, name_col: str | None = None,
                  score_col: str | None = None, id_col: str | None = None,
                  target_col: str | Sequence[str] | None = None,
                  pred_col: str | Sequence[str] | None = None,
                  alpha: float = RankOptions.alpha, replicates: int = RankOptions.replicates,
                  draws: int = CHOOSE_DRAWS, seed: int = NoiseOptions.seed,
                  universe: str | None = None, classes: int | None = None,
                  class_shares: Sequence[float] | None = None, residuals: str = DEFAULT_RESIDUALS,
                  df: float = DEFAULT_DF, threshold: float = DEFAULT_THRESHOLD, spread: float | None = None,
                  kurtosis: float | None = None,
                  max_file_size: int = DEFAULT_MAX_BYTES, quiet: bool = True) -> ChooseResult:
    """Which two final submissions to select: each candidate's public score corrected for the
    winner's curse, the pair with the highest expected best-of-two private score, and the ladder.

    Parameters
    ----------
    public_scores : DataFrame or path, optional
        The candidates and their public scores in submission order (columns detected as for
        :func:`leaderboard.analyze`); needs ``n_public``.
    solution, submissions : optional
        The solution (a DataFrame or a path; with a Usage column its public rows are what the
        team has seen, the private labels never used for the choice) and the candidates'
        predictions (a folder, zip or manifest, or a mapping of name to a DataFrame or an array
        in the solution's row order).
    metric : str
        The metric of the board.
    n_public, n_private : int, optional
        Rows of the public board the scores come from, and of the private board that will
        decide (default: the solution's private rows, else ``n_public``).
    prevalence : float, optional
        Share of positives (binary metrics, scores only).
    correlation : float or "auto", default "auto"
        Scores only: correlation between two candidates' noise ("auto": measured from the
        predictions when there are some, else 0.9).
    higher_is_better : bool, optional
        Overrides the metric's direction.
    name_col, score_col : str, optional
        The columns of candidate names and public scores in ``public_scores``.
    id_col, target_col, pred_col : optional
        The solution's id and target column(s), the submissions' prediction column(s).
    alpha : float, default 0.05
        Error rate of the intervals and the ladder's margin.
    replicates : int, default 2000
        Bootstrap replicates of the public rows.
    draws : int, default 20000
        Draws from the predictive distribution of the private scores.
    seed : int, default 0
    universe, classes, class_shares, residuals, df, threshold, spread, kurtosis : optional
        The simulated universe of a table's candidates (as :func:`leaderboard.analyze`).
    max_file_size : int, default 1 GiB
    quiet : bool, default True

    Returns
    -------
    ChooseResult
        ``.table`` (one row per candidate: ``expected``, ``ci_low``/``ci_high``, ``p_best``,
        ``pick`` 1 and 2 for the recommended pair, ...), ``.choice``, ``.ladder``, ``.notes``;
        ``.to_html()``, ``.to_json()``, ``.to_dict()``, ``.save(path)``.

    Examples
    --------
    >>> import pandas as pd, leaderboard
    >>> table = pd.DataFrame({"name": ["s1", "s2", "s3", "s4"],
    ...                       "score": [0.80, 0.81, 0.79, 0.812]})
    >>> r = leaderboard.choose_finals(table, metric="accuracy", n_public=500, draws=2000)
    >>> sorted(r.table.loc[r.table["pick"] > 0, "candidate"])
    ['s2', 's4']
    """
    noise = NoiseOptions(metric=metric, higher_is_better=higher_is_better,
                         prevalence=prevalence, correlation=correlation, draws=draws, seed=seed,
                         universe=universe_from(universe=universe, classes=classes,
                                                class_shares=class_shares, residuals=residuals,
                                                df=df, threshold=threshold, spread=spread,
                                                kurtosis=kurtosis))
    settings = ChooseSettings(get_metric(metric), noise,
                              RankOptions(alpha=alpha, replicates=replicates),
                              SliceOptions(n_public=n_public, n_private=n_private))
    read = ReadOptions(team_col=name_col, score_col=score_col, id_col=id_col,
                       target_col=target_col, pred_col=pred_col,
                       max_file_size=max_file_size)
    if public_scores is not None and not hasattr(public_scores, "columns"):
        _path(public_scores, "public_scores")
    inputs = ChooseInputs(public_scores=public_scores,
                          solution=None if solution is None else _table(solution, "solution"),
                          submissions=submissions if submissions is None or isinstance(
                              submissions, Mapping) else _path(submissions, "submissions"))
    return adopt(ChooseResult, run_choose(inputs, settings, read, quiet=check("quiet", quiet)))


@speaks_python
def compare(baseline: pd.DataFrame | PathLike | str, candidate: pd.DataFrame | PathLike | str, *,
            solution: pd.DataFrame | PathLike | None = None,
            items: pd.DataFrame | PathLike | None = None, metric: str | None = None,
            split: str | None = None, id_col: str | None = None,
            target_col: str | Sequence[str] | None = None,
            pred_col: str | Sequence[str] | None = None, group_col: str | None = None,
            model_col: str | None = None, item_col: str | None = None,
            value_col: str | None = None, cluster_col: str | None = None,
            alpha: float = RankOptions.alpha, replicates: int = RankOptions.replicates,
            seed: int = NoiseOptions.seed, allow_perfect: bool = False,
            max_file_size: int = DEFAULT_MAX_BYTES) -> Gate:
    """Is the candidate shown better than the baseline? A paired bootstrap test for a CI gate
    (:func:`leaderboard.pipelines.compare.compare_pair` states its guarantee).

    Parameters
    ----------
    baseline, candidate : DataFrame, path or str
        With ``solution``: the two submissions (DataFrames or files). With ``items``: two model
        names in the per-item results.
    solution : DataFrame or path, optional
        The solution (id, target, optional Usage); the entries are compared on its ``split``
        rows.
    items : DataFrame or path, optional
        Per-item results, one row per model and item (the metric is their mean).
    metric : str, optional
        The metric (required with ``solution``; ``"mean"`` with ``items``).
    split : {"private", "public"}, optional
        ``solution`` only: the rows compared, by Usage (default private).
    id_col, target_col, pred_col, group_col : optional
        ``solution`` only: its columns, and the submissions' prediction column(s).
    model_col, item_col, value_col, cluster_col : optional
        ``items`` only: its columns (default model, item, value); a cluster's items are resampled
        together.
    alpha : float, default 0.05
        Level of the one-sided test.
    replicates : int, default 2000
    seed : int, default 0
    allow_perfect : bool, default False
        Let the gate pass when one entry scores perfectly while the other does not (else that is
        flagged as a likely leak and the gate holds).
    max_file_size : int, default 1 GiB

    Returns
    -------
    Gate
        ``.better`` (the gate's decision), ``.comparison`` (scores, difference, its bound and
        interval, p-value), ``.flags``, ``.gate_flags``, ``.assumptions``; ``.to_json()``,
        ``.to_dict()``, ``.to_markdown()`` (the pull-request comment), ``.save(path)``.

    Raises
    ------
    InputError
        Bad input, or an option of the other mode (``group_col`` with ``items``, ...).

    Examples
    --------
    >>> import numpy as np, pandas as pd, leaderboard
    >>> rng = np.random.default_rng(0)
    >>> results = pd.DataFrame({"model": np.repeat(["old", "new"], 400),
    ...                         "item": np.tile(np.arange(400), 2),
    ...                         "value": (rng.random(800) < np.repeat([0.6, 0.75], 400)) * 1})
    >>> gate = leaderboard.compare("old", "new", items=results, replicates=500)
    >>> gate.better, round(gate.comparison.difference, 3)
    (True, 0.195)
    """
    one_mode(solution, items)
    options = gate_options(
        items=items is not None, metric=metric, alpha=alpha, replicates=replicates, seed=seed,
        allow_perfect=allow_perfect, max_file_size=max_file_size, split=split, id_col=id_col,
        target_col=target_col, pred_col=pred_col, group_col=group_col, model_col=model_col,
        item_col=item_col, value_col=value_col, cluster_col=cluster_col)
    if items is not None:
        for name, value in (("baseline", baseline), ("candidate", candidate)):
            if not isinstance(value, str):
                raise InputError(f"{name}: with items, give a model name, got "
                                 f"{type(value).__name__}")
        return adopt(Gate, run_compare(baseline, candidate, options,
                                       items=_table(items, "items")))
    return adopt(Gate, run_compare(_table(baseline, "baseline"), _table(candidate, "candidate"),
                                   options, solution=_table(solution, "solution")))
