"""Find every submission file under PATH (a folder, a zip or a manifest) without trusting it.

Every entry found becomes one :class:`Found`, to be read, skipped or refused, so that nothing
vanishes from the file table: hidden files and folders, files that are not CSV, empty folders, a
folder named like a CSV file, symbolic links, named pipes, devices and sockets are all listed with
the reason they were not read.

What a service running on uploaded files needs, and what is done here:

- a folder is walked without following links: a link is followed only when it resolves to a
  regular file inside the folder; a link out of the folder, a broken link or a link loop is listed
  as refused (rejected when named like a submission, else skipped) and never opened;
- only regular files are opened (:func:`leaderboard.ingest.safe_read.read_file`), so a named pipe cannot
  hang the run and a device cannot be read;
- zip members are read from the archive, never extracted, links stored in it are refused, and each
  member is capped before and while it is decompressed;
- a manifest's paths must stay inside the manifest's folder: absolute paths and paths that leave
  it (``../``, or a link out of it) are refused without being opened;
- every file is capped in size (``max_bytes``).
"""
from __future__ import annotations

import errno
import os
import stat
import threading
import zipfile
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath

from leaderboard.errors import InputError
from leaderboard.ingest.csv_text import header_fields
from leaderboard.ingest.safe_read import (Unreadable, describe, hidden, read_file, zip_is_link,
                                          zip_member)
from leaderboard.ingest.toolkit.columns import find_column, require_nonempty
from leaderboard.ingest.toolkit.messages import Rejected, column_list
from leaderboard.ingest.toolkit.reading import parse_csv

_TRUE = {"1", "true", "yes", "y", "x", "t", "selected"}
_FALSE = {"0", "false", "no", "n", "f", ""}
_NOT_FOLLOWED = "; not followed"


@dataclass(frozen=True)
class Found:
    """One entry under PATH: read with ``load``, or listed as skipped or rejected unread."""

    team: str
    file: str
    selected: bool | None = None
    load: Callable[[], bytes] | None = None  # None: not read (see skip / refuse); picklable
    skip: str | None = None    # status "skipped", with this reason
    refuse: str | None = None  # status "rejected" without reading, with this reason


def find_files(where: Path, source: str, stack: ExitStack, solution: Path | None,
               max_bytes: int) -> tuple[str, list[Found]]:
    """``(layout, entries)`` for PATH; problems with PATH itself are an :class:`InputError`."""
    if where.is_dir():
        return "folder", _folder(where, solution, max_bytes)
    try:
        mode = os.stat(where).st_mode
    except OSError as err:
        raise InputError(f"cannot be read: {err.strerror or err}", file=source) from None
    if not stat.S_ISREG(mode):
        raise InputError(f"{describe(mode)}, not a folder, a zip or a manifest file; not read",
                         file=source)
    if where.suffix.lower() == ".zip" or zipfile.is_zipfile(where):
        try:
            archive = stack.enter_context(zipfile.ZipFile(where))
        except (zipfile.BadZipFile, OSError, EOFError, ValueError) as err:
            raise InputError(f"not a readable zip file ({err})", file=source) from None
        return "zip", _zip(archive, os.path.abspath(where), max_bytes)
    try:
        data = read_file(where, max_bytes=max_bytes)
    except Unreadable as err:
        raise InputError(str(err), file=source) from None
    try:
        columns = header_fields(data)
    except Exception:  # noqa: BLE001 - any unreadable header: not a manifest, said below
        columns = []
    keys = {c.strip().lower() for c in columns}
    if {"team", "file"} <= keys:
        return "manifest", _manifest(where, data, source, solution, max_bytes)
    if where.suffix.lower() in (".csv", ".gz"):
        raise InputError(f"a CSV file that is not a manifest (its columns: "
                         f"{column_list(columns)}); give the folder or zip of submission files, "
                         "or a manifest with columns team and file", file=source)
    raise InputError("not a folder, a .zip or a manifest CSV of submission files", file=source)


def is_csv(name: str) -> bool:
    """Whether a name looks like a submission file (``.csv``, ``.csv.gz`` or ``.parquet``, any
    case)."""
    return name.lower().rstrip("/").endswith((".csv", ".csv.gz", ".parquet"))


def team_of(name: str) -> str:
    """The file stem: ``a/b/Team X.csv.gz`` -> ``Team X``."""
    base = PurePosixPath(name).name
    for suffix in (".csv.gz", ".csv", ".gz", ".parquet"):
        if base.lower().endswith(suffix):
            base = base[:-len(suffix)]
            break
    else:
        base = PurePosixPath(base).stem
    return base.strip() or PurePosixPath(name).name


def _not_read(name: str, reason: str) -> Found:
    """An entry listed without being read: rejected when named like a submission, else skipped."""
    if is_csv(name):
        return Found(team=team_of(name), file=name, refuse=reason)
    return Found(team=team_of(name), file=name, skip=reason)


def _entry(name: str, load: Callable[[], bytes]) -> Found:
    if not is_csv(name):
        return Found(team=team_of(name), file=name, skip="not a CSV file")
    return Found(team=team_of(name), file=name, load=load)


@dataclass(frozen=True)
class FileLoader:
    """Loads one regular file (a link at its last step is refused), capped in size.

    A plain picklable value (an absolute path), so a worker of another process or machine can
    read the file itself: the path must be readable there too.
    """

    path: str
    max_bytes: int

    def __call__(self) -> bytes:
        try:
            return read_file(self.path, max_bytes=self.max_bytes, follow_links=False)
        except Unreadable as err:
            raise Rejected(str(err)) from None


def reader(path: str | Path, max_bytes: int) -> FileLoader:
    """A loader of one regular file (see :class:`FileLoader`)."""
    return FileLoader(os.path.abspath(path), max_bytes)


@dataclass(frozen=True)
class ZipLoader:
    """Loads one member of a zip (given by its directory entry, so two members of one name stay
    apart), capped in size. Picklable: the archive is opened again where it is called, once per
    thread and archive (:func:`_archive`)."""

    path: str
    info: zipfile.ZipInfo
    max_bytes: int

    def __call__(self) -> bytes:
        try:
            archive = _archive(self.path)
        except (zipfile.BadZipFile, OSError, EOFError, ValueError) as err:  # changed since listed
            raise Rejected(f"the zip cannot be opened again ({err})") from None
        try:
            return zip_member(archive, self.info, self.max_bytes)
        except Unreadable as err:
            raise Rejected(str(err)) from None


_OPEN = threading.local()  # per thread: a worker may run two batches at once


def _archive(path: str) -> zipfile.ZipFile:
    """The zip at ``path``, opened once per thread until :func:`close_archives`: reading
    thousands of members must not parse the archive's directory thousands of times. A zip
    replaced on disk since (another size or time) is opened again."""
    opened = _OPEN.__dict__.setdefault("archives", {})
    stamp = os.stat(path)
    key = (path, stamp.st_size, stamp.st_mtime_ns)
    if key not in opened:
        opened[key] = zipfile.ZipFile(path)
    return opened[key]


def close_archives() -> None:
    """Close every zip :class:`ZipLoader` opened in this thread (at the end of each read)."""
    opened = _OPEN.__dict__.get("archives", {})
    while opened:
        opened.popitem()[1].close()


def _real(path: str | Path) -> str | None:
    try:
        return os.path.realpath(path)
    except (OSError, ValueError):
        return None


def _inside(real_root: str, target: str | None) -> bool:
    return target is not None and os.path.commonpath([real_root, target]) == real_root


def _folder(root: Path, solution: Path | None, max_bytes: int) -> list[Found]:
    """Every entry under ``root``, walked without following links, sorted by path."""
    real_root = _real(root) or str(root)
    sol = str(solution) if solution is not None else None
    found, pending = [], [""]
    while pending:  # a list, not recursion: a deeply nested upload cannot exhaust the stack
        rel = pending.pop()
        try:
            with os.scandir(root / rel if rel else root) as listing:
                entries = list(listing)
        except OSError as err:
            if not rel:
                raise InputError(f"cannot be read: {err.strerror or err}", file=str(root)) from None
            found.append(Found(team=team_of(rel), file=rel + "/",
                               skip=f"a folder that cannot be read ({err.strerror or err})"))
            continue
        if not entries and rel and not is_csv(rel):  # a CSV-named folder is listed already
            found.append(Found(team=team_of(rel), file=rel + "/", skip="an empty folder"))
        for entry in entries:
            name = f"{rel}/{entry.name}" if rel else entry.name
            found += _classify(root, real_root, entry, name, sol, max_bytes, pending)
    return sorted((replace(f, team=shown(f.team), file=shown(f.file)) for f in found),
                  key=lambda f: f.file)


def shown(name: str) -> str:
    """A file name as text: bytes that are not UTF-8 (kept by the OS as surrogates, which no
    report or JSON can hold) become U+FFFD; the file itself is still read by its real name.

    Examples
    --------
    >>> shown(b"bad\\xffname.csv".decode("utf-8", "surrogateescape")) == "bad\\ufffdname.csv"
    True
    """
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _classify(root: Path, real_root: str, entry: os.DirEntry, name: str, solution: str | None,
              max_bytes: int, pending: list[str]) -> list[Found]:
    """What one folder entry is; real subfolders go onto ``pending`` to be walked."""
    if hidden(entry.name):
        if entry.is_dir(follow_symlinks=False):
            return [Found(team=team_of(name), file=name + "/", skip="a hidden folder, not searched")]
        return [Found(team=team_of(name), file=name, skip="hidden file")]
    if entry.is_symlink():
        return [_link(root / name, real_root, name, solution, max_bytes)]
    if entry.is_dir(follow_symlinks=False):
        pending.append(name)
        if is_csv(name):  # listed, or a user would wonder where the "submission" went
            return [Found(team=team_of(name), file=name + "/", skip="a folder named like a CSV "
                          "file, not a file (its files are listed on their own)")]
        return []
    if not entry.is_file(follow_symlinks=False):
        what = describe(entry.stat(follow_symlinks=False).st_mode)
        return [_not_read(name, f"{what}, not a regular file; not read")]
    if solution is not None and _real(root / name) == solution:
        # The solution kept next to the submissions would otherwise score perfectly.
        return [Found(team=team_of(name), file=name, skip="the solution file")]
    return [_entry(name, reader(root / name, max_bytes))]


def _link(path: Path, real_root: str, name: str, solution: str | None,
          max_bytes: int) -> Found:
    """A symbolic link: followed only to a regular file inside the folder."""
    try:
        mode = os.stat(path).st_mode
    except OSError as err:
        known: dict[int | None, str] = {
            errno.ENOENT: "a broken symbolic link (its target does not exist)",
            errno.ELOOP: "a symbolic link loop"}
        words = known.get(err.errno, "a symbolic link that cannot be "
                          f"followed ({err.strerror or err})")
        return _not_read(name, words + _NOT_FOLLOWED)
    target = _real(path)
    if target is None or not _inside(real_root, target):
        return _not_read(name, "a symbolic link to outside the submissions folder" + _NOT_FOLLOWED)
    if stat.S_ISDIR(mode):
        return _not_read(name, "a symbolic link to a folder in the submissions folder (its "
                         "files are listed where they are)" + _NOT_FOLLOWED)
    if not stat.S_ISREG(mode):
        return _not_read(name, f"a symbolic link to {describe(mode)}" + _NOT_FOLLOWED)
    if solution is not None and target == solution:
        return Found(team=team_of(name), file=name, skip="the solution file")
    return _entry(name, reader(target, max_bytes))


def _zip(archive: zipfile.ZipFile, path: str, max_bytes: int) -> list[Found]:
    """Every member; folders are listed only when named like a CSV file or empty."""
    infos = sorted(archive.infolist(), key=lambda i: i.filename)
    names = [i.filename for i in infos]
    found = []
    for info in infos:
        name = info.filename
        if info.is_dir():
            if is_csv(name):
                found.append(Found(team=team_of(name.rstrip("/")), file=name, skip="a folder "
                                   "named like a CSV file, not a file"))
            elif not any(n != name and n.startswith(name) for n in names):
                found.append(Found(team=team_of(name.rstrip("/")), file=name,
                                   skip="an empty folder"))
        elif hidden(name):
            found.append(Found(team=team_of(name), file=name, skip="hidden file"))
        elif zip_is_link(info):
            found.append(_not_read(name, "a symbolic link stored in the zip" + _NOT_FOLLOWED))
        else:
            found.append(_entry(name, ZipLoader(path, info, max_bytes)))
    return found


def _manifest(path: Path, data: bytes, source: str, solution: Path | None,
              max_bytes: int) -> list[Found]:
    raw = parse_csv(data, source)
    team = find_column(raw, None, ("team",), "team", "team", source)
    file = find_column(raw, None, ("file",), "file", "file", source)
    selected = find_column(raw, None, ("selected",), None, "selected", source)
    require_nonempty(raw, team, source, "every submission needs its team")
    require_nonempty(raw, file, source, "every row needs the path of a submission file")
    base = _real(path.parent) or str(path.parent)
    sol = str(solution) if solution is not None else None
    seen: dict[tuple[str, str], int] = {}
    found = []
    for line, name, cell in zip(raw.index, raw[team].str.strip(), raw[file].str.strip()):
        if (name, cell) in seen:
            raise InputError(f"team {name!r} lists file {cell!r} twice (lines {seen[name, cell]} "
                             f"and {line})", file=source, row=int(line), column=file)
        seen[name, cell] = int(line)
        flag = None
        if selected is not None:
            flag = _flag(raw.at[line, selected], source, int(line), selected)
        given = Path(cell)
        target = _real(given if given.is_absolute() else Path(base) / cell)
        if sol is not None and target == sol:
            raise InputError(f"file {cell!r} is the solution file itself", file=source,
                             row=int(line), column=file)
        if given.is_absolute():
            found.append(Found(team=name, file=cell, selected=flag, refuse="an absolute path; "
                               "a manifest names files relative to its own folder; not read"))
        elif target is None or not _inside(base, target):
            found.append(Found(team=name, file=cell, selected=flag, refuse="a path outside the "
                               "manifest's folder (through '..' or a link); not read"))
        else:
            found.append(Found(team=name, file=cell, selected=flag, load=reader(target, max_bytes)))
    return found


def _flag(text: str, source: str, line: int, column: str) -> bool:
    value = text.strip().lower()
    if value in _TRUE or value in _FALSE:
        return value in _TRUE
    raise InputError(f"{text!r} is not a yes/no value; use 1/true/yes/x for the team's chosen "
                     "submission(s) and 0/false/no or blank for the others", file=source,
                     row=line, column=column)
