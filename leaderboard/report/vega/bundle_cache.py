"""The Vega JavaScript bundle's cache between runs, safe against planting and damage.

Building the bundle takes vl-convert about 1.3 s per process, so it is kept in the user's cache
folder, one file per vl-convert and Vega-Lite version. What a page inlines runs in every reader's
browser, so a cached file is used only when all of these hold (otherwise the bundle is built in
memory, and the cache rewritten when the folder is safe):

- the folder is a real folder (not a link), owned by the user, writable by no one else; it is
  opened once (``O_NOFOLLOW``) and every file is opened relative to that handle, so the folder
  cannot be swapped between the check and the read;
- the file is opened with ``O_NOFOLLOW | O_NONBLOCK`` (a link is refused, a FIFO cannot block)
  and checked on the open handle: a regular file, owned by the user, writable by no one else,
  no larger than :data:`MAX_BUNDLE_BYTES` (checked before reading, so a huge sparse file is never
  read);
- its SHA-256 and length equal those recorded beside it (``<file>.sha256``) when it was built,
  so a truncated, damaged or edited bundle is not inlined; and it still looks like the bundle
  (defines ``vegaEmbed``, and could be inlined in a ``<script>`` element).

Writes go to a new temporary file in the same folder (``O_CREAT | O_EXCL | O_NOFOLLOW``, mode
0600: never through a planted link) and are renamed over the old file, so a reader sees a whole
file or none. ``LEADERBOARD_CACHE_DIR`` moves the folder; an empty value turns the cache off.
"""
from __future__ import annotations

import hashlib
import os
import secrets
import stat
from collections.abc import Callable
from pathlib import Path

MAX_BUNDLE_BYTES = 16 << 20     # the bundle is about 0.9 MB
_MAX_DIGEST_BYTES = 4096
_UNSAFE_MODE = stat.S_IWGRP | stat.S_IWOTH


def cache_file(version: str, vl_version: str | None) -> Path | None:
    """Where the bundle of this vl-convert (``version``) and Vega-Lite version is kept, or None
    when ``LEADERBOARD_CACHE_DIR`` is empty.

    Examples
    --------
    >>> cache_file("1.9", "5.20").name if os.environ.get("LEADERBOARD_CACHE_DIR") != "" else None
    'vega-bundle-1.9-5.20.js'
    """
    root = os.environ.get("LEADERBOARD_CACHE_DIR")
    if root is None:
        root = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
                            "leaderboard")
    if not root:
        return None
    return Path(root) / f"vega-bundle-{version}-{vl_version or 'default'}.js"


def looks_like_bundle(js: str) -> bool:
    """The bundle's shape: defines ``vegaEmbed`` and can sit inside a ``<script>`` element."""
    lowered = js.lower()
    return "vegaembed" in lowered and "</script" not in lowered and "<!--" not in lowered


def cached_bundle(path: Path | None, build: Callable[[], str | None]) -> str | None:
    """The bundle from ``path`` when it passes every check above, else ``build()`` (written back
    to ``path`` when its folder is safe; None, when the build cannot run here, is returned and
    not written). Nothing wrong with the cache is ever an error."""
    if path is None:
        return build()
    folder = _open_folder(path.parent, create=True)
    try:
        if folder is not None:
            js = _read_verified(folder, path.name)
            if js is not None:
                return js
        js = build()
        if folder is not None and js is not None:
            _write(folder, path.name, js)
        return js
    finally:
        if folder is not None:
            os.close(folder)


def _digest(data: bytes) -> str:
    return f"sha256 {hashlib.sha256(data).hexdigest()} {len(data)}\n"


def _safe(info: os.stat_result) -> bool:
    return info.st_uid == os.getuid() and not info.st_mode & _UNSAFE_MODE


def _open_folder(folder: Path, *, create: bool) -> int | None:
    """A handle on the cache folder when it is the user's own and no one else can write it."""
    try:
        if create and not os.path.lexists(folder):
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        return None
    if not _safe(os.fstat(fd)):
        os.close(fd)
        return None
    return fd


def _read_file(folder: int, name: str, limit: int) -> bytes | None:
    """The whole of ``name`` when it is a safe regular file of at most ``limit`` bytes."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=folder)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or not _safe(info) or info.st_size > limit:
            return None
        chunks, left = [], info.st_size + 1    # one byte more: a file that grew is refused
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
        data = b"".join(chunks)
        return data if len(data) <= limit else None
    except OSError:
        return None
    finally:
        os.close(fd)


def _read_verified(folder: int, name: str) -> str | None:
    recorded = _read_file(folder, name + ".sha256", _MAX_DIGEST_BYTES)
    if recorded is None:
        return None
    data = _read_file(folder, name, MAX_BUNDLE_BYTES)
    if data is None or _digest(data).encode() != recorded:
        return None
    try:
        js = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return js if looks_like_bundle(js) else None


def _write(folder: int, name: str, js: str) -> None:
    data = js.encode("utf-8")
    if len(data) > MAX_BUNDLE_BYTES:
        return
    for target, content in ((name, data), (name + ".sha256", _digest(data).encode())):
        if not _replace(folder, target, content):
            return


def _replace(folder: int, name: str, content: bytes) -> bool:
    """Write ``content`` to a fresh temporary file beside ``name`` and rename it over ``name``
    (a link planted at ``name`` is replaced, never written through)."""
    temporary = f".{name}.{os.getpid()}.{secrets.token_hex(8)}.partial"
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600,
                     dir_fd=folder)
    except OSError:
        return False
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(content)
        os.replace(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
        return True
    except OSError:
        try:
            os.unlink(temporary, dir_fd=folder)
        except OSError:
            pass
        return False
