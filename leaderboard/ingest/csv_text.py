"""CSV bytes before pandas sees them: UTF-8 checked in chunks, the header as written, ambiguous
column names, and the physical line each record starts on.

Shared by the leaderboard reader (:mod:`leaderboard.ingest.leaderboards`) and the submission reader
(:mod:`leaderboard.ingest.submissions.table`). Nothing here holds a second copy of a whole file: the
checks walk the bytes in chunks, so memory stays bounded by the file-size cap.
"""
from __future__ import annotations

import codecs
import csv
import io

import numpy as np

_CHUNK = 1 << 20
_HEADER_BYTES = 1 << 20  # a header longer than this is not a CSV header


def utf8_error(data: bytes) -> tuple[int, int] | None:
    """``(line, byte)`` of the first byte that is not UTF-8, else None (decoded in chunks).

    Examples
    --------
    >>> utf8_error(b"a,b\\n1,\\xff\\n"), utf8_error("é".encode())
    ((2, 255), None)
    """
    decoder = codecs.getincrementaldecoder("utf-8")()
    for start in range(0, len(data), _CHUNK):
        try:
            decoder.decode(data[start:start + _CHUNK], final=start + _CHUNK >= len(data))
        except UnicodeDecodeError as error:
            offset = start + error.start
            return data[:offset].count(b"\n") + 1, data[offset] if offset < len(data) else 0
    return None


def nul_line(data: bytes) -> int | None:
    """Line of the first NUL byte (a binary file, not CSV text), else None."""
    at = data.find(b"\x00")
    return None if at < 0 else data[:at].count(b"\n") + 1


def header_fields(data: bytes) -> list[str]:
    """The fields of the first record, as written (a quoted name may hold commas or line breaks).

    Raises ``csv.Error`` for a header that is not valid CSV, and ``ValueError`` when it runs past
    the first megabyte.

    Examples
    --------
    >>> header_fields(b'\\xef\\xbb\\xbfid,"a,b",c\\n1,2,3\\n')
    ['id', 'a,b', 'c']
    """
    head = data[:_HEADER_BYTES].decode("utf-8-sig", errors="replace")
    stream = io.StringIO(head, newline="")
    fields = next(csv.reader(stream), [])
    if len(data) > _HEADER_BYTES and stream.tell() >= len(head):
        raise ValueError("the header line is longer than 1 MB")
    return fields


def ambiguous_columns(fields: list[str], *, ignore_case: bool = False,
                      among: set[str] | None = None) -> tuple[str, int, int] | None:
    """The first column name written twice (ignoring surrounding spaces, and case when asked):
    ``(name, first column, second column)`` with 1-based positions, else None. With ``among``,
    only names whose key (lower case, stripped) is in it count.

    Examples
    --------
    >>> ambiguous_columns(["id", "Score", "score"]), ambiguous_columns(["a", "b", "a"])
    (None, ('a', 1, 3))
    >>> ambiguous_columns(["id", "Score", "score"], ignore_case=True)
    ('score', 2, 3)
    """
    seen: dict[str, int] = {}
    for position, name in enumerate(fields, start=1):
        key = name.strip().lower() if ignore_case else name.strip()
        if among is not None and name.strip().lower() not in among:
            continue
        if not key:
            continue
        if key in seen:
            return name, seen[key], position
        seen[key] = position
    return None


def duplicate_words(fields: list[str], clash: tuple[str, int, int]) -> str:
    """The reason for :func:`ambiguous_columns`' answer, naming both spellings."""
    name, first, second = clash
    a, b = fields[first - 1], fields[second - 1]
    how = "is written twice" if a == b else f"and {b.strip()!r} differ only in case or spaces"
    subject = f"column {a.strip()!r}" if a == b else f"columns {a.strip()!r}"
    return (f"{subject} {how} in the header (columns {first} and {second}); which one is meant "
            "is ambiguous: rename or delete one")


def physical_lines(data: bytes) -> int:
    """Lines in the file as an editor counts them (``\\n``, ``\\r\\n`` or a lone ``\\r``)."""
    newlines = data.count(b"\n")
    if newlines == 0:
        newlines = data.count(b"\r")
    ends = data.endswith((b"\n", b"\r"))
    return newlines + (0 if ends or not data else 1)


def record_lines(data: bytes, records: int) -> np.ndarray | None:
    """The physical line each data record starts on (header = line 1), for ``records`` records.

    Only walks the file when a quoted field spans lines (the physical line count says so), and
    returns None if its count of records disagrees with ``records`` (then the caller keeps record
    numbers). One record per line gives ``2, 3, ...``.

    Examples
    --------
    >>> record_lines(b'team,score\\n"a\\nb",1\\nc,2\\n', 2).tolist()
    [2, 4]
    """
    if physical_lines(data) == records + 1:
        return np.arange(2, records + 2)
    text = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8-sig", errors="replace", newline="")
    reader = csv.reader(text)
    starts, previous = [], 0
    try:
        for _ in reader:
            starts.append(previous + 1)
            previous = reader.line_num
    except csv.Error:
        return None
    if len(starts) != records + 1:
        return None
    return np.asarray(starts[1:], dtype=np.int64)


def line_of_record(data: bytes, record: int) -> int:
    """The physical line on which record number ``record`` starts (the header is record 1), as
    pandas numbers records in its errors; ``record`` itself if the file cannot be walked."""
    text = io.TextIOWrapper(io.BytesIO(data), encoding="utf-8-sig", errors="replace", newline="")
    reader = csv.reader(text)
    previous = 0
    try:
        for number, _ in enumerate(reader, start=1):
            if number == record:
                return previous + 1
            previous = reader.line_num
    except csv.Error:
        pass
    return record
