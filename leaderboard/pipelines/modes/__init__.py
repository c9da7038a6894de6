"""The modes of ``analyze``, one small object each (:class:`~leaderboard.pipelines.modes.base.Mode`):
:data:`SCORES` (a leaderboard of scores), :data:`SUBMISSIONS` (a solution and predictions),
:data:`ITEMS` (per-item results) and :data:`BATTLES` (pairwise battles), each with
``read(inputs, options)`` and ``analyze(data, options, quiet=...)``; :func:`mode_of` picks the
one the inputs name, refusing inputs of two modes. The heavy pipelines are imported when a mode
runs, not here.
"""
from __future__ import annotations

from leaderboard.errors import InputError
from leaderboard.pipelines.modes.base import Inputs, Mode
from leaderboard.pipelines.modes.battles import BATTLES
from leaderboard.pipelines.modes.items import ITEMS
from leaderboard.pipelines.modes.scores import SCORES
from leaderboard.pipelines.modes.submissions import SUBMISSIONS

#: Every mode by name.
MODES: dict[str, Mode] = {m.name: m for m in (SCORES, SUBMISSIONS, ITEMS, BATTLES)}

__all__ = ["BATTLES", "ITEMS", "MODES", "SCORES", "SUBMISSIONS", "Inputs", "Mode", "mode_of"]


def mode_of(inputs: Inputs, read=None) -> Mode:
    """The mode the inputs name: battles, per-item results (the whole input), a solution with
    submissions, or a leaderboard file; ``read`` (the :class:`~leaderboard.options.ReadOptions`)
    refuses the per-item results' options elsewhere.

    Examples
    --------
    >>> mode_of(Inputs(board="board.csv")).name, mode_of(Inputs(items="runs.csv")).name
    ('scores', 'items')
    >>> mode_of(Inputs(board="board.csv", solution="solution.csv"))
    Traceback (most recent call last):
    ...
    leaderboard.errors.InputError: give either a leaderboard FILE or --solution with --submissions, not both
    """
    if inputs.battles is not None:
        return BATTLES
    if inputs.items is not None:
        return ITEMS
    submissions_mode = inputs.solution is not None or inputs.submissions is not None
    stray = next((option for option, given in (
        ("--published", inputs.published is not None),
        ("--cost-col", read is not None and read.cost_col),
        ("--published-col", read is not None and read.published_col),
        ("--published-model-col", read is not None and read.published_model_col)) if given),
        None)
    if stray is not None:
        raise InputError(f"{stray} goes with per-item results (--items)")
    if submissions_mode and inputs.board is not None:
        raise InputError("give either a leaderboard FILE or --solution with --submissions, not "
                         "both")
    if not submissions_mode and inputs.board is None:
        raise InputError("no leaderboard file given (or use --example, or --solution with "
                         "--submissions)")
    return SUBMISSIONS if submissions_mode else SCORES
