"""Read one submission file's bytes into a table indexed by line number, or say why it cannot be.

CSV (UTF-8 text) or Parquet (read by pyarrow; rows are numbered as lines under a header, row 1
on line 2, so that reasons read alike).

Every failure is a :class:`~leaderboard.ingest.toolkit.messages.Rejected` whose message is one
printable line a user can act on. Line numbers are the file's physical lines (header = line 1), as
an editor shows them, even when a quoted field holds a line break; blank lines are skipped but
still counted. The bytes go to pandas as they are, never copied into a second, decoded string, so
memory stays bounded by the file-size cap.
"""
from __future__ import annotations

import csv
import io
import re
import warnings
from collections.abc import Mapping

import pandas as pd

from leaderboard.ingest.csv_text import (ambiguous_columns, duplicate_words, header_fields,
                                         line_of_record, nul_line, record_lines, utf8_error)
from leaderboard.ingest.toolkit.messages import Rejected
from leaderboard.ingest.toolkit.parquet import decode_parquet


def check_text(data: bytes) -> None:
    """Rejected unless ``data`` is non-blank UTF-8 text (a byte-order mark allowed) without NULs."""
    if not data.strip():
        raise Rejected("empty file" if not data else "empty file (only blank space)")
    bad = utf8_error(data)
    if bad is not None:
        raise Rejected(f"not UTF-8 text (byte 0x{bad[1]:02x} on line {bad[0]}); save it as "
                       "'CSV UTF-8'")
    line = nul_line(data)
    if line is not None:
        raise Rejected(f"not a CSV text file (a NUL byte on line {line})")


def header(data: bytes) -> list[str]:
    """The fields of line 1; Rejected when blank, not CSV, or naming a column twice."""
    try:
        fields = header_fields(data)
    except (csv.Error, ValueError) as err:
        raise Rejected(f"not valid CSV on line 1 ({err})") from None
    if not any(f.strip() for f in fields):
        raise Rejected("the first line is blank; the header (column names) must be on line 1")
    clash = ambiguous_columns(fields)
    if clash is not None:  # pandas would rename the second one and score the first, silently
        raise Rejected(duplicate_words(fields, clash))
    return fields


def read_table(data: bytes, dtype: Mapping[str, object]) -> pd.DataFrame:
    """All rows, indexed by the physical line each starts on (header = line 1), blank lines in.

    Cells are kept as written (``keep_default_na=False``): a column with anything but numbers
    comes back as text, so the first offending value can be quoted.
    """
    try:
        with warnings.catch_warnings():
            # index_col=False: a first data line with too many fields would otherwise silently
            # become the index; pandas warns instead, and the warning is turned into an error.
            warnings.simplefilter("error", pd.errors.ParserWarning)
            warnings.simplefilter("ignore", pd.errors.DtypeWarning)
            frame = pd.read_csv(io.BytesIO(data), encoding="utf-8-sig", dtype=dict(dtype),
                                keep_default_na=False, skip_blank_lines=False, index_col=False)
    except pd.errors.ParserWarning:  # raised for the first data line only
        raise Rejected(f"not valid CSV: line {line_of_record(data, 2)} has more fields than the "
                       "header") from None
    except pd.errors.EmptyDataError:
        raise Rejected("empty file") from None
    except (pd.errors.ParserError, ValueError, csv.Error, UnicodeDecodeError) as err:
        raise Rejected(_parser_reason(str(err), data)) from None
    lines = record_lines(data, len(frame))
    frame.index = pd.Index(lines) if lines is not None else pd.RangeIndex(2, len(frame) + 2)
    return frame


def _parser_reason(message: str, data: bytes) -> str:
    # pandas numbers records, not lines: map them back to the file's lines
    m = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", message)
    if m:
        return (f"not valid CSV: line {line_of_record(data, int(m[2]))} has {m[3]} fields, the "
                f"header has {m[1]} (a comma inside a value must be quoted)")
    m = re.search(r"EOF inside string starting at row (\d+)", message)
    if m:  # pandas counts rows from 0 at the header
        return (f"not valid CSV: a quoted value opened on line "
                f"{line_of_record(data, int(m[1]) + 1)} is never closed")
    first = message.strip().splitlines()[0] if message.strip() else "unknown error"
    return f"not valid CSV ({first[:120]})"


def drop_blank_lines(frame: pd.DataFrame, id_column: str) -> pd.DataFrame:
    """``frame`` without lines whose every cell is blank (cheap: only rows with a blank id)."""
    ids = frame[id_column]
    if ids.dtype.kind in "iuf":
        return frame  # a numeric id column has no blank cells
    maybe = ids.isna() | (ids.astype(str).str.strip() == "")
    if not maybe.any():
        return frame
    candidates = frame[maybe.to_numpy()]
    blank = candidates.apply(lambda col: col.isna() | (col.astype(str).str.strip() == ""))
    return frame.drop(candidates.index[blank.all(axis=1).to_numpy()])


_PARQUET = b"PAR1"  # a Parquet file begins and ends with these four bytes


def is_parquet(data: bytes) -> bool:
    """Whether ``data`` is a Parquet file (its magic bytes at both ends).

    Examples
    --------
    >>> is_parquet(b"PAR1...PAR1"), is_parquet(b"id,PAR1\\n")
    (True, False)
    """
    return len(data) >= 8 and data[:4] == _PARQUET and data[-4:] == _PARQUET


def parquet_table(data: bytes) -> tuple[list[str], pd.DataFrame]:
    """The column names and rows of a Parquet file, indexed as CSV lines (row 1 = line 2);
    Rejected when pyarrow is missing, the file is damaged, a column name is written twice
    (:func:`~leaderboard.ingest.toolkit.parquet.decode_parquet`) or its pages decode to more than
    it may expand to."""
    try:
        import pyarrow  # noqa: F401 - only to say it is missing
    except ImportError:
        raise Rejected("reading Parquet needs pyarrow: pip install pyarrow") from None
    try:
        table = decode_parquet(data, 1 << 62)   # the file's size was capped when it was read
    except Rejected:
        raise
    except Exception as err:  # noqa: BLE001 - any damaged file: one line
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise Rejected(f"not a readable Parquet file ({first[:120]})") from None
    fields = [str(name) for name in table.column_names]
    frame = pd.DataFrame({name: table.column(j).to_pandas() for j, name in enumerate(fields)})
    frame.index = pd.RangeIndex(2, len(frame) + 2)
    return fields, frame


def column_names(data: bytes) -> list[str]:
    """The column names of a CSV (its header) or Parquet file."""
    if not is_parquet(data):
        return header(data)
    import pyarrow.parquet as pq  # read already, so pyarrow is here

    return [str(name) for name in pq.read_schema(io.BytesIO(data)).names]


def as_text(column: pd.Series) -> pd.Series:
    """A column as the text a CSV would hold: missing values blank."""
    return column.astype(str).where(column.notna(), "").astype(object)
