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

Texts longer than :data:`LABEL_LIMIT` characters in a specification's data are shortened (with
"…") before the static drawing: the picture could not show them anyway, and measuring a 100 KB
name took the engine 106 s. The interactive chart keeps the whole name.
"""
from __future__ import annotations

import atexit
import base64
import json
import os
import select
import subprocess
import sys
import threading

TIMEOUT_SECONDS = 120.0   # one drawing; the slowest real chart (100,000 entries) takes ~10 s
LABEL_LIMIT = 200         # characters of a text the static drawing keeps

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
        self.process: subprocess.Popen | None = None
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
                self.process.stdin.write((json.dumps(request) + "\n").encode())
                self.process.stdin.flush()
                line = _read_line(self.process.stdout.fileno(), TIMEOUT_SECONDS)
            except OSError as error:
                return self._fail(f"it could not start: {error.strerror or error}")
            if line is None:
                return self._fail("it stopped or did not answer, most likely for lack of memory "
                                  "or address space")
            answer = json.loads(line)
            if "ok" not in answer:
                raise RenderError(answer.get("error", "the chart renderer failed"))
            return answer["ok"]

    def _fail(self, why: str) -> None:
        self.failed = why
        self.stop()
        return None

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is not None:
            for stream in (process.stdin, process.stdout):
                try:
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


_RENDERER = _Child()
atexit.register(_RENDERER.stop)


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
    return _RENDERER.ask({"op": "svg", "spec": shorten_texts(spec), "vl_version": vl_version})


def javascript_bundle(vl_version: str | None) -> str | None:
    """vl-convert's Vega JavaScript bundle, built in the child process, or None."""
    return _RENDERER.ask({"op": "bundle", "vl_version": vl_version})


def png(svg_text: str, scale: float = 2) -> bytes | None:
    """``svg_text`` as PNG at ``scale`` times its size, or None when the renderer cannot run."""
    encoded = _RENDERER.ask({"op": "png", "svg": svg_text, "scale": scale})
    return None if encoded is None else base64.b64decode(encoded)
