"""leaderboard: is the winner of a machine-learning competition the best model, or the luckiest?

The pipeline, one module per stage::

    ingest (read_leaderboard) -> noise (build_noise_model) -> tiers and ranks (rank_board)
    -> report (write_html, write_json)

:func:`analyze` (a DataFrame or a file of scores), :func:`analyze_submissions` (a solution
and teams' predictions), :func:`analyze_items` (per-item results) and :func:`analyze_battles`
(pairwise battles) run it end to end; :func:`choose_finals` (which two final submissions) and
:func:`compare` (a CI gate) answer the team's decisions, and :func:`plan` and :func:`simulate` the
organizer's questions before a competition (how big must the test set be; how far a score
wanders by chance), with explicit keyword
parameters (the options of :mod:`leaderboard.options`) and return a result;
:func:`leaderboard.pipelines.run.run_analysis` is the pipeline both they and the command line run.

The public names are imported on first use (module ``__getattr__``, PEP 562), so
``import leaderboard`` costs about what ``import pandas`` does instead of importing every
pipeline, numba and scikit-learn up front (benchmarks/bench_start.py measures both).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from leaderboard._lazy import lazy_names
from leaderboard.resources import configure_kernel_cache

# Before any module imports numba: a writable folder for the compiled kernels (read-only installs).
KERNEL_CACHE = configure_kernel_cache()

__version__ = "0.1.0"

# Public name -> the module that defines it; imported when the name is first asked for.
_LAZY = {
    "Analysis": "leaderboard.pipelines.analysis",
    "Settings": "leaderboard.pipelines.analysis",
    "Result": "leaderboard.api",
    "AnalysisResult": "leaderboard.result_protocol",   # what the eight analyses return (issue 42)
    "analyze": "leaderboard.api",
    "analyze_items": "leaderboard.api",
    "analyze_submissions": "leaderboard.api",
    "InputError": "leaderboard.errors",
    "Metric": "leaderboard.metrics",
    "get_metric": "leaderboard.metrics",
    "BattlesResult": "leaderboard.api_battles",   # battles mode (issue 26)
    "ChooseResult": "leaderboard.api_decide",
    "Gate": "leaderboard.api_decide",
    "choose_finals": "leaderboard.api_decide",
    "compare": "leaderboard.api_decide",
    "analyze_battles": "leaderboard.api_battles",
    "Plan": "leaderboard.api_plan",
    "plan": "leaderboard.api_plan",
    "plan_from": "leaderboard.api_plan",
    "BoardPlan": "leaderboard.api_plan",
    "Experiment": "leaderboard.api_plan",
    "simulate": "leaderboard.api_plan",
}

__all__ = sorted(_LAZY) + ["__version__"]

if TYPE_CHECKING:  # type checkers and IDEs see the names as plain imports (re-exported: "as")
    from leaderboard.api import Result as Result
    from leaderboard.api import analyze as analyze
    from leaderboard.api import analyze_items as analyze_items
    from leaderboard.api import analyze_submissions as analyze_submissions
    from leaderboard.api_battles import BattlesResult as BattlesResult
    from leaderboard.api_battles import analyze_battles as analyze_battles
    from leaderboard.api_decide import ChooseResult as ChooseResult
    from leaderboard.api_decide import Gate as Gate
    from leaderboard.api_decide import choose_finals as choose_finals
    from leaderboard.api_decide import compare as compare
    from leaderboard.api_plan import BoardPlan as BoardPlan
    from leaderboard.api_plan import Experiment as Experiment
    from leaderboard.api_plan import Plan as Plan
    from leaderboard.api_plan import plan as plan
    from leaderboard.api_plan import plan_from as plan_from
    from leaderboard.api_plan import simulate as simulate
    from leaderboard.errors import InputError as InputError
    from leaderboard.metrics import Metric as Metric
    from leaderboard.metrics import get_metric as get_metric
    from leaderboard.result_protocol import AnalysisResult as AnalysisResult
    from leaderboard.pipelines.analysis import Analysis as Analysis
    from leaderboard.pipelines.analysis import Settings as Settings


# Import a public name's module on first use and keep the name here (later lookups are plain
# attribute reads). Subpackages (``leaderboard.metrics`` ...) still import as usual.
__getattr__, __dir__ = lazy_names(__name__, _LAZY, globals())
