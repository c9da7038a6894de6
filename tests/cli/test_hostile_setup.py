"""The guarantees around the catalogue (issue 15): the top-level guard, the compiled kernels'
cache on a read-only install and the first run's notice, the example's temporary folder, and the
one sanitiser."""
from __future__ import annotations

import io
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from leaderboard import cli, resources
from leaderboard.cli.common import compile_notice_once
from leaderboard.errors import InputError, printable, processing


def _boom(args):
    with processing("subs.zip: team x.csv"):
        raise KeyError("no such column")


def test_unexpected_error_is_one_line_naming_the_input_exit_70(monkeypatch, capsys):
    monkeypatch.setattr("leaderboard.cli.simulate.run", _boom)   # the command main() runs
    code = cli.main(["simulate", "--score", "0.8", "--n-test", "100", "--prevalence", "0.1"])
    err = capsys.readouterr().err
    assert code == cli.INTERNAL_ERROR == 70
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert "subs.zip: team x.csv" in err and "KeyError" in err and "--debug" in err


def test_debug_shows_the_traceback(monkeypatch, capsys):
    monkeypatch.setattr("leaderboard.cli.simulate.run", _boom)   # the command main() runs
    code = cli.main(["simulate", "--score", "0.8", "--n-test", "100", "--prevalence", "0.1",
                     "--debug"])
    err = capsys.readouterr().err
    assert code == 70 and "Traceback" in err and err.strip().splitlines()[-1].startswith(
        "leaderboard: internal error")


def test_input_errors_are_sanitised_and_keep_their_place():
    error = InputError("bad \x1b[2J value\n", file="a\u202eb.csv", row=3, column="s\x07")
    text = str(error)
    assert text == "a?b.csv:3: column 's\\x07': bad ?[2J value?"
    assert printable("tab\there") == "tab?here"


def test_kernel_cache_falls_back_to_the_user_cache_then_a_private_folder(tmp_path, monkeypatch):
    # setenv first, so that the undo restores the variable as it was (absent, usually): a bare
    # delenv(raising=False) of an absent variable records nothing, and the undo of the second
    # delenv below would leave NUMBA_CACHE_DIR pointing at this test's empty folder, so that every
    # later subprocess of the run compiled all its kernels again (the example's: 9 s -> 66 s)
    monkeypatch.setenv("NUMBA_CACHE_DIR", "")
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    # configure_kernel_cache also sets numba's CACHE_DIR in this process: restored afterwards too,
    # else every module imported later in this worker (the package imports lazily) cached its
    # kernels in this test's folder, compiling them all again (a later test: 2.2 -> 7-8 s)
    import numba.core.config as numba_config
    monkeypatch.setattr(numba_config, "CACHE_DIR", numba_config.CACHE_DIR)
    home = tmp_path / "cache"
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    real = resources._can_write
    read_only = {resources._PACKAGE}
    monkeypatch.setattr(resources, "_can_write", lambda folder: not any(
        str(folder).startswith(r) for r in read_only) and real(folder))
    folder, note = resources.configure_kernel_cache()
    assert (folder, note) == (str(home / "leaderboard" / "numba"), "persistent")
    assert os.environ["NUMBA_CACHE_DIR"] == folder
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    read_only.add(str(home))  # no writable home either: a folder only this user can write
    monkeypatch.setattr(resources.tempfile, "tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    folder, note = resources.configure_kernel_cache()
    info = os.lstat(folder)
    assert folder.startswith(str(tmp_path / "tmp")) and stat.S_ISDIR(info.st_mode)
    assert info.st_uid == os.getuid() and not info.st_mode & 0o077


def test_a_temporary_folder_shared_with_others_is_not_trusted(tmp_path, monkeypatch):
    """A same-named folder that others can write (or a link) is never the pickles' home."""
    monkeypatch.setattr(resources.tempfile, "tempdir", str(tmp_path))
    shared = tmp_path / f"leaderboard-numba-{os.getuid()}"
    shared.mkdir(mode=0o777)
    shared.chmod(0o777)
    folder, note = resources._private_temp()
    assert Path(folder) != shared and note == "temporary"


def _index(tmp_path, module: str, function: str) -> None:
    """numba's index file of ``function`` in ``module`` (``folder/name.py``) under its layout."""
    import hashlib

    folder = os.path.join(resources._PACKAGE, os.path.dirname(module))
    where = tmp_path / (os.path.basename(folder) + "_" + hashlib.sha1(folder.encode()).hexdigest())
    where.mkdir(exist_ok=True)
    stem = os.path.splitext(os.path.basename(module))[0]
    (where / f"{stem}.{function}-12.py311.nbi").write_bytes(b"")


def test_kernels_cached_means_every_kernel(tmp_path):
    """One cached kernel is not "cached" (the bug: any index file said so): every function marked
    cache=True needs its index file."""
    kernels = resources.cached_kernels()
    assert "tiers/_pair_kernels.py" in {os.path.relpath(m, resources._PACKAGE) for m in kernels}
    assert not resources.kernels_cached(str(tmp_path))
    _index(tmp_path, "tiers/_pair_kernels.py", "kth")
    assert not resources.kernels_cached(str(tmp_path))
    everything = [(os.path.relpath(m, resources._PACKAGE), f) for m, names in kernels.items()
                  for f in names]
    for module, function in everything[:-1]:
        _index(tmp_path, module, function)
    assert not resources.kernels_cached(str(tmp_path))    # all but one
    _index(tmp_path, *everything[-1])
    assert resources.kernels_cached(str(tmp_path))


def test_inline_helpers_are_not_kernels_to_wait_for():
    """numba copies inline="always" helpers into their callers and writes them no index file:
    listed as kernels, they kept kernels_cached() False for ever (issue 27)."""
    names = {f for functions in resources.cached_kernels().values() for f in functions}
    assert {"kth", "side_max", "marginal_owners"} <= names
    assert not names & {"candidate", "first_two", "bound", "_top_of2", "beyond"}


def test_kernel_folders_hold_every_kernel():
    """configure_kernel_cache checks these folders can be written: every module with a cached
    kernel is in one (noise/ was missing: weights.py, _curve_kernels.py)."""
    import re

    found = set()
    for path in Path(resources._PACKAGE).rglob("*.py"):
        # a decorator's option, not the words in _jit's or resources' docstrings
        if re.search(r"^\s*@\w*\.?njit\([^)]*cache=True", path.read_text(encoding="utf-8"), re.M):
            found.add(os.path.relpath(path.parent, resources._PACKAGE))
    assert found <= set(resources.KERNEL_FOLDERS)


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_first_run_says_it_is_compiling_once(monkeypatch):
    """The line comes when numba really compiles (its numba:compile event), once; not with every
    kernel cached, not when quiet, and not when the command loads its kernels from the cache."""
    from numba.core import event

    stream = _Tty()
    monkeypatch.setattr(sys, "stderr", stream)
    cached = [False]
    monkeypatch.setattr(resources, "kernels_cached", lambda: cached[0])
    with compile_notice_once(quiet=False):
        assert stream.getvalue() == ""   # nothing compiled yet: nothing said
        for _ in range(2):
            with event.trigger_event("numba:compile", data={}):
                pass
    lines = stream.getvalue().splitlines()
    assert len(lines) == 1 and "compiling" in lines[0]
    with event.trigger_event("numba:compile", data={}):   # after the command: not listening
        pass
    cached[0] = True
    with compile_notice_once(quiet=False):
        with event.trigger_event("numba:compile", data={}):
            pass
    cached[0] = False
    with compile_notice_once(quiet=True):
        with event.trigger_event("numba:compile", data={}):
            pass
    assert len(stream.getvalue().splitlines()) == 1


@pytest.mark.parametrize("command", [["analyze", "--example", "submissions", "--replicates",
                                      "100"]])
def test_examples_leave_no_temporary_folder(tmp_path, command):
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "leaderboard", *command, "--quiet", "-o",
                           str(tmp_path / "r.html")], env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    assert not list(tmp_path.glob("leaderboard-example-*"))
