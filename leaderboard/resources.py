"""Where the shipped templates and bundled example data are, installed or run from a checkout, and
where numba keeps the compiled kernels (a writable folder even when the install is read-only)."""
from __future__ import annotations

import hashlib
import os
import re
import stat
import sys
import tempfile
from importlib.util import find_spec
from pathlib import Path
from typing import Any

_REPO_ROOT = Path(__file__).resolve().parent.parent


def _folder(package: str, checkout_dir: str) -> Path:
    # Installed (editable or not): templates/ and data/ are the namespace packages
    # leaderboard._templates and leaderboard._data (see pyproject.toml), so ask the import system
    # where that package's folder is. From a bare checkout on sys.path they are plain folders.
    try:
        spec = find_spec(package)
    except ModuleNotFoundError:
        spec = None
    if spec is not None and spec.submodule_search_locations:
        for location in spec.submodule_search_locations:
            if Path(location).is_dir():
                return Path(location)
    return _REPO_ROOT / checkout_dir


def templates_dir() -> Path:
    """Folder of the Jinja2 templates."""
    return _folder("leaderboard._templates", "templates")


def data_dir() -> Path:
    """Folder of the bundled example data."""
    return _folder("leaderboard._data", "data")


# --- the compiled kernels' cache ------------------------------------------------------------------
# numba compiles the kernels marked cache=True on first use (the example's: about 10 s of CPU,
# measured by benchmarks/bench_start.py; boards over 160 entries add the block searches, about
# 12 s) and keeps them in __pycache__ next to their modules. From a read-only install that
# folder cannot be written and, with no writable home either, numba refuses to even import the
# modules. So a writable folder is chosen before numba is imported: the user's cache, else a
# private temporary folder.
_PACKAGE = os.path.dirname(os.path.abspath(__file__))  # as numba sees it: absolute, not resolved
# The folders holding kernels (cached_kernels() finds them; tests/cli/test_hostile_setup.py checks
# this list against it), whose __pycache__ numba must be able to write.
KERNEL_FOLDERS = ("metrics", "noise", os.path.join("noise", "universes"), "shakeup", "tiers")
_TEMPORARY = "temporary"  # kernel_cache()'s note when the folder does not outlive the run


def _can_write(folder: str) -> bool:
    """Whether a file can be created in ``folder`` (made if missing), as numba will need."""
    try:
        os.makedirs(folder, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            return True
    except OSError:
        return False


def _private_temp() -> tuple[str, str]:
    """A temporary folder only this user can write: numba's cache holds pickles, which a
    folder shared with other users would let them replace with code that runs here."""
    if hasattr(os, "getuid"):
        folder = os.path.join(tempfile.gettempdir(), f"leaderboard-numba-{os.getuid()}")
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:
            pass
        except OSError:
            folder = ""
        if folder:
            info = os.lstat(folder)
            if (stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid()
                    and not info.st_mode & 0o077 and _can_write(folder)):
                return folder, "persistent"
    return tempfile.mkdtemp(prefix="leaderboard-numba-"), _TEMPORARY


def configure_kernel_cache() -> tuple[str | None, str]:
    """Give numba a writable cache folder when the install folder is not one.

    Respects ``NUMBA_CACHE_DIR`` when set. Otherwise, when the kernels' own ``__pycache__``
    folders can be written, changes nothing; else sets ``NUMBA_CACHE_DIR`` to
    ``$XDG_CACHE_HOME/leaderboard/numba`` (``~/.cache/...``), or to a private temporary folder.
    Called by ``leaderboard/__init__.py`` before anything imports numba.

    Returns
    -------
    (folder, note)
        The folder (None: beside the kernels) and ``"persistent"`` or ``"temporary"``.
    """
    given = os.environ.get("NUMBA_CACHE_DIR")
    if given:
        return given, "persistent"
    if all(_can_write(os.path.join(_PACKAGE, f, "__pycache__")) for f in KERNEL_FOLDERS):
        return None, "persistent"
    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    folder, note = os.path.join(home, "leaderboard", "numba"), "persistent"
    if not _can_write(folder):
        folder, note = _private_temp()
    os.environ["NUMBA_CACHE_DIR"] = folder
    numba_config: Any = sys.modules.get("numba.core.config")   # its attributes: numba's own
    if numba_config is not None:  # numba imported first (by the caller): it reads this attribute
        numba_config.CACHE_DIR = folder
    return folder, note


def results_dir() -> Path | None:
    """The folder of the result cache (:mod:`leaderboard.disk_cache`), beside the compiled
    kernels: under ``NUMBA_CACHE_DIR`` when one is set (by the user, or by
    :func:`configure_kernel_cache` when the install cannot be written), else in the package's own
    ``__pycache__``. None when ``LEADERBOARD_CACHE_DIR`` is set empty (every cache off).

    Examples
    --------
    >>> results_dir() is None or results_dir().name == "results"
    True
    """
    if os.environ.get("LEADERBOARD_CACHE_DIR") == "":
        return None
    kernels = os.environ.get("NUMBA_CACHE_DIR")
    if kernels:
        return Path(kernels) / "leaderboard" / "results"
    return Path(_PACKAGE) / "__pycache__" / "results"


def kernels_cached(folder: str | None = None) -> bool:
    """Whether every compiled kernel is already cached: each function marked ``cache=True`` in
    the package has numba's index file (False on the first run, which compiles, and while any
    kernel is still uncompiled, e.g. after a command that used only some of them).

    ``folder`` is the cache folder (default ``NUMBA_CACHE_DIR``, else beside the kernels).
    """
    folder = folder if folder is not None else os.environ.get("NUMBA_CACHE_DIR")
    for source, names in cached_kernels().items():
        if folder:  # numba's layout: <cache>/<folder name>_<sha1 of the folder's path>
            parent = os.path.dirname(source)
            where = Path(folder) / (os.path.basename(parent) + "_"
                                    + hashlib.sha1(parent.encode()).hexdigest())
        else:
            where = Path(os.path.dirname(source)) / "__pycache__"
        stem = Path(source).stem
        indexed = {p.name.split("-")[0] for p in where.glob(f"{stem}.*.nbi")}
        if any(f"{stem}.{name}" not in indexed for name in names):
            return False
    return True


def cached_kernels() -> dict[str, tuple[str, ...]]:
    """The compiled-and-cached kernels of :data:`KERNEL_FOLDERS`: module path -> the names of its
    functions decorated with ``cache=True`` (the first ``def`` after each, read as text: nothing
    imported, a few milliseconds), as numba names their index files
    (``<module>.<function>-<line>.pyXY.nbi``)."""
    found = {}
    for sub in KERNEL_FOLDERS:
        for path in sorted(Path(_PACKAGE, sub).glob("*.py")):
            names = tuple(_KERNEL.findall(path.read_text(encoding="utf-8")))
            if names:
                found[os.path.join(_PACKAGE, sub, path.name)] = names
    return found


# A decorator line saying cache=True, then the function it decorates (other decorators between).
# Not inline="always": numba copies those into their callers and never writes them an index file,
# so listing them made kernels_cached() False for ever (issue 27).
_KERNEL = re.compile(r"^(?![^\n]*inline=)[^\n]*cache=True[^\n]*\n(?:[ \t]*@[^\n]*\n)*[ \t]*def (\w+)",
                     re.MULTILINE)


def compile_notice(folder: str | None, note: str) -> str:
    """The one line a first run prints before compiling."""
    where = folder or "the install folder"
    if note == _TEMPORARY:
        return ("leaderboard: compiling the numerical kernels this command uses (1-15 s of CPU) "
                f"into a temporary folder, {where}; set NUMBA_CACHE_DIR to a writable folder to "
                "keep them for later runs")
    # 1.1, 2.1 and 11.2 s of CPU for the battles and submissions examples and a 1,702-entry
    # board (benchmarks/bench_start.py, docs/getting-started.md#the-first-run)
    return ("leaderboard: compiling the numerical kernels this command uses, once (1-15 s of "
            f"CPU); later runs reuse them ({where})")
