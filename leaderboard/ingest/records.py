"""The records several readers hand on to the stages after ingest.

- :class:`DroppedRows`: rows of an input that are not analysed, and why (a leaderboard's
  superseded submissions, battles without an outcome, ...).
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DroppedRows:
    """Rows of the input that are not analysed, and why.

    ``lines`` are 1-based line numbers in the file (the header is line 1), at most the first 20.
    """

    reason: str
    count: int
    lines: tuple[int, ...]
