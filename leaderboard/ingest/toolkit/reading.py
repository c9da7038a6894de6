"""A file's bytes as a table of text cells indexed by the line each row starts on: the line map
every reader's errors are numbered by.

Line numbers are the file's physical lines, as an editor shows them: a quoted name holding a
line break does not shift the lines after it, and blank lines are skipped but still counted
(:func:`~leaderboard.ingest.csv_text.record_lines`). A Parquet file's rows are numbered as lines
under a header (row 1 on line 2), so that messages read alike. Every cell is text, as written,
so that a bad value can be quoted back exactly. The file itself is read by
:func:`leaderboard.ingest.safe_read.read_file` (regular files only, size capped before and after
decompression); every problem is an :class:`~leaderboard.errors.InputError` naming the file
(and the line, where there is one).
"""
from __future__ import annotations

import csv
import io
import re
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from leaderboard import limits
from leaderboard.errors import InputError, processing
from leaderboard.ingest.csv_text import (ambiguous_columns, duplicate_words, header_fields,
                                         line_of_record, nul_line, record_lines, utf8_error)
from leaderboard.ingest.safe_read import DEFAULT_MAX_BYTES, Unreadable, read_file
from leaderboard.ingest.text_rules import clean_text
from leaderboard.ingest.toolkit.messages import Rejected
from leaderboard.ingest.toolkit.parquet import decode_parquet


def read_csv_file(path: Path, source: str, max_bytes: int = DEFAULT_MAX_BYTES) -> pd.DataFrame:
    """Every cell as a string, blank lines dropped, indexed by the line each record starts on.

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "board.csv"
    >>> _ = p.write_text('team,score\\n"a\\nb",0.5\\n\\nc,0.7\\n')
    >>> read_csv_file(p, "board.csv")
       team score
    2  a\\nb   0.5
    5     c   0.7
    """
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
    """:func:`read_csv_file` on bytes already read: every problem is an :class:`InputError`.

    Examples
    --------
    >>> parse_csv(b"team,score\\na,0.5\\n,\\nb,0.7\\n", "board.csv").index.tolist()
    [2, 4]
    >>> parse_csv(b"team,score\\na,0.5,9\\n", "board.csv")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    leaderboard.errors.InputError: board.csv:2: not a well-formed CSV: this line has more fields than the
    header; quote any field that contains a comma
    """
    if not data.strip():
        raise InputError("the file is empty: expected a header line and data rows", file=source)
    if data[:4] == b"PAR1":   # a Parquet file where only CSV is read: not "byte 0x.. on line 3"
        raise InputError("a Parquet file, where this input is read as CSV text (Parquet is read "
                         "for submissions, --items and --battles): save it as CSV", file=source)
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


def read_table_file(path: Path, source: str, max_bytes: int) -> pd.DataFrame:
    """Every cell as text indexed by its line (CSV), or by row + 2 (Parquet, as if a header).

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "results.csv"
    >>> _ = p.write_text("model,item,value\\na,q1,1\\n")
    >>> read_table_file(p, "results.csv", 1 << 20).to_dict("index")
    {2: {'model': 'a', 'item': 'q1', 'value': '1'}}
    """
    try:
        data = read_file(path, max_bytes=max_bytes)
    except Unreadable as err:
        raise InputError(str(err), file=source) from None
    if path.suffix.lower() != ".parquet":
        return parse_csv(data, source)
    try:
        frame = _read_parquet(data, source, max_bytes)
    except InputError:
        raise
    except ImportError:
        raise InputError("reading Parquet needs pyarrow: pip install pyarrow",
                         file=source) from None
    except Exception as err:  # noqa: BLE001 - any damaged file: one line
        raise InputError(f"not a readable Parquet file ({str(err).splitlines()[0][:120]})",
                         file=source) from None
    text = text_cells(frame)
    text.index = np.arange(2, len(text) + 2)
    return text


def text_cells(frame: pd.DataFrame) -> pd.DataFrame:
    """Every cell of ``frame`` as the text a CSV would hold (a missing one blank), the column
    names too: a Parquet file's, a JSON-lines file's records, a caller's DataFrame. A lone
    surrogate (a Python string; pandas and pyarrow refuse it) is escaped by
    :func:`~leaderboard.ingest.text_rules.clean_text`'s rule, as a DataFrame written to CSV.

    Examples
    --------
    >>> frame = pd.DataFrame({"model": ["a\\ud800", None], "n": [1, 2]}, dtype=object)
    >>> text_cells(frame).to_dict("list")
    {'model': ['a\\\\ud800', ''], 'n': ['1', '2']}
    """
    try:
        text = frame.astype(str)
    except UnicodeEncodeError:
        text = frame.astype(object).map(clean_text).astype(str)
    text = text.where(frame.notna(), "")
    text.columns = [clean_text(c) for c in frame.columns]
    return text


def _read_parquet(data: bytes, source: str, max_bytes: int) -> pd.DataFrame:
    """A Parquet file as a DataFrame, with the checks of every Parquet reader
    (:func:`~leaderboard.ingest.toolkit.parquet.decode_parquet`: names written twice, caps,
    what its pages expand to), and refused when it holds no rows, as a CSV would be."""
    try:
        table = decode_parquet(data, max_bytes)
    except Rejected as err:
        raise InputError(str(err), file=source, row=1 if "header" in str(err) else None) \
            from None
    if not table.num_rows:
        raise InputError("no data rows: the Parquet file holds no rows", file=source)
    return table.to_pandas()
