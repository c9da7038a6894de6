"""The Python API: ``leaderboard.analyze`` and ``leaderboard.analyze_submissions`` on DataFrames.

Both functions take the command line's options as keyword arguments (``n_test=2100`` is
``--n-test 2100``) and parse them with the command line's own parser, so every default, every
check and every one-line error is the command line's; the statistics then run through the same
function as ``leaderboard analyze``. Same data, same options, same seed: the same numbers.

Imports flow one way: this module uses the command line's parser and the report; nothing below
imports it.
"""
from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from leaderboard.pipelines.scores import Analysis
from leaderboard.cli import build_parser
from leaderboard.cli.analyze import analysis_from_args
from leaderboard.cli.common import RaisingParser
from leaderboard.errors import InputError
from leaderboard.ingest import leaderboard_from_frame
from leaderboard.report import exports, json_text, render_html, render_summary, to_json_dict

PathLike = str | os.PathLike
# Options that name inputs or outputs: the functions' own arguments and methods say those.
_NOT_OPTIONS = {"file", "example", "solution", "submissions", "output", "json", "csv", "markdown",
                "debug"}


@dataclass(frozen=True)
class Result:
    """One analysed leaderboard: its table, the report as HTML or JSON, and a notebook summary.

    Attributes not defined here (``ranking``, ``tiers``, ``d95``, ``shakeup``, ``flags``, ...)
    are those of the underlying :class:`~leaderboard.pipelines.scores.Analysis`, ``.analysis``.
    """

    analysis: Analysis

    @property
    def table(self) -> pd.DataFrame:
        """One row per entry, best first: score, interval, tier, rank intervals, P(best), ..."""
        return self.analysis.table

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or name == "analysis":   # copies and pickles: no recursion
            raise AttributeError(name)
        return getattr(self.analysis, name)

    def to_html(self) -> str:
        """The full self-contained report, as ``leaderboard analyze -o`` writes it."""
        return render_html(self.analysis)

    def to_json(self) -> str:
        """The JSON ``leaderboard analyze --json`` writes."""
        return json_text(self.analysis)

    def to_dict(self) -> dict:
        """The JSON as a dictionary."""
        return to_json_dict(self.analysis)

    def to_csv(self) -> str:
        """The tier table as CSV (``--csv``): formulas in team names neutralised."""
        return exports.to_csv(self.analysis)

    def to_markdown(self) -> str:
        """The tier table as a Markdown table (``--markdown``)."""
        return exports.to_markdown(self.analysis)

    def save(self, path: PathLike) -> Path:
        """Write the report (``.html``), the JSON (``.json``), the tier table (``.csv``,
        ``.md``) or the scores-and-intervals chart (``.png``, ``.svg``) to ``path``, chosen by
        its suffix."""
        path = Path(path)
        suffix = path.suffix.lower()
        if suffix in (".png", ".svg"):   # the scores-and-intervals chart, as the page draws it
            from leaderboard.report.chart_context import scores_figure

            figure = scores_figure(self.analysis, suffix)
            if isinstance(figure, bytes):
                path.write_bytes(figure)
            else:
                path.write_text(figure, encoding="utf-8")
            return path
        writers = {".html": self.to_html, ".htm": self.to_html, ".json": self.to_json,
                   ".csv": self.to_csv, ".md": self.to_markdown}
        writer = writers.get(suffix)
        if writer is None:
            raise InputError(f"save: give a path ending in .html, .json, .csv, .md, .png or "
                             f".svg, not {path.name!r}")
        path.write_text(writer(), encoding="utf-8")
        return path

    def charts(self) -> dict:
        """The report's charts as Altair charts, by name (``"scores"``, ``"hist"``, ``"ecdf"``,
        ``"board_hist"``, the ranks', post-mortem's and curves' charts where the analysis has
        them): in Jupyter each displays natively, with its tooltips and zoom."""
        from leaderboard.report.chart_context import analysis_charts
        from leaderboard.report.html import Numbers
        from leaderboard.report.vega.embed import altair_chart
        from leaderboard.report.words import pct

        a = self.analysis
        num = Numbers(a.settings.metric, a.table["score"].to_numpy(dtype=float), a.d95)
        blocks = analysis_charts(a, num, pct(1 - a.settings.alpha))
        return {name: altair_chart(b) for name, b in blocks.items() if b is not None}

    def _repr_html_(self) -> str:
        # In an iframe of its own: the report's styles never reach the notebook's.
        page = render_summary(self.analysis)
        escaped = page.replace("&", "&amp;").replace('"', "&quot;")
        return (f'<iframe srcdoc="{escaped}" style="width:100%;height:560px;border:1px solid '
                '#d0d7de;border-radius:6px" sandbox title="leaderboard summary"></iframe>')

    def __repr__(self) -> str:
        t = self.analysis.table
        return (f"<leaderboard.Result: {len(t):,} entries, {self.analysis.settings.metric.label}; "
                f"tier 1: {int((t['tier'] == 1).sum()):,}>")


def analyze(data: pd.DataFrame | PathLike, *, metric: str, quiet: bool = True,
            **options: Any) -> Result:
    """Analyse a leaderboard of scores: intervals, tiers, rank intervals and P(best).

    Parameters
    ----------
    data : DataFrame or path
        A table with a team column and a score column (or public and private score columns),
        or a path to one (CSV, or Kaggle's leaderboard download).
    metric : str
        The metric that ranks the board (``"auc"``, ``"rmsle"``, ...; any name of
        ``leaderboard analyze --help``).
    quiet : bool, default True
        No progress bar.
    **options
        Any option of ``leaderboard analyze``, dashes as underscores: ``n_test``, ``prevalence``,
        ``team_col``, ``score_col``, ``public_col``, ``private_col``, ``n_public``,
        ``n_private``, ``public_fraction``, ``two_stage``, ``alpha``, ``draws``, ``seed``,
        ``correlation``, ``tiers``, ``prizes``, ``top_k``, ``universe``, ``spread``,
        ``higher_is_better``, ... Same defaults and same checks as the command line.

    Returns
    -------
    Result
        ``.table``, ``.to_html()``, ``.to_json()``, ``.save(path)``; displays a summary in Jupyter.

    Raises
    ------
    InputError
        A bad option or bad data, with the command line's one-line message.

    Examples
    --------
    >>> import numpy as np, pandas as pd, leaderboard
    >>> board = pd.DataFrame({"team": [f"t{i}" for i in range(8)],
    ...                       "score": np.linspace(0.90, 0.80, 8)})
    >>> result = leaderboard.analyze(board, metric="auc", n_test=2000, prevalence=0.2,
    ...                              draws=200, replicates=200)
    >>> result.table[["team", "tier"]].head(2).values.tolist()
    [['t0', 1], ['t1', 1]]
    >>> leaderboard.analyze(board, metric="auc", n_test=2000, prevalence=0.2, seed=-1)
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    leaderboard.errors.InputError: --seed must be at least 0 and at most 4294967295 ... got '-1' ...
    """
    is_frame = isinstance(data, pd.DataFrame)
    args = _parse([] if is_frame else [os.fspath(_path(data, "data"))], metric, quiet, options)
    board = None
    if is_frame:
        higher = args.higher
        if higher is None:
            from leaderboard.metrics import get_metric
            higher = get_metric(args.metric).higher_is_better
        board = leaderboard_from_frame(data, higher_is_better=higher, team_col=args.team_col,
                                       score_col=args.score_col, public_col=args.public_col,
                                       private_col=args.private_col, split=args.split)
    return Result(analysis_from_args(args, board=board))


def analyze_submissions(solution: pd.DataFrame | PathLike,
                        submissions: Mapping[str, pd.DataFrame | np.ndarray] | PathLike, *,
                        metric: str, quiet: bool = True, **options: Any) -> Result:
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
    quiet : bool, default True
    **options
        Options of ``leaderboard analyze`` in submissions mode (``id_col``, ``target_col``,
        ``pred_col``, ``group_col``, ``resample``, ``replicates``, ``alpha``, ``seed``, ``split``,
        ``tiers``, ``beta``, ``costs``, ...), dashes as underscores.

    Returns
    -------
    Result

    Notes
    -----
    In-memory inputs are written as CSV files to a temporary folder (removed at once) and read
    back through the same validation as uploaded files: every check, refusal and file-table line
    is the command line's, with the mapping's keys as team names.

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
    with tempfile.TemporaryDirectory(prefix="leaderboard-api-") as folder:
        solution_path = _solution_file(solution, Path(folder))
        submissions_path = _submission_files(submissions, solution_path, Path(folder), options)
        args = _parse(["--solution", solution_path, "--submissions", submissions_path], metric,
                      quiet, options)
        return Result(analysis_from_args(args))


def analyze_items(data: pd.DataFrame | PathLike, *, metric: str = "mean", quiet: bool = True,
                  **options: Any) -> Result:
    """Analyse per-item results: many models scored on the same items (benchmarks, LLM evals).

    Parameters
    ----------
    data : DataFrame or path
        One row per (model, item): a long table (CSV or Parquet), or a folder of
        lm-evaluation-harness sample logs.
    metric : str, default "mean"
        ``mean`` averages each model's per-item values; with ``target_col``, a metric that
        scores the predictions (``auc``, ``logloss``, ...).
    **options
        ``model_col``, ``item_col``, ``value_col``, ``cluster_col``, ``category_col``,
        ``target_col``, ``harness_filter``, ``replicates``, ``alpha``, ``seed``, ``tiers``, ...:
        the options of ``leaderboard analyze --items``.

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
    with tempfile.TemporaryDirectory(prefix="leaderboard-api-") as folder:
        if isinstance(data, pd.DataFrame):
            path = Path(folder) / "items.csv"
            data.to_csv(path, index=False)
        else:
            path = Path(_path(data, "data"))
        if isinstance(options.get("target_col"), str):
            options["target_col"] = [options["target_col"]]
        args = _parse(["--items", os.fspath(path)], metric, quiet, options)
        return Result(analysis_from_args(args))


# --- private helpers ------------------------------------------------------------------------------

def _parse(head: list[str], metric: str, quiet: bool, options: dict):
    """The options as the command line's argv, parsed by its parser (errors raise)."""
    parser = build_parser(RaisingParser)
    known = set(vars(parser.parse_args(["analyze"]))) - _NOT_OPTIONS | {"higher_is_better"}
    argv = ["analyze", *head, "--metric", str(metric)] + (["--quiet"] if quiet else [])
    for name, value in options.items():
        if name in _NOT_OPTIONS:
            raise InputError(f"{name}=: not an option here (give the data as the first "
                             "argument, and write outputs with .save())")
        if name not in known:
            raise InputError(f"{name}=: not an option of leaderboard analyze; known: "
                             f"{', '.join(sorted(known - {'command', 'higher', 'quiet'}))}")
        flag = "--" + name.replace("_", "-")
        if name == "higher_is_better":
            if value is not None:
                argv.append("--higher-is-better" if value else "--lower-is-better")
        elif isinstance(value, bool):
            argv += [flag] if value else []
        elif value is None:
            continue
        elif name == "top_k" and not isinstance(value, str):
            argv += [flag, ",".join(str(int(v)) for v in value)]
        elif isinstance(value, (list, tuple)):   # repeated options: target_col, pred_col
            for item in value:
                argv += [flag, str(item)]
        else:
            argv += [flag, repr(value) if isinstance(value, float) else str(value)]
    return parser.parse_args(argv)


def _path(value: object, what: str) -> PathLike:
    if not isinstance(value, (str, os.PathLike)):
        raise InputError(f"{what}: expected a pandas DataFrame or a path, got "
                         f"{type(value).__name__}")
    return value


def _solution_file(solution: pd.DataFrame | PathLike, folder: Path) -> str:
    if not isinstance(solution, pd.DataFrame):
        return os.fspath(_path(solution, "solution"))
    path = folder / "solution.csv"
    solution.to_csv(path, index=False)
    return str(path)


def _submission_files(submissions, solution_path: str, folder: Path, options: dict) -> str:
    """A manifest (team,file) of the in-memory submissions; a path is passed through."""
    if not isinstance(submissions, Mapping):
        return os.fspath(_path(submissions, "submissions"))
    if not submissions:
        raise InputError("submissions: the mapping is empty")
    columns = None
    subs = folder / "submissions"
    subs.mkdir()
    files = []
    used: set[str] = set()
    for i, (team, predictions) in enumerate(submissions.items()):
        name = _file_name(str(team), i, used)
        if isinstance(predictions, pd.DataFrame):
            frame = predictions
        else:
            if columns is None:
                columns = _solution_columns(solution_path, options)
            frame = _aligned_frame(team, predictions, *columns)
        frame.to_csv(subs / name, index=False)
        files.append((str(team), name))
    manifest = subs / "manifest.csv"
    pd.DataFrame(files, columns=["team", "file"]).to_csv(manifest, index=False)
    return str(manifest)


def _file_name(team: str, i: int, used: set[str]) -> str:
    """The team's name as a safe file name (the report's file column), unique in the folder."""
    stem = re.sub(r"[^\w\- ]", "_", team).strip()[:80] or "team"
    name = f"{stem}.csv" if stem.lower() + ".csv" not in used and stem.lower() != "manifest" \
        else f"{stem}_{i}.csv"
    used.add(name.lower())
    return name


def _solution_columns(solution_path: str, options: dict) -> tuple[pd.Series, list[str]]:
    """The solution's ids and the prediction column names an array's values go under."""
    from leaderboard.submissions import read_solution

    target_cols = options.get("target_col")
    solution = read_solution(solution_path, id_col=options.get("id_col"),
                             target_cols=[target_cols] if isinstance(target_cols, str)
                             else target_cols, group_col=options.get("group_col"))
    names = options.get("pred_col") or list(solution.target_columns)
    return pd.Series(solution.ids, name=solution.id_column), [names] if isinstance(
        names, str) else list(names)


def _aligned_frame(team: object, predictions, ids: pd.Series, names: list[str]) -> pd.DataFrame:
    given = np.asarray(predictions)
    values = given[:, None] if given.ndim == 1 else given
    if values.ndim != 2 or values.shape != (len(ids), len(names)):
        raise InputError(f"submissions[{str(team)!r}]: an array of shape {given.shape}; the "
                         f"solution has {len(ids):,} rows and {len(names)} prediction "
                         f"column{'s' if len(names) > 1 else ''} ({', '.join(names)})")
    frame = pd.DataFrame(values, columns=names)
    frame.insert(0, ids.name, ids.to_numpy())
    return frame


# Battles mode (issue 26) lives in its own module; re-exported so the API is one import.
from leaderboard.api_battles import BattlesResult, analyze_battles  # noqa: E402,F401
