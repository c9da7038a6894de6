"""Read one input file's bytes as a service that runs on uploaded files must: regular files only,
links followed only when asked, and every file, compressed or not, capped in size.

Organizers run this tool on files participants uploaded, so a file may be a link to a system file,
a named pipe that never ends, a device, or a small archive that decompresses to gigabytes. Here:

- only regular files are opened; folders, named pipes (FIFOs), devices and sockets are refused
  from their metadata, without being opened (opening a pipe can block forever, opening some
  devices has side effects), and the open file is checked again in case it was swapped;
- a symbolic link is refused unless the caller follows links (``follow_links``);
- every file is read in chunks up to ``max_bytes`` and refused beyond it, before and after
  decompression (``.gz``, ``.bz2``, ``.xz``, ``.zip`` or ``.tar`` holding one file, ``.zst`` with
  the zstandard package), so memory is bounded by the cap, not by the file;
- what a compressed input expands to is capped too, checked as it streams (:class:`Budget`):
  at most :attr:`~leaderboard.limits.Limits.max_expansion` times its compressed size (and
  :data:`~leaderboard.limits.EXPANSION_FLOOR` whatever its size), so a 240 KB archive cannot
  become 256 MB of JSON and gigabytes of objects. Every reader that opens an archive itself
  (Inspect's ``.eval`` zips, a zip of submissions, Parquet's compressed pages) uses the same
  budget.

Every refusal is an :class:`Unreadable` whose text is one line without the file's name; callers
add the name (an :class:`~leaderboard.errors.InputError` or a rejected submission).
"""
from __future__ import annotations

import bz2
import errno
import gzip
import io
import lzma
import os
import re
import stat
import tarfile
import zipfile
import zlib
from pathlib import PurePosixPath

DEFAULT_MAX_BYTES = 256 * 2 ** 20  # 256M: far above real submissions, far below a machine's RAM
MAX_OPTION = "--max-file-size"
_CHUNK = 1 << 20
_UNITS = {"": 1, "K": 2 ** 10, "M": 2 ** 20, "G": 2 ** 30, "T": 2 ** 40}
_TAR = (".tar", ".tar.gz", ".tgz", ".tar.bz2", ".tbz2", ".tar.xz", ".txz")
COMPRESSED = (".gz", ".bz2", ".xz", ".zip", ".zst") + _TAR
_DECOMPRESS_ERRORS = (OSError, EOFError, zlib.error, lzma.LZMAError, zipfile.BadZipFile,
                      tarfile.TarError, RuntimeError, NotImplementedError, ValueError)


class Unreadable(Exception):
    """A file that is not read, or cannot be; ``str(error)`` is the one-line reason.

    ``damaged`` is True when the file was read but its compression is broken.
    """

    def __init__(self, reason: str, *, damaged: bool = False) -> None:
        super().__init__(reason)
        self.damaged = damaged


def format_size(size: int) -> str:
    """``268435456`` -> ``'256M'`` (powers of 1024, as :func:`parse_size` reads them).

    Examples
    --------
    >>> format_size(256 * 2 ** 20), format_size(1536), format_size(10)
    ('256M', '1.5K', '10 bytes')
    """
    for unit in ("T", "G", "M", "K"):
        if size >= _UNITS[unit]:
            return f"{size / _UNITS[unit]:.4g}{unit}"
    return f"{size} bytes"


def parse_size(text: str) -> int:
    """A size such as ``500M``, ``2G``, ``1.5g``, ``300MB`` or ``1000000`` (bytes), in bytes.

    Examples
    --------
    >>> parse_size("500M"), parse_size("2g"), parse_size("1000")
    (524288000, 2147483648, 1000)
    """
    m = re.fullmatch(r"\s*(\d+(?:\.\d*)?)\s*([kmgt]?)(?:i?b)?\s*", text, flags=re.IGNORECASE)
    if not m:
        raise ValueError(f"not a size: {text!r} (give e.g. 500M or 2G)")
    return int(float(m[1]) * _UNITS[m[2].upper()])


def too_big(size_words: str, max_bytes: int) -> Unreadable:
    """The one refusal for a file over the cap, naming the option that raises it."""
    return Unreadable(f"{size_words} the size cap of {format_size(max_bytes)}; raise it with "
                      f"{MAX_OPTION} if the file is genuine")


def describe(mode: int) -> str:
    """What a file of this ``st_mode`` is, in words."""
    for test, words in ((stat.S_ISDIR, "a folder"), (stat.S_ISLNK, "a symbolic link"),
                        (stat.S_ISFIFO, "a named pipe (FIFO)"), (stat.S_ISCHR, "a device"),
                        (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return words
    return "a regular file" if stat.S_ISREG(mode) else "not a regular file"


def _os_reason(error: OSError) -> str:
    if error.errno == errno.ENOENT:
        return "file not found"
    if error.errno == errno.ELOOP:
        return "a symbolic link loop (or a link where none is followed); not read"
    if error.errno in (errno.EACCES, errno.EPERM):
        return "cannot be read: permission denied"
    return f"cannot be read: {error.strerror or error}"


# Every file this process has read (device, inode), so that an output never overwrites one of
# them: the command line clears it at the start of each run and checks it before each write.
_FILES_READ: set[tuple[int, int]] = set()


def was_read(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` (followed through links) is a file this run has read."""
    try:
        info = os.stat(path)
    except OSError:
        return False
    return (info.st_dev, info.st_ino) in _FILES_READ


def forget_files_read() -> None:
    """Start a new run's record of the files read."""
    _FILES_READ.clear()


def refuse_special_output(path: str | os.PathLike[str], label: str) -> None:
    """One-line :class:`~leaderboard.errors.InputError` when ``path`` exists and is not a regular
    file (a FIFO would block the writer, a device or folder is no report) or is a link to
    nothing; ``label`` names the output in the message (``"-o r.html"``).

    Examples
    --------
    >>> refuse_special_output("/dev/null", "--json /dev/null")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    leaderboard.errors.InputError: cannot write --json /dev/null: not a regular file (a character device);
    give a file path
    """
    from leaderboard.errors import InputError

    try:
        info = os.stat(path)
    except FileNotFoundError:
        if os.path.islink(path):
            raise InputError(f"{label} is a link to nothing; give a file path") from None
        return
    except OSError:
        return   # the write says why (permissions, a file where a folder should be)
    if not stat.S_ISREG(info.st_mode):
        kind = ("a folder" if stat.S_ISDIR(info.st_mode) else
                "a FIFO" if stat.S_ISFIFO(info.st_mode) else
                "a socket" if stat.S_ISSOCK(info.st_mode) else
                "a character device" if stat.S_ISCHR(info.st_mode) else
                "a block device" if stat.S_ISBLK(info.st_mode) else "not a file")
        raise InputError(f"cannot write {label}: not a regular file ({kind}); give a file path")


def refuse_unwritable_place(path: str | os.PathLike[str], label: str) -> None:
    """One-line :class:`~leaderboard.errors.InputError` when ``path`` cannot be a file: it ends
    with a slash, or its folder does not exist. Checked before the work, not found when the
    analysis has written the other outputs (exit 2 then, with some outputs written).

    Examples
    --------
    >>> refuse_unwritable_place("/no/such/folder/r.csv", "--csv /no/such/folder/r.csv")
    ... # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    leaderboard.errors.InputError: cannot write --csv /no/such/folder/r.csv: its folder /no/such/folder does
    not exist; create it, or give another path
    """
    from leaderboard.errors import InputError

    text = os.fspath(path)
    if text.endswith(("/", os.sep)):
        raise InputError(f"cannot write {label}: a folder's path (it ends with a slash); give a "
                         "file path")
    folder = os.path.dirname(text) or "."
    if not os.path.lexists(text) and not os.path.isdir(folder):
        raise InputError(f"cannot write {label}: its folder {folder} does not exist; create it, "
                         "or give another path")


def read_file(path: str | os.PathLike[str], *, max_bytes: int = DEFAULT_MAX_BYTES,
              follow_links: bool = True, decompress: bool = True) -> bytes:
    """The bytes of the regular file ``path``, decompressed by its suffix, at most ``max_bytes``.

    Raises
    ------
    Unreadable
        Missing, unreadable, not a regular file, a link when ``follow_links`` is False, over the
        cap (on disk or decompressed), or a damaged or ambiguous archive.

    Examples
    --------
    >>> read_file("/dev/null")
    Traceback (most recent call last):
    ...
    leaderboard.ingest.safe_read.Unreadable: a device, not a regular file; not read
    """
    try:
        info = os.stat(path) if follow_links else os.lstat(path)
    except OSError as error:
        raise Unreadable(_os_reason(error)) from None
    if not stat.S_ISREG(info.st_mode):
        raise Unreadable(f"{describe(info.st_mode)}, not a regular file; not read")
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    if not follow_links:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(path, flags)
    except OSError as error:
        raise Unreadable(_os_reason(error)) from None
    with open(fd, "rb", closefd=True) as handle:
        opened = os.fstat(handle.fileno())  # the file may have been swapped since the stat
        if not stat.S_ISREG(opened.st_mode):
            raise Unreadable(f"{describe(opened.st_mode)}, not a regular file; not read")
        _FILES_READ.add((opened.st_dev, opened.st_ino))
        if opened.st_size > max_bytes:
            raise too_big(f"{format_size(opened.st_size)} on disk, over", max_bytes)
        name = os.fspath(path).lower()
        if decompress and name.endswith(COMPRESSED):
            try:
                return _decompressed(handle, name, max_bytes, opened.st_size)
            except Unreadable:
                raise
            except _DECOMPRESS_ERRORS as error:
                raise Unreadable(f"not a readable {_kind(name)} file ({_first_line(error)})",
                                 damaged=True) from None
        return capped_read(handle, max_bytes, "over")


def _kind(name: str) -> str:
    if name.endswith(_TAR):
        return "tar"
    return {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz", ".zip": "zip", ".zst": "zstd"}[
        PurePosixPath(name).suffix]


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0][:120] if text else type(error).__name__


class Budget:
    """What a compressed input may still expand to: the smaller of the size cap (``max_bytes``,
    ``--max-file-size``) and the expansion cap (``max_expansion`` times its ``packed`` size on
    disk, at least :data:`~leaderboard.limits.EXPANSION_FLOOR`: ``--max-expansion``), spent as
    its parts are decompressed (one budget for every member of one archive).

    Examples
    --------
    >>> budget = Budget(packed=100 * 2 ** 10, max_bytes=256 * 2 ** 20)
    >>> format_size(budget.left)
    '16M'
    >>> print(str(budget.refusal()).replace(" (the", "\\n(the"))  # doctest: +NORMALIZE_WHITESPACE
    expands to more than 16M from 100K compressed
    (the cap: 100 times the compressed size, at least 16M): refused as a likely decompression bomb; raise
    --max-expansion if the file is genuine
    """

    def __init__(self, packed: int, max_bytes: int) -> None:
        from leaderboard import limits

        self.ratio, self.floor = limits.current().max_expansion, limits.EXPANSION_FLOOR
        self.packed, self.max_bytes = max(int(packed), 0), max_bytes
        self.expansion = max(self.floor, self.ratio * self.packed)
        self.left = min(max_bytes, self.expansion)

    def spend(self, size: int) -> None:
        """Count ``size`` decompressed bytes; the refusal once they pass what is left."""
        if size > self.left:
            raise self.refusal()
        self.left -= size

    def refusal(self, declared: int | None = None) -> Unreadable:
        """The one-line refusal, naming the cap that binds and the option raising it;
        ``declared``: the size an archive's header gives, when that is what is over."""
        if self.expansion < self.max_bytes:
            return Unreadable(
                f"expands to more than {format_size(self.expansion)} from "
                f"{format_size(self.packed)} compressed (the cap: {self.ratio:,} times the "
                f"compressed size, at least {format_size(self.floor)}): refused as a likely "
                f"decompression bomb; raise {EXPANSION_OPTION} if the file is genuine")
        if declared is not None:
            return too_big(f"{format_size(declared)} when decompressed, over", self.max_bytes)
        return too_big("decompresses to more than", self.max_bytes)


EXPANSION_OPTION = "--max-expansion"


def capped_read(stream, max_bytes: int | Budget, words: str = "decompresses to more than"
                ) -> bytes:
    """Everything ``stream`` holds, read in chunks, refused once it passes ``max_bytes`` (a
    size: ``words`` say what passed it) or what a :class:`Budget` has left (spent as read)."""
    budget = max_bytes if isinstance(max_bytes, Budget) else None
    limit = max_bytes.left if isinstance(max_bytes, Budget) else max_bytes
    chunks: list[bytes] = []
    total = 0
    while True:
        chunk = stream.read(min(_CHUNK, limit + 1 - total))
        if not chunk:
            if budget is not None:
                budget.spend(total)
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            raise budget.refusal() if budget is not None else too_big(words, limit)


def _decompressed(handle, name: str, max_bytes: int, packed: int) -> bytes:
    budget = Budget(packed, max_bytes)
    if name.endswith(_TAR):
        return _one_tar_member(handle, budget)
    if name.endswith(".zip"):
        with zipfile.ZipFile(handle) as archive:
            members = [i for i in archive.infolist() if not i.is_dir() and not hidden(i.filename)]
            if len(members) != 1:
                raise Unreadable(f"a zip holding {len(members)} files; expected exactly one CSV")
            return zip_member(archive, members[0], budget)
    if name.endswith(".zst"):
        try:
            import zstandard
        except ImportError:
            raise Unreadable("a .zst file needs the zstandard package (pip install zstandard); "
                             "or decompress it first") from None
        with zstandard.ZstdDecompressor().stream_reader(handle) as reader:
            return capped_read(reader, budget)
    opener = {".gz": gzip.GzipFile, ".bz2": bz2.BZ2File, ".xz": lzma.LZMAFile}[
        PurePosixPath(name).suffix]
    with opener(fileobj=handle) if opener is gzip.GzipFile else opener(handle) as stream:
        return capped_read(stream, budget)


def _one_tar_member(handle, budget: Budget) -> bytes:
    with tarfile.open(fileobj=handle, mode="r:*") as archive:
        members = [m for m in archive.getmembers() if not m.isdir() and not hidden(m.name)]
        if len(members) != 1:
            raise Unreadable(f"a tar holding {len(members)} entries; expected exactly one CSV")
        if not members[0].isreg():
            raise Unreadable("the tar's one entry is a link or a special file; not read")
        if members[0].size > budget.left:
            raise budget.refusal(members[0].size)
        return capped_read(archive.extractfile(members[0]), budget)


def hidden(name: str) -> bool:
    """A hidden entry (a part starting with ``.``, other than ``..``) or macOS's ``__MACOSX``
    resource folder."""
    return any((p.startswith(".") and p != "..") or p == "__MACOSX"
               for p in PurePosixPath(name).parts)


def zip_is_link(info: zipfile.ZipInfo) -> bool:
    """Whether a zip member is a symbolic link (Unix mode in the high bits of external_attr)."""
    return stat.S_ISLNK(info.external_attr >> 16)


def zip_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo,
               max_bytes: int | Budget) -> bytes:
    """One member's bytes, capped before and during decompression (the header can lie); a member
    ending in ``.gz`` is gunzipped, capped too. ``max_bytes``: the size cap (the member then
    gets a :class:`Budget` of its own compressed size), or the archive's budget. Raises
    :class:`Unreadable`."""
    if zip_is_link(info):
        raise Unreadable("a symbolic link stored in the zip; not followed")
    budget = max_bytes if isinstance(max_bytes, Budget) else Budget(info.compress_size,
                                                                    max_bytes)
    if info.file_size > budget.left:
        raise budget.refusal(info.file_size)
    try:
        with archive.open(info) as member:
            data = capped_read(member, budget)
        if info.filename.lower().endswith(".gz"):
            data = gunzip(data, budget)
    except Unreadable:
        raise
    except RuntimeError as error:  # zipfile's word for a password-protected member
        raise Unreadable(f"cannot be read from the zip ({_first_line(error)})") from None
    except _DECOMPRESS_ERRORS as error:
        raise Unreadable(f"cannot be read from the zip ({_first_line(error)})") from None
    return data


def gunzip(data: bytes, max_bytes: int | Budget) -> bytes:
    """``data`` gunzipped, refused once it passes ``max_bytes`` or the budget's expansion."""
    try:
        with gzip.GzipFile(fileobj=io.BytesIO(data)) as stream:
            return capped_read(stream, max_bytes)
    except (OSError, EOFError, zlib.error) as error:
        raise Unreadable(f"not a readable gzip file ({_first_line(error)})",
                         damaged=True) from None
