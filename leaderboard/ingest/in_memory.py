"""Tables handed over in memory (the Python API's DataFrames), read by the same readers as files.

A DataFrame is turned into CSV bytes in memory (never a temporary file) and read by the reader
of its kind with every check a file gets, under the name the user gave it: an error in it reads
``DataFrame 'data', row 3, column 'score': ...`` (see :class:`~leaderboard.errors.FrameSource`).
"""
from __future__ import annotations

import functools
from dataclasses import dataclass

import pandas as pd

from leaderboard.errors import FrameSource, InputError
from leaderboard.ingest.csv_text import record_lines
from leaderboard.ingest.text_rules import clean_text


@dataclass(frozen=True)
class InMemory:
    """A table's CSV bytes and the name errors give it; readers take it where they take a path."""

    source: FrameSource
    data: bytes = b""

    @classmethod
    def of(cls, frame: object, name: str) -> InMemory:
        """``frame`` (a DataFrame) as CSV bytes, named ``name`` (the API's parameter).

        Examples
        --------
        >>> table = InMemory.of(pd.DataFrame({"team": ["a"], "-score": [0.5]}), "data")
        >>> str(table.source), table.data
        ("DataFrame 'data'", b'team,-score\\na,0.5\\n')
        """
        if not isinstance(frame, pd.DataFrame):
            raise InputError(f"{name}: expected a pandas DataFrame or a path, got "
                             f"{type(frame).__name__}")
        data = frame_csv(frame, FrameSource.named(name))
        return cls(FrameSource.named(name, spanned_lines(data, len(frame))), data)

    def loader(self):
        """A picklable function returning the bytes (what a submission listing reads)."""
        return functools.partial(_identity, self.data)


def frame_csv(frame: pd.DataFrame, source: str | None = None) -> bytes:
    """``frame`` as the CSV bytes its reader reads (no index). A string the CSV text could not
    carry is made safe as the readers of files make it: a carriage return (which pandas leaves
    unquoted with its default line ends, so that it would end the row) is kept inside a quoted
    cell; a lone surrogate becomes ``\\ud800`` (:func:`~leaderboard.ingest.text_rules.
    clean_text`). Columns of several levels (a MultiIndex) are refused: their CSV has one
    header line per level, read as a header and data rows. ``source`` names the DataFrame.

    Examples
    --------
    >>> frame_csv(pd.DataFrame({"team": ["a\\rb", "c\\ud800"], "score": [0.5, 0.6]}, dtype=object))
    b'team,score\\r\\n"a\\rb",0.5\\r\\nc\\\\ud800,0.6\\r\\n'
    """
    if frame.columns.nlevels > 1:   # CSV would write one header line per level
        raise InputError(f"its columns have {frame.columns.nlevels} levels (a MultiIndex); give "
                         "one level of names, e.g. df.columns = ['_'.join(map(str, c)) for c in "
                         "df.columns]", file=source)
    text = frame.to_csv(index=False)
    if "\r" in text:   # quoted only with CRLF line ends
        text = frame.to_csv(index=False, lineterminator="\r\n")
    return clean_text(text).encode("utf-8")


def spanned_lines(data: bytes, records: int) -> tuple[int, ...] | None:
    """The line each record of a frame's CSV text starts on, when a cell's line break moves
    them (None when every record is one line): what :class:`FrameSource` turns back into rows.

    Examples
    --------
    >>> spanned_lines(pd.DataFrame({"team": ["a\\nb", "c"]}).to_csv(index=False).encode(), 2)
    (2, 4)
    """
    starts = record_lines(data, records)
    if starts is None or (starts == range(2, records + 2)).all():
        return None
    return tuple(int(line) for line in starts)


def _identity(data: bytes) -> bytes:
    return data
