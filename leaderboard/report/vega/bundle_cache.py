"""The Vega JavaScript bundle's cache between runs, safe against planting and damage.

Building the bundle takes vl-convert about 1 s of CPU, so a page takes it, in this order, from
the package (:func:`shipped_bundle`: made when the wheel was built, :mod:`~leaderboard.report.vega.shipped`),
else from the user's cache folder (one file per vl-convert and Vega-Lite version), else builds it.
What a page inlines runs in every reader's browser, so a file is used only when all of these hold
(otherwise the bundle is built in memory, and the cache rewritten when the folder is safe):

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

import os
from collections.abc import Callable
from pathlib import Path

from leaderboard.disk_cache import open_folder, read_verified, write_verified
from leaderboard.report.vega import shipped

MAX_BUNDLE_BYTES = 16 << 20     # the bundle is about 0.9 MB


def cache_root() -> Path | None:
    """The folder of the report's caches (the bundle, :mod:`~leaderboard.report.vega.renderer`'s
    drawings): ``LEADERBOARD_CACHE_DIR``, else ``$XDG_CACHE_HOME/leaderboard`` (``~/.cache``);
    None when ``LEADERBOARD_CACHE_DIR`` is empty."""
    root = os.environ.get("LEADERBOARD_CACHE_DIR")
    if root is None:
        root = os.path.join(os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
                            "leaderboard")
    return Path(root) if root else None


def cache_file(version: str, vl_version: str | None) -> Path | None:
    """Where the bundle of this vl-convert (``version``) and Vega-Lite version is kept, or None
    when ``LEADERBOARD_CACHE_DIR`` is empty.

    Examples
    --------
    >>> cache_file("1.9", "5.20").name if os.environ.get("LEADERBOARD_CACHE_DIR") != "" else None
    'vega-bundle-1.9-5.20.js'
    """
    root = cache_root()
    if root is None:
        return None
    return root / shipped.bundle_name(version, vl_version)


def shipped_bundle(version: str, vl_version: str | None, folder: Path | None = None) -> str | None:
    """The bundle the package was built with (``folder``, by default
    :data:`leaderboard.report.vega.shipped.FOLDER`) when it is the one of vl-convert ``version``
    and Vega-Lite ``vl_version`` (its name says them) and it passes every check above (a
    damaged, edited or truncated package file is never inlined); else None, and the caller goes
    on to the user's cache. Its folder and files may be as writable as the package's own folder
    (``like`` of :func:`leaderboard.disk_cache.open_folder`: a package installed by root, or by a
    user with umask 002), not more. Read only: nothing here writes into an installed package."""
    folder = folder or shipped.FOLDER
    try:
        package = os.stat(folder.parent)
    except OSError:
        return None
    handle = open_folder(folder, create=False, like=package)
    if handle is None:
        return None
    try:
        return _read_verified(handle, shipped.bundle_name(version, vl_version), package)
    finally:
        os.close(handle)


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
    folder = open_folder(path.parent, create=True)
    try:
        if folder is not None:
            js = _read_verified(folder, path.name)
            if js is not None:
                return js
        js = build()
        if folder is not None and js is not None:
            write_verified(folder, path.name, js.encode("utf-8"), MAX_BUNDLE_BYTES)
        return js
    finally:
        if folder is not None:
            os.close(folder)


def _read_verified(folder: int, name: str, like: os.stat_result | None = None) -> str | None:
    data = read_verified(folder, name, MAX_BUNDLE_BYTES, like)
    if data is None:
        return None
    try:
        js = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    return js if looks_like_bundle(js) else None
