"""The values some options take, apart from the code that acts on them: the command line's parser
lists them (``choices=``) without importing pandas, numba or SciPy (issue 27: ``--help`` and a
mistyped option answer at once). Each module that acts on a choice imports it from here.

Examples
--------
>>> "stratified" in RESAMPLING, ITEMS_POLICIES
(True, ('common', 'drop-items', 'drop-models', 'pairwise'))
"""
from __future__ import annotations

#: How the paired bootstrap resamples (:mod:`leaderboard.noise.weights`).
RESAMPLING = ("plain", "stratified", "grouped", "poisson")
#: Which items models are compared on when they answered different ones
#: (:mod:`leaderboard.ingest.item_sets`).
ITEMS_POLICIES = ("common", "drop-items", "drop-models", "pairwise")
#: The readers an ``--items`` path may need (:mod:`leaderboard.ingest.benchmarks`).
ITEMS_FORMATS = ("auto", "table", "harness", "swebench", "helm", "inspect")
#: What a SWE-bench instance without a result counts as (:mod:`leaderboard.ingest.swebench`).
MISSING_INSTANCES = ("unresolved", "missing")
#: Flags of per-item results said on stderr before the numbers, as on the page
#: (:mod:`leaderboard.pipelines.run`).
ITEM_FLAGS = ("item_sets", "item_samples", "item_pairs", "models_rejected")
#: The bundled examples ``analyze --example`` runs (:func:`leaderboard.pipelines.run.run_analysis`;
#: their files are under data/, shipped as ``leaderboard._data``): a leaderboard of public and
#: private scores, Kaggle's download of the same competition's public board, a solution with 45
#: submission files (generated), per-item results, and battles.
EXAMPLES = ("scores", "kaggle", "submissions", "items", "battles")
#: What battles whose models do not all connect do (:mod:`leaderboard.pipelines.battles`).
DISCONNECTED = ("all", "largest", "error")
