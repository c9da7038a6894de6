"""Columns of a table read as text (:func:`~leaderboard.ingest.toolkit.reading.parse_csv`):
finding one, reading one as numbers, requiring one without blanks.

The table's index is the line each row starts on, so that every error names the file, the line
and the column, and says how many rows share the problem (``3 rows are not numbers (lines 4, 9,
12)``).
"""
from __future__ import annotations

from typing import overload

import numpy as np
import pandas as pd

from leaderboard.errors import InputError

# Spellings of "no value" accepted in the *other* split's column (not in the analysed one).
MISSING = {"", "nan", "na", "n/a", "null", "none", "-"}
_SHOW = 5  # bad lines / values quoted in an error message

# The largest magnitude a score, value, target or prediction may have: a sum of a million squares
# of it stays finite in float64 (1e100 squared is 1e200), so no metric overflows on it.
MAX_MAGNITUDE = 1e100


@overload   # a required role (or a given name) is found or raises: never None
def find_column(raw: pd.DataFrame, given: str | None, candidates: tuple[str, ...],
                role: str, option: str, source: str) -> str: ...
@overload
def find_column(raw: pd.DataFrame, given: str, candidates: tuple[str, ...],
                role: None, option: str, source: str) -> str: ...
@overload
def find_column(raw: pd.DataFrame, given: str | None, candidates: tuple[str, ...],
                role: None, option: str, source: str) -> str | None: ...
def find_column(raw: pd.DataFrame, given: str | None, candidates: tuple[str, ...],
                role: str | None, option: str, source: str) -> str | None:
    """The file's column for ``given`` (exact, else unique case-insensitive match) or candidates.

    Raises when ``given`` is not found, or when nothing is found and ``role`` is set (required).

    Examples
    --------
    >>> raw = pd.DataFrame(columns=["Team Name", "score"])
    >>> find_column(raw, " team name", (), "team", "--team-col", "b.csv")
    'Team Name'
    >>> find_column(raw, None, ("score",), None, "--score-col", "b.csv")
    'score'
    >>> find_column(raw, None, ("team",), "team", "--team-col", "b.csv")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    leaderboard.errors.InputError: b.csv: no team column: name it one of team or give --team-col; columns in
    the file: Team Name, score
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
                         f"{listed_columns(raw)}{separator_hint(columns)}", file=source)
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
                         f"{option}; columns in the file: {listed_columns(raw)}"
                         f"{separator_hint(columns)}", file=source)
    return None


def listed_columns(raw: pd.DataFrame, limit: int = 20) -> str:
    """The table's column names for a message, at most ``limit`` of them.

    Examples
    --------
    >>> listed_columns(pd.DataFrame(columns=["id", "a  b", ""]))
    "id, a b, ''"
    """
    names = [" ".join(str(c).split()) or "''" for c in raw.columns]
    more = f", ... ({len(names) - limit} more)" if len(names) > limit else ""
    return ", ".join(names[:limit]) + more


def separator_hint(columns: list[str]) -> str:
    """What to add to "column not found" when the header is one column holding every name: a
    semicolon- or tab-separated file read as CSV.

    Examples
    --------
    >>> separator_hint(["team;score"]), separator_hint(["team", "score"])
    (' (the file seems separated by semicolons; save it comma-separated)', '')
    """
    if len(columns) == 1:
        for sep, word in ((";", "semicolons"), ("\t", "tabs")):
            if sep in columns[0]:
                return f" (the file seems separated by {word}; save it comma-separated)"
    return ""


def lines_of(mask: pd.Series) -> tuple[int, str]:
    """How many rows ``mask`` selects, and "line 4" or "lines 4, 9, ..." naming the first few.

    Examples
    --------
    >>> lines_of(pd.Series([False, True, True], index=[2, 3, 5]))
    (2, 'lines 3, 5')
    """
    lines = mask.index[mask.to_numpy()].tolist()
    shown = ", ".join(map(str, lines[:_SHOW])) + (", ..." if len(lines) > _SHOW else "")
    return len(lines), f"line{'s' if len(lines) > 1 else ''} {shown}"


def require_nonempty(raw: pd.DataFrame, col: str, source: str, why: str) -> None:
    """An :class:`InputError` naming the first blank cell of ``col`` (and how many), if any.

    Examples
    --------
    >>> raw = pd.DataFrame({"team": ["a", " "]}, index=[2, 3])
    >>> require_nonempty(raw, "team", "b.csv", "every entry needs a team name")
    ... # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    leaderboard.errors.InputError: b.csv:3: column 'team': 1 row is empty (line 3); every entry needs a team
    name
    """
    empty = raw[col].str.strip() == ""
    n, where = lines_of(empty)
    if n:
        raise InputError(f"{n} {'row is' if n == 1 else 'rows are'} empty ({where}); {why}",
                         file=source, row=int(empty.idxmax()), column=col)


def column_numbers(raw: pd.DataFrame, col: str, source: str, *, allow_missing: bool,
                   bounded: bool = True) -> pd.Series:
    """Column ``col`` as finite floats; blanks become NaN only when ``allow_missing``; a value
    beyond :data:`MAX_MAGNITUDE` is refused unless not ``bounded`` (the caller sorts it out).

    Examples
    --------
    >>> raw = pd.DataFrame({"score": ["0.5", " 1e3", "n/a"]}, index=[2, 3, 4])
    >>> column_numbers(raw, "score", "b.csv", allow_missing=True).tolist()
    [0.5, 1000.0, nan]
    >>> column_numbers(raw, "score", "b.csv", allow_missing=False)  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    leaderboard.errors.InputError: b.csv:4: column 'score': 1 row is not a number (line 4): 'n/a'; fix or
    delete them
    """
    text = raw[col].str.strip()
    values = pd.to_numeric(text, errors="coerce").astype(float)
    bad = ~np.isfinite(values)
    if allow_missing:
        missing = text.str.lower().isin(MISSING)
        values[missing] = np.nan
        bad &= ~missing
    n, where = lines_of(bad)
    if n:
        quoted = ", ".join(repr(v[:20]) for v in raw.loc[bad, col].head(_SHOW))
        rows = "row is not a number" if n == 1 else "rows are not numbers"
        raise InputError(f"{n} {rows} ({where}): {quoted}; fix or delete them", file=source,
                         row=int(bad.idxmax()), column=col)
    huge = values.abs() > (MAX_MAGNITUDE if bounded else np.inf)
    n, where = lines_of(huge)
    if n:
        quoted = ", ".join(repr(v[:20]) for v in raw.loc[huge, col].head(_SHOW))
        raise InputError(f"{n} value{'s' if n > 1 else ''} beyond +-{MAX_MAGNITUDE:g} ({where}): "
                         f"{quoted}; sums and squares of such numbers overflow, so they are "
                         "refused; rescale them", file=source, row=int(huge.idxmax()), column=col)
    return values
