"""The command's entry point: the collector's settings are the run's own (issue 41)."""
from __future__ import annotations

import gc
import subprocess
import sys

from leaderboard.cli import GC_THRESHOLD, main


def test_main_restores_the_collector_threshold():
    before = gc.get_threshold()
    seen = []
    gc.callbacks.append(lambda phase, info: seen.append(gc.get_threshold()[0]))
    try:
        assert main(["--version"]) == 0
        gc.collect()   # a collection after the run sees the caller's threshold again
    finally:
        gc.callbacks.pop()
    assert gc.get_threshold() == before
    assert seen and seen[-1] == before[0] != GC_THRESHOLD


def test_entry_exits_with_the_status_of_main():
    bad = subprocess.run([sys.executable, "-m", "leaderboard", "no-such-command"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "invalid choice" in bad.stderr
    good = subprocess.run([sys.executable, "-m", "leaderboard", "--version"],
                          capture_output=True, text=True)
    assert good.returncode == 0 and good.stdout.startswith("leaderboard ")
