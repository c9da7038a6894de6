"""Stage 1, ingest: read a leaderboard file into a :class:`Leaderboard`.

Two layouts are understood: Kaggle's leaderboard download (``TeamId,TeamName,SubmissionDate,Score``,
a history of each team's improvements) and a plain table of teams and scores, optionally with
``public_score``/``private_score`` columns. Every problem with the file is an :class:`InputError`
naming the file, the line and the column, never a traceback.

Line numbers are the file's physical lines, as an editor shows them: a quoted team name holding a
line break does not shift the lines after it, and blank lines are skipped but still counted. The
file itself is read by :func:`leaderboard.ingest.safe_read.read_file` (regular files only, size capped
before and after decompression).
"""
from __future__ import annotations

import csv
import io
import os
import re
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from leaderboard import limits
from leaderboard.ingest.csv_text import (ambiguous_columns, duplicate_words, header_fields,
                                  line_of_record, nul_line, record_lines, utf8_error)
from leaderboard.errors import FrameSource, InputError, processing
from leaderboard.ingest.in_memory import frame_csv, spanned_lines
from leaderboard.ingest.safe_read import DEFAULT_MAX_BYTES, Unreadable, read_file

KAGGLE_COLUMNS = ("TeamId", "TeamName", "SubmissionDate", "Score")
TEAM_COLUMNS = ("team", "team_name", "teamname", "name", "participant", "model", "entry")
SCORE_COLUMNS = ("score",)
PUBLIC_COLUMNS = ("public_score", "public")
PRIVATE_COLUMNS = ("private_score", "private")
# Spellings of "no value" accepted in the *other* split's column (not in the analysed one).
_MISSING = {"", "nan", "na", "n/a", "null", "none", "-"}
_MAX_LINES = 20  # DroppedRows keeps at most this many line numbers
_SHOW = 5  # bad lines / values quoted in an error message


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
    raw = _read_csv(Path(path), source, max_bytes)
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
    data = frame_csv(frame)   # a carriage return or a lone surrogate as a file's reader has it
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


def _read_csv(path: Path, source: str, max_bytes: int = DEFAULT_MAX_BYTES) -> pd.DataFrame:
    """Every cell as a string, blank lines dropped, indexed by the line each record starts on."""
    if path.is_dir():
        raise InputError("is a directory, not a CSV file", file=source)
    try:
        data = read_file(path, max_bytes=max_bytes)
    except Unreadable as err:
        reason = str(err) + ("; check the path" if str(err) == "file not found" else "")
        raise InputError(f"not a readable CSV file ({reason})" if err.damaged else reason,
                         file=source) from None
    with processing(source):
        return parse_csv(data, source)


def parse_csv(data: bytes, source: str) -> pd.DataFrame:
    """:func:`_read_csv` on bytes already read: every problem is an :class:`InputError`."""
    if not data.strip():
        raise InputError("the file is empty: expected a header line and data rows", file=source)
    bad = utf8_error(data)
    if bad is not None:
        raise InputError(f"not UTF-8 text (byte 0x{bad[1]:02x}); is it a CSV file? Save it as "
                         "'CSV UTF-8'", file=source, row=bad[0])
    nul = nul_line(data)
    if nul is not None:
        raise InputError("not a CSV text file (a NUL byte)", file=source, row=nul)
    try:
        fields = header_fields(data)
    except (csv.Error, ValueError) as err:
        raise InputError(f"not a well-formed CSV header ({_first_line(err)})", file=source,
                         row=1) from None
    if not any(f.strip() for f in fields):
        raise InputError("the first line is blank; the header (column names) must be on line 1",
                         file=source, row=1)
    caps = limits.current()
    caps.check_columns(len(fields), source)
    caps.check_rows(data.count(b"\n") - (1 if data.endswith(b"\n") else 0), source)
    clash = ambiguous_columns(fields)
    if clash is not None:  # pandas would rename the second one 'name.1' and read the first
        raise InputError(duplicate_words(fields, clash), file=source, row=1)
    try:
        # Strings first so that bad scores can be quoted back exactly. Blank lines are kept here
        # (and dropped below) so that the row index maps to the file's line numbers.
        # index_col=False: else pandas silently makes a first column of a row with one field too
        # many the index; it warns instead, and the warning is turned into an error.
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            raw = pd.read_csv(io.BytesIO(data), encoding="utf-8-sig", dtype=str,
                              keep_default_na=False, skip_blank_lines=False, index_col=False)
    except pd.errors.EmptyDataError:
        raise InputError("the file is empty: expected a header line and data rows",
                         file=source) from None
    except pd.errors.ParserWarning:  # only for the first data row, which is record 2
        raise InputError("not a well-formed CSV: this line has more fields than the header; "
                         + _quote_hint(data), file=source,
                         row=line_of_record(data, 2)) from None
    except pd.errors.ParserError as err:
        raise _parser_error(str(err), source, data) from None
    except (ValueError, UnicodeDecodeError, csv.Error) as err:
        raise InputError(f"not a readable CSV file ({_first_line(err)})", file=source) from None
    if len(raw.columns) == 0:
        raise InputError("the first line is blank; the header (column names) must be on line 1",
                         file=source, row=1)
    raw = raw.fillna("")
    lines = record_lines(data, len(raw))
    raw.index = pd.Index(lines) if lines is not None else pd.RangeIndex(2, len(raw) + 2)
    raw = raw[~raw.apply(lambda col: col.str.strip() == "").all(axis=1)]
    if raw.empty:
        raise InputError("no data rows: nothing below the header line", file=source)
    return raw


def _first_line(err: BaseException | str) -> str:
    text = str(err).strip()
    return text.splitlines()[0] if text else "unknown error"


def _parser_error(message: str, source: str, data: bytes) -> InputError:
    # pandas numbers records, not lines: a quoted line break would shift every later number.
    m = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", message)
    if m:
        return InputError(f"not a well-formed CSV: this line has {m[3]} fields but the header has "
                          f"{m[1]}; {_quote_hint(data)}", file=source,
                          row=line_of_record(data, int(m[2])))
    m = re.search(r"EOF inside string starting at row (\d+)", message)
    if m:  # pandas counts rows from 0 at the header
        return InputError("not a well-formed CSV: a quoted field starting on this line is never "
                          "closed", file=source, row=line_of_record(data, int(m[1]) + 1))
    return InputError(f"not a readable CSV file ({_first_line(message)})", file=source)


def _quote_hint(data: bytes) -> str:
    """What to do about a line with too many fields: quote commas, unless the file is not
    comma-separated at all (a TSV whose names hold commas is not the commas' fault)."""
    header = data[:4096].split(b"\n", 1)[0]
    if header.count(b"\t") > header.count(b","):
        return "the file seems separated by tabs: save it comma-separated"
    if header.count(b";") > header.count(b","):
        return "the file seems separated by semicolons: save it comma-separated"
    return "quote any field that contains a comma"


def _is_kaggle(columns: pd.Index) -> bool:
    return tuple(columns) == KAGGLE_COLUMNS


def _read_kaggle(raw: pd.DataFrame, source: str, higher_is_better: bool) -> Leaderboard:
    _require_nonempty(raw, "TeamId", source, "every submission needs its team's id")
    _require_nonempty(raw, "TeamName", source, "every entry needs a team name")
    limits.current().check_names(raw["TeamName"].str.strip(), source, "TeamName")
    score = _numbers(raw, "Score", source, allow_missing=False)
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
    dropped = ()
    if len(superseded):
        dropped = (DroppedRows("superseded by the team's better submission", len(superseded),
                               tuple(int(x) for x in superseded[:_MAX_LINES])),)
    return Leaderboard(entries=entries, source=source, format="kaggle-download",
                       score_column="Score", split=None, rows_read=len(raw), dropped=dropped)


def _read_table(raw: pd.DataFrame, source: str, team_col: str | None, score_col: str | None,
                public_col: str | None, private_col: str | None, split: str) -> Leaderboard:
    team = _column(raw, team_col, TEAM_COLUMNS, None, "--team-col", source)
    if team is None:
        raise InputError(_no_team_column(raw), file=source)
    public = _column(raw, public_col, PUBLIC_COLUMNS, None, "--public-col", source)
    private = _column(raw, private_col, PRIVATE_COLUMNS, None, "--private-col", source)
    chosen_split = None
    if score_col is not None:
        score = _column(raw, score_col, (), "score", "--score-col", source)
        if public and private and score in (public, private):
            chosen_split = "private" if score == private else "public"
    elif public and private:
        score, chosen_split = (private, "private") if split == "private" else (public, "public")
    else:
        found = _column(raw, None, SCORE_COLUMNS, None, "--score-col", source)
        score = found or public or private
        if score is None:
            raise InputError(f"no score column: name it 'score' (or public_score/private_score) or "
                             f"give --score-col; columns in the file: {_list(raw)}"
                             f"{_separator_hint(list(raw.columns))}", file=source)
    _require_nonempty(raw, team, source, "every entry needs a team name")
    limits.current().check_names(raw[team].str.strip(), source, team)
    entries = pd.DataFrame({"team": raw[team].str.strip(),
                            "score": _numbers(raw, score, source, allow_missing=False),
                            "line": raw.index.to_numpy(dtype=int)})
    for name, col in (("public_score", public), ("private_score", private)):
        if col is not None:
            entries[name] = _numbers(raw, col, source, allow_missing=col != score)
    entries = entries.reset_index(drop=True)
    return Leaderboard(entries=entries, source=source, format="table", score_column=score,
                       split=chosen_split, rows_read=len(raw))


def _column(raw: pd.DataFrame, given: str | None, candidates: tuple[str, ...], role: str | None,
            option: str, source: str) -> str | None:
    """The file's column for ``given`` (exact, else unique case-insensitive match) or candidates.

    Raises when ``given`` is not found, or when nothing is found and ``role`` is set (required).
    """
    columns = list(raw.columns)
    if given is not None:
        if given in columns:  # named exactly: the user's choice, whatever else matches loosely
            return given
        loose = [c for c in columns if c.strip().lower() == given.strip().lower()]
        if len(loose) == 1:
            return loose[0]
        if loose:
            raise InputError(f"columns {loose[0]!r} and {loose[1]!r} both match {given!r} "
                             f"({option}), differing only in case or spaces; give the exact "
                             "name", file=source, row=1)
        raise InputError(f"column {given!r} ({option}) not found; columns in the file: "
                         f"{_list(raw)}{_separator_hint(columns)}", file=source)
    for cand in candidates:
        found = [c for c in columns if c.strip().lower() == cand]
        if len(found) > 1:  # picking one would be silent guesswork
            raise InputError(f"columns {found[0]!r} and {found[1]!r} differ only in case or "
                             f"spaces, and either could be the {role or cand} column; rename "
                             f"one, or name the one to use ({option})", file=source, row=1)
        if found:
            return found[0]
    if role is not None:
        raise InputError(f"no {role} column: name it one of {', '.join(candidates)} or give "
                         f"{option}; columns in the file: {_list(raw)}{_separator_hint(columns)}",
                         file=source)
    return None


def _no_team_column(raw: pd.DataFrame) -> str:
    """The error for a table without a column of names, with the column that could name the
    entries (a ``rank,score`` board: its ranks) as the option to give.

    Examples
    --------
    >>> _no_team_column(pd.DataFrame(columns=["rank", "score"]))  # doctest: +ELLIPSIS
    "no team column: name it one of team, ..., entry or give --team-col; columns in the file: rank, score (to name the entries by 'rank': --team-col 'rank')"
    """
    scores = set(SCORE_COLUMNS + PUBLIC_COLUMNS + PRIVATE_COLUMNS)
    other = [c for c in raw.columns if str(c).strip().lower() not in scores and str(c).strip()]
    hint = f" (to name the entries by {other[0]!r}: --team-col {other[0]!r})" if other else ""
    return (f"no team column: name it one of {', '.join(TEAM_COLUMNS)} or give --team-col; "
            f"columns in the file: {_list(raw)}{_separator_hint(list(raw.columns))}{hint}")


def _list(raw: pd.DataFrame, limit: int = 20) -> str:
    names = [" ".join(str(c).split()) or "''" for c in raw.columns]
    more = f", ... ({len(names) - limit} more)" if len(names) > limit else ""
    return ", ".join(names[:limit]) + more


def _separator_hint(columns: list[str]) -> str:
    # A semicolon- or tab-separated file reads as one column whose name holds every header.
    if len(columns) == 1:
        for sep, word in ((";", "semicolons"), ("\t", "tabs")):
            if sep in columns[0]:
                return f" (the file seems separated by {word}; save it comma-separated)"
    return ""


def _lines(mask: pd.Series) -> tuple[int, str]:
    """How many rows ``mask`` selects, and "line 4" or "lines 4, 9, ..." naming the first few."""
    lines = mask.index[mask.to_numpy()].tolist()
    shown = ", ".join(map(str, lines[:_SHOW])) + (", ..." if len(lines) > _SHOW else "")
    return len(lines), f"line{'s' if len(lines) > 1 else ''} {shown}"


def _require_nonempty(raw: pd.DataFrame, col: str, source: str, why: str) -> None:
    empty = raw[col].str.strip() == ""
    n, where = _lines(empty)
    if n:
        raise InputError(f"{n} {'row is' if n == 1 else 'rows are'} empty ({where}); {why}",
                         file=source, row=int(empty.idxmax()), column=col)


# The largest magnitude a score, value, target or prediction may have: a sum of a million squares
# of it stays finite in float64 (1e100 squared is 1e200), so no metric overflows on it.
MAX_MAGNITUDE = 1e100


def _numbers(raw: pd.DataFrame, col: str, source: str, *, allow_missing: bool,
             bounded: bool = True) -> pd.Series:
    """Column ``col`` as finite floats; blanks become NaN only when ``allow_missing``; a value
    beyond :data:`MAX_MAGNITUDE` is refused unless not ``bounded`` (the caller sorts it out)."""
    text = raw[col].str.strip()
    values = pd.to_numeric(text, errors="coerce").astype(float)
    bad = ~np.isfinite(values)
    if allow_missing:
        missing = text.str.lower().isin(_MISSING)
        values[missing] = np.nan
        bad &= ~missing
    n, where = _lines(bad)
    if n:
        quoted = ", ".join(repr(v[:20]) for v in raw.loc[bad, col].head(_SHOW))
        rows = "row is not a number" if n == 1 else "rows are not numbers"
        raise InputError(f"{n} {rows} ({where}): {quoted}; fix or delete them", file=source,
                         row=int(bad.idxmax()), column=col)
    huge = values.abs() > (MAX_MAGNITUDE if bounded else np.inf)
    n, where = _lines(huge)
    if n:
        quoted = ", ".join(repr(v[:20]) for v in raw.loc[huge, col].head(_SHOW))
        raise InputError(f"{n} value{'s' if n > 1 else ''} beyond +-{MAX_MAGNITUDE:g} ({where}): "
                         f"{quoted}; sums and squares of such numbers overflow, so they are "
                         "refused; rescale them", file=source, row=int(huge.idxmax()), column=col)
    return values
