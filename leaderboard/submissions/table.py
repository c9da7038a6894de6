"""Read one submission file's bytes into a table indexed by line number, or say why it cannot be.

Every failure is a :class:`Rejected` whose message is one line a user can act on. Line numbers
are 1-based with the header on line 1, assuming one physical line per record (no line breaks inside
quoted fields, which submission files do not have). Blank lines are skipped but still counted, so
numbers match an editor's.
"""
from __future__ import annotations

import csv
import io
import re
import warnings
from collections.abc import Mapping

import pandas as pd

_NAME_LIMIT = 40  # characters of an untrusted name or value quoted in a reason


class Rejected(Exception):
    """A submission file fails validation; ``str(error)`` is the one-line reason.

    ``rows`` is the number of data rows read, when the file could be read as a table.
    """

    def __init__(self, reason: str, rows: int | None = None) -> None:
        super().__init__(reason)
        self.rows = rows


def show(text: object) -> str:
    """An untrusted value for a one-line message: bare when plain, else quoted and shortened.

    Examples
    --------
    >>> show("1043"), show("a b"), show("x" * 50)[-6:]
    ('1043', "'a b'", "xx...'")
    """
    text = str(text)
    if re.fullmatch(r"[\w.+-]{1,40}", text, flags=re.ASCII):
        return text
    return repr(text[:_NAME_LIMIT] + "..." if len(text) > _NAME_LIMIT else text)


def quote(name: object) -> str:
    """A column name for a one-line message: always quoted, shortened when long.

    Examples
    --------
    >>> quote("Insult")
    "'Insult'"
    """
    name = " ".join(str(name).split())
    return repr(name[:_NAME_LIMIT] + "..." if len(name) > _NAME_LIMIT else name)


def column_list(names: list[str], limit: int = 12) -> str:
    """Column names for a message: one line, at most ``limit`` of them."""
    shown = [" ".join(str(n).split())[:_NAME_LIMIT] or "''" for n in names[:limit]]
    return ", ".join(shown) + (f", ... ({len(names) - limit} more)" if len(names) > limit else "")


def decode(data: bytes) -> str:
    """The file's text (UTF-8, with or without a byte-order mark)."""
    if not data.strip():
        raise Rejected("empty file" if not data else "empty file (only blank space)")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data[:err.start].count(b"\n") + 1
        raise Rejected(f"not UTF-8 text (byte 0x{data[err.start]:02x} on line {line}); save it "
                       "as 'CSV UTF-8'") from None
    if "\x00" in text:
        line = text[:text.index("\x00")].count("\n") + 1
        raise Rejected(f"not a CSV text file (a NUL byte on line {line})")
    return text


def header(text: str) -> list[str]:
    """The fields of line 1."""
    try:
        fields = next(csv.reader(io.StringIO(text)), [])
    except csv.Error as err:
        raise Rejected(f"not valid CSV on line 1 ({err})") from None
    if not any(f.strip() for f in fields):
        raise Rejected("the first line is blank; the header (column names) must be on line 1")
    return fields


def read_table(text: str, dtype: Mapping[str, object]) -> pd.DataFrame:
    """All rows, indexed by line number (header = line 1), with blank lines still in.

    Cells are kept as written (``keep_default_na=False``): a column with anything but numbers
    comes back as text, so the first offending value can be quoted.
    """
    try:
        with warnings.catch_warnings():
            # index_col=False: a first data line with too many fields would otherwise silently
            # become the index; pandas warns instead, and the warning is turned into an error.
            warnings.simplefilter("error", pd.errors.ParserWarning)
            warnings.simplefilter("ignore", pd.errors.DtypeWarning)
            frame = pd.read_csv(io.StringIO(text), dtype=dict(dtype), keep_default_na=False,
                                skip_blank_lines=False, index_col=False)
    except pd.errors.ParserWarning:  # raised for the first data line only
        raise Rejected("not valid CSV: line 2 has more fields than the header") from None
    except pd.errors.EmptyDataError:
        raise Rejected("empty file") from None
    except (pd.errors.ParserError, ValueError, csv.Error) as err:
        raise Rejected(_parser_reason(str(err))) from None
    frame.index = pd.RangeIndex(2, len(frame) + 2)
    return frame


def _parser_reason(message: str) -> str:
    m = re.search(r"Expected (\d+) fields in line (\d+), saw (\d+)", message)
    if m:
        return (f"not valid CSV: line {m[2]} has {m[3]} fields, the header has {m[1]} (a comma "
                "inside a value must be quoted)")
    m = re.search(r"EOF inside string starting at row (\d+)", message)
    if m:  # pandas counts rows from 0 at the header
        return f"not valid CSV: a quoted value opened on line {int(m[1]) + 1} is never closed"
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
