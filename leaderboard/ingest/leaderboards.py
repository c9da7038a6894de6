"""Stage 1, ingest: read a leaderboard file into a :class:`Leaderboard`.

Two layouts are understood: Kaggle's leaderboard download (``TeamId,TeamName,SubmissionDate,Score``,
a history of each team's improvements) and a plain table of teams and scores, optionally with
``public_score``/``private_score`` columns. Every problem with the file is an :class:`InputError`
naming the file, the line and the column, never a traceback.

Line numbers are the file's physical lines, as an editor shows them: a quoted team name holding a
line break does not shift the lines after it, and blank lines are skipped but still counted. The
file is read, and its columns found and checked, by the table toolkit
(:mod:`leaderboard.ingest.toolkit`).
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from leaderboard import limits
from leaderboard.errors import FrameSource, InputError
from leaderboard.ingest.in_memory import frame_csv, spanned_lines
from leaderboard.ingest.records import DroppedRows
from leaderboard.ingest.safe_read import DEFAULT_MAX_BYTES
from leaderboard.ingest.toolkit.columns import (column_numbers, find_column, listed_columns,
                                                separator_hint, require_nonempty)
from leaderboard.ingest.toolkit.reading import parse_csv, read_csv_file

KAGGLE_COLUMNS = ("TeamId", "TeamName", "SubmissionDate", "Score")
TEAM_COLUMNS = ("team", "team_name", "teamname", "name", "participant", "model", "entry")
SCORE_COLUMNS = ("score",)
PUBLIC_COLUMNS = ("public_score", "public")
PRIVATE_COLUMNS = ("private_score", "private")
_MAX_LINES = 20  # DroppedRows keeps at most this many line numbers


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


def read_leaderboard(path: str | os.PathLike[str], *, higher_is_better: bool,
                     team_col: str | None = None, score_col: str | None = None,
                     public_col: str | None = None, private_col: str | None = None,
                     split: str = "private", max_bytes: int = DEFAULT_MAX_BYTES) -> Leaderboard:
    """Read a leaderboard CSV (UTF-8, with or without a BOM).

    Parameters
    ----------
    path : str or PathLike
        The CSV file; ``.zip``/``.gz``/... holding one CSV (as Kaggle serves downloads) also work.
        Columns exactly ``TeamId,TeamName,SubmissionDate,Score`` mean a Kaggle download: the
        best row of each ``TeamId`` is kept, the others are reported in ``dropped``.
    higher_is_better : bool
        Direction of the metric; decides which of a team's submissions is its best in a Kaggle
        download (equal best scores: the earliest ``SubmissionDate`` is kept).
    team_col, score_col : str, optional
        Columns of a plain table; auto-detected when not given (team: the first of ``team``,
        ``team_name``, ``teamname``, ``name``, ``participant``, ``model``, ``entry``; score:
        ``score``), case-insensitively. An explicit ``score_col`` always wins. Team names are
        stripped of surrounding spaces; repeated names stay separate entries.
    public_col, private_col : str, optional
        The public and private score columns; auto-detected as ``public_score``/``private_score``
        or ``public``/``private``. With both, ``split`` picks the one analysed; with one, that
        one is used.
    split : {"private", "public"}
        Which score ranks when the table has both. The other is kept in the entries, and may be
        blank for some rows; the analysed one may not.
    max_bytes : int
        Size cap of the file, on disk and decompressed (``--max-file-size``).

    Returns
    -------
    Leaderboard
        With ``rows_read == len(entries) + sum(d.count for d in dropped)``.

    Raises
    ------
    InputError
        Missing, unreadable, empty or oversized file, or not a regular file; a column not found
        (the message lists those present) or written twice; a score that is not a finite number;
        an empty team name.

    Examples
    --------
    >>> from leaderboard.resources import data_dir
    >>> lb = read_leaderboard(data_dir() / "example_kaggle_download.csv", higher_is_better=True)
    >>> lb.format, lb.score_column, len(lb.entries)
    ('kaggle-download', 'Score', 40)
    >>> lb.rows_read == len(lb.entries) + sum(d.count for d in lb.dropped)
    True
    >>> lb = read_leaderboard(data_dir() / "example_leaderboard.csv", higher_is_better=True)
    >>> lb.format, lb.score_column, lb.split, list(lb.entries.columns)
    ('table', 'private_score', 'private', ['team', 'score', 'line', 'public_score', 'private_score'])
    """
    source = str(path)
    if split not in ("private", "public"):
        raise InputError(f"split must be 'private' or 'public', not {split!r}", file=source)
    raw = read_csv_file(Path(path), source, max_bytes)
    return _from_raw(raw, source, higher_is_better, team_col, score_col, public_col, private_col,
                     split)


def _capped(board: Leaderboard) -> Leaderboard:
    """The board, refused when it holds more entries than ``--max-entries`` (before analysis)."""
    limits.current().check_rows(len(board.entries), board.source, entries=True)
    return board


def leaderboard_from_frame(frame: pd.DataFrame, *, higher_is_better: bool,
                           team_col: str | None = None, score_col: str | None = None,
                           public_col: str | None = None, private_col: str | None = None,
                           split: str = "private", source: str = "DataFrame") -> Leaderboard:
    """:func:`read_leaderboard` for a DataFrame already in memory (the Python API).

    The frame goes through exactly the checks a file does (it is written as CSV text and read
    back), so a DataFrame and the same table saved as a CSV give the same entries. Rows are
    numbered as they would be in that CSV: the header is line 1, ``frame.iloc[0]`` line 2.

    Examples
    --------
    >>> df = pd.DataFrame({"team": ["a", "b"], "score": [0.8, 0.9]})
    >>> leaderboard_from_frame(df, higher_is_better=True).entries[["team", "score"]].values.tolist()
    [['a', 0.8], ['b', 0.9]]
    """
    if not isinstance(frame, pd.DataFrame):
        raise InputError(f"expected a pandas DataFrame or a path, got {type(frame).__name__}")
    if split not in ("private", "public"):
        raise InputError(f"split must be 'private' or 'public', not {split!r}", file=source)
    data = frame_csv(frame, source)   # a carriage return or a lone surrogate as a file's has it
    if isinstance(source, FrameSource):   # its errors name the frame's rows, line breaks or not
        source = source.with_lines(spanned_lines(data, len(frame)))
    return _from_raw(parse_csv(data, source), source, higher_is_better, team_col, score_col,
                     public_col, private_col, split)


def _from_raw(raw: pd.DataFrame, source: str, higher_is_better: bool, team_col: str | None,
              score_col: str | None, public_col: str | None, private_col: str | None,
              split: str) -> Leaderboard:
    if not _is_kaggle(raw.columns):
        # a table holds one entry per row: its count is refused before the names and scores are
        # checked (a million-row board: 3.2 s -> 0.9 s to its one-line error)
        limits.current().check_rows(len(raw), source, entries=True)
        return _read_table(raw, source, team_col, score_col, public_col, private_col, split)
    if public_col is not None or private_col is not None:
        raise InputError("this is a Kaggle leaderboard download, with one score column 'Score' "
                         "and no public/private columns; drop the public/private column options",
                         file=source)
    for given, expected in ((team_col, "TeamName"), (score_col, "Score")):
        if given is not None and given.strip().lower() != expected.lower():
            raise InputError(f"this is a Kaggle leaderboard download: its column is {expected!r}, "
                             f"not {given!r}; drop that option", file=source)
    return _capped(_read_kaggle(raw, source, higher_is_better))


def _is_kaggle(columns: pd.Index) -> bool:
    return tuple(columns) == KAGGLE_COLUMNS


def _read_kaggle(raw: pd.DataFrame, source: str, higher_is_better: bool) -> Leaderboard:
    require_nonempty(raw, "TeamId", source, "every submission needs its team's id")
    require_nonempty(raw, "TeamName", source, "every entry needs a team name")
    limits.current().check_names(raw["TeamName"].str.strip(), source, "TeamName")
    score = column_numbers(raw, "Score", source, allow_missing=False)
    # Earliest submission first among equal best scores; unparseable dates go last, then file order.
    when = pd.to_datetime(raw["SubmissionDate"], errors="coerce", format="ISO8601")
    order = pd.DataFrame({"team_id": raw["TeamId"].str.strip(), "score": score, "when": when,
                          "line": raw.index})
    order = order.sort_values(["score", "when", "line"], na_position="last", kind="stable",
                              ascending=[not higher_is_better, True, True])
    best = order.drop_duplicates("team_id", keep="first").sort_values("line")
    entries = pd.DataFrame({"team": raw.loc[best["line"], "TeamName"].str.strip().to_numpy(),
                            "score": best["score"].to_numpy(dtype=float),
                            "line": best["line"].to_numpy(dtype=int)})
    superseded = np.setdiff1d(raw.index.to_numpy(), entries["line"].to_numpy())
    dropped: tuple[DroppedRows, ...] = ()
    if len(superseded):
        dropped = (DroppedRows("superseded by the team's better submission", len(superseded),
                               tuple(int(x) for x in superseded[:_MAX_LINES])),)
    return Leaderboard(entries=entries, source=source, format="kaggle-download",
                       score_column="Score", split=None, rows_read=len(raw), dropped=dropped)


def _read_table(raw: pd.DataFrame, source: str, team_col: str | None, score_col: str | None,
                public_col: str | None, private_col: str | None, split: str) -> Leaderboard:
    team = find_column(raw, team_col, TEAM_COLUMNS, None, "--team-col", source)
    if team is None:
        raise InputError(_no_team_column(raw), file=source)
    public = find_column(raw, public_col, PUBLIC_COLUMNS, None, "--public-col", source)
    private = find_column(raw, private_col, PRIVATE_COLUMNS, None, "--private-col", source)
    chosen_split = None
    score: str | None
    if score_col is not None:
        score = find_column(raw, score_col, (), "score", "--score-col", source)
        if public and private and score in (public, private):
            chosen_split = "private" if score == private else "public"
    elif public and private:
        score, chosen_split = (private, "private") if split == "private" else (public, "public")
    else:
        found = find_column(raw, None, SCORE_COLUMNS, None, "--score-col", source)
        score = found or public or private
        if score is None:
            raise InputError(f"no score column: name it 'score' (or public_score/private_score) or "
                             f"give --score-col; columns in the file: {listed_columns(raw)}"
                             f"{separator_hint(list(raw.columns))}", file=source)
    require_nonempty(raw, team, source, "every entry needs a team name")
    limits.current().check_names(raw[team].str.strip(), source, team)
    entries = pd.DataFrame({"team": raw[team].str.strip(),
                            "score": column_numbers(raw, score, source, allow_missing=False),
                            "line": raw.index.to_numpy(dtype=int)})
    for name, col in (("public_score", public), ("private_score", private)):
        if col is not None:
            entries[name] = column_numbers(raw, col, source, allow_missing=col != score)
    entries = entries.reset_index(drop=True)
    return Leaderboard(entries=entries, source=source, format="table", score_column=score,
                       split=chosen_split, rows_read=len(raw))


def _no_team_column(raw: pd.DataFrame) -> str:
    """The error for a table without a column of names, with the column that could name the
    entries (a ``rank,score`` board: its ranks) as the option to give.

    Examples
    --------
    >>> print(_no_team_column(pd.DataFrame(columns=["rank", "score"])))
    ... # doctest: +ELLIPSIS, +NORMALIZE_WHITESPACE
    no team column: name it one of team, ..., entry or give --team-col; columns in the file: rank, score (to
    name the entries by 'rank': --team-col 'rank')
    """
    scores = set(SCORE_COLUMNS + PUBLIC_COLUMNS + PRIVATE_COLUMNS)
    other = [c for c in raw.columns if str(c).strip().lower() not in scores and str(c).strip()]
    hint = f" (to name the entries by {other[0]!r}: --team-col {other[0]!r})" if other else ""
    return (f"no team column: name it one of {', '.join(TEAM_COLUMNS)} or give --team-col; "
            f"columns in the file: {listed_columns(raw)}{separator_hint(list(raw.columns))}{hint}")
