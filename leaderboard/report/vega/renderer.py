"""vl-convert, run in a child process: its embedded JavaScript engine cannot take the report down.

vl-convert renders the static SVG of every chart and builds the Vega JavaScript bundle inside an
embedded V8 engine. Under an address-space limit (``ulimit -v``, as on shared clusters and in some
containers) V8 cannot reserve its heap and aborts the whole process with a C stack trace (signal 5
or 6): the report was never written. A very long text can also stall its label measuring for
minutes. So the engine runs in one child process per run, started on first use, fed one JSON
request per line; when the child cannot start, dies, or does not answer within
:data:`TIMEOUT_SECONDS`, it is stopped, every later request answers None at once, and the callers
leave the static pictures out (the page draws its charts with JavaScript, and says so where
JavaScript is off). Its stderr (the engine's crash trace) never reaches the user.

Requests go through one worker thread (:func:`svg_later` answers a future at once), so the page
goes on building while the child draws: a page's four static charts took ~0.45 s of round trips
on a 1,000-entry board, most of it now spent beside the page's own work. Each distinct drawing is
made once per process (:data:`CACHE_ENTRIES` kept, keyed by the specification's canonical JSON):
a notebook's repeated display, a second page of the same analysis, and the test suite's many pages
of the same example ask again for the same pictures. :func:`warm_up` starts the child while the
statistics run, so its start (a Python process, vl-convert's V8 engine: ~2 s on the 2-core
development machine) is off the report's path. Pages ask for drawings only with
``--static-charts`` (:func:`leaderboard.report.vega.embed.static_drawings`): by default no page
starts the child (0.70 s of CPU a run whose drawings are not kept: docs/benchmarks.md); a
picture file (``.svg``, ``.png``) and the notebook's summary still do.

Texts longer than :data:`LABEL_LIMIT` characters in a specification's data are shortened (with
"…") before the static drawing: the picture could not show them anyway, and measuring a 100 KB
name took the engine 106 s. The interactive chart keeps the whole name.
"""
from __future__ import annotations

import atexit
import base64
import hashlib
import json
import os
import queue
import select
import subprocess
import sys
import threading
from collections import OrderedDict
from concurrent.futures import Future
from functools import partial
from pathlib import Path

from leaderboard.disk_cache import load_bytes, store_bytes

TIMEOUT_SECONDS = 120.0   # one drawing; the slowest real chart (100,000 entries) takes ~10 s
LABEL_LIMIT = 200         # characters of a text the static drawing keeps
CACHE_ENTRIES = 64        # drawings kept per process (a chart's SVG is ~10-200 KB)

# The child: no path of the user's (the current folder could hold a json.py) before its imports.
_CHILD = r"""
import sys
del sys.path[0]
import base64, json
import vl_convert as vlc
out = sys.stdout
for line in sys.stdin:
    ask = json.loads(line)
    try:
        version = ask.get("vl_version")
        kw = {"vl_version": version} if version else {}
        if ask["op"] == "svg":
            answer = {"ok": vlc.vegalite_to_svg(ask["spec"], **kw)}
        elif ask["op"] == "bundle":
            answer = {"ok": vlc.javascript_bundle(**kw)}
        else:
            answer = {"ok": base64.b64encode(vlc.svg_to_png(ask["svg"], scale=ask["scale"])).decode()}
    except Exception as error:
        answer = {"error": (str(error).strip().splitlines() or [type(error).__name__])[0][:300]}
    out.write(json.dumps(answer) + "\n")
    out.flush()
"""


class _Child:
    """The one renderer process of this run (None when it could not start or has failed)."""

    def __init__(self) -> None:
        self.process: subprocess.Popen[bytes] | None = None
        self.failed: str | None = None   # why the renderer is off, once it is
        self.lock = threading.Lock()

    def ask(self, request: dict) -> str | None:
        with self.lock:
            if self.failed is not None:
                return None
            try:
                if self.process is None:
                    self.process = subprocess.Popen(
                        [sys.executable, "-c", _CHILD], stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, close_fds=True)
                stdin, stdout = self.process.stdin, self.process.stdout
                if stdin is None or stdout is None:   # both are pipes, made above
                    raise OSError("the renderer's pipes are closed")
                stdin.write((json.dumps(request) + "\n").encode())
                stdin.flush()
                line = _read_line(stdout.fileno(), TIMEOUT_SECONDS)
            except OSError as error:
                self._fail(f"it could not start: {error.strerror or error}")
                return None
            if line is None:
                self._fail("it stopped or did not answer, most likely for lack of memory or "
                           "address space")
                return None
            answer = json.loads(line)
            if "ok" not in answer:
                raise RenderError(answer.get("error", "the chart renderer failed"))
            return answer["ok"]

    def _fail(self, why: str) -> None:
        self.failed = why
        self.stop()

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is not None:
            for stream in (process.stdin, process.stdout):
                try:
                    if stream is not None:
                        stream.close()
                except OSError:
                    pass
            if process.poll() is None:
                process.kill()
            process.wait()


class RenderError(ValueError):
    """vl-convert refused one specification (the renderer itself still works)."""


def _read_line(fd: int, timeout: float) -> bytes | None:
    """One line from ``fd`` within ``timeout`` seconds, or None (end of file, or too slow)."""
    chunks: list[bytes] = []
    deadline = _now() + timeout
    while True:
        left = deadline - _now()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            return None
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return None
        chunks.append(chunk)
        if chunk.endswith(b"\n"):
            return b"".join(chunks)


def _now() -> float:
    import time
    return time.monotonic()


class _Worker:
    """One daemon thread that runs requests to the child in order, so the caller goes on with
    its own work (a daemon: a run that ends never waits for a drawing it no longer needs; the
    child is stopped at exit by :meth:`_Child.stop`)."""

    def __init__(self) -> None:
        self.queue: queue.SimpleQueue = queue.SimpleQueue()
        self.thread: threading.Thread | None = None
        self.lock = threading.Lock()

    def submit(self, request: dict, keep=None) -> Future:
        """``request``'s answer as a future; ``keep(answer)`` runs before the future is answered
        (a drawing is on disk before anyone reads it, and before a run that waits for it ends)."""
        future: Future = Future()
        with self.lock:
            if self.thread is None or not self.thread.is_alive():
                self.thread = threading.Thread(target=self._run, name="leaderboard-renderer",
                                               daemon=True)
                self.thread.start()
        self.queue.put((future, request, keep))
        return future

    def _run(self) -> None:
        while True:
            future, request, keep = self.queue.get()
            if not future.set_running_or_notify_cancel():
                continue
            try:
                answer = _RENDERER.ask(request)
                if keep is not None and isinstance(answer, str):
                    try:
                        keep(answer)
                    except Exception:   # a drawing not kept only means drawing it again
                        pass
                future.set_result(answer)
            except BaseException as error:   # given to the caller; a thread never prints it
                future.set_exception(error)


_RENDERER = _Child()
_WORKER = _Worker()
atexit.register(_RENDERER.stop)
_CACHE: OrderedDict[str, Future] = OrderedDict()
_CACHE_LOCK = threading.Lock()


def unavailable() -> str | None:
    """Why the static renderer is off in this run (it failed earlier), or None."""
    return _RENDERER.failed


_NAMED = ("datasets", "values", "domain", "sort")   # where names sit: data, scales and orders


def shorten_texts(value, limit: int = LABEL_LIMIT, inside: bool = False):
    """``value`` (a specification) with every string of its data (``datasets``, ``values``, and
    the ``domain`` and ``sort`` lists, which repeat data values) longer than ``limit`` cut to
    ``limit`` characters and "…"; expressions, titles and the structure are kept.

    Examples
    --------
    >>> shorten_texts({"data": {"values": [{"team": "x" * 300, "n": 1}]}, "title": "y" * 9}, 4)
    {'data': {'values': [{'team': 'xxxx…', 'n': 1}]}, 'title': 'yyyyyyyyy'}
    """
    if isinstance(value, str):
        return value if not inside or len(value) <= limit else value[:limit] + "…"
    if isinstance(value, dict):
        return {k: shorten_texts(v, limit, inside or k in _NAMED) for k, v in value.items()}
    if isinstance(value, list):
        return [shorten_texts(v, limit, inside) for v in value]
    return value


def svg(spec: dict, vl_version: str | None) -> str | None:
    """The specification drawn as SVG by vl-convert in the child process, or None when the
    renderer cannot run here. Raises :class:`RenderError` when vl-convert refuses ``spec``."""
    return svg_later(spec, vl_version).result()


def svg_later(spec: dict, vl_version: str | None) -> Future:
    """:func:`svg` as a future, answered at once when the same specification (canonical JSON,
    after :func:`shorten_texts`) was drawn before in this process, or by an earlier run with the
    same vl-convert (:func:`_stored`). Only drawings are kept: a refused specification or a
    renderer that cannot run is asked again next time."""
    request = {"op": "svg", "spec": shorten_texts(spec), "vl_version": vl_version}
    key = json.dumps(request, sort_keys=True, ensure_ascii=False)
    with _CACHE_LOCK:
        future = _CACHE.get(key)
        if future is not None:
            _CACHE.move_to_end(key)
            return future
    stored = _stored(key)
    with _CACHE_LOCK:
        future = _CACHE.get(key)
        if future is None:
            if stored is not None:
                future = Future()
                future.set_result(stored)
            else:
                future = _WORKER.submit(request, partial(_keep, key))
            _CACHE[key] = future
        _CACHE.move_to_end(key)
        while len(_CACHE) > CACHE_ENTRIES:
            _CACHE.popitem(last=False)
    future.add_done_callback(lambda done: _forget_failed(key, done))
    return future


# ---- drawings kept between runs ---------------------------------------------------------------
# A drawing depends on nothing but its request and vl-convert's version (both in the key), so it
# is kept in the report's cache folder (bundle_cache.cache_root, beside the Vega bundle) and
# checked there as the bundle is (leaderboard.disk_cache: the user's own folder, SHA-256, the
# whole key inside the file): a run whose drawings are all kept never starts the renderer (its
# engine's start alone cost ~0.3-0.7 s of CPU a run). embed.static_svg still checks that each
# is a plain SVG drawing before a page takes it.
DRAWINGS_KEPT = 512       # drawings kept on disk (~10-200 KB each)
MAX_DRAWING_BYTES = 8 << 20


def _drawings() -> Path | None:
    from leaderboard.report.vega.bundle_cache import cache_root
    root = cache_root()
    return None if root is None else root / "drawings"


def _disk_key(key: str) -> tuple[str, str]:
    """The file name and the whole key of a request's drawing (vl-convert's version added)."""
    import vl_convert
    whole = f"vl-convert {getattr(vl_convert, '__version__', 'unknown')}\n{key}"
    return hashlib.sha256(whole.encode()).hexdigest()[:40] + ".json", whole


def _stored(key: str) -> str | None:
    """The drawing an earlier run kept for ``key``, or None."""
    folder = _drawings()
    if folder is None:
        return None
    name, whole = _disk_key(key)
    data = load_bytes(folder, name, MAX_DRAWING_BYTES)
    try:
        kept = json.loads(data) if data is not None else None
    except ValueError:
        return None
    if isinstance(kept, dict) and kept.get("key") == whole and isinstance(kept.get("svg"), str):
        return kept["svg"]
    return None


def _keep(key: str, drawn: str) -> None:
    """Keep a drawing on disk (nothing when the folder is unsafe; never an error)."""
    folder = _drawings()
    if folder is None:
        return
    name, whole = _disk_key(key)
    data = json.dumps({"key": whole, "svg": drawn}, ensure_ascii=False).encode("utf-8")
    if len(data) <= MAX_DRAWING_BYTES:
        store_bytes(folder, name, data, DRAWINGS_KEPT)


def forget_drawings() -> None:
    """Empty the process's cache of drawings (a test that checks the renderer itself draws
    anew)."""
    with _CACHE_LOCK:
        _CACHE.clear()


def _forget_failed(key: str, done: Future) -> None:
    if done.exception() is not None or done.result() is None:
        with _CACHE_LOCK:
            if _CACHE.get(key) is done:
                del _CACHE[key]


_WARM_UP = {"mark": "point", "data": {"values": [{"x": 0}]},
            "encoding": {"x": {"field": "x", "type": "quantitative"}}}


def warm_up() -> None:
    """Start the child and its engine now, in the background (returns at once): a command that
    will write a page with static drawings (``--static-charts``) calls this before its
    statistics, which then hide the child's start (V8's first drawing took 1.7 s, any
    Vega-Lite version; another version's first 0.06 s).
    Not when drawings are kept between runs (:func:`_stored`): the page's drawings may all be
    kept, and the child then starts at the first one that is not."""
    if _drawings() is None:
        svg_later(_WARM_UP, None)


def javascript_bundle(vl_version: str | None) -> str | None:
    """vl-convert's Vega JavaScript bundle, built in the child process, or None."""
    return _RENDERER.ask({"op": "bundle", "vl_version": vl_version})


def png(svg_text: str, scale: float = 2) -> bytes | None:
    """``svg_text`` as PNG at ``scale`` times its size, or None when the renderer cannot run."""
    encoded = _RENDERER.ask({"op": "png", "svg": svg_text, "scale": scale})
    return None if encoded is None else base64.b64decode(encoded)
