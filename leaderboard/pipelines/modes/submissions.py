"""Submissions mode: a solution and the teams' predictions (files, a folder, a zip, a manifest,
or from the Python API a mapping of team to a DataFrame or an array), scored and resampled by
the paired bootstrap (:func:`leaderboard.pipelines.submissions.analyze_submissions`), in this
process or on a Dask cluster."""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from leaderboard.errors import InputError
from leaderboard.ingest.in_memory import InMemory
from leaderboard.options import AnalyzeOptions
from leaderboard.pipelines.analysis import Analysis, Settings
from leaderboard.pipelines.modes.base import Inputs, metric_settings, with_card

if TYPE_CHECKING:
    from leaderboard.ingest.submissions import Solution, SubmissionSet
    from leaderboard.ingest.submissions.files import Listing


@dataclass(frozen=True)
class SubmissionsData:
    """The solution read, the submissions found (a listing, read when scored), the settings."""

    solution: Solution
    found: SubmissionSet | Listing
    settings: Settings


class SubmissionsMode:
    """``--solution`` with ``--submissions`` (``Inputs.solution``, ``Inputs.submissions``)."""

    name = "submissions"

    def read(self, inputs: Inputs, options: AnalyzeOptions) -> SubmissionsData:
        from leaderboard.ingest.submissions import read_solution
        from leaderboard.ingest.submissions.files import list_submissions, memory_listing

        settings = metric_settings(options, submissions_mode=True)
        if inputs.solution is None or inputs.submissions is None:
            raise InputError("submissions mode needs both --solution and --submissions")
        metric, read = settings.metric, options.read
        if not metric.can_score:
            raise InputError(f"{metric.label} can rank a leaderboard of scores, but scoring its "
                             "predictions is not supported")
        if settings.resample == "grouped" and read.group_col is None:
            raise InputError("--resample grouped needs --group-col (the solution column of group "
                             "ids)")
        solution = read_solution(inputs.solution, id_col=read.id_col,
                                 target_cols=read.target_col, group_col=read.group_col,
                                 kind=metric.kind, max_bytes=read.max_file_size)
        if isinstance(inputs.submissions, Mapping):
            tables = [(str(team), submission_table(team, value, solution, read.pred_col))
                      for team, value in inputs.submissions.items()]
            found = memory_listing(tables, solution, kind=metric.kind, pred_cols=read.pred_col,
                                   id_col=read.id_col)
        else:
            found = list_submissions(inputs.submissions, solution, kind=metric.kind,
                                     pred_cols=read.pred_col, id_col=read.id_col,
                                     max_bytes=read.max_file_size)
        return SubmissionsData(solution, found, settings)

    def analyze(self, data: SubmissionsData, options: AnalyzeOptions, *,
                quiet: bool = True) -> Analysis:
        from leaderboard.pipelines.submissions import analyze_submissions

        engine = engine_for(options.workers, options.scheduler)
        try:
            return analyze_submissions(data.solution, data.found, data.settings,
                                       split=options.slices.split, quiet=quiet, engine=engine,
                                       exclude=options.exclude_flagged)
        finally:
            if engine is not None:
                engine.close()

    card = staticmethod(with_card)


SUBMISSIONS = SubmissionsMode()


def submission_table(team: object, value: object, solution, pred_cols) -> InMemory:
    """One team's predictions as a table: a DataFrame as it is, an array under the solution's
    ids and the prediction columns (``pred_col``, else the solution's target columns)."""
    name = f"submissions[{str(team)!r}]"
    if isinstance(value, InMemory):
        return value
    if hasattr(value, "columns"):
        return InMemory.of(value, name)
    import pandas as pd

    names = list(pred_cols or solution.target_columns)
    given = np.asarray(value)
    values = given[:, None] if given.ndim == 1 else given
    if values.ndim != 2 or values.shape != (len(solution), len(names)):
        raise InputError(f"{name}: an array of shape {given.shape}; the solution has "
                         f"{len(solution):,} rows and {len(names)} prediction "
                         f"column{'s' if len(names) > 1 else ''} ({', '.join(names)})")
    frame = pd.DataFrame(values, columns=names)
    frame.insert(0, solution.id_column, solution.ids)
    return InMemory.of(frame, name)


def engine_for(workers: int | None, scheduler: str | None):
    """The engine ``workers`` or ``scheduler`` ask for (Dask), else None (this process)."""
    if workers is None and scheduler is None:
        return None
    if scheduler is not None and not scheduler.strip():
        raise InputError("--scheduler: give the scheduler's address, e.g. tcp://host:8786")
    from leaderboard.engine.dask import DaskEngine   # only when asked: Dask is optional

    return DaskEngine(workers=workers, scheduler=scheduler)
