"""Scores mode: a leaderboard of scores (a file, or a DataFrame from the Python API), its noise
simulated from the metric's universe (:func:`leaderboard.pipelines.scores.analyze`)."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from leaderboard import limits
from leaderboard.errors import FrameSource
from leaderboard.flags import Flag
from leaderboard.ingest.leaderboards import Leaderboard, leaderboard_from_frame, read_leaderboard
from leaderboard.options import AnalyzeOptions
from leaderboard.pipelines.analysis import Analysis, Settings
from leaderboard.pipelines.modes.base import Inputs, metric_settings, with_card
from leaderboard.set_aside import board_not_entries, board_set_aside


@dataclass(frozen=True)
class ScoresData:
    """The board read, the flag of rows that are not entries (None: all are), the settings."""

    board: Leaderboard
    not_entry: Flag | None
    settings: Settings


class ScoresMode:
    """A leaderboard FILE (``Inputs.board``)."""

    name = "scores"

    def read(self, inputs: Inputs, options: AnalyzeOptions) -> ScoresData:
        settings = metric_settings(options, submissions_mode=False)
        metric, noise, read = settings.metric, options.noise, options.read
        columns: dict[str, Any] = dict(team_col=read.team_col, score_col=read.score_col,
                       public_col=read.public_col, private_col=read.private_col,
                       split=options.slices.split)
        if hasattr(inputs.board, "columns"):   # a DataFrame, read in memory
            board = leaderboard_from_frame(inputs.board,
                                           higher_is_better=settings.higher_is_better,
                                           source=FrameSource.named("data"), **columns)
        else:
            board = read_leaderboard(inputs.board, higher_is_better=settings.higher_is_better,
                                     max_bytes=read.max_file_size, **columns)
        board, not_entry = board_not_entries(board, metric, settings.higher_is_better)
        if options.exclude_flagged:
            board = board_set_aside(board, options.exclude_flagged, metric,
                                    settings.higher_is_better, noise.prevalence)
        # before any is drawn: --replicates 10000000 on 40 entries filled the machine (issue 29)
        limits.current().check_scores(settings.replicates, len(board.entries))
        return ScoresData(board, not_entry, settings)

    def analyze(self, data: ScoresData, options: AnalyzeOptions, *,
                quiet: bool = True) -> Analysis:
        from leaderboard.pipelines.scores import analyze

        result = analyze(data.board, data.settings, quiet=quiet)
        return (result if data.not_entry is None
                else replace(result, flags=(data.not_entry,) + result.flags))

    card = staticmethod(with_card)


SCORES = ScoresMode()
