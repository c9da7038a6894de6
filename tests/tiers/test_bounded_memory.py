"""Large boards in bounded memory (issue 41): the rank draws made a few rows at a time give the
same bits whatever the rows, and a board of scores that would not fit is refused before any draw
with the memory it needs and how many replicates fit."""
from __future__ import annotations

import resource
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from leaderboard import limits
from leaderboard.cli import main
from leaderboard.errors import InputError
from leaderboard.noise.rng import BLOCK, block_rng
from leaderboard.tiers.replicates import STREAM, RankReplicates, draw_rows


def _whole_blocks(point, sd, rho, replicates, seed):
    """The draws as they were made before issue 41: each seeded block's 32 x E normals drawn at
    once, combined in float64 and rounded once to float32 (numpy, independent of the kernels)."""
    out = np.empty((point.size, replicates), dtype=np.float32)
    for b in range(-(-replicates // BLOCK)):
        rng = block_rng(seed, STREAM, b)
        shared, own = rng.standard_normal(BLOCK), rng.standard_normal((BLOCK, point.size))
        m = min(BLOCK, replicates - b * BLOCK)
        out[:, b * BLOCK:b * BLOCK + m] = sd[:, None] * (np.sqrt(rho) * shared[:m]
                                                         + np.sqrt(1 - rho) * own[:m].T)
    return out


@pytest.mark.parametrize("n", [20, 200], ids=["numpy path", "compiled path"])
def test_draws_are_the_same_bits_whatever_the_rows_drawn_at_once(n):
    point = np.linspace(0.9, 0.7, n)
    sd = np.linspace(0.01, 0.03, n)
    reference = _whole_blocks(point, sd, 0.3, 70, 11)   # 70: the last block part-used
    for elements in (1, 5 * n, 1 << 22):   # one row, five rows (not dividing 32), whole blocks
        assert draw_rows(n, elements) == min(BLOCK, max(1, elements // n))
        reps = RankReplicates.normal(point, sd, 0.3, True, replicates=70, seed=11,
                                     draw_elements=elements)
        assert reps.errors.dtype == np.float32
        assert reps.errors.tobytes() == reference.tobytes(), elements


def test_a_board_over_the_memory_cap_is_refused_with_the_replicates_that_fit():
    entries = 1_000_000
    with pytest.raises(InputError) as caught:
        limits.Limits().check_scores(2000, entries)
    fixed = limits.SCORES_BASE + entries * limits.SCORES_PER_ENTRY
    fit = (limits.DEFAULT.max_memory - fixed) // (entries * limits.SCORES_PER_CELL)
    assert str(caught.value) == (
        f"2,000 replicates of 1,000,000 entries would take about 14G of memory, over the cap of "
        f"4G; lower --replicates (at most {fit:,} fit), or raise --max-memory")
    # that many fit, one more does not
    limits.Limits().check_scores(int(fit), entries)
    with pytest.raises(InputError):
        limits.Limits().check_scores(int(fit) + 1, entries)


def test_a_board_over_the_machines_free_memory_is_refused(monkeypatch):
    free = 3 * 2 ** 30
    monkeypatch.setattr(limits, "machine_memory", lambda: free)
    fixed = limits.SCORES_BASE + 100_000 * limits.SCORES_PER_ENTRY
    fit = (free - fixed) // (100_000 * limits.SCORES_PER_CELL)
    with pytest.raises(InputError) as caught:
        limits.Limits(max_memory=2 ** 40).check_scores(5000, 100_000)
    assert str(caught.value) == (
        "5,000 replicates of 100,000 entries would take about 3.472G of memory, more than the 3G "
        f"this machine has free for it; lower --replicates (at most {fit:,} fit)")
    limits.Limits(max_memory=2 ** 40).check_scores(int(fit), 100_000)
    # a small board is never refused on the estimate of a small machine's memory: its estimate
    # (about 450 MB) is twice the example's measured peak, and a 300 MB container runs it
    monkeypatch.setattr(limits, "machine_memory", lambda: 300 * 2 ** 20)
    limits.Limits().check_scores(2000, 40)


def test_the_machines_memory_reads_the_address_space_limit():
    """Under ``ulimit -v``, what the process can reach is at most the limit (its resident
    memory plus the limit less its mapped size), whatever the machine has free."""
    if not sys.platform.startswith("linux"):
        pytest.skip("reads /proc")
    limit = 2 ** 30

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    code = "from leaderboard.limits import machine_memory as m; print(m())"
    out = subprocess.run([sys.executable, "-c", code], preexec_fn=cap, capture_output=True,
                         text=True, check=True).stdout
    assert 0 < int(out) <= limit


def test_the_command_line_refuses_before_drawing(tmp_path, capsys):
    board = tmp_path / "board.csv"
    pd.DataFrame({"team": [f"t{i}" for i in range(1000)],
                  "score": np.linspace(0.9, 0.6, 1000).round(5)}).to_csv(board, index=False)
    code = main(["analyze", str(board), "--metric", "auc", "--n-test", "10000", "--prevalence",
                 "0.1", "--max-memory", "460M", "--quiet", "-o", str(tmp_path / "r.html")])
    err = capsys.readouterr().err
    assert code == 2 and len(err.splitlines()) == 1, err
    assert err == ("leaderboard: error: 2,000 replicates of 1,000 entries would take about 463.9M "
                   "of memory, over the cap of 460M; lower --replicates (at most 1,320 fit), or "
                   "raise --max-memory\n"), err
    assert not (tmp_path / "r.html").exists()
