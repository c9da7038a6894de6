"""What every mode of ``analyze`` shares: the :class:`Inputs` it reads, the :class:`Mode` it is,
and the settings of the two modes that take a metric from the options (scores, submissions).

A mode is a small object with two steps: ``read(inputs, options)`` checks the options that need
no data, reads the inputs (every reader is called here, never by the command line) and returns
what was read with the settings it is analysed with; ``analyze(data, options, quiet=...)``
returns the analysis; ``card(analysis, inputs, options)`` adds the leaderboard card.
:func:`leaderboard.pipelines.run.run_analysis` chooses the mode from the inputs
(:func:`leaderboard.pipelines.modes.mode_of`) and runs the steps.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Protocol

from leaderboard.api_words import COMMAND_LINE
from leaderboard.errors import InputError
from leaderboard.metrics import get_metric, metric_names
from leaderboard.options import AnalyzeOptions, NoiseOptions, SliceOptions
from leaderboard.pipelines.analysis import Analysis, Settings
from leaderboard.slices import SliceSizes, resolve_sizes


@dataclass(frozen=True)
class Inputs:
    """What ``analyze`` reads: a leaderboard (``board``), a ``solution`` with ``submissions``,
    per-item results (``items``, with optionally a file of ``published`` scores to check),
    pairwise ``battles``, or a bundled ``example`` (a name of :data:`leaderboard.choices.EXAMPLES`
    but battles).

    Each is a path, an :class:`~leaderboard.ingest.in_memory.InMemory` table (the leaderboard and
    the battles may also be a DataFrame), and ``submissions`` may be a mapping of team to an
    InMemory table or an array of predictions in the solution's row order.
    """

    # Any: each reader checks what it is given (a path, a table in memory, a DataFrame, a mapping)
    board: Any = None
    solution: Any = None
    submissions: Any = None
    items: Any = None
    example: str | None = None
    published: Any = None
    battles: Any = None


class Mode(Protocol):
    """One way of reading and analysing ``analyze``'s inputs (see the module docstring)."""

    name: str

    def read(self, inputs: Inputs, options: Any) -> Any: ...

    def analyze(self, data: Any, options: Any, *, quiet: bool = True) -> Any: ...

    def card(self, analysis: Any, inputs: Inputs, options: Any) -> Any: ...


def with_card(analysis: Analysis, inputs: Inputs, options: AnalyzeOptions) -> Analysis:
    """The analysis with its leaderboard card (:mod:`leaderboard.pipelines.card`): the inputs'
    SHA-256 in the card's provenance, each under the option that named it."""
    from leaderboard.provenance import provenance
    from leaderboard.pipelines.card_modes import analysis_card

    board = "FILE" if COMMAND_LINE.get() else "data="   # the command's argument, the API's
    roles = [(board, inputs.board), ("--solution", inputs.solution),
             ("--submissions", inputs.submissions), ("--items", inputs.items),
             ("--published", inputs.published), ("--instances", options.read.instances)]
    return replace(analysis, card=analysis_card(
        analysis, provenance(roles, analysis.settings.seed)))


def metric_settings(options: AnalyzeOptions, submissions_mode: bool) -> Settings:
    """Scores' and submissions' settings: the metric the options name (required), configured
    with its beta or costs, and the test slices' sizes."""
    noise, ranks = options.noise, options.ranks
    if noise.metric is None:
        raise InputError(f"--metric is required; known metrics: {', '.join(metric_names())}")
    metric = configured_metric(get_metric(noise.metric), noise)
    return Settings(metric, noise, ranks, slice_sizes(options.slices, submissions_mode))


def slice_sizes(slices: SliceOptions, submissions_mode: bool) -> SliceSizes:
    """The test slices' sizes from the options (a solution file gives its own)."""
    given = [name for name in ("n_public", "n_private", "public_fraction")
             if getattr(slices, name) is not None] + (["two_stage"] if slices.two_stage else [])
    if submissions_mode:
        if given:
            raise InputError(f"--{given[0].replace('_', '-')}: in submissions mode the sizes come "
                             "from the solution file (its Usage column)")
        return SliceSizes(ranking=slices.n_test, public=None, private=None)
    return resolve_sizes(n_test=slices.n_test, n_public=slices.n_public,
                         n_private=slices.n_private, public_fraction=slices.public_fraction,
                         split=slices.split, two_stage=slices.two_stage)


def configured_metric(metric, noise: NoiseOptions):
    """The metric with ``beta`` / ``costs`` applied (a one-line error if it takes neither)."""
    options: dict[str, object] = {}
    if noise.beta is not None:
        options["beta"] = noise.beta
    if noise.costs is not None:  # parsed here, into the matrix the metric takes
        try:
            costs = tuple(tuple(float(x) for x in row.split(",")) for row in noise.costs.split(";"))
        except ValueError:
            costs = ()
        if not costs or len({len(r) for r in costs}) != 1 or not all(
                math.isfinite(x) for r in costs for x in r):
            raise InputError(f"--costs {noise.costs!r}: give rows of finite numbers of one "
                             "length, like '0,1;5,0'")
        options["costs"] = costs
    try:
        return metric.configure(**options) if options else metric
    except ValueError as error:
        raise InputError(str(error)) from None
