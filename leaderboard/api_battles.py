"""The Python API of battles mode: ``leaderboard.analyze_battles`` on a DataFrame or a file.

Typed keyword parameters, checked once here (no command-line parser in between); the command
line's ``leaderboard analyze --battles FILE`` calls this function. The report is imported only
when a page or the JSON is asked for.
"""
from __future__ import annotations

import numbers
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import pandas as pd

from leaderboard.errors import InputError
from leaderboard.api_words import speaks_python
from leaderboard.options import ArenaOptions, NoiseOptions, RankOptions
from leaderboard.params import (DEFAULT_ALPHA, DEFAULT_REPLICATES, DEFAULT_SEED, DEFAULT_TIERS,
                                check, check_all, default)
from leaderboard.pipelines.battles import BattlesAnalysis, BattlesSettings
from leaderboard.pipelines.modes.battles import BattlesOptions
from leaderboard.pipelines.run import Inputs, run_analysis
from leaderboard.ingest.safe_read import DEFAULT_MAX_BYTES
from leaderboard.provenance import recorded
from leaderboard.result_protocol import Saves


@dataclass(frozen=True)
class BattlesResult(Saves):
    """One rated arena: its table, the report as HTML or JSON.

    Attributes not defined here (``ranking``, ``battles``, ``notes``, ...) are those of the
    underlying :class:`~leaderboard.pipelines.battles.BattlesAnalysis`, ``.analysis``.
    ``save(path)`` writes the page (``.html``), the JSON (``.json``) or the table (``.csv``,
    ``.md``), chosen by the path's suffix (:class:`~leaderboard.result_protocol.Saves`).
    """

    SUFFIXES: ClassVar[Mapping[str, str]] = {".html": "to_html", ".htm": "to_html",
                                             ".json": "to_json", ".csv": "to_csv",
                                             ".md": "to_markdown"}

    analysis: BattlesAnalysis

    @property
    def table(self) -> pd.DataFrame:
        """One row per rated model, best first: rating, intervals, tier, rank sets, P(best)."""
        return self.analysis.table

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name == "analysis":
            raise AttributeError(name)
        return getattr(self.analysis, name)

    def to_html(self) -> str:
        """The self-contained report page."""
        from leaderboard.report.battles_report import render_battles

        return render_battles(self.analysis)

    def to_dict(self) -> dict:
        """The JSON as a dictionary (``leaderboard/schema/battles.schema.json``)."""
        from leaderboard.report.battles_json import battles_json

        return battles_json(self.analysis)

    def to_json(self) -> str:
        """The JSON ``leaderboard analyze --battles FILE --json`` writes."""
        import json

        return json.dumps(self.to_dict(), indent=2, allow_nan=False, ensure_ascii=False) + "\n"

    def to_csv(self) -> str:
        """The model table as CSV, formulas in model names neutralised."""
        from leaderboard.report.battles_json import battles_csv

        return battles_csv(self.analysis)

    def to_markdown(self, rows: int | None = 50) -> str:
        """The model table as Markdown (a pull-request comment): the top ``rows`` models (None:
        all), names inert, then the models that could not be rated."""
        from leaderboard.report.battles_json import battles_markdown

        return battles_markdown(self.analysis, rows)

    def __repr__(self) -> str:
        t = self.table
        more = len(self.analysis.groups) - 1
        return (f"<leaderboard.BattlesResult: {len(t):,} models, "
                f"{self.analysis.battles_rated:,} battles; tier 1: {int((t['tier'] == 1).sum())}"
                + (f"; {more} more group{'s' if more != 1 else ''}>" if more else ">"))


@speaks_python
@recorded
def analyze_battles(battles: pd.DataFrame | str | os.PathLike, *, model_a_col: str = default("model_a_col"),
                    model_b_col: str = default("model_b_col"),
                    winner_col: str = default("winner_col"),
                    judge_col: str | None = None, category_col: str | None = None,
                    date_col: str | None = None, cluster_col: str | None = None,
                    anchor: str | None = None,
                    anchor_rating: float = default("anchor_rating"), alpha: float = DEFAULT_ALPHA,
                    replicates: int = DEFAULT_REPLICATES, seed: int = DEFAULT_SEED,
                    tiers: str = DEFAULT_TIERS,
                    top_k: Sequence[int] | int = default("prizes"),
                    disconnected: str = default("disconnected"),
                    max_file_size: int = DEFAULT_MAX_BYTES, quiet: bool = True) -> BattlesResult:
    """Rate models from pairwise battles (an arena): Bradley-Terry ratings on the arenas' scale,
    intervals, simultaneous rank sets, P(best) and tiers.

    Parameters
    ----------
    battles : DataFrame or path
        One row per battle, LMArena's layout: the two models and the winner (``model_a``,
        ``model_b``, ``tie`` or ``tie (bothbad)``). A CSV (optionally compressed), Parquet or
        JSON-lines file, or a DataFrame.
    model_a_col, model_b_col, winner_col : str
        Their columns.
    judge_col, category_col, date_col : str, optional
        Optional columns (found by name when not given): counted and shown, not modelled.
    cluster_col : str, optional
        Battles of one value of this column (a prompt, a question, a voter) are resampled
        together, and the sandwich is cluster-robust. Without it, a column that groups the
        battles like clusters is named in the notes.
    anchor : str, optional
        A model whose rating is fixed at ``anchor_rating``; by default the models' mean is.
    anchor_rating : float, default 1000
    alpha : float, default 0.05
        Error rate of every interval, rank set and tier.
    replicates : int, default 2000
        Bootstrap redraws of the battles (at least 100).
    seed : int, default 0
    tiers : {"rank-sets", "holm", "scott-knott"}
        How tiers are cut (default: the layers of the simultaneous rank sets).
    top_k : int or tuple of int, default 3
        Lines for P(top k).
    disconnected : {"all", "largest", "error"}
        Models in groups that never met: rate every group on its own (the one with the most
        battles first), rate that one alone and name the others, or refuse.
    max_file_size : int
        Files larger than this many bytes are refused.
    quiet : bool, default True
        Accepted for symmetry with the other modes; this mode prints nothing.

    Returns
    -------
    BattlesResult
        ``.table``, ``.to_html()``, ``.to_json()``, ``.save(path)``.

    Raises
    ------
    InputError
        Bad data or a bad parameter, in one line naming the file, line and column.

    Notes
    -----
    A tie counts as half a win for each model, as the arenas count it. Ratings are ``anchor +
    400 / ln 10`` points per logit, from Firth's bias-reduced fit (finite for every connected
    arena; ``rating_mle`` is the plain fit the arenas publish). Intervals: a percentile bootstrap
    of battles (each redraw refits every model, so replicates are paired across models), and the
    sandwich (robust) standard error; both assume independent battles, or independent clusters
    with ``cluster_col``. A model whose interval holds every other model's rating is not placed
    (no tier). See ``docs/battles.md``.

    Examples
    --------
    >>> import numpy as np, pandas as pd, leaderboard
    >>> rng = np.random.default_rng(0)
    >>> a, b = rng.integers(0, 3, 3000), rng.integers(1, 3, 3000)
    >>> b = (a + b) % 3                                  # never a model against itself
    >>> strength = np.array([1.0, 0.0, -1.0])
    >>> won = rng.random(3000) < 1 / (1 + np.exp(strength[b] - strength[a]))
    >>> names = np.array(["alpha", "beta", "gamma"])
    >>> df = pd.DataFrame({"model_a": names[a], "model_b": names[b],
    ...                    "winner": np.where(won, "model_a", "model_b")})
    >>> result = leaderboard.analyze_battles(df, replicates=200)
    >>> result.table[["model", "tier"]].values.tolist()
    [['alpha', 1], ['beta', 2], ['gamma', 3]]
    """
    if not isinstance(battles, (pd.DataFrame, str, os.PathLike)):
        raise InputError(f"battles: expected a pandas DataFrame or a path, got "
                         f"{type(battles).__name__}")
    given = check_all({
        "model_a_col": model_a_col, "model_b_col": model_b_col, "winner_col": winner_col,
        "judge_col": judge_col, "category_col": category_col, "date_col": date_col,
        "cluster_col": cluster_col, "max_file_size": max_file_size, "quiet": quiet})
    lines = check("top_k", (top_k,) if isinstance(top_k, numbers.Integral) else top_k)
    if not lines:
        raise InputError("top_k= must name at least one line, got ()")
    settings = BattlesSettings(noise=NoiseOptions(seed=seed),
                               ranks=RankOptions(alpha=alpha, replicates=replicates, method=tiers,
                                                 prizes=min(lines), top_k=lines),
                               arena=ArenaOptions(anchor=anchor, anchor_rating=anchor_rating,
                                                  disconnected=disconnected))
    columns = {name: given[name] for name in ("model_a_col", "model_b_col", "winner_col",
                                               "judge_col", "category_col", "date_col",
                                               "cluster_col")}
    return BattlesResult(run_analysis(
        Inputs(battles=battles), BattlesOptions(settings, columns, given["max_file_size"])))
