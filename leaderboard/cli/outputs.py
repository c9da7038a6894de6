"""The command line's outputs (``-o``, ``--json``, ``--csv``, ``--markdown``): checked before any
work, written through :mod:`leaderboard.safe_write`, and kept apart from what the run prints.

An output may be this process's standard output (``-o /dev/stdout > page.html``, ``--json
/dev/stdout | jq``, or ``-o page.html > page.html``): it is written through the stream and the
summary goes to standard error instead (:func:`prints_elsewhere`), so the file holds the output
alone. Standard error as an output is refused (the run's warnings and errors go there), as is a
terminal (names are untrusted and a page is no terminal text).
"""
from __future__ import annotations

import io
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, redirect_stdout

from leaderboard.errors import InputError
from leaderboard.ingest.safe_read import refuse_special_output, refuse_unwritable_place
from leaderboard.safe_write import stream_of, write_text


def check_paths(outputs: Iterable[tuple[str, str | None]],
                inputs: Iterable[str | None]) -> set[int]:
    """One-line errors when two outputs are one file, an output would overwrite or change an
    input, or an output is not a regular file; returns the standard streams (1) that are
    outputs, where the run must then print nothing.

    An output is refused when it is an input by path, by link (a symbolic link to it, or a hard
    link: the same device and inode), or lies inside an input folder (a submissions or
    harness-log folder, followed through links); when it exists but is not a regular file
    (a FIFO would block the run, a device or folder is not a report), or is a link to nothing;
    and when it is standard error or a terminal. Standard output redirected to a file or a pipe
    is an output like any other (see the module).

    Examples
    --------
    >>> check_paths([("-o", "r.html"), ("--json", "./r.html")], [])
    Traceback (most recent call last):
    ...
    leaderboard.errors.InputError: -o and --json name the same file (./r.html); give two paths
    >>> check_paths([("-o", "/dev/null")], [])  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    leaderboard.errors.InputError: cannot write -o /dev/null: not a regular file (a character
    device); give a file path
    """
    seen: dict[object, str] = {}
    sources = [p for p in inputs if p]
    streams: set[int] = set()
    for option, path in outputs:
        if not path:
            continue
        key = _identity(path)
        if key in seen:
            raise InputError(f"{seen[key]} and {option} name the same file ({path}); give two "
                             "paths")
        stream = stream_of(path)
        if stream is None:
            refuse_special_output(path, f"{option} {path}")
        else:
            _check_stream(stream, f"{option} {path}")
            streams.add(stream)
        for source in sources:
            _refuse_input(option, path, _key(path), source)
        if stream is None:
            refuse_unwritable_place(path, f"{option} {path}")
        seen[key] = option
    return streams


def _check_stream(fd: int, label: str) -> None:
    """Standard output as an output: only to a file or a pipe, and not when standard error
    (the run's warnings and errors) goes to the same place."""
    if os.isatty(fd):
        raise InputError(f"cannot write {label}: it is the terminal; redirect standard output "
                         "to a file, or give a file path")
    if fd == 2 or _same_file(1, 2):
        raise InputError(f"cannot write {label}: it is where this run's messages go (standard "
                         "error); give a file path")


def _same_file(one: int, two: int) -> bool:
    try:
        a, b = os.fstat(one), os.fstat(two)
    except OSError:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _identity(path: str) -> object:
    """What makes two outputs one file: device and inode when it exists (hard links and
    ``/dev/stdout`` included), else its resolved path."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return _key(path)
    return (info.st_dev, info.st_ino)


@contextmanager
def prints_elsewhere(streams: set[int]) -> Iterator[None]:
    """While the command runs, what it prints to standard output goes to standard error when
    standard output is one of its outputs (``streams``, from :func:`check_paths`)."""
    if 1 not in streams:
        yield
        return
    with redirect_stdout(sys.stderr):
        yield


@contextmanager
def unencodable_escaped() -> Iterator[None]:
    """While the command runs, text the terminal's encoding cannot show (``PYTHONIOENCODING=
    ascii``, a C locale without UTF-8 mode, a name in Greek) is written as ``\\u03b1`` on standard output and
    error instead of raising after the outputs were written; the streams' own setting is put
    back after."""
    changed = []
    for stream in (sys.stdout, sys.stderr):
        # "strict" (PYTHONIOENCODING=ascii), or "surrogateescape" (what Python sets under a C
        # or POSIX locale without UTF-8 mode): both raise on a character the encoding lacks
        errors = getattr(stream, "errors", None)
        if errors in ("strict", "surrogateescape") and hasattr(stream, "reconfigure"):
            try:
                stream.reconfigure(errors="backslashreplace")
            except (ValueError, OSError, io.UnsupportedOperation):
                continue
            changed.append((stream, errors))
    try:
        yield
    finally:
        for stream, errors in changed:
            try:
                stream.reconfigure(errors=errors)
            except (ValueError, OSError, io.UnsupportedOperation):
                pass


def _refuse_input(option: str, path: str, key: str, source: str) -> None:
    source_key = _key(source)
    same = key == source_key
    if not same:
        try:
            one, two = os.stat(path), os.stat(source)
            same = (one.st_dev, one.st_ino) == (two.st_dev, two.st_ino)
        except OSError:
            same = False
    if same:
        raise InputError(f"{option} {path} is an input file; writing there would overwrite it")
    if os.path.isdir(source_key) and os.path.commonpath([key, source_key]) == source_key:
        raise InputError(f"{option} {path} is inside the input folder {source}; writing there "
                         "would change the input")


def _key(path: str) -> str:
    return os.path.normcase(os.path.realpath(path))


def write_output(writer: Callable[[str], object], path: str) -> None:
    """Call ``writer(path)``; a file that cannot be written is a one-line :class:`InputError`.

    Examples
    --------
    >>> from leaderboard.safe_write import write_text
    >>> write_output(lambda path: write_text(path, "<html>"), "/no/such/dir/r.html")
    Traceback (most recent call last):
    ...
    leaderboard.errors.InputError: cannot write /no/such/dir/r.html: No such file or directory
    """
    from leaderboard.ingest.safe_read import was_read

    if was_read(path):   # e.g. a file a manifest listed: not known before the run read it
        raise InputError(f"cannot write {path}: this run read it as an input; writing there "
                         "would overwrite it")
    try:
        writer(path)
    except OSError as error:
        raise InputError(f"cannot write {path}: {error.strerror or error}") from None


def text_writer(make: Callable[[], str]) -> Callable[[str], None]:
    """A ``writer`` for :func:`write_output` that writes the text ``make()`` returns, made when
    the file is written (one per export, bound here rather than to a loop's variable).

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "t.md")
    >>> write_output(text_writer(lambda: "| a |\\n"), path)
    >>> open(path, encoding="utf-8").read()
    '| a |\\n'
    """
    def write(path: str) -> None:
        write_text(path, make())
    return write
