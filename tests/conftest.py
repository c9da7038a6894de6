"""Shared fixtures. Real Kaggle data lives outside the repository and is never copied into it."""
from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from tests.quick_args import quick

# The tests import the checkout's own modules (and pytest rewrites each test module's asserts).
# Where the environment sets PYTHONDONTWRITEBYTECODE, every worker and every run would compile
# all of them from source again: about 6 s of CPU per process on the 2-core machine (issue 27).
# Their bytecode goes to __pycache__/ (ignored by git), as Python does by default.
sys.dont_write_bytecode = False

# The leaderboard card's date (issue 40) is the day of the run unless SOURCE_DATE_EPOCH fixes it:
# fixed for the suite, so that two runs compared byte for byte never straddle midnight (UTC).
# tests/pipelines/test_card.py unsets it to check the clock's date.
os.environ.setdefault("SOURCE_DATE_EPOCH", "1767225600")   # 2026-01-01


def pytest_configure(config):  # noqa: ARG001 - pytest's hook signature
    """Under pytest-xdist, each worker gets its share of the cores for its own threads (numba's
    kernels through ``leaderboard._threads``, and BLAS), as scikit-learn's test suite does: two
    workers on two cores, each also running two kernel threads and two spinning OpenBLAS
    threads, asked for four times the cores (issue 27). Results do not depend on the thread
    count (tests/test_threads.py); users' runs keep every core."""
    import os

    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    if workers < 2:
        return
    # the cores this process may use (Linux); elsewhere (macOS, Windows) all of them
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    share = max(1, (cores or 1) // workers)
    import numba
    from threadpoolctl import threadpool_limits

    numba.set_num_threads(min(share, numba.config.NUMBA_NUM_THREADS))
    threadpool_limits(share)


def fewest_null_boards(monkeypatch) -> None:
    """The paired bootstrap's self-check (tiers/guarantee_check.py) with its fewest null boards,
    for tests of something else (streaming, charts, scores against scikit-learn) run in
    submissions mode: at 200 boards the check is most of such an analysis's CPU (an
    average-precision board under Poisson weights: four fifths). The check is still run, on the
    same predictions, by every path those tests compare; tests of the check keep its boards."""
    import functools

    from leaderboard.pipelines import family
    from leaderboard.tiers.bootstrap_check import check_bootstrap
    from leaderboard.tiers.guarantee_check import MIN_BOARDS

    monkeypatch.setattr(family, "check_bootstrap",
                        functools.partial(check_bootstrap, boards=MIN_BOARDS))


# /work/shared/data when the repository is /work/main: a sibling of the checkout.
SHARED_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """Root of the shared real-data folder; the test is skipped when it is absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip(f"shared data not found at {SHARED_DATA}")
    return SHARED_DATA


# --- the `slow` marker (issue 27) ------------------------------------------------------------------
# `python -m pytest -m "not slow"` is the fast subset. Whole files are marked here, by name, rather
# than by a `pytestmark` line in each (many helpers edit those files at once): the ones that run the
# command line end to end on real boards, start subprocesses with fresh kernel caches, drive the
# browser or a Dask cluster, fuzz the readers, or scale to large boards. A test added to one of these
# files is slow with it; mark a single slow test elsewhere with @pytest.mark.slow.
SLOW_FILES = frozenset({
    "test_browser.py", "test_dask_engine.py", "test_fuzz_readers.py", "test_hostile.py",
    "test_hostile_setup.py", "test_real_boards.py", "test_scale.py", "test_scores_study.py",
    "test_cli.py", "test_cli_submissions.py", "test_shakeup_pipeline.py",
    "test_choose_pipeline.py", "test_charts_pages.py", "test_streaming.py", "test_several.py",
    "test_schema.py", "test_lazy_import.py", "test_own_score_intervals.py",
})


# Single tests elsewhere that took half a second or more in a measured full run (tests/slow_list.py
# regenerates the list from a `--durations=0` log).
_SLOW_LIST = Path(__file__).with_name("slow_tests.txt")
SLOW_TESTS = frozenset(_SLOW_LIST.read_text(encoding="utf-8").split()) if _SLOW_LIST.exists() \
    else frozenset()


def pytest_collection_modifyitems(config, items):  # noqa: ARG001 - pytest's hook signature
    for item in items:
        if item.path.name in SLOW_FILES or item.nodeid.split("[")[0] in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)


# --- the bundled examples, analysed once per session (issue 27) ----------------------------------
EXAMPLE_QUICK = ("--draws", "200", "--replicates", "200")   # --draws: scores only (quick())


@pytest.fixture(scope="session")
def example_outputs(tmp_path_factory):
    """``example_outputs(kind)``: the files ``analyze --example [submissions] --draws 200
    --replicates 200`` writes (keys ``html``, ``json``, ``csv``, ``md``), run once per session for
    the tests that check the page, the JSON or the exports of an example rather than its noise.
    Read them, never change them."""
    from leaderboard.cli import main

    done: dict[str, dict[str, Path]] = {}

    def get(kind: str = "scores") -> dict[str, Path]:
        if kind not in done:
            out = tmp_path_factory.mktemp(f"example-{kind}")
            files = {"html": out / "r.html", "json": out / "r.json", "csv": out / "t.csv",
                     "md": out / "t.md"}
            which = [] if kind == "scores" else [kind]
            argv = ["analyze", "--example", *which]   # --draws for the scores examples only
            assert main([*argv, *quick(argv, *EXAMPLE_QUICK[1::2]), "--quiet",
                         "-o", str(files["html"]), "--json", str(files["json"]),
                         "--csv", str(files["csv"]), "--markdown", str(files["md"])]) == 0
            done[kind] = files
        return done[kind]
    return get
