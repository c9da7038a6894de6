"""Shared fixtures. Real Kaggle data lives outside the repository and is never copied into it."""
from __future__ import annotations

from pathlib import Path

import pytest

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
