"""``analyze`` from inputs and options to an analysis: the one function behind both ``leaderboard
analyze`` and the Python API (:func:`leaderboard.analyze`, ``analyze_submissions``,
``analyze_items``, ``analyze_battles``).

A dispatcher: the options that span modes are checked here, :func:`~leaderboard.pipelines.modes.mode_of`
picks the mode the inputs name (:mod:`leaderboard.pipelines.modes`: scores, submissions, per-item
results, battles), and the mode reads the inputs, analyses them and adds the leaderboard card.
Every input is a path or, from the Python API, a table in memory
(:class:`~leaderboard.ingest.in_memory.InMemory`); the readers are called by the modes, never by
the command line.
"""
from __future__ import annotations

from leaderboard.errors import InputError
from leaderboard.options import AnalyzeOptions
from leaderboard.pipelines.modes import mode_of
from leaderboard.pipelines.modes.base import Inputs, with_card
from leaderboard.pipelines.modes.battles import BattlesOptions
# Importable from here as before (the command line's engine; choose's tables in memory).
from leaderboard.pipelines.modes.submissions import engine_for, submission_table

__all__ = ["Inputs", "engine_for", "run_analysis", "submission_table", "with_card"]


def run_analysis(inputs: Inputs, options: AnalyzeOptions | BattlesOptions, *,
                 quiet: bool = True):
    """The statistics of ``leaderboard analyze``, without writing anything: an
    :class:`~leaderboard.pipelines.analysis.Analysis` (a
    :class:`~leaderboard.pipelines.battles.BattlesAnalysis` for battles, whose options are
    :class:`~leaderboard.pipelines.modes.battles.BattlesOptions`).

    Examples
    --------
    >>> from leaderboard.options import NoiseOptions, RankOptions
    >>> options = AnalyzeOptions(noise=NoiseOptions(draws=200), ranks=RankOptions(replicates=200))
    >>> run_analysis(Inputs(example="scores"), options).table["team"].iloc[0]
    'Lunar Ensemble'
    """
    if inputs.example:   # a bundled example (leaderboard.pipelines.examples)
        from leaderboard.pipelines.examples import example_named, with_example

        assert isinstance(options, AnalyzeOptions)   # the examples are analyze's inputs
        example, (inputs, options) = inputs.example, with_example(inputs, options)
        result = _analysis(inputs, options, quiet)
        return example_named(result) if example == "submissions" else result
    return _analysis(inputs, options, quiet)


def _analysis(inputs: Inputs, options, quiet: bool):
    """:func:`run_analysis` once the inputs are files, tables or frames: the options that span
    modes checked, then the mode's read, analysis and card."""
    if isinstance(options, AnalyzeOptions):
        _check_across(inputs, options)
    mode = mode_of(inputs, getattr(options, "read", None))
    analysis = mode.analyze(mode.read(inputs, options), options, quiet=quiet)
    return mode.card(analysis, inputs, options)


def _check_across(inputs: Inputs, options: AnalyzeOptions) -> None:
    """Options that belong to one mode, given with another's inputs: refused, never ignored."""
    submissions_mode = inputs.solution is not None or inputs.submissions is not None
    if (options.workers is not None or options.scheduler is not None) and (
            inputs.items is not None or not submissions_mode):
        raise InputError("--workers and --scheduler run submissions mode (--solution with "
                         "--submissions) on a Dask cluster; other inputs run in this process")
    if options.ranks.category_intervals != "marginal" and (
            inputs.items is None or options.read.category_col is None):
        raise InputError("--category-intervals chooses the per-category intervals of --items: "
                         "it needs --category-col")
    if options.noise.universe.kurtosis is not None and (submissions_mode
                                                         or inputs.items is not None):
        raise InputError("--kurtosis shapes the universe simulated for a board of scores; with "
                         "predictions or per-item results the rows themselves are resampled")
