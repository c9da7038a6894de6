"""The catalogue of hostile and malformed inputs (issue 15): every case built by
tests/hostile_cases.py and tests/hostile_more.py runs the real command line in-process and must end as promised.

For every case: the expected exit status, no traceback, nothing on the terminal that could drive
it (escape sequences, bidi overrides, bells, carriage returns). A refused input: exactly one line
on stderr, naming the file, line and column (or the option) where there is one. A bad submission
among good ones: exit 0, the good ones scored, the bad one listed in the JSON with its reason.
"""
from __future__ import annotations

import json
import os
import signal
import sys
from collections import Counter
from contextlib import contextmanager

import pytest

from leaderboard.cli import main
from tests.hostile_cases import GOOD_TEAMS
from tests.hostile_more import all_cases

CASES = all_cases()
_TERMINAL_CONTROLS = ("\x1b", "\x07", "\r", "\u202e", "\u2066", "\x9b")


def case_id(case) -> str:
    return case.name if case.name.startswith(case.family) else f"{case.family}: {case.name}"


@contextmanager
def deadline(seconds: int):
    """A hang (a named pipe read, an endless device) fails the case instead of the whole run."""
    def expire(signum, frame):
        raise TimeoutError(f"still running after {seconds} s")
    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def test_catalogue_has_150_distinct_cases_in_every_family():
    names = Counter(case_id(c) for c in CASES)
    assert len(CASES) >= 150
    assert max(names.values()) == 1, [n for n, k in names.items() if k > 1]
    families = Counter(c.family for c in CASES)
    assert set(families) == {"leaderboard", "solution", "submissions", "zip", "manifest",
                             "options", "names", "choose", "battles", "outputs", "expansion",
                             "benchmarks", "parquet", "undefined"}
    assert min(families.values()) >= 4, families


@contextmanager
def stdout_into(path):
    """Standard output redirected to ``path`` as a shell does it (appended to when it exists,
    as ``>>`` would; else created, as ``>``): file descriptor 1, and ``sys.stdout`` writing to
    it (pytest's capture would otherwise keep what the run prints away from the file); then
    both put back. None: left alone."""
    if path is None:
        yield
        return
    saved = os.dup(1)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | (os.O_APPEND if path.exists() else 0), 0o644)
    stream, before = open(1, "w", encoding="utf-8", closefd=False), sys.stdout
    try:
        os.dup2(fd, 1)
        sys.stdout = stream
        yield
    finally:
        stream.flush()
        sys.stdout = before
        os.dup2(saved, 1)
        os.close(saved)
        os.close(fd)


@pytest.mark.parametrize("case", CASES, ids=[case_id(c) for c in CASES])
def test_hostile_input(case, tmp_path, capsys):
    argv = case.build(tmp_path)
    with deadline(60), stdout_into(case.stdout and tmp_path / case.stdout):
        code = main(argv)
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    for control in _TERMINAL_CONTROLS:
        assert control not in out + err, f"{control!r} reached the terminal"
    if case.code:
        lines = err.splitlines()
        assert code == case.code, err
        assert len(lines) == 1 and lines[0].startswith("leaderboard"), err
        for words in case.where:
            assert words in lines[0], f"{words!r} not in: {lines[0]}"
    else:
        assert code == 0, err
        assert err == "" or case.stdout, err   # standard output taken: the summary is here
    if case.ok is not None:
        files = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["files"]
        status = {f["file"]: f for f in files}
        assert sum(f["status"] == "ok" for f in files) == case.ok, files
        teams = {f["team"]: f["status"] for f in files if f["team"] in GOOD_TEAMS}
        assert teams == dict.fromkeys(GOOD_TEAMS, "ok")  # one bad file never sinks the others
        for name, words in case.bad.items():
            assert name in status, f"{name!r} missing from the file table: {sorted(status)}"
            assert status[name]["status"] in ("rejected", "skipped"), status[name]
            assert words in status[name]["reason"], status[name]
    if case.check is not None:
        case.check(tmp_path, out, err)
