"""A flag is said once on a terminal: the summary on stdout lists every flag before the numbers,
so the early stderr warning is kept for when stdout goes to a file or a pipe."""
from __future__ import annotations

import io
import sys

import numpy as np
import pandas as pd

from leaderboard.cli import main

WORDS = "column 'repo' groups the items into 12 groups"


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _grouped_items(path) -> None:
    rng = np.random.default_rng(0)
    items = np.arange(240)
    pd.DataFrame({"model": np.repeat(["m0", "m1"], items.size),
                  "item": np.tile(items, 2), "repo": np.tile(items // 20, 2),
                  "value": (rng.random(2 * items.size) < 0.6).astype(int)}).to_csv(path, index=False)


def _run(tmp_path, monkeypatch, capsys, stdout) -> tuple[str, str]:
    _grouped_items(tmp_path / "r.csv")
    if stdout is not None:
        monkeypatch.setattr(sys, "stdout", stdout)
    assert main(["analyze", "--items", str(tmp_path / "r.csv"), "--replicates", "200",
                 "-o", str(tmp_path / "r.html")]) == 0
    captured = capsys.readouterr()
    return (stdout.getvalue() if stdout is not None else captured.out), captured.err


def test_on_a_terminal_the_flag_is_said_once(tmp_path, monkeypatch, capsys):
    out, err = _run(tmp_path, monkeypatch, capsys, Terminal())
    assert (out + err).count(WORDS) == 1 and WORDS in out


def test_with_stdout_redirected_stderr_still_warns(tmp_path, monkeypatch, capsys):
    out, err = _run(tmp_path, monkeypatch, capsys, None)
    assert err.startswith("warning: ") and WORDS in err and WORDS in out
