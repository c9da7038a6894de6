"""JSON files of benchmark outputs read as untrusted input: size-capped, never through a link,
and every failure one :class:`~leaderboard.errors.InputError` naming the file.

Shared by the readers of what benchmarks publish (:mod:`~leaderboard.ingest.swebench`,
:mod:`~leaderboard.ingest.helm`, :mod:`~leaderboard.ingest.inspect_logs`).
"""
from __future__ import annotations

import json
import math
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeVar, overload

from leaderboard.errors import InputError
from leaderboard.ingest.safe_read import Unreadable, format_size, read_file
from leaderboard.ingest.text_rules import clean_text, decode_utf8
from leaderboard.ingest.toolkit.messages import show


def parse_json(data: bytes, source: str, row: int | None = None, *,
               unique_keys: bool = False, memory_checked: bool = False) -> object:
    """``data`` decoded as one JSON document; an InputError naming ``source`` otherwise.

    The text is UTF-8 (:func:`~leaderboard.ingest.text_rules.decode_utf8`: a byte-order mark is
    dropped, an undecodable byte refused naming its line); a document whose objects would take
    more memory than ``--max-memory`` is refused before it is parsed (:func:`check_memory`);
    nesting too deep or an integer of more digits than Python converts is one line too. With
    ``unique_keys``, an object giving one key twice with different values (the second would
    silently win) is refused. ``memory_checked``: the caller checked the memory of several
    documents together.

    Examples
    --------
    >>> parse_json(b'{"resolved": ["a__b-1"]}', "results.json")
    {'resolved': ['a__b-1']}
    >>> parse_json(b'{"resolved": [', "results.json")
    Traceback (most recent call last):
    ...
    leaderboard.errors.InputError: results.json: not JSON (Expecting value at line 1)
    >>> parse_json(b'{"a__b-1": {"resolved": true},\\n "a__b-1": {"resolved": false}}', "d.json",
    ...            unique_keys=True)  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    leaderboard.errors.InputError: d.json: the key a__b-1 is given twice in one object, with different values;
    which one holds is ambiguous
    """
    if not memory_checked:
        check_memory(data, source)
    text = decode_utf8(data, source, "JSON")
    try:
        return _loads(text, _unique if unique_keys else None)
    except json.JSONDecodeError as err:
        raise InputError(f"not JSON ({err.msg} at line {err.lineno})", file=source,
                         row=row) from None
    except RecursionError:
        raise InputError("not JSON a benchmark writes (nested too deeply)", file=source,
                         row=row) from None
    except _Twice as twice:
        raise InputError(f"the key {show(str(twice))} is given twice in one object, with "
                         "different values; which one holds is ambiguous", file=source,
                         row=row) from None
    except ValueError as err:   # an integer of more digits than Python converts
        raise InputError(f"not JSON ({str(err)[:80]})", file=source, row=row) from None


# A JSON escape of a surrogate (``\\ud800``): the only way a parsed string can hold a lone one
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


def _loads(text: str, hook=None) -> object:
    r"""``json.loads``, with every string (keys too) that holds a lone surrogate (an escape such
    as ``"\ud800"``, legal JSON that no UTF-8 writer, pandas or pyarrow takes) escaped by
    :func:`~leaderboard.ingest.text_rules.clean_text`'s rule, here once for every JSON reader.

    Examples
    --------
    >>> _loads(r'{"m\udfff": ["x\ud800", "\ud83d\ude00"]}')
    {'m\\udfff': ['x\\ud800', '😀']}
    """
    value = json.loads(text, object_pairs_hook=hook)
    if _SURROGATE_ESCAPE.search(text) is None:
        return value
    holder = [value]
    stack: list[tuple[Any, Any]] = [(holder, 0)]
    while stack:   # not recursive: a document json.loads took may be nested near the limit
        parent, key = stack.pop()
        item = parent[key]
        if isinstance(item, str):
            parent[key] = clean_text(item)
        elif isinstance(item, list):
            stack += [(item, k) for k in range(len(item))]
        elif isinstance(item, dict):
            cleaned = {clean_text(k): v for k, v in item.items()}
            item.clear()
            item.update(cleaned)
            stack += [(item, k) for k in item]
    return holder[0]


class _Twice(ValueError):
    """A key given twice in one object with different values."""


def _unique(pairs: list[tuple[str, object]]) -> dict:
    found = dict(pairs)
    if len(found) < len(pairs):   # the same value twice is harmless: the file says one thing
        seen: dict[str, object] = {}
        for key, value in pairs:
            if key in seen and seen[key] != value:
                raise _Twice(key)
            seen[key] = value
    return found


def parse_json_lines(data: bytes, source: str) -> Iterator[tuple[int, object]]:
    """``(line, value)`` for every non-blank line of a JSON-lines file; an InputError naming
    the file and line otherwise (not JSON, nested too deeply, a 5,000-digit integer).

    Lines end at ``"\\n"`` only (a ``"\\r"`` before it is dropped): JSON allows U+2028, U+2029,
    NEL and the like raw inside strings, which ``str.splitlines`` would cut at. The text rules
    and the memory check are :func:`parse_json`'s, over the whole file.

    Examples
    --------
    >>> list(parse_json_lines('{"a": "x\\u2028y"}\\r\\n\\n[1]\\n'.encode(), "log.jsonl"))
    [(1, {'a': 'x\\u2028y'}), (3, [1])]
    >>> list(parse_json_lines(b'{"a": 1}\\n{"a": ' + b"9" * 5000 + b"}\\n", "log.jsonl"))
    ... # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    leaderboard.errors.InputError: log.jsonl:2: not a JSON line (Exceeds the limit (4300 digits) for integer
    string conversion: value has 5000 di)
    """
    check_memory(data, source)
    for line, text in enumerate(decode_utf8(data, source, "JSON").split("\n"), start=1):
        if not text.strip():
            continue
        try:
            yield line, _loads(text)
        except json.JSONDecodeError as err:
            raise InputError(f"not a JSON line ({err.msg})", file=source, row=line) from None
        except RecursionError:
            raise InputError("not a JSON line an evaluation log holds (nested too deeply)",
                             file=source, row=line) from None
        except ValueError as err:   # an integer of more digits than Python converts
            raise InputError(f"not a JSON line ({str(err)[:80]})", file=source,
                             row=line) from None


def memory_estimate(data: bytes) -> int:
    """About how many bytes the objects of the JSON text ``data`` take once parsed.

    It counts the characters that open objects, lists, strings and values (about 100, 64, 24
    and 16 bytes each, plus the text), within a factor of two of what Python takes for every
    shape measured (nested lists 1.3 times, empty objects 3.1 times, short strings 1.2 times,
    text 2 times, an Inspect-like log 1.4 times).

    Examples
    --------
    >>> memory_estimate(b"[" + b"[]," * 999 + b"[]]")    # Python takes 65 KB
    83049
    """
    return (100 * data.count(b"{") + 64 * data.count(b"[") + 16 * data.count(b",")
            + 24 * data.count(b'"') + len(data))


def check_memory(data: bytes, source: str, needed: int | None = None) -> None:
    """Refuse JSON text whose parsed objects would take more than ``--max-memory``, before it
    is parsed: 1 MB of ``[[],[],...]`` becomes 22 MB of lists (a 256 MB file, 5.6 GB).
    ``needed``: the estimate already made (several parts of one input), else
    :func:`memory_estimate` of ``data``.

    Examples
    --------
    >>> check_memory(b"[" + b"[]," * 1000 + b"[]]", "x.json")
    >>> check_memory(b"", "x.json", 5 * 2 ** 30)  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    leaderboard.errors.InputError: x.json: its JSON would take about 5G of memory once parsed, over the cap of
    4G; raise --max-memory if the file is genuine
    """
    from leaderboard import limits

    needed = memory_estimate(data) if needed is None else needed
    caps = limits.current()
    if needed > caps.max_memory:
        raise InputError(f"its JSON would take about {format_size(needed)} of memory once "
                         f"parsed, over the cap of {format_size(caps.max_memory)}; raise "
                         "--max-memory if the file is genuine", file=source)


def load_json(path: Path, max_bytes: int, *, unique_keys: bool = False) -> object:
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
    return parse_json(data, str(path), unique_keys=unique_keys)


_T = TypeVar("_T")
_U = TypeVar("_U")


@overload
def expect(value: object, kind: type[_T], what: str, source: str,
           row: int | None = None) -> _T: ...
@overload
def expect(value: object, kind: tuple[type[_T], type[_U]], what: str, source: str,
           row: int | None = None) -> _T | _U: ...
def expect(value: object, kind: type | tuple[type, ...], what: str, source: str,
           row: int | None = None) -> Any:
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
    names: dict[type, str] = {dict: "an object", list: "a list"}
    return names.get(type(value), type(value).__name__)


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
