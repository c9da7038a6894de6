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
        data = frame.to_csv(index=False).encode("utf-8")
        return cls(FrameSource.named(name, spanned_lines(data, len(frame))), data)

    def loader(self):
        """A picklable function returning the bytes (what a submission listing reads)."""
        return functools.partial(_identity, self.data)


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
