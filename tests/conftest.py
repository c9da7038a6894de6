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
