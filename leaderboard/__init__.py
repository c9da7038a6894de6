"""leaderboard: is the winner of a machine-learning competition the best model, or the luckiest?

The pipeline, one module per stage::

    ingest (read_leaderboard) -> noise (build_noise_model) -> tiers and ranks (rank_board)
    -> report (write_html, write_json)

:func:`analyze` (a DataFrame or a file of scores), :func:`analyze_submissions` (a solution
and teams' predictions) and :func:`analyze_items` run it end to end with explicit keyword
parameters (the options of :mod:`leaderboard.options`) and return a :class:`Result`;
:func:`leaderboard.pipelines.run.run_analysis` is the pipeline both they and the command line run.
"""
from leaderboard.resources import configure_kernel_cache

# Before any module imports numba: a writable folder for the compiled kernels (read-only installs).
KERNEL_CACHE = configure_kernel_cache()

__version__ = "0.1.0"   # before the imports below: the command line reads it

from leaderboard.pipelines.scores import Analysis, Settings  # noqa: E402
from leaderboard.api import Result, analyze, analyze_items, analyze_submissions  # noqa: E402
from leaderboard.errors import InputError  # noqa: E402
from leaderboard.metrics import Metric, get_metric  # noqa: E402

__all__ = ["Analysis", "InputError", "Metric", "Result", "Settings", "analyze", "analyze_items",
           "analyze_submissions", "get_metric", "__version__"]

# Battles mode (issue 26): its own module, re-exported here.
from leaderboard.api_battles import BattlesResult, analyze_battles  # noqa: E402

__all__ += ["BattlesResult", "analyze_battles"]
