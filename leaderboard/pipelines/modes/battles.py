"""Battles mode: pairwise battles (an arena: model_a, model_b, winner) rated by a Bradley-Terry
fit with a bootstrap of battles (:func:`leaderboard.pipelines.battles.rate_battles`).

Its options are its own (:class:`BattlesOptions`): the arena's columns and the rating's
settings (:class:`~leaderboard.pipelines.battles.BattlesSettings`); its analysis is a
:class:`~leaderboard.pipelines.battles.BattlesAnalysis`.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from leaderboard.ingest.in_memory import InMemory
from leaderboard.ingest.safe_read import DEFAULT_MAX_BYTES
from leaderboard.pipelines.battles import BattlesAnalysis, BattlesSettings
from leaderboard.pipelines.modes.base import Inputs


@dataclass(frozen=True)
class BattlesOptions:
    """What battles mode is told besides the battles: the rating's ``settings``, the arena's
    ``columns`` (keyword arguments of :func:`leaderboard.ingest.battles.read_battles`:
    ``model_a_col``, ``model_b_col``, ``winner_col``, ``judge_col``, ...) and the size cap.
    The settings were checked when they were made (their options objects check themselves), so
    a bad option costs no read."""

    settings: BattlesSettings = field(default_factory=BattlesSettings)
    columns: Mapping[str, Any] = field(default_factory=dict)
    max_file_size: int = DEFAULT_MAX_BYTES


class BattlesMode:
    """``--battles`` (``Inputs.battles``): the whole input."""

    name = "battles"

    def read(self, inputs: Inputs, options: BattlesOptions):
        from leaderboard.ingest.battles import read_battles

        return read_battles(inputs.battles, **options.columns, max_bytes=options.max_file_size)

    def analyze(self, data, options: BattlesOptions, *, quiet: bool = True) -> BattlesAnalysis:
        from leaderboard.pipelines.battles import rate_battles

        return rate_battles(data, options.settings)

    def card(self, analysis: BattlesAnalysis, inputs: Inputs,
             options: BattlesOptions) -> BattlesAnalysis:
        """The analysis with its leaderboard card (issue 40): the battles' SHA-256 in
        provenance."""
        from leaderboard.pipelines.card_modes import battles_card
        from leaderboard.provenance import provenance

        battles = inputs.battles
        given = InMemory.of(battles, "battles") if hasattr(battles, "columns") else battles
        return replace(analysis, card=battles_card(
            analysis, provenance([("--battles", given)], analysis.settings.seed)))


BATTLES = BattlesMode()
