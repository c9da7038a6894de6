"""Provenance of an analysis (the leaderboard card's, issue 40 item 4): the package version, the
date, the command or API call that ran, each input's SHA-256 and the seed.

**Hashes.** A file's is the SHA-256 of its bytes as stored (``sha256sum FILE`` gives the same);
a folder's (SWE-bench results, harness logs, a folder of submissions) is the SHA-256 of its
manifest, one line ``<sha256 of the file>  <path relative to the folder>\\n`` per regular file in
the order of the paths' UTF-8 bytes, links not followed and not listed (``find . -type f | sort |
xargs sha256sum`` gives the manifest in the C locale); a DataFrame's is the SHA-256 of the CSV
text the readers read it as (``df.to_csv(index=False)``, UTF-8).

**The date and byte-identical outputs.** The date is a calendar day (UTC, no time of day), and
``SOURCE_DATE_EPOCH`` (the reproducible-builds convention: seconds since 1970) fixes it: the same
inputs, options and seed give byte-identical outputs on the same day, and on any day with
``SOURCE_DATE_EPOCH`` set. Nothing else in an output depends on the clock. ``date_from`` says
which (``"SOURCE_DATE_EPOCH"`` or ``"clock"``).

**The command.** ``leaderboard ...`` as run (the command line sets it, :func:`calling`), or the
Python API's call with the arguments given (:func:`recorded`, DataFrames shown by their shape).
"""
from __future__ import annotations

import contextvars
import datetime
import functools
import hashlib
import inspect
import os
import shlex
import stat
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

_CALL: contextvars.ContextVar[str | None] = contextvars.ContextVar("leaderboard_call",
                                                                   default=None)
_CHUNK = 1 << 20
MAX_FOLDER_FILES = 200_000   # a folder's manifest stops here (said in the digest's words)


@dataclass(frozen=True)
class InputDigest:
    """One input: its role (``--items``, ``published``, ...), the name given, its SHA-256 and
    what was hashed (``file``, ``folder manifest`` or ``DataFrame as CSV``), with its size in
    bytes (a folder: the bytes of its files) and, for a folder, its files."""

    role: str
    name: str
    sha256: str
    kind: str
    bytes: int
    files: int | None = None


@dataclass(frozen=True)
class Provenance:
    """Where the numbers came from (see the module docstring)."""

    version: str
    date: str
    date_from: str
    command: str
    inputs: tuple[InputDigest, ...]
    seed: int


def today(environ=os.environ) -> tuple[str, str]:
    """The run's date (ISO, UTC) and where it came from.

    Examples
    --------
    >>> today({"SOURCE_DATE_EPOCH": "1767225600"})
    ('2026-01-01', 'SOURCE_DATE_EPOCH')
    """
    epoch = environ.get("SOURCE_DATE_EPOCH", "").strip()
    if epoch.isdigit():
        moment = datetime.datetime.fromtimestamp(int(epoch), datetime.timezone.utc)
        return moment.date().isoformat(), "SOURCE_DATE_EPOCH"
    return datetime.datetime.now(datetime.timezone.utc).date().isoformat(), "clock"


def file_sha256(path: str | os.PathLike[str]) -> tuple[str, int]:
    """SHA-256 and size of a regular file's bytes, read in chunks.

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "a.csv"
    >>> _ = p.write_bytes(b"abc")
    >>> file_sha256(p)
    ('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad', 3)
    """
    h, size = hashlib.sha256(), 0
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            h.update(chunk)
            size += len(chunk)
    return h.hexdigest(), size


def folder_sha256(folder: str | os.PathLike[str]) -> tuple[str, int, int]:
    """SHA-256 of a folder's manifest (module docstring), the bytes of its files and their
    number; links are neither followed nor listed.

    Examples
    --------
    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> (root / "s").mkdir(); _ = (root / "s" / "r.json").write_bytes(b"abc")
    >>> digest, size, files = folder_sha256(root)
    >>> manifest = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad  s/r.json\\n"
    >>> digest == hashlib.sha256(manifest.encode()).hexdigest(), size, files
    (True, 3, 1)
    """
    root = Path(folder)
    found = sorted(_regular_files(root, root), key=lambda rel: rel.encode("utf-8", "replace"))
    manifest, total = hashlib.sha256(), 0
    for rel in found[:MAX_FOLDER_FILES]:
        digest, size = file_sha256(root / rel)
        total += size
        manifest.update(f"{digest}  {rel}\n".encode("utf-8", "replace"))
    return manifest.hexdigest(), total, min(len(found), MAX_FOLDER_FILES)


def _regular_files(root: Path, folder: Path) -> Iterator[str]:
    with os.scandir(folder) as entries:
        for entry in entries:
            if entry.is_symlink():
                continue
            if entry.is_dir(follow_symlinks=False):
                yield from _regular_files(root, Path(entry.path))
            elif stat.S_ISREG(entry.stat(follow_symlinks=False).st_mode):
                yield Path(entry.path).relative_to(root).as_posix()


def digest_input(role: str, value: object) -> InputDigest | None:
    """The digest of one input: a path (file or folder), or a table in memory (its CSV bytes);
    None for an input not given, or one that cannot be read any more (a temporary file gone)."""
    from leaderboard.ingest.in_memory import InMemory

    if value is None:
        return None
    if isinstance(value, InMemory):
        return InputDigest(role, str(value.source), hashlib.sha256(value.data).hexdigest(),
                           "DataFrame as CSV", len(value.data))
    if hasattr(value, "to_csv"):   # a DataFrame given as such (the leaderboard's)
        from leaderboard.ingest.in_memory import frame_csv

        data = frame_csv(value)
        return InputDigest(role, "DataFrame 'data'", hashlib.sha256(data).hexdigest(),
                           "DataFrame as CSV", len(data))
    if isinstance(value, Mapping):   # the API's submissions: team -> table or array
        h = hashlib.sha256()
        for team in sorted(value, key=str):
            h.update(f"{team}\n".encode("utf-8", "surrogatepass"))
            h.update(_entry_bytes(value[team]))
        return InputDigest(role, f"<{len(value):,} entries>", h.hexdigest(),
                           "entries' names and contents", 0)
    if not isinstance(value, (str, os.PathLike)):
        return None
    path = Path(value)
    try:
        if path.is_dir():
            digest, size, files = folder_sha256(path)
            return InputDigest(role, str(value), digest, "folder manifest", size, files)
        digest, size = file_sha256(path)
    except OSError:
        return None
    return InputDigest(role, str(value), digest, "file", size)


def _entry_bytes(value: object) -> bytes:
    from leaderboard.ingest.in_memory import InMemory

    if isinstance(value, InMemory):
        return value.data
    if hasattr(value, "to_csv"):
        from leaderboard.ingest.in_memory import frame_csv

        return frame_csv(value)
    import numpy as np

    array = np.ascontiguousarray(value)
    return f"{array.dtype.str}{array.shape}".encode() + array.tobytes()


def provenance(inputs: list[tuple[str, object]], seed: int) -> Provenance:
    """The provenance of a run reading ``inputs`` (role, path or table) with ``seed``; a role
    that is an option is named in the words of the interface in use (``--items`` on the command
    line, ``items=`` in Python: :func:`leaderboard.api_words.said`)."""
    from leaderboard import __version__
    from leaderboard.api_words import said

    date, source = today()
    found = tuple(d for d in (digest_input(said(role), value) for role, value in inputs)
                  if d is not None)
    return Provenance(version=__version__, date=date, date_from=source,
                      command=_CALL.get() or "(called from Python without a recorded call)",
                      inputs=found, seed=int(seed))


@contextmanager
def calling(text: str) -> Iterator[None]:
    """Record ``text`` as the command being run (the command line's ``leaderboard ...``); an
    API function called inside keeps it."""
    token = _CALL.set(text)
    try:
        yield
    finally:
        _CALL.reset(token)


def command_line(argv: list[str]) -> str:
    """``leaderboard`` and the arguments as typed, quoted for a POSIX shell.

    Examples
    --------
    >>> command_line(["analyze", "--items", "my results.csv"])
    "leaderboard analyze --items 'my results.csv'"
    """
    return shlex.join(["leaderboard", *argv])


def recorded(function: Callable) -> Callable:
    """A Python API function that records its own call (``leaderboard.analyze_items(<DataFrame
    1,500 x 3>, replicates=200)``: the arguments given, DataFrames by their shape) as the
    command, unless the command line already recorded one."""
    signature = inspect.signature(function)

    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        if _CALL.get() is not None:
            return function(*args, **kwargs)
        with calling(api_call(function.__name__, signature, args, kwargs)):
            return function(*args, **kwargs)

    return wrapper


def api_call(name: str, signature: inspect.Signature, args: tuple, kwargs: dict) -> str:
    """The call as text: the arguments given, in the signature's order.

    Examples
    --------
    >>> import pandas as pd
    >>> def f(data, *, seed=0, alpha=0.05): ...
    >>> api_call("f", inspect.signature(f), (pd.DataFrame({"a": [1, 2]}),), {"seed": 3})
    'leaderboard.f(<DataFrame 2 x 1>, seed=3)'
    """
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError:
        return f"leaderboard.{name}(...)"
    parts: list[str] = []
    for key, value in bound.arguments.items():
        kind = signature.parameters[key].kind
        text = _value(value)
        parts.append(text if kind is inspect.Parameter.POSITIONAL_OR_KEYWORD and not parts
                     else f"{key}={text}")
    return f"leaderboard.{name}({', '.join(parts)})"


def _value(value: object) -> str:
    if hasattr(value, "shape") and hasattr(value, "columns"):
        rows, cols = value.shape
        return f"<DataFrame {rows:,} x {cols:,}>"
    if isinstance(value, dict):
        return f"<{len(value):,} entries>"
    if hasattr(value, "tolist") and getattr(value, "ndim", 2) <= 1:   # numpy: as the number
        value = value.tolist()
    elif isinstance(value, tuple):
        value = list(value)
    text = repr(os.fspath(value) if isinstance(value, os.PathLike) else value)
    return text if len(text) <= 120 else text[:117] + "..."
