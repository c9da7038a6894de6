"""Results kept between runs, safe against planting and damage, that never change a number.

Some results depend only on the question, not on anything a run reads besides it: the noise of a
metric's universe (:func:`leaderboard.noise.grid.build_noise_model`) is a function of the metric,
the test set's size and prevalence, the grid of true scores, the draws and the seed. They are
kept on disk (:func:`leaderboard.resources.results_dir`: beside the compiled kernels) so that
asking again costs a read. A cached value is used only when all of these hold, else the result
is computed and the file rewritten:

- the key is made from **every argument of the call** (:func:`canonical`, all of
  ``inspect.signature(...).bind``: an option added to a function later is in the key without
  anyone listing it; only arguments named in ``ignore``, such as a progress bar, are left out),
  plus the code's own fingerprint (:func:`code_version`: the SHA-256 of every source file of the
  package and the versions of numpy, SciPy and numba), so a changed module, or another numpy,
  misses; an argument of a type the key cannot describe exactly (a lambda, an object without a
  canonical form) turns the cache off for that call;
- the folder is a real folder owned by the user that no one else can write, opened once
  (``O_NOFOLLOW``) with every file opened relative to it; a file is opened ``O_NOFOLLOW |
  O_NONBLOCK`` and must be a regular file of the user's, writable by no one else, of at most
  :data:`MAX_BYTES`; its SHA-256 and length equal the digest file written beside it (a file
  the package ships, read with ``like``, may instead be as writable as the package's own folder:
  :func:`_safe`);
- the file holds the whole key, compared with the call's (so a file under another name, or a
  hash collision, is not taken), and only arrays (``numpy.load(..., allow_pickle=False)``) and
  JSON: nothing from disk is ever unpickled or run.

Writes go to a fresh temporary file renamed over the old one (a reader sees a whole file or
none); each kind keeps at most :data:`MAX_FILES` results, the oldest removed first.
``LEADERBOARD_CACHE_DIR=""`` turns every cache off.
"""
from __future__ import annotations

import dataclasses
import enum
import functools
import hashlib
import inspect
import io
import json
import os
import secrets
import stat
import sys
from pathlib import Path
from typing import Any

import numpy as np

MAX_BYTES = 64 << 20      # one result; a noise model of 2,000 draws at 50 levels is ~0.8 MB
MAX_FILES = 64            # results kept per kind
_UNSAFE_MODE = stat.S_IWGRP | stat.S_IWOTH
_DIGEST_BYTES = 4096


class Uncacheable(TypeError):
    """An argument the key cannot describe exactly: the call is computed, not cached."""


# ---- the key -----------------------------------------------------------------------------------

def canonical(value):
    """A JSON-able description of ``value`` that two values share only when they are equal (and
    of the same type): the cache's key is made of these.

    Examples
    --------
    >>> canonical((1, 2.5, "a", None))
    ['tuple', [['int', 1], ['float', '0x1.4000000000000p+1'], ['str', 'a'], None]]
    >>> canonical(np.arange(2))[:3]
    ['ndarray', '<i8', [2]]
    """
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, enum.Enum):
        return ["enum", _name(type(value)), value.name]
    if isinstance(value, int) and type(value) is int:
        return ["int", value]
    if isinstance(value, float) and type(value) is float:
        return ["float", value.hex()]
    if isinstance(value, str) and type(value) is str:
        return ["str", value]
    if isinstance(value, np.generic):
        return ["scalar", value.dtype.str, value.tobytes().hex()]
    if isinstance(value, np.ndarray):
        if value.dtype.hasobject:
            raise Uncacheable("an array of objects")
        data = np.ascontiguousarray(value)
        return ["ndarray", data.dtype.str, list(data.shape),
                hashlib.sha256(data.tobytes()).hexdigest()]
    if isinstance(value, (tuple, list)):
        return [type(value).__name__, [canonical(v) for v in value]]
    if isinstance(value, dict):
        items = sorted(((json.dumps(canonical(k)), canonical(v)) for k, v in value.items()))
        return ["dict", items]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return ["dataclass", _name(type(value)),
                [[f.name, canonical(getattr(value, f.name))] for f in dataclasses.fields(value)]]
    if isinstance(value, functools.partial):
        return ["partial", canonical(value.func), canonical(value.args),
                canonical(value.keywords)]
    if inspect.isclass(value) or inspect.isfunction(value) or inspect.isbuiltin(value):
        name = _name(value)
        if "<" in name:   # a lambda or a local function: its name does not say what it does
            raise Uncacheable(f"{name} has no stable name")
        return ["callable", name]
    raise Uncacheable(f"no canonical form for {type(value).__name__}")


def _name(obj) -> str:
    return f"{obj.__module__}.{obj.__qualname__}"


@functools.lru_cache(maxsize=1)
def code_version() -> str:
    """SHA-256 of every source file of the package (path and bytes) and the numerical libraries'
    versions: results computed by other code are never taken."""
    digest = hashlib.sha256()
    package = Path(__file__).resolve().parent
    for path in sorted(package.rglob("*.py")):
        digest.update(str(path.relative_to(package)).encode() + b"\0" + path.read_bytes() + b"\0")
    for module in ("numpy", "scipy", "numba"):
        digest.update(f"{module} {_version(module)}\0".encode())
    return digest.hexdigest()


def _version(module: str) -> str:
    loaded = getattr(sys.modules.get(module), "__version__", None)
    if isinstance(loaded, str):
        return loaded
    try:
        from importlib.metadata import version
        return version(module)
    except Exception:   # not installed: the key says so
        return "-"


# ---- values: dataclasses of arrays and plain scalars ------------------------------------------

def encode(value, allowed: tuple[type, ...]) -> bytes:
    """``value`` (a dataclass of ``allowed`` types holding arrays, numpy and Python scalars,
    strings, None and tuples) as one ``.npz`` file's bytes: its arrays, and its structure as
    JSON in the array ``__tree__``."""
    arrays: dict[str, np.ndarray] = {}

    def walk(v):
        if isinstance(v, np.ndarray):
            if v.dtype.hasobject:
                raise Uncacheable("an array of objects")
            arrays[f"a{len(arrays)}"] = v
            return {"array": f"a{len(arrays) - 1}"}
        if isinstance(v, np.generic):
            arrays[f"a{len(arrays)}"] = np.asarray(v)
            return {"scalar": f"a{len(arrays) - 1}"}
        if isinstance(v, tuple):
            return {"tuple": [walk(x) for x in v]}
        if isinstance(v, float) and type(v) is float:
            return {"float": v.hex()}
        if v is None or type(v) in (bool, int, str):
            return v
        if type(v) in allowed:
            return {"dataclass": allowed.index(type(v)),
                    "fields": {f.name: walk(getattr(v, f.name)) for f in dataclasses.fields(v)}}
        raise Uncacheable(f"cannot store a {type(v).__name__}")

    tree = json.dumps(walk(value))
    out = io.BytesIO()
    # one mapping of names to arrays (the keywords a0, a1, ... never meet savez's allow_pickle)
    members: dict[str, Any] = {"__tree__": np.frombuffer(tree.encode(), np.uint8), **arrays}
    np.savez(out, **members)
    return out.getvalue()


def decode(data: bytes, allowed: tuple[type, ...]):
    """The value :func:`encode` stored (``allow_pickle=False``: arrays and JSON only)."""
    with np.load(io.BytesIO(data), allow_pickle=False) as stored:
        arrays = {name: stored[name] for name in stored.files}
    tree = json.loads(arrays.pop("__tree__").tobytes().decode())

    def build(node):
        if not isinstance(node, dict):
            return node
        if "array" in node:
            return arrays[node["array"]]
        if "scalar" in node:
            return arrays[node["scalar"]][()]
        if "tuple" in node:
            return tuple(build(x) for x in node["tuple"])
        if "float" in node:
            return float.fromhex(node["float"])
        kind = allowed[node["dataclass"]]
        return kind(**{k: build(v) for k, v in node["fields"].items()})

    return build(tree)


# ---- the files ---------------------------------------------------------------------------------

def memoize(kind: str, allowed: tuple[type, ...], ignore: tuple[str, ...] = ()):
    """Decorator: keep the function's results in the result cache's folder ``kind`` (see the
    module's docstring); arguments named in ``ignore`` (a progress bar) are not in the key.
    ``allowed`` are the dataclasses a result may hold (their names are not read from disk)."""
    def wrap(function):
        signature = inspect.signature(function)

        @functools.wraps(function)
        def cached(*args, **kwargs):
            from leaderboard.resources import results_dir
            root = results_dir()
            if root is None:
                return function(*args, **kwargs)
            bound = signature.bind(*args, **kwargs)
            bound.apply_defaults()
            try:
                key = json.dumps([_name(function), code_version(),
                                  [[k, canonical(v)] for k, v in bound.arguments.items()
                                   if k not in ignore]])
            except Uncacheable:
                return function(*args, **kwargs)
            name = hashlib.sha256(key.encode()).hexdigest()[:40] + ".npz"
            folder = root / kind
            found = load(folder, name, key, allowed)
            if found is not None:
                return found
            value = function(*args, **kwargs)
            store(folder, name, key, value, allowed)
            return value

        return cached
    return wrap


def load(folder: Path, name: str, key: str, allowed: tuple[type, ...]):
    """The value stored under ``name`` for exactly ``key``, or None (missing, unsafe, damaged,
    another key's)."""
    data = load_bytes(folder, name)
    if data is None:
        return None
    try:
        stored = decode(data, (_Keyed, *allowed))
        return stored.value if isinstance(stored, _Keyed) and stored.key == key else None
    except Exception:   # anything wrong with a file only means computing again
        return None


def store(folder: Path, name: str, key: str, value, allowed: tuple[type, ...]) -> None:
    """Write ``value`` under ``name`` (nothing when the folder is unsafe or the value cannot be
    stored); the oldest files beyond :data:`MAX_FILES` go."""
    try:
        data = encode(_Keyed(key, value), (_Keyed, *allowed))
    except Uncacheable:
        return
    store_bytes(folder, name, data)


def load_bytes(folder: Path, name: str, limit: int = MAX_BYTES) -> bytes | None:
    """The verified bytes of ``name`` in ``folder`` (None: missing, unsafe or damaged)."""
    handle = open_folder(folder, create=False)
    if handle is None:
        return None
    try:
        return read_verified(handle, name, limit)
    finally:
        os.close(handle)


def store_bytes(folder: Path, name: str, data: bytes, keep: int = MAX_FILES) -> None:
    """Write ``data`` as ``name`` in ``folder`` with its digest, keeping the newest ``keep``
    files of ``name``'s suffix."""
    handle = open_folder(folder, create=True)
    if handle is None:
        return
    try:
        if write_verified(handle, name, data):
            _trim(handle, Path(name).suffix, keep)
    finally:
        os.close(handle)


@dataclasses.dataclass(frozen=True)
class _Keyed:
    key: str
    value: object


def _trim(folder: int, suffix: str, keep: int) -> None:
    try:
        names = [n for n in os.listdir(folder) if n.endswith(suffix)]
        if len(names) <= keep:
            return
        aged = sorted(names, key=lambda n: os.stat(n, dir_fd=folder,
                                                   follow_symlinks=False).st_mtime)
        for old in aged[:len(names) - keep]:
            for target in (old, old + ".sha256"):
                os.unlink(target, dir_fd=folder)
    except OSError:
        pass


def digest(data: bytes) -> str:
    """The digest file's text: SHA-256 and length."""
    return f"sha256 {hashlib.sha256(data).hexdigest()} {len(data)}\n"


def _safe(info: os.stat_result, like: os.stat_result | None = None) -> bool:
    """The user's own and writable by no one else; or, given ``like`` (the installed package's
    folder, for a file the package ships), no more writable than that folder: the same owner and
    group and no write bit it lacks. Whoever could write such a file could already replace the
    package's code beside it (root's install, or a user's with umask 002: group-writable files of
    the user's own group)."""
    if info.st_uid == os.getuid() and not info.st_mode & _UNSAFE_MODE:
        return True
    return like is not None and info.st_uid == like.st_uid and info.st_gid == like.st_gid \
        and not info.st_mode & _UNSAFE_MODE & ~like.st_mode


def open_folder(folder: Path, *, create: bool, like: os.stat_result | None = None) -> int | None:
    """A handle on ``folder`` when it is the user's own and no one else can write it (or, given
    ``like``, it is no more writable than that: :func:`_safe`)."""
    try:
        if create and not os.path.lexists(folder):
            folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError:
        return None
    if not _safe(os.fstat(fd), like):
        os.close(fd)
        return None
    return fd


def read_file(folder: int, name: str, limit: int,
              like: os.stat_result | None = None) -> bytes | None:
    """The whole of ``name`` when it is a safe regular file of at most ``limit`` bytes."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=folder)
    except OSError:
        return None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or not _safe(info, like) or info.st_size > limit:
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


def read_verified(folder: int, name: str, limit: int,
                  like: os.stat_result | None = None) -> bytes | None:
    """``name``'s bytes when they match the digest file beside them."""
    recorded = read_file(folder, name + ".sha256", _DIGEST_BYTES, like)
    if recorded is None:
        return None
    data = read_file(folder, name, limit, like)
    if data is None or digest(data).encode() != recorded:
        return None
    return data


def write_verified(folder: int, name: str, data: bytes, limit: int = MAX_BYTES) -> bool:
    """Write ``data`` and its digest file (False when it is too large or a write failed)."""
    if len(data) > limit:
        return False
    return all(replace_file(folder, target, content) for target, content in
               ((name, data), (name + ".sha256", digest(data).encode())))


def replace_file(folder: int, name: str, content: bytes) -> bool:
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
