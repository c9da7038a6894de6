"""Stage 1, ingest: read a leaderboard file into a :class:`Leaderboard`.

(Implementation in progress: see the helper's brief.)
"""
from __future__ import annotations

from dataclasses import dataclass

import pandas as pd


@dataclass(frozen=True)
class DroppedRows:
    """Rows of the input that are not analysed, and why.

    ``lines`` are 1-based line numbers in the file (the header is line 1), at most the first 20.
    """

    reason: str
    count: int
    lines: tuple[int, ...]


@dataclass(frozen=True)
class Leaderboard:
    """A leaderboard as read from a file, one row per entry (not yet ranked).

    Attributes
    ----------
    entries : DataFrame
        Columns ``team`` (str), ``score`` (float, the score that ranks), ``line`` (int, the
        1-based line of the file it came from) and, when the file has them, ``public_score`` and
        ``private_score`` (float, NaN where missing). In file order.
    source : str
        The path as the user gave it.
    format : str
        ``"kaggle-download"`` (TeamId,TeamName,SubmissionDate,Score history, best row per team kept)
        or ``"table"`` (a plain table of teams and scores).
    score_column : str
        The file's column that ``score`` was taken from.
    split : str or None
        ``"private"`` or ``"public"`` when the file has both score columns, else ``None``.
    rows_read : int
        Data rows in the file (header excluded).
    dropped : tuple of DroppedRows
        Every row not analysed, grouped by reason; ``rows_read == len(entries) + sum(counts)``.
    """

    entries: pd.DataFrame
    source: str
    format: str
    score_column: str
    split: str | None
    rows_read: int
    dropped: tuple[DroppedRows, ...] = ()
