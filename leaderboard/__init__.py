"""leaderboard: is the winner of a machine-learning competition the best model, or the luckiest?

The pipeline, one module per stage::

    ingest (read_leaderboard) -> noise (build_noise_model) -> tiers and ranks (rank_board)
    -> report (write_html, write_json)

:func:`analyze` runs the statistics end to end and returns an :class:`Analysis`.
"""
from leaderboard.resources import configure_kernel_cache

# Before any module imports numba: a writable folder for the compiled kernels (read-only installs).
KERNEL_CACHE = configure_kernel_cache()

from leaderboard.analysis import Analysis, Settings, analyze  # noqa: E402
from leaderboard.errors import InputError  # noqa: E402
from leaderboard.metrics import Metric, get_metric  # noqa: E402

__version__ = "0.1.0"

__all__ = ["Analysis", "InputError", "Metric", "Settings", "analyze", "get_metric", "__version__"]
