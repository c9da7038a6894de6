"""Small pieces of wording shared by the report's sections."""
from __future__ import annotations

from dataclasses import dataclass

from leaderboard.report.numbers import MISSING, defined


@dataclass(frozen=True)
class Fact:
    """One labelled item of a list in the report (with optional sub-items)."""

    label: str
    value: str
    items: tuple[str, ...] = ()


def pct(fraction: float) -> str:
    """A fraction as a percentage with three significant figures: ``0.05 -> '5%'``; one that is
    not defined as the report's missing mark, never ``'nan%'``.

    Examples
    --------
    >>> pct(0.05), pct(float("nan"))
    ('5%', '—')
    """
    if not defined(fraction):
        return MISSING
    return f"{100 * fraction:.3g}%"
