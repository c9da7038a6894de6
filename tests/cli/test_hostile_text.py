"""Hostile input, part four (issue 43): text a terminal cannot show, names a CSV cannot carry,
and outputs that are a terminal, standard error or a named pipe someone reads. The rest of the
issue's cases are in the catalogue (tests/hostile_readers.py, run by tests/cli/test_hostile.py);
these need the process's streams or the Python API, which a catalogue case does not reach.
"""
from __future__ import annotations

import io
import json
import os
import sys
import threading
from contextlib import contextmanager
from pathlib import Path

import pandas as pd
import pytest

import leaderboard
from leaderboard.cli import main
from leaderboard.errors import InputError
from leaderboard.safe_write import open_output

GREEK = "team,score\nαλφα,0.81\nβήτα,0.79\n\u202eγάμμα,0.75\n"
BOARD = ["--metric", "auc", "--n-test", "1000", "--prevalence", "0.2", "--draws", "100",
         "--replicates", "100"]


@contextmanager
def ascii_streams(errors: str = "strict"):
    """sys.stdout and sys.stderr as PYTHONIOENCODING=ascii makes them (strict errors), or a C
    locale without UTF-8 mode (``errors="surrogateescape"``)."""
    saved = sys.stdout, sys.stderr
    out = io.TextIOWrapper(io.BytesIO(), encoding="ascii", errors=errors)
    err = io.TextIOWrapper(io.BytesIO(), encoding="ascii", errors=errors)
    sys.stdout, sys.stderr = out, err
    try:
        yield out, err
    finally:
        sys.stdout, sys.stderr = saved
        for stream in (out, err):
            stream.flush()


def _text(stream: io.TextIOWrapper) -> str:
    stream.flush()
    return stream.buffer.getvalue().decode("ascii")


@pytest.mark.parametrize("errors", ["strict", "surrogateescape"],
                         ids=["PYTHONIOENCODING=ascii", "C locale (LC_ALL=C PYTHONUTF8=0)"])
def test_an_ascii_terminal_gets_escapes_not_a_crash_after_the_outputs(tmp_path, errors):
    board = tmp_path / "board.csv"
    board.write_text(GREEK, encoding="utf-8")
    with ascii_streams(errors) as (out, err):
        code = main(["analyze", str(board), *BOARD, "-o", str(tmp_path / "r.html"), "--json",
                     str(tmp_path / "r.json"), "--markdown", str(tmp_path / "t.md")])
        printed, said = _text(out), _text(err)
        assert out.errors == errors    # the stream's own setting is put back
    assert code == 0, said
    assert "\\u03b1\\u03bb\\u03c6\\u03b1" in printed and "wrote" in printed
    assert "\u202e" not in printed and "Traceback" not in said
    teams = {e["team"] for e in json.loads((tmp_path / "r.json").read_text())["entries"]}
    assert "αλφα" in teams                 # the files keep the names as given
    with ascii_streams() as (out, err):
        assert main(["analyze", str(tmp_path / "nowhere-ü.csv"), *BOARD]) == 2
        assert _text(err).startswith("leaderboard: error: ") and "\\xfc" in _text(err)


@contextmanager
def streams_to(path: Path, *fds: int):
    """The file descriptors ``fds`` all redirected to the one file ``path``, then put back."""
    saved = [os.dup(fd) for fd in fds]
    target = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        for fd in fds:
            os.dup2(target, fd)
        yield
    finally:
        for fd, old in zip(fds, saved):
            os.dup2(old, fd)
            os.close(old)
        os.close(target)


def test_standard_output_shared_with_standard_error_is_refused(tmp_path, capsys):
    board = tmp_path / "board.csv"
    board.write_text(GREEK, encoding="utf-8")
    with streams_to(tmp_path / "all.log", 1, 2):   # `> all.log 2>&1`
        code = main(["analyze", str(board), *BOARD, "-o", str(tmp_path / "r.html"), "--json",
                     "/dev/stdout"])
    err = capsys.readouterr().err
    assert code == 2 and "cannot write --json /dev/stdout" in err and "standard error" in err
    assert not (tmp_path / "r.html").exists()      # refused before any work


def test_a_terminal_as_an_output_is_refused(tmp_path, capsys):
    board = tmp_path / "board.csv"
    board.write_text(GREEK, encoding="utf-8")
    leader, follower = os.openpty()
    saved = os.dup(1)
    try:
        os.dup2(follower, 1)
        code = main(["analyze", str(board), *BOARD, "-o", "/dev/stdout"])
    finally:
        os.dup2(saved, 1)
        for fd in (saved, leader, follower):
            os.close(fd)
    assert code == 2 and "it is the terminal" in capsys.readouterr().err


def _in_time(action, seconds: float = 30):
    """``action()``'s exception (None when it returns); fails if it has not ended in time."""
    caught: list[BaseException | None] = []

    def run() -> None:
        try:
            action()
            caught.append(None)
        except BaseException as error:   # noqa: BLE001 - handed to the test
            caught.append(error)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(seconds)
    assert not worker.is_alive(), "blocked"
    return caught[0]


def test_a_named_pipe_someone_reads_is_refused_at_once(tmp_path):
    fifo = tmp_path / "out.json"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)   # a reader: opening would succeed
    try:
        error = _in_time(lambda: open_output(fifo).__enter__())
    finally:
        os.close(reader)
    assert isinstance(error, InputError) and "(a FIFO)" in str(error)


def test_a_battles_result_is_not_saved_onto_a_named_pipe(tmp_path):
    rows = [("a", "b", "model_a"), ("b", "c", "model_a"), ("c", "a", "model_a"),
            ("b", "a", "model_b"), ("c", "b", "model_a"), ("a", "c", "model_b")] * 6
    result = leaderboard.analyze_battles(pd.DataFrame(rows, columns=["model_a", "model_b",
                                                                     "winner"]),
                                         replicates=100)
    fifo = tmp_path / "page.html"
    os.mkfifo(fifo)
    error = _in_time(lambda: result.save(fifo))
    assert isinstance(error, InputError) and "not a regular file (a FIFO)" in str(error)


NAMES = {"a\rb": "a\rb", "a\ud800b": "a\\ud800b", "a\udcffb": "a\\xffb"}


@pytest.mark.parametrize("name", NAMES, ids=["carriage return", "lone surrogate",
                                             "undecodable byte"])
def test_dataframe_names_a_csv_cannot_carry_are_read_like_a_file(tmp_path, name):
    """A DataFrame's names are read as a file's would be: a carriage return kept inside its
    cell (it was refused, the row cut in two), a lone surrogate escaped (it crashed)."""
    board = pd.DataFrame({"team": [name, "b", "c"], "score": [0.8, 0.7, 0.6]}, dtype=object)
    result = leaderboard.analyze(board, metric="auc", n_test=1000, prevalence=0.2, draws=100,
                                 replicates=100)
    kept = NAMES[name]
    assert kept in set(result.table["team"])
    for suffix in (".json", ".csv", ".md") + ((".html",) if "\r" in name else ()):
        result.save(tmp_path / f"r{suffix}")
    assert kept in {e["team"] for e in json.loads((tmp_path / "r.json").read_text())["entries"]}
    assert "\r" not in repr(result)


def test_dataframe_model_names_a_csv_cannot_carry_are_read_like_a_file():
    rows = [(m, f"q{i}", float((i + k) % 2)) for k, m in enumerate([*NAMES, "b"])
            for i in range(12)]
    items = leaderboard.analyze_items(pd.DataFrame(rows, columns=["model", "item", "value"],
                                                   dtype=object), replicates=100)
    assert set(NAMES.values()) <= set(items.table["team"])


def test_dataframe_battles_with_names_a_csv_cannot_carry_are_read_like_a_file(tmp_path):
    """Battles as a DataFrame follow the same rule as the other modes' DataFrames (it crashed
    in pandas with a lone surrogate in a model's or a column's name)."""
    names = [*NAMES, "b"]
    rows = [(names[k], names[(k + 1) % 4], w, "x") for k in range(4)
            for w in ("model_a", "model_b", "tie")] * 3
    frame = pd.DataFrame(rows, columns=pd.Index(["model_a", "model_b", "winner", "note\ud800"],
                                                dtype=object), dtype=object)
    result = leaderboard.analyze_battles(frame, replicates=100)
    assert {m["model"] for m in result.to_dict()["models"]} == {*NAMES.values(), "b"}
    result.save(tmp_path / "r.json")


def test_a_dataframe_column_name_with_a_lone_surrogate_is_named_not_a_crash():
    board = pd.DataFrame([["a", 0.8], ["b", 0.7]],
                         columns=pd.Index(["te\ud800am", "score"], dtype=object))
    with pytest.raises(InputError, match=r"no team column.*te\\ud800am"):
        leaderboard.analyze(board, metric="auc", n_test=1000, prevalence=0.2)


@pytest.mark.parametrize("call", [
    lambda df: leaderboard.analyze(df.rename(columns={"model": "team", "value": "score"}),
                                   metric="auc", n_test=1000, prevalence=0.2),
    lambda df: leaderboard.analyze_items(df),
    lambda df: leaderboard.compare("a", "b", items=df),
], ids=["analyze", "analyze_items", "compare"])
def test_a_dataframe_naming_a_column_twice_names_the_column_not_row_minus_one(call):
    """The header of a DataFrame is no row: the error named "row -1" (issue 43)."""
    frame = pd.DataFrame([["a", "q", 0.5, 0.5], ["b", "q", 0.6, 0.6]],
                         columns=["model", "item", "value", "value"])
    with pytest.raises(InputError) as caught:
        call(frame)
    assert "written twice" in str(caught.value) and "row" not in str(caught.value), caught.value


@pytest.mark.parametrize("call", [
    lambda df: leaderboard.analyze(df, metric="auc", n_test=1000, prevalence=0.2),
    lambda df: leaderboard.analyze_items(df),
], ids=["analyze", "analyze_items"])
def test_a_dataframe_with_columns_of_two_levels_is_named_as_such(call):
    """A MultiIndex of columns became two header lines of CSV, and the error blamed a column
    'written twice' (issue 43)."""
    frame = pd.DataFrame([["a", "q", 0.5], ["b", "q", 0.6]], columns=pd.MultiIndex.from_tuples(
        [("x", "team"), ("x", "item"), ("x", "score")]))
    with pytest.raises(InputError, match="its columns have 2 levels"):
        call(frame)
