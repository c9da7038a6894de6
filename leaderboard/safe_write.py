"""Write one output file (a report, a JSON, a table) as a tool run on uploaded files must: never
block, never onto a device, never with text that cannot be encoded, and never mixed with what
the run prints.

Every writer of the package (the reports' ``write_*``, :meth:`leaderboard.Result.save`, the
command line's ``-o``, ``--json``, ``--csv`` and ``--markdown``) goes through :func:`open_output`
or :func:`write_text`:

- the path is opened without blocking (``O_NONBLOCK``), so a named pipe nobody reads is refused
  at once instead of hanging the run, and checked once open: only a regular file is written
  (a FIFO, a device, a socket or a folder is refused in one line naming the output);
- a path that is this process's own standard output or error (``/dev/stdout``, or the very file
  the shell redirected it to: ``-o page.html > page.html``) is written through that stream, so a
  pipe (``--json /dev/stdout | jq``) or a file opened for appending works; the command line then
  prints its summary elsewhere (:func:`streams_written`), so the file holds the output alone;
  a terminal is refused (names are untrusted: raw text is never sent to a terminal);
- text is encoded as UTF-8 with ``backslashreplace``: a name holding a lone surrogate (a file
  name's undecodable bytes, a JSON escape, a DataFrame's string) is written as ``\\udcff``
  instead of failing after the work is done;
- a new file, or a regular file of one link, is written beside itself (``.name.<random>.part``
  in the same folder, made with ``O_EXCL``) and renamed over the path only once whole: a run
  that fails, is interrupted or fills the disk while it writes (the page and the JSON of a large
  board are written a block of rows at a time) leaves the last run's output as it was, never
  half of one. A symbolic link, a file of several hard links, or a folder where no file can be
  made is written in place (a rename would replace the link, or split the links), as before.
"""
from __future__ import annotations

import errno
import io
import os
import secrets
import stat
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress
from typing import BinaryIO

from leaderboard.errors import InputError

#: How text is encoded in every output: a lone surrogate becomes ``\\udcff``, never an error.
ENCODING, ERRORS = "utf-8", "backslashreplace"
CHARS_PER_WRITE = 1 << 16   # :func:`write_pieces` joins small pieces to this size
_STANDARD_FDS = {1: "standard output", 2: "standard error"}


def stream_of(path: str | os.PathLike[str]) -> int | None:
    """1 or 2 when ``path`` is the file this process's standard output or error is (by device
    and inode, whatever the name: ``/dev/stdout``, ``/proc/self/fd/1``, or the file the shell
    redirected the stream to), else None.

    Examples
    --------
    >>> stream_of("/no/such/file") is None
    True
    """
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return None
    for fd in _STANDARD_FDS:
        try:
            opened = os.fstat(fd)
        except OSError:
            continue
        if (opened.st_dev, opened.st_ino) == (info.st_dev, info.st_ino):
            return fd
    return None


def streams_written(paths: Iterable[str | os.PathLike[str] | None]) -> set[int]:
    """Which of the standard streams (1, 2) the outputs ``paths`` are: the run must not print
    there, or what it prints lands inside the output."""
    return {fd for path in paths if path for fd in [stream_of(path)] if fd is not None}


def kind_of(mode: int) -> str:
    """What a file of this ``st_mode`` is, in the words of a refusal."""
    return ("a folder" if stat.S_ISDIR(mode) else
            "a FIFO" if stat.S_ISFIFO(mode) else
            "a socket" if stat.S_ISSOCK(mode) else
            "a character device" if stat.S_ISCHR(mode) else
            "a block device" if stat.S_ISBLK(mode) else "not a file")


@contextmanager
def open_output(path: str | os.PathLike[str], label: str | None = None) -> Iterator[BinaryIO]:
    """``path`` opened for writing from its start, as a binary file; ``label`` names it in a
    refusal (default: the path).

    Raises
    ------
    InputError
        Not a regular file (a FIFO, with or without a reader; a device; a folder), a terminal
        given as standard output, or a path that cannot be opened: one line naming it.

    Examples
    --------
    >>> with open_output("/dev/null") as out:
    ...     pass  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    leaderboard.errors.InputError: cannot write /dev/null: not a regular file (a character device); give a
    file path
    """
    label = label or os.fspath(path)
    fd_stream = stream_of(path)
    if fd_stream is not None:
        with _through_stream(fd_stream, label) as out:
            yield out
        return
    flags = (os.O_WRONLY | os.O_CREAT | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
             | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
    try:
        info = os.stat(path)
    except OSError:
        info = None
    if info is not None and not stat.S_ISREG(info.st_mode):   # refused before it is opened:
        raise _not_regular(label, info.st_mode)                # opening a device can act
    if _replaceable(path, info):
        beside = _open_beside(path, info)
        if beside is not None:
            fd, part = beside
            try:
                with open(fd, "wb", closefd=True) as out:
                    yield out
                os.replace(part, path)
            except BaseException:
                with suppress(OSError):
                    os.unlink(part)
                raise
            return
    try:
        fd = os.open(path, flags, 0o666)
    except OSError as error:
        if error.errno == errno.ENXIO:   # a FIFO nobody reads: opening it would have blocked
            raise InputError(f"cannot write {label}: not a regular file (a FIFO); give a file "
                             "path") from None
        raise InputError(f"cannot write {label}: {error.strerror or error}") from None
    try:
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode):   # swapped since the stat
            raise _not_regular(label, opened.st_mode)
        os.ftruncate(fd, 0)
        with open(fd, "wb", closefd=False) as out:
            yield out
    finally:
        os.close(fd)


def _replaceable(path: str | os.PathLike[str], info: os.stat_result | None) -> bool:
    """Whether ``path`` may be written beside itself and renamed over: absent, or a regular file
    of one link that is not a symbolic link (``info`` is its ``stat``)."""
    try:
        own = os.lstat(path)
    except OSError:
        return info is None   # absent (a dangling link has an lstat: it is written through)
    return info is not None and stat.S_ISREG(own.st_mode) and own.st_nlink == 1


def _open_beside(path: str | os.PathLike[str],
                 info: os.stat_result | None) -> tuple[int, str] | None:
    """A new file in ``path``'s folder, opened for writing, and its name; None when none can
    be made there (the caller writes in place). It takes the permission bits of the file it
    will replace, or those a new file gets (``0o666`` less the umask)."""
    folder, name = os.path.split(os.fspath(path))
    if not name:
        return None
    flags = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
             | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
    for _ in range(3):
        part = os.path.join(folder, f".{name}.{secrets.token_hex(6)}.part")
        try:
            fd = os.open(part, flags, 0o666)
        except FileExistsError:
            continue
        except OSError:
            return None
        if info is not None:   # the file it replaces keeps its owner and mode where it may
            with suppress(OSError, AttributeError):
                os.fchown(fd, info.st_uid, info.st_gid)
            with suppress(OSError, AttributeError):
                os.fchmod(fd, stat.S_IMODE(info.st_mode))
        return fd, part
    return None


def _not_regular(label: str, mode: int) -> InputError:
    return InputError(f"cannot write {label}: not a regular file ({kind_of(mode)}); give a file "
                      "path")


def _through_stream(fd: int, label: str) -> BinaryIO:
    """A writer of the already open standard stream ``fd`` (its mode kept: a file the shell
    opened for appending is appended to); a terminal is refused."""
    if os.isatty(fd):
        raise InputError(f"cannot write {label}: it is the terminal ({_STANDARD_FDS[fd]}); "
                         "redirect it to a file, or give a file path")
    for stream in (sys.stdout, sys.stderr):   # what Python buffered goes first
        try:
            stream.flush()
        except (OSError, ValueError, AttributeError):
            pass
    return open(os.dup(fd), "wb", closefd=True)


def write_text(path: str | os.PathLike[str], text: str, label: str | None = None) -> None:
    """Write ``text`` to ``path`` as UTF-8 (lone surrogates as ``\\udcff``), through
    :func:`open_output`.

    Examples
    --------
    >>> import tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "r.md")
    >>> write_text(path, "team \\udcff")
    >>> open(path, encoding="utf-8").read()
    'team \\\\udcff'
    """
    write_bytes(path, text.encode(ENCODING, ERRORS), label)


def write_bytes(path: str | os.PathLike[str], data: bytes, label: str | None = None) -> None:
    """Write ``data`` to ``path`` through :func:`open_output`."""
    try:
        with open_output(path, label) as out:
            out.write(data)
    except OSError as error:
        raise InputError(f"cannot write {label or os.fspath(path)}: "
                         f"{error.strerror or error}") from None


def write_pieces(path: str | os.PathLike[str], pieces: Iterable[str]) -> None:
    """Write the text ``pieces`` to ``path`` as :func:`write_text` writes their join (the same
    bytes), through :func:`open_output`, without ever holding the whole text: for the outputs
    of a large board (its page, its JSON), made a block of rows at a time.

    Small pieces are joined up to :data:`CHARS_PER_WRITE` characters at a time: one write per
    piece (390,000 for the JSON of 5,000 entries) doubled the JSON's time on a machine's first
    run (0.22 against 0.11 s); a piece of a few megabytes is written as it comes.

    Examples
    --------
    >>> import tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "r.txt")
    >>> write_pieces(path, ["a", "\\udcff", "b" * 70_000])
    >>> open(path, "rb").read() == ("a\\udcff" + "b" * 70_000).encode(ENCODING, ERRORS)
    True
    """
    pieces = iter(pieces)
    # the first piece before the file is opened: a page's or a JSON's first piece comes after
    # everything it says is made, so a failure there leaves an earlier file whole even where
    # open_output writes in place (a link), and touches nothing where it replaces whole
    first = next(pieces, "")
    try:
        with open_output(path) as raw, io.TextIOWrapper(raw, encoding=ENCODING, errors=ERRORS,
                                                         newline="\n") as out:
            batch, size = [first], len(first)
            for piece in pieces:
                batch.append(piece)
                size += len(piece)
                if size >= CHARS_PER_WRITE:
                    out.write("".join(batch))
                    batch, size = [], 0
            out.write("".join(batch))
    except OSError as error:   # a full disk midway: one line, as write_bytes says it
        raise InputError(f"cannot write {os.fspath(path)}: {error.strerror or error}") from None
