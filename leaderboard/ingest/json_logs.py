"""JSON files of benchmark outputs read as untrusted input: size-capped, never through a link,
and every failure one :class:`~leaderboard.errors.InputError` naming the file.

Shared by the readers of what benchmarks publish (:mod:`~leaderboard.ingest.swebench`,
:mod:`~leaderboard.ingest.helm`, :mod:`~leaderboard.ingest.inspect_logs`).
"""
from __future__ import annotations

import json
import math
import os
from pathlib import Path

from leaderboard.errors import InputError
from leaderboard.ingest.safe_read import Unreadable, read_file
from leaderboard.ingest.submissions.table import show


def parse_json(data: bytes, source: str, row: int | None = None) -> object:
    """``data`` decoded as one JSON document; an InputError naming ``source`` otherwise.

    Examples
    --------
    >>> parse_json(b'{"resolved": ["a__b-1"]}', "results.json")
    {'resolved': ['a__b-1']}
    >>> parse_json(b'{"resolved": [', "results.json")
    Traceback (most recent call last):
    ...
    leaderboard.errors.InputError: results.json: not JSON (Expecting value at line 1)
    """
    try:
        return json.loads(data.decode("utf-8", errors="replace"))
    except json.JSONDecodeError as err:
        raise InputError(f"not JSON ({err.msg} at line {err.lineno})", file=source,
                         row=row) from None
    except RecursionError:
        raise InputError("not JSON a benchmark writes (nested too deeply)", file=source,
                         row=row) from None
    except ValueError as err:   # an integer of more digits than Python converts
        raise InputError(f"not JSON ({str(err)[:80]})", file=source, row=row) from None


def load_json(path: Path, max_bytes: int) -> object:
    """The JSON document in the regular file ``path`` (a link is refused, never followed).

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "stats.json"
    >>> _ = p.write_text('[{"name": {"name": "exact_match"}, "mean": 0.5}]')
    >>> load_json(p, max_bytes=1024)[0]["mean"]
    0.5
    """
    try:
        data = read_file(path, max_bytes=max_bytes, follow_links=False, decompress=False)
    except Unreadable as err:
        raise InputError(str(err), file=str(path)) from None
    return parse_json(data, str(path))


def expect(value: object, kind: type | tuple[type, ...], what: str, source: str,
           row: int | None = None) -> object:
    """``value`` when it is a ``kind``; else an InputError saying what ``what`` should be.

    Examples
    --------
    >>> expect(["a__b-1"], list, "'resolved'", "results.json")
    ['a__b-1']
    >>> expect(3, list, "'resolved'", "results.json")
    Traceback (most recent call last):
    ...
    leaderboard.errors.InputError: results.json: 'resolved' should be a list, not 3
    """
    if isinstance(value, kind):
        return value
    names = {dict: "an object", list: "a list", str: "a text", bool: "true or false"}
    wanted = " or ".join(names.get(k, k.__name__) for k in (kind if isinstance(kind, tuple)
                                                             else (kind,)))
    raise InputError(f"{what} should be {wanted}, not {_kind(value)}", file=source, row=row)


def finite(value: object, what: str, source: str, row: int | None = None) -> float:
    """``value`` as a finite float (true/false as 1/0); an InputError naming ``what`` otherwise.

    Examples
    --------
    >>> finite(True, "exact_match", "stats.json"), finite(0.25, "exact_match", "stats.json")
    (1.0, 0.25)
    >>> finite(None, "exact_match", "stats.json")
    Traceback (most recent call last):
    ...
    leaderboard.errors.InputError: stats.json: exact_match is missing (null), not a finite number
    """
    if isinstance(value, (bool, int, float)):
        try:
            number = float(value)
        except OverflowError:
            number = math.nan
        if math.isfinite(number):
            return number
    raise InputError(f"{what} is {_kind(value)}, not a finite number", file=source, row=row)


def _kind(value: object) -> str:
    if value is None:
        return "missing (null)"
    if isinstance(value, bool):
        return "true or false"
    if isinstance(value, (int, float)):
        text = repr(value)
        return text if len(text) <= 20 else text[:20] + "..."
    if isinstance(value, str):
        return f"the text {show(value[:40])}"
    return {dict: "an object", list: "a list"}.get(type(value), type(value).__name__)


def entries(folder: Path) -> list[os.DirEntry]:
    """The entries of ``folder``, sorted by name (nothing is followed).

    Examples
    --------
    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> (root / "b").mkdir(); (root / "a").mkdir()
    >>> [e.name for e in entries(root)]
    ['a', 'b']
    """
    with os.scandir(folder) as found:
        return sorted(found, key=lambda e: e.name)
