"""The nouns a page uses for what it ranks: a competition's teams and test rows, or a benchmark's
models and items (issue 26).

A benchmark's maintainer reads "Model", "item" and "Find a model"; a competition's reader reads
"Team", "test rows" and "Find my team". The statistics are the same paired bootstrap; only the
words differ, so every sentence that names a unit takes it from one :class:`Vocabulary`, chosen
once per page by :func:`vocabulary`.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from leaderboard.pipelines.scores import Analysis


@dataclass(frozen=True)
class Vocabulary:
    """The words of one kind of page.

    Attributes
    ----------
    kind : {"competition", "items"}
        Which words: a competition (scores, or a solution with submissions) or a benchmark's
        per-item results.
    entity, entity_title : str
        What an entry is ("team", "Team" or "model", "Model").
    units : str
        What is resampled ("test rows" or "items").
    unit_set : str
        All of them ("test set" or "set of items").
    find, find_hint, pinned, not_found, search_placeholder : str
        The table's controls.

    Examples
    --------
    >>> BENCHMARK.entity_title, BENCHMARK.find, COMPETITION.find
    ('Model', 'Find a model', 'Find my team')
    """

    kind: str
    entity: str
    entity_title: str
    units: str
    unit_set: str
    find: str
    find_hint: str
    pinned: str
    not_found: str
    search_placeholder: str

    @property
    def benchmark(self) -> bool:
        """Whether these are a benchmark's words."""
        return self.kind != "competition"


COMPETITION = Vocabulary(
    kind="competition", entity="team", entity_title="Team", units="test rows",
    unit_set="test set", find="Find my team",
    find_hint="Click a column to sort; click a row, or find your team, to pin it at the top and "
              "mark it on the page (the address then links to it).",
    pinned="Your team, pinned at the top (click to unpin)",
    not_found="No team name contains this.", search_placeholder="team name")

BENCHMARK = Vocabulary(
    kind="items", entity="model", entity_title="Model", units="items", unit_set="set of items",
    find="Find a model",
    find_hint="Click a column to sort; click a row, or find a model, to pin it at the top and "
              "mark it on the page (the address then links to it).",
    pinned="Pinned at the top (click to unpin)",
    not_found="No model name contains this.", search_placeholder="model name")


def is_items(analysis: Analysis) -> bool:
    """Whether the analysis read a benchmark's per-item results (``--items``)."""
    subs = analysis.submissions
    return subs is not None and subs.layout == "items"


def vocabulary(analysis: Analysis) -> Vocabulary:
    """The words for this analysis's page: :data:`BENCHMARK` for per-item results, else
    :data:`COMPETITION`."""
    return BENCHMARK if is_items(analysis) else COMPETITION
