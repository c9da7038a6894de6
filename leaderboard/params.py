"""Every parameter in one table: what it accepts, its default and its help, and the one function
that checks a value against it.

In the spirit of scikit-learn's ``_param_validation``: a parameter is declared once, by name, with
what it accepts (:data:`PARAMETERS`, built of the kinds in :mod:`leaderboard.constraints`); the
Python API, the options objects of :mod:`leaderboard.options` and the pipelines' settings all
check through :func:`check`, and the command line's options take their default, help and type
from here (:data:`OPTIONS`, through :func:`leaderboard.cli.common.add_parameter`). Numpy scalars
are accepted wherever a Python number is (``y.mean()`` is a ``np.float64``) and come back as
Python ``int``/``float``/``bool``, so they never reach the JSON.

This module imports nothing heavy: choices that live in the pipeline (the tier methods, the
universes) are named as ``"module:attribute"`` and looked up only when a value is checked.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from leaderboard.constraints import (Choice, Choices, Constraint, Either, Flag, Interval, Invalid,
                                     Optional, Several, Table, Text, Texts)
from leaderboard.errors import InputError
from leaderboard.option_words import WORDS, Listed
from leaderboard.ingest.safe_read import DEFAULT_MAX_BYTES, format_size

__all__ = ["PARAMETERS", "OPTIONS", "Option", "check", "check_all", "check_alpha", "default", "option",
           "Interval", "Choice", "Optional", "Invalid"]

N_MAX = 10 ** 9        # test rows: more than any test set, and far below a C long
SEED_MAX = 2 ** 32 - 1  # every seed numpy and numba accept
DRAWS_MAX = 10 ** 7     # simulated test sets or replicates: beyond it, memory runs out first

# The shared defaults, written here once: the options objects, the Python API, the statistics'
# signatures and the command line's options name these constants (tests/api/test_settings.py
# counts the literals, so that they stay here).
DEFAULT_ALPHA = 0.05         # error rate of every interval, test and tier
DEFAULT_LEVEL = 0.95         # the same as a confidence level, 1 - DEFAULT_ALPHA
DEFAULT_SEED = 0             # the seed of every random stream
DEFAULT_REPLICATES = 2000    # bootstrap replicates (normal draws with scores only)
DEFAULT_DRAWS = 2000         # simulated test sets per score level
DEFAULT_TIERS = "rank-sets"  # how tiers are cut (leaderboard.tiers.methods)
DEFAULT_RESAMPLE = "plain"   # the paired bootstrap's resampling of test rows
DEFAULT_THRESHOLD = 0.5      # binary label metrics: the probability that predicts a positive
DEFAULT_POWER = 0.8          # plan: the chance of detecting the difference
# Regression: Student t residuals with 3 degrees of freedom (infinite kurtosis; the universe's
# tails reach a probability of 1e-12, noise/universes/regression.py). Normal residuals' intervals
# held the true RMSE for 28% of entries when the residuals were t(3); this shape's price is
# intervals several times as wide when the residuals are in fact normal
# (docs/scores_only_regression.md measures both, per metric). Real models' residuals on
# scikit-learn's data sets have excess kurtosis up to 6 (studies/regression_calibration.py).
# Issue 39: the default where nothing shows the tails; a board with public and private scores
# reads its noise from their gaps (pipelines/tails.py).
DEFAULT_RESIDUALS, DEFAULT_DF = "t", 3.0
# A typical correlation between entries scored on one shared test set, for the words that say how
# a verdict changes when entries share it and for plan's headline. Measured: 0.44 on Kaggle's
# ultrasound-nerve-segmentation (922 public/private pairs), 0.62 on the bundled example, about 0.2
# on mlsp-2014-mri (README, --correlation auto); 0.5 is a round middle of those.
TYPICAL_CORRELATION = 0.5
# simulate: the seeds' grid (true ROC AUCs, test-set sizes, shares of positives), and the simulated
# test sets per case (one case, a grid)
DEFAULT_SCORES = (0.7, 0.8, 0.9)
DEFAULT_N_TESTS = (1000, 5000, 10000)
DEFAULT_PREVALENCES = (0.01, 0.05, 0.2)
SIMULATE_DRAWS, GRID_DRAWS = 5000, 2000

# The caps checked before work (leaderboard.limits; the command line's --max-* options): each
# one's default, bounds and what its N counts. leaderboard.limits.Limits takes its defaults here.
CAPS = {   # name: (default, low, high, what)
    "max_name_length": (10_000, 1, 10 ** 9, "characters of one team or model name"),
    "max_columns": (10_000, 1, 10 ** 9, "columns of one input table"),
    "max_rows": (20_000_000, 1, 10 ** 12, "data rows of one input table (solution, submission, "
                                          "per-item results)"),
    "max_entries": (200_000, 1, 10 ** 12, "entries of a scores-only leaderboard"),
    "max_models": (1_000, 2, 10 ** 6, "models of an arena (battles)"),
}
LIMITS = (*CAPS, "max_memory", "max_expansion")   # every field of leaderboard.limits.Limits
DEFAULT_MAX_MEMORY = 4 * 2 ** 30
DEFAULT_MAX_EXPANSION = 100
# What any compressed input may expand to, whatever its size: small archives are never refused
# (a 16 MB CSV or JSON log is far from a memory problem), bombs of a few KB are
EXPANSION_FLOOR = 16 * 2 ** 20

FRACTION = Interval(float, 0, 1, low_open=True, high_open=True)
SIZE = Interval(int, 2 ** 10, 2 ** 40)   # a file or memory size: 1K to 1T
DF = Interval(float, 2, 1e6)   # t residuals' degrees of freedom: MIN_DF (finite universe, issue 25)
ROWS = Interval(int, 2, N_MAX)
SEED = Interval(int, 0, SEED_MAX)
DRAWS = Interval(int, 100, DRAWS_MAX)
CORRELATION = Interval(float, 0, 1, high_open=True)
COLUMN = Optional(Text())
TIERS = Choice("leaderboard.tiers.methods:TIER_METHODS")

#: The table: every parameter of the Python API and of the options objects, by name.
PARAMETERS: dict[str, Constraint] = {
    "metric": Optional(Text()),
    "higher_is_better": Optional(Flag()),
    "n_test": Optional(ROWS),
    "prevalence": Optional(FRACTION),
    "n_public": Optional(ROWS),
    "n_private": Optional(ROWS),
    "public_fraction": Optional(FRACTION),
    # plan: the weaker entry's true score, the difference to detect, the chance of detecting it
    "score": Interval(float),
    "delta": Optional(Interval(float, 0, None, low_open=True)),
    "power": FRACTION,
    # simulate: lists of cases (every combination with grid=True)
    "scores": Optional(Several(Interval(float))),
    "n_tests": Optional(Several(ROWS)),
    "prevalences": Optional(Several(FRACTION)),
    "grid": Flag(),
    "two_stage": Flag(),
    "split": Choice(("private", "public")),
    "alpha": FRACTION,
    "draws": DRAWS,
    "replicates": DRAWS,
    "seed": SEED,
    "correlation": Either((Choice(("auto",)), CORRELATION)),
    "resample": Choice("leaderboard.choices:RESAMPLING"),
    "tiers": TIERS,
    "tier_method": TIERS,
    # per-category intervals on the page: each at its own level, or all holding together
    "category_intervals": Choice(("marginal", "simultaneous")),
    "prizes": Interval(int, 1, N_MAX),
    "top_k": Several(Interval(int, 1, N_MAX), empty=True),
    "beta": Optional(Interval(float, 0, 1e6)),
    "costs": Optional(Text()),
    "team_col": COLUMN, "score_col": COLUMN, "public_col": COLUMN, "private_col": COLUMN,
    "id_col": COLUMN, "group_col": COLUMN, "cluster_col": COLUMN, "category_col": COLUMN,
    "harness_filter": COLUMN, "sample_col": COLUMN,
    "items_policy": Choice("leaderboard.choices:ITEMS_POLICIES"),
    "items_format": Choice("leaderboard.choices:ITEMS_FORMATS"),
    "instances": Optional(Text()),
    "missing_instances": Choice("leaderboard.choices:MISSING_INSTANCES"),
    # benchmarks (issue 26): each item's cost, a file of published scores to check
    "cost_col": COLUMN, "published": Optional(Table()),
    "published_col": COLUMN, "published_model_col": COLUMN,
    "target_col": Optional(Texts()), "pred_col": Optional(Texts()),
    "model_col": Text(), "item_col": Text(), "value_col": Text(),
    "max_file_size": SIZE, "max_memory": SIZE, "max_expansion": Interval(int, 1, 10 ** 6),
    **{name: Interval(int, low, high) for name, (_, low, high, _) in CAPS.items()},
    "workers": Optional(Interval(int, 1, 1024)),
    "scheduler": Optional(Text()),
    "universe": Optional(Choice("leaderboard.noise.universe_options:UNIVERSE_NAMES")),
    "classes": Optional(Interval(int, 2, 1000)),
    "class_shares": Optional(Several(Interval(float, 0, 1, low_open=True))),
    "residuals": Choice("leaderboard.noise.universe_options:RESIDUALS"),
    "df": DF,
    "kurtosis": Optional(Interval(float, 1, 1e6)),   # the residuals' own (issue 39): at least 1
    "threshold": FRACTION,
    "spread": Optional(Interval(float, 0, 1e3, low_open=True)),
    "quiet": Flag(),
    "static_charts": Flag(),   # a page's charts also drawn as static SVG (no JavaScript)
    "allow_perfect": Flag(),
    "exclude_flagged": Choices(Choice("leaderboard.flags:EXCLUDABLE")),
    # plan --from (issue 40): simulated boards, the k of "the top k separate"
    "boards": Interval(int, 20, 100_000), "separate": Interval(int, 1, 10 ** 6),
    # battles mode (issue 26)
    "model_a_col": Text(), "model_b_col": Text(), "winner_col": Text(), "judge_col": COLUMN,
    "date_col": COLUMN, "anchor": Optional(Text()),
    "anchor_rating": Interval(float, -1e9, 1e9),
    "disconnected": Choice("leaderboard.choices:DISCONNECTED"),
    "jobs": Interval(int, 1, 256),   # calibrate: cells run in parallel processes
}



def _listed(values) -> str:
    """Numbers as the command line takes a list of them: ``0.7,0.8,0.9``."""
    return ",".join(f"{v:g}" for v in values)


@dataclass(frozen=True)
class Option:
    """A parameter as the command line offers it: its default and its help, where argparse's
    ``%(default)s`` says the default (so the help cannot disagree with it).

    Examples
    --------
    >>> option("alpha", "compare").help % {"default": option("alpha", "compare").default}
    'level of the one-sided test (default 0.05)'
    """

    default: object
    help: str


#: The command line's default and help of each parameter it offers, by name; ``"command:name"``
#: words a parameter for one command (``plan``'s alpha is a two-sided test's level). Every
#: option of these names takes both from here (:func:`leaderboard.cli.common.add_parameter`;
#: tests/api/test_settings.py checks every command's parser, and that no option of the command
#: line has a default of its own). ``output`` is the command line's alone (not in
#: :data:`PARAMETERS`: no Python API function writes a page by default).
OPTIONS: dict[str, Option] = {
    "alpha": Option(DEFAULT_ALPHA, "error rate of intervals and tiers (default %(default)s)"),
    "calibrate:alpha": Option(DEFAULT_ALPHA, "error rate (default %(default)s)"),
    "choose:alpha": Option(DEFAULT_ALPHA, "error rate of the intervals and the ladder's margin "
                                          "(default %(default)s)"),
    "compare:alpha": Option(DEFAULT_ALPHA, "level of the one-sided test (default %(default)s)"),
    "plan:alpha": Option(DEFAULT_ALPHA, "two-sided test level (default %(default)s)"),
    "seed": Option(DEFAULT_SEED, "random seed (default %(default)s)"),
    "simulate:seed": Option(DEFAULT_SEED, "random seed (default %(default)s); the same seed gives "
                            "the same numbers, and a case the same numbers alone as in a grid"),
    "replicates": Option(DEFAULT_REPLICATES, "bootstrap replicates; with scores only, the normal "
                         "draws behind rank intervals, P(best) and stability, and (at most 1000) "
                         "behind the correlation sweep (default %(default)s)"),
    "choose:replicates": Option(DEFAULT_REPLICATES, "bootstrap replicates of the public rows "
                                "(default %(default)s)"),
    "compare:replicates": Option(DEFAULT_REPLICATES, "bootstrap replicates (default %(default)s)"),
    "draws": Option(DEFAULT_DRAWS, "simulated test sets per score level (default %(default)s)"),
    "choose:draws": Option(20000, "draws from the predictive distribution of the private scores "
                           "(default %(default)s)"),
    "power": Option(DEFAULT_POWER, "chance of detecting the difference (default %(default)s)"),
    "prizes": Option(3, "prize places: the report gives each entry's chance of finishing in the "
                     "top PRIZES (default %(default)s)"),
    "threshold": Option(DEFAULT_THRESHOLD, "binary label metrics: probability at which a row is predicted "
                        "positive (default %(default)s)"),
    "split": Option("private", "with public and private scores (columns, or Usage in the "
                    "solution), the one that ranks (default: %(default)s)"),
    "choose:correlation": Option(None, "scores only: assumed correlation between two candidates' "
                                 "noise (default: measured from the predictions when there are "
                                 "some, else 0.9: a team's candidates share most of their "
                                 "predictions)"),
    "correlation": Option("auto", "correlation between entries' scores: a number at least 0 and "
                          "below 1, or 'auto' (the default): estimated from the public/private "
                          "pairs when the board has both scores and both slices' sizes, else 0 "
                          "(independent, the conservative choice)"),
    "resample": Option(DEFAULT_RESAMPLE, "paired bootstrap of test rows: plain, stratified by class (fixed "
                       "prevalence), grouped by --group-col, or poisson (independent Poisson(1) "
                       "row weights, for massive test sets) (default: %(default)s)"),
    "category_intervals": Option("marginal", "with --category-col, the per-category intervals "
                                 "the page shows: marginal (each holds with 1 - alpha / C; they do "
                                 "not all hold together) or simultaneous (all hold together with "
                                 "1 - alpha); the JSON has both (default %(default)s)"),
    "items_policy": Option("common", "models scored on different item sets: 'common' (default) "
                           "keeps a complete table by dropping the items some model lacks or the "
                           "models lacking some item, whichever keeps more (model, item) cells, "
                           "and says which; 'drop-items' and 'drop-models' force one way; "
                           "'pairwise' scores each model on its own items and compares each pair "
                           "on the items they share"),
    "items_format": Option("auto", "what --items is (default auto: recognised by its files): "
                           "table (CSV/Parquet), harness (OUT/<model>/samples_*.jsonl), swebench "
                           "(a folder of system folders: results/results.json, "
                           "per_instance_details.json or logs/<id>/report.json), helm (a suite "
                           "folder of runs with per_instance_stats.json), inspect (a .json or "
                           ".eval log, or a folder of them)"),
    "missing_instances": Option("unresolved", "SWE-bench: an instance a system has no result for "
                                "counts as unresolved (the leaderboard's denominator, the "
                                "default) or is left missing"),
    "compare:split": Option(None, "solution rows compared on, by Usage (default private; every "
                            "row when the solution has no Usage)"),
    "compare:model_col": Option(None, "--items: model column (default model)"),
    "compare:item_col": Option(None, "--items: item column (default item)"),
    "compare:value_col": Option(None, "--items: value column (default value)"),
    "model_col": Option("model", "its model column (default %(default)s)"),
    "item_col": Option("item", "its item column (default %(default)s)"),
    "value_col": Option("value", "its per-item value: 0/1 correctness or a score (default "
                        "%(default)s); for a benchmark's files, the harness metric, HELM stat "
                        "(default exact_match) or Inspect scorer (scorer/key for a dictionary "
                        "value) to read"),
    "model_a_col": Option("model_a", "column of the first model (default %(default)s)"),
    "model_b_col": Option("model_b", "column of the second model (default %(default)s)"),
    "winner_col": Option("winner", "column of the outcome (default %(default)s)"),
    "anchor_rating": Option(1000.0, "the anchor's rating (default %(default)g)"),
    "tiers": Option(DEFAULT_TIERS, Listed("how tiers are cut (default %(default)s): {listed} (the "
                                          "README's tier methods say what each guarantees)",
                                          "leaderboard.tiers.methods:method_words", "; ")),
    "simulate:metric": Option("auc", Listed("metric to simulate (default %(default)s): {listed}",
                                            "leaderboard.metrics:metric_names")),
    "simulate:score": Option(None, "true score(s), comma separated, e.g. 0.75,0.80,0.81 (with "
                             f"--grid default {_listed(DEFAULT_SCORES)})"),
    "simulate:n_test": Option(None, "rows per test set, comma separated (with --grid default "
                              f"{_listed(DEFAULT_N_TESTS)})"),
    "simulate:prevalence": Option(None, "share of positives in the test set, comma separated; "
                                  "binary metrics only (with --grid default "
                                  f"{_listed(DEFAULT_PREVALENCES)})"),
    "simulate:draws": Option(None, f"simulated test sets per case (default {SIMULATE_DRAWS:,}; "
                             f"{GRID_DRAWS:,} with --grid, which has many cases)"),
    "plan:correlation": Option(None, "assumed correlation between the entries' scores (default "
                               f"{TYPICAL_CORRELATION:g}: entries scored on one shared test set, a "
                               "typical measured value; the answer for independent entries, 0, is "
                               "given too; with --from a board of scores, as analyze: estimated, "
                               "else 0)"),
    "top_k": Option((), "more lines for P(top k), comma separated, e.g. medal lines '10,50'"),
    "exclude_flagged": Option((), "set flagged entries aside before the analysis, comma "
                              "separated: perfect (perfect scores, leaked labels), junk (far worse "
                              "than the rest), shared (the board's most shared score); in every "
                              "mode: the report counts them among the rows dropped (scores) or "
                              "lists them as set aside (submissions, per-item results)"),
    # the command line's alone: where each command writes its page
    **{f"{command}:output": Option(f"{page}.html", "HTML report path (default %(default)s)")
       for command, page in (("analyze", "report"), ("simulate", "simulate"),
                             ("choose", "choose"))},
    "calibrate:jobs": Option(1, "cells run in parallel processes (default %(default)s; the "
                             "numbers do not depend on it)"),
    "residuals": Option(DEFAULT_RESIDUALS, "regression: distribution of the residuals (default t, "
                        "with --df 3: heavy tails, so that RMSE and MAE intervals hold under "
                        "outliers and skewed residuals (docs/scores_only_regression.md); normal "
                        "gives narrower intervals that hold only for normal residuals). Unstated, "
                        "a board with public and private scores and both slices' sizes reads its "
                        "noise from their gaps instead"),
    "df": Option(DEFAULT_DF, f"degrees of freedom of t residuals, at least {DF.low:g} (default "
                 f"{DEFAULT_DF:g}; lower is heavier tailed and wider)"),
    "max_file_size": Option(DEFAULT_MAX_BYTES, "refuse any input file larger than this, on disk "
                            "or once decompressed, e.g. 500M or 2G (default "
                            f"{format_size(DEFAULT_MAX_BYTES)})"),
    **{name: Option(value, f"refuse more than N {what} (default {value:,})")
       for name, (value, _, _, what) in CAPS.items()},
    "max_memory": Option(DEFAULT_MAX_MEMORY, "refuse replicates, per-item tables or JSON inputs "
                         "whose estimated memory is larger, e.g. 8G (default "
                         f"{format_size(DEFAULT_MAX_MEMORY)})"),
    "max_expansion": Option(DEFAULT_MAX_EXPANSION, "refuse a compressed input (.gz, .zip, .zst, an "
                            "Inspect .eval, Parquet) that expands to more than N times its size, "
                            f"and more than {format_size(EXPANSION_FLOOR)}: a likely decompression "
                            f"bomb (default {DEFAULT_MAX_EXPANSION})"),
    # every option without a default of its own (None; False for a flag): its help alone
    **{key: Option(False if isinstance(PARAMETERS[key.split(":")[-1]], Flag) else None, words)
       for key, words in WORDS.items()},
    "disconnected": Option("all", "models in groups that never met: rate every group on its own, "
                           "the one with the most battles first (all, the default), rate that "
                           "one alone and name the others (largest), or refuse (error)"),
}


def option(name: str, command: str | None = None) -> Option:
    """The command line's default and help of parameter ``name``, as ``command`` words it.

    Examples
    --------
    >>> option("seed").default, option("draws", "choose").default, option("draws", "plan").default
    (0, 20000, 2000)
    """
    return OPTIONS.get(f"{command}:{name}") or OPTIONS[name]


def default(name: str) -> Any:
    """The default of parameter ``name`` (the options objects' fields take theirs from here).

    Examples
    --------
    >>> default("prizes"), default("resample")
    (3, 'plain')
    """
    return OPTIONS[name].default


def check(name: str, value: object, *, where: str | None = None):
    """``value`` checked against ``name``'s constraint, normalised (numpy scalars to Python
    numbers, a string of ``target_col`` to a tuple); :class:`InputError` naming the parameter.

    Examples
    --------
    >>> import numpy as np
    >>> check("prevalence", np.float64(0.2))
    0.2
    >>> check("alpha", 1.5)
    Traceback (most recent call last):
    ...
    leaderboard.errors.InputError: alpha= must be strictly between 0 and 1, got 1.5
    """
    try:
        return PARAMETERS[name].check(value)
    except Invalid as error:
        raise InputError(f"{where or name + '='} {error}") from None


def check_all(values: dict) -> dict:
    """Every item of ``values`` checked by :func:`check` (unknown names are a bug: KeyError)."""
    return {name: check(name, value) for name, value in values.items()}


def check_alpha(alpha: float) -> float:
    """The one check of an error rate, for the statistics' own entry points (a ValueError
    subclass, as their callers catch)."""
    return check("alpha", alpha)
