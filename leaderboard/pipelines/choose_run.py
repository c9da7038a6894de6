"""``choose`` end to end: the candidates' inputs read (through :mod:`leaderboard.ingest`), made
candidates and chosen between, for the command line and :func:`leaderboard.choose_finals` alike.

Candidates come as a table of public scores, as predictions with the solution, or both; see
:mod:`leaderboard.pipelines.choose` for the statistics. Nothing here imports the report.
"""
from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from leaderboard.errors import FrameSource, InputError
from leaderboard.ingest.in_memory import InMemory
from leaderboard.options import ReadOptions
from leaderboard.pipelines.choose import (Candidates, ChooseResult, ChooseSettings, choose,
                                          merge_candidates, prediction_candidates,
                                          table_candidates)

PathLike = str | os.PathLike


@dataclass(frozen=True)
class ChooseInputs:
    """The candidates as given: ``public_scores`` (a path, or a DataFrame) and/or ``solution``
    (a path or a table in memory) with ``submissions`` (a folder, zip or manifest, or a mapping
    of candidate name to a table in memory or an array in the solution's row order)."""

    public_scores: object = None
    solution: PathLike | InMemory | None = None
    submissions: PathLike | Mapping | None = None

    @property
    def predicted(self) -> bool:
        return self.solution is not None or self.submissions is not None


def run_choose(inputs: ChooseInputs, settings: ChooseSettings, read: ReadOptions = ReadOptions(),
               *, quiet: bool = True) -> ChooseResult:
    """Read the candidates, correct them for the winner's curse and choose the pair.

    ``read`` names the columns (``team_col``/``score_col`` of the table, ``id_col``,
    ``target_col``, ``pred_col`` of the predictions) and the size cap. With both inputs and no
    ``n_public``, the table shares the solution's public rows.
    """
    if not inputs.predicted and inputs.public_scores is None:
        raise InputError("give the candidates: --public-scores FILE (with --n-public), and/or "
                         "--solution with --submissions (or use --example)")
    stated = settings.noise.universe.stated()
    if inputs.public_scores is None and stated:   # no table: no universe is simulated
        raise InputError(f"{stated[0]} shapes the universe simulated for a table of public "
                         "scores (--public-scores); with predictions alone the public rows "
                         "themselves are resampled: drop it")
    parts: list[Candidates] = []
    names: list[str] = []
    if inputs.predicted:
        parts.append(_predicted(inputs, settings, read, quiet))
        names += [_named(inputs.solution), _named(inputs.submissions, "submissions")]
    if inputs.public_scores is not None:
        board = _table(inputs.public_scores, settings, read)
        if parts and settings.n_public is None:  # the table shares the solution's public rows
            settings = replace(settings, slices=replace(settings.slices, n_public=parts[0].n_public,
                                                        n_private=parts[0].n_private))
        parts.append(table_candidates(board, settings, quiet=quiet))
        names.append(_named(inputs.public_scores, "public_scores"))
    candidates = parts[0] if len(parts) == 1 else merge_candidates(parts[0], parts[1],
                                                                   settings.correlation)
    return choose(candidates, settings, inputs=tuple(names))


def _named(value: object, name: str = "solution") -> str:
    """An input as the report names it: its path, or the parameter that held it in memory."""
    if isinstance(value, InMemory):
        return str(value.source)
    if hasattr(value, "columns") or isinstance(value, Mapping):
        return str(FrameSource.named(name)) if hasattr(value, "columns") else name
    return str(value)


def _table(public_scores: Any, settings: ChooseSettings, read: ReadOptions):
    from leaderboard.ingest.leaderboards import leaderboard_from_frame, read_leaderboard

    if hasattr(public_scores, "columns"):   # a DataFrame, read in memory
        return leaderboard_from_frame(public_scores, higher_is_better=settings.higher_is_better,
                                      team_col=read.team_col, score_col=read.score_col,
                                      source=FrameSource.named("public_scores"))
    return read_leaderboard(public_scores, higher_is_better=settings.higher_is_better,
                            team_col=read.team_col, score_col=read.score_col,
                            max_bytes=read.max_file_size)


def _predicted(inputs: ChooseInputs, settings: ChooseSettings, read: ReadOptions,
               quiet: bool) -> Candidates:
    from leaderboard.ingest.submissions import read_solution, read_submissions

    if inputs.solution is None or inputs.submissions is None:
        raise InputError("predictions need both --solution and --submissions")
    metric = settings.metric
    if not metric.can_score:
        raise InputError(f"{metric.label} can rank scores, but scoring its predictions is not "
                         "supported: give --public-scores instead")
    solution = read_solution(inputs.solution, id_col=read.id_col, target_cols=read.target_col,
                             kind=metric.kind, max_bytes=read.max_file_size)
    if isinstance(inputs.submissions, Mapping):
        submissions = _in_memory(inputs.submissions, solution, metric.kind, read)
    else:
        submissions = read_submissions(inputs.submissions, solution, kind=metric.kind,
                                       pred_cols=read.pred_col, id_col=read.id_col,
                                       max_bytes=read.max_file_size)
    if settings.n_public is not None and inputs.public_scores is None:
        raise InputError("--n-public: with predictions the public rows come from the solution")
    return prediction_candidates(solution, submissions, settings, quiet=quiet)


def _in_memory(mapping: Mapping, solution, kind: str, read: ReadOptions):
    """A mapping of candidates' predictions read as submission files would be."""
    from leaderboard.ingest.submissions.files import memory_listing, read_one, submission_set
    from leaderboard.pipelines.run import submission_table

    if not mapping:
        raise InputError("submissions: the mapping is empty")
    tables = [(str(name), submission_table(name, value, solution, read.pred_col))
              for name, value in mapping.items()]
    listing = memory_listing(tables, solution, kind=kind, pred_cols=read.pred_col,
                             id_col=read.id_col)
    return submission_set(listing, [read_one(item, listing.plan, solution) + (None,)
                                    for item in listing.found])
