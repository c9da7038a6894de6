"""What every number takes as given, whether the data could check it, and what was found.

Each analysis rests on a few assumptions of its noise model: the shape of the simulated
universe (scores only), the independence of test rows or items, the correlation between
entries' errors, and the test set's size. An :class:`Assumption` names one, says in plain words
which numbers it carries, whether this input can check it, the result when it can, a verdict
(``holds``, ``doubtful`` or ``not checkable``) and what to do when it is doubtful.

Where a board cannot check the correlation between entries (one score per team), the verdict is
shown across its plausible range instead (:func:`correlation_sweep`): how many entries could be
the best, and how many share tier 1, at correlations 0, 0.5, 0.8 and 0.95, with the range the
real boards with public and private scores gave (:data:`REAL_BOARD_CORRELATIONS`).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from leaderboard.api_words import said, said_with
from leaderboard.params import DEFAULT_SEED

VERDICTS = ("holds", "doubtful", "not checkable")
SWEEP = (0.0, 0.5, 0.8, 0.95)      # correlations the unchecked verdict is shown at
# normal draws per correlation of the sweep: the analysis's own replicates, at most this many (a
# sensitivity display, not the page's intervals: a run asking for fewer draws gets fewer here too)
SWEEP_REPLICATES = 1000
# ``--correlation auto``'s point estimate on the 10 real boards with public and private scores
# and a simulable universe in ../shared/data (tests/pipelines/test_real_boards.py's sizes): 0 on the
# three two-stage boards (other data: by construction) and on mlcontest, trabit and uninadmc;
# mlsp 0.23, ultrasound 0.46, prostate 2021 0.64, prostate-cancer 0.98. Its two ends are
# re-measured by tests/report/test_assumptions.py.
REAL_BOARD_CORRELATIONS = {"boards": 10, "low": 0.0, "high": 0.98}

_INTERVALS = ("intervals", "d95", "tiers", "rank intervals", "P(best)")


@dataclass(frozen=True)
class Assumption:
    """One thing the noise model takes as given.

    Attributes
    ----------
    name : str
        ``universe_shape``, ``independent_rows``, ``independent_items``,
        ``independent_clusters``, ``correlation_between_entries`` or ``test_size``.
    statement : str
        The assumption in plain words.
    affects : tuple of str
        The numbers that rest on it.
    checkable : bool
        Whether this input can check it.
    checked : str or None
        What the check found, in words (None when not checkable).
    verdict : str
        ``holds``, ``doubtful`` or ``not checkable``.
    what_to_do : str
        What to do when it is doubtful or cannot be checked.
    measured : dict
        The numbers behind ``checked`` (e.g. the correlation sweep), JSON-ready.
    """

    name: str
    statement: str
    affects: tuple[str, ...]
    checkable: bool
    checked: str | None
    verdict: str
    what_to_do: str
    measured: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")

    def as_json(self) -> dict:
        """The JSON form (leaderboard/schema/analyze.schema.json, ``assumptions``).

        Examples
        --------
        >>> a = Assumption("test_size", "400 rows", ("intervals",), True, "400 rows read",
        ...                "holds", "nothing")
        >>> sorted(a.as_json())[:3]
        ['affects', 'checkable', 'checked']
        """
        return {"name": self.name, "statement": self.statement, "affects": list(self.affects),
                "checkable": self.checkable, "checked": self.checked, "verdict": self.verdict,
                "what_to_do": self.what_to_do, "measured": self.measured or None}


def correlation_sweep(scores: np.ndarray, sd: np.ndarray, higher_is_better: bool, *,
                      alpha: float, tier_method: str, seed: int = DEFAULT_SEED,
                      correlations: tuple[float, ...] = SWEEP,
                      replicates: int = SWEEP_REPLICATES,
                      known: dict[float, tuple[int, int]] | None = None) -> dict:
    """How many entries could be the best, and how many share tier 1, at each correlation.

    Parameters
    ----------
    scores, sd : ndarray
        Entries best first, and the SD of each score's noise (entries without one left out).
    higher_is_better : bool
    alpha, tier_method, seed
        As the analysis.
    correlations : tuple of float
    replicates : int
        Normal draws per correlation (the same seed for each).
    known : dict, optional
        ``{correlation: (best_set, tier_1)}`` already computed (the analysis's own correlation):
        taken as they are, so the sweep repeats the page's numbers exactly and skips their cost.

    Returns
    -------
    dict
        ``correlation``, ``best_set`` and ``tier_1``: lists, one value per correlation.

    Examples
    --------
    Ten entries 1 SD apart: more correlated errors separate them better.

    >>> s = correlation_sweep(np.arange(10.0)[::-1], np.ones(10), True, alpha=0.05,
    ...                       tier_method="rank-sets", replicates=400)
    >>> s["best_set"][0] >= s["best_set"][-1], s["tier_1"][0] >= s["tier_1"][-1]
    (True, True)
    """
    from leaderboard._memory import release
    from leaderboard.tiers import RankReplicates
    from leaderboard.tiers.best_set import best_set
    from leaderboard.tiers.rank_sets import rank_confidence_sets
    from leaderboard.tiers.ranking import tier_entries

    best, tier_1 = [], []
    known = known or {}
    for rho in correlations:
        if float(rho) in known:
            best.append(int(known[float(rho)][0]))
            tier_1.append(int(known[float(rho)][1]))
            continue
        reps = RankReplicates.normal(scores, sd, float(rho), higher_is_better,
                                     replicates=replicates, seed=seed)
        best.append(int(best_set(reps, alpha).sum()))
        sets = rank_confidence_sets(reps, alpha, simultaneous=True)
        tier_1.append(int((tier_entries(reps, tier_method, alpha, sets).tier == 1).sum()))
        # let this correlation's draws (and the block layout kept while they live) go before
        # the next ones are drawn: the two sets were held at once (+0.4 GB at 100,000 entries)
        del reps, sets
        release()   # and what the heap kept of them (leaderboard._memory)
    return {"correlation": [float(r) for r in correlations], "best_set": best, "tier_1": tier_1}


def analysis_assumptions(analysis, sweep: dict | None = None,
                         grouping: tuple[tuple[str, int], ...] = ()) -> tuple[Assumption, ...]:
    """The assumptions of one analysis (scores only, predictions or per-item results).

    ``sweep`` is :func:`correlation_sweep`'s result for a scores-only board whose correlation
    between entries could not be estimated; ``grouping`` the per-item results' undeclared
    grouping columns (:func:`leaderboard.ingest.item_table.grouping_columns`).
    """
    if analysis.mode == "scores":
        return _scores(analysis, sweep)
    items = analysis.submissions is not None and analysis.submissions.layout == "items"
    boot = analysis.bootstrap
    out = [_independence(boot, analysis.flags, grouping, items), _measured_correlation(boot, items=items),
           Assumption("universe_shape", "None: no universe is simulated. The "
                      f"{'items' if items else 'test rows'} themselves are resampled (the "
                      "paired percentile bootstrap), which takes the score's sampling "
                      "distribution to be roughly symmetric around it.", _INTERVALS, False, None,
                      "not checkable", f"Nothing, unless the {'set of items' if items else 'test set'} "
                      "is tiny (then every interval is rough; the flags say so).")]
    unit = "items" if items else "test rows"
    out.append(Assumption("test_size", f"The scores were computed on {boot.n_rows:,} {unit}.",
                          _INTERVALS, True, f"{boot.n_rows:,} {unit} read from the "
                          f"{'results' if items else 'solution'} file.", "holds",
                          "Nothing: the size is read, not stated.",
                          {"n": int(boot.n_rows)}))
    return tuple(out)


def comparison_assumptions(result, solution, *, items: bool) -> tuple[Assumption, ...]:
    """The assumptions of ``compare``'s paired test (independence of rows/items or clusters)."""
    unit = "items" if items else "test rows"
    found = tuple(solution.grouping_columns) if items else ()
    affects = ("difference interval", "lower bound", "p-value", "shown better")
    if result.clusters is not None:
        c = result.clusters
        return (Assumption("independent_clusters", f"The {c.clusters:,} clusters are "
                           "independent of each other (items within one may be related).",
                           affects, True, f"{c.clusters:,} clusters, the largest holding "
                           f"{c.largest_share:.0%} of the {unit}.",
                           "doubtful" if c.few else "holds",
                           "With few clusters the bound uses a t reference with G - 1 degrees "
                           "of freedom; more clusters (more independent groups) make it firmer."
                           if c.few else "Nothing.",
                           {"clusters": c.clusters, "largest_share": c.largest_share}),)
    return (_rows_or_items(found, unit, affects),)


def _rows_or_items(found: tuple, unit: str, affects: tuple[str, ...]) -> Assumption:
    name = "independent_items" if unit == "items" else "independent_rows"
    if unit == "items":
        from leaderboard.ingest.item_table import grouping_sentence

        from leaderboard.ingest.toolkit.messages import show

        checked = ("; ".join(grouping_sentence(c, g) for c, g in found) + "." if found
                   else "No column of the file groups the items.")
        return Assumption(name, "The items are independent: no two share a passage, a "
                          "repository or a source that makes them succeed or fail together.",
                          affects, True, checked, "doubtful" if found else "holds",
                          f"Pass {said_with('--cluster-col', show(found[0][0]))} if items of "
                          "a group are related."
                          if found else said("If items come in groups the file does not show, "
                                             "add the group as a column and pass --cluster-col."),
                          {"grouping_columns": [{"column": c, "groups": g} for c, g in found]})
    return Assumption(name, "The test rows are independent: no patient, session or user has "
                      "several rows.", affects, False, None, "not checkable",
                      said("If rows come in groups, give the group column (--group-col) so "
                           "whole groups are resampled."))


def _independence(boot, flags, grouping: tuple, items: bool) -> Assumption:
    if boot.resample == "grouped":
        few = any(f.kind == "few_clusters" for f in flags)
        return Assumption("independent_clusters", f"The {boot.n_units:,} clusters are "
                          "independent of each other (rows within one may be related).",
                          _INTERVALS, True, f"{boot.n_units:,} clusters resampled whole.",
                          "doubtful" if few else "holds",
                          "Few clusters: the intervals and tiers use a t reference with G - 1 "
                          "degrees of freedom; read them as approximate." if few else "Nothing.",
                          {"clusters": int(boot.n_units)})
    return _rows_or_items(tuple(grouping), "items" if items else "rows", _INTERVALS)


def _measured_correlation(boot, top: int = 20, items: bool = False) -> Assumption:
    reps = boot.replicates[:top]
    reps = reps[:, np.isfinite(reps).all(axis=0)]
    value = None
    if reps.shape[0] >= 2 and reps.shape[1] >= 3:
        with np.errstate(invalid="ignore", divide="ignore"):
            corr = np.corrcoef(reps)
        off = corr[~np.eye(len(corr), dtype=bool)]
        off = off[np.isfinite(off)]
        value = float(np.median(off)) if off.size else None
    checked = (f"Measured, not assumed: every entry is scored on the same resampled "
               f"{'items' if items else 'rows'}, so the comparisons use the entries' real "
               "correlation"
               + (f" (median {value:.2f} between the leading {min(top, len(boot.point))} "
                  "entries' scores)." if value is not None else "."))
    made = "per-item results" if items else "predictions"
    return Assumption("correlation_between_entries", "Entries' errors are correlated as their "
                      f"{made} make them (paired: the shared noise cancels in differences).",
                      ("tiers", "rank intervals", "P(best)"), True, checked, "holds",
                      "Nothing.", {"median_correlation": value} if value is not None else {})


def _scores(analysis, sweep: dict | None) -> tuple[Assumption, ...]:
    """Scores only: the universe stands in for the unseen test rows."""
    s = analysis.settings
    noise = analysis.noise
    universe = noise.universe if noise is not None else None
    shape = Assumption(
        "universe_shape",
        (f"Each score is the {s.metric.label} of test rows drawn from a population like the "
         f"{universe} universe: the simulated test sets give every interval its width."
         if universe else "No universe was simulated, so no interval rests on a shape."),
        _INTERVALS, False, None, "not checkable",
        said("Give the predictions (--solution with --submissions, or --items) so the real test "
             "rows are resampled; or check the universe options against what the test set is "
             "like (docs/scores_only.md measures them)."))
    if getattr(analysis, "tails", None) is not None and universe:
        shape = _tails_shape(analysis.tails, universe)
    rows = _rows_or_items((), "rows", _INTERVALS)
    n = s.n_test
    size = Assumption(
        "test_size", (f"The scores were computed on {n:,} test rows (stated)." if n else
                      "No test-set size was given, so no noise was simulated."),
        _INTERVALS, False, None, "not checkable",
        "Check the competition's data page for the rows that score the board; the noise "
        "shrinks like 1/sqrt(rows), so a size off by 4x moves every interval 2x.",
        {"n": int(n)} if n else {})
    return (shape, rows, _scores_correlation(analysis, sweep), size)


def _tails_shape(tails, universe: str) -> Assumption:
    """Regression: the residuals' tails, read from the public/private gaps where the board has
    them (:mod:`leaderboard.pipelines.tails`)."""
    statement = (f"Each score is the noise of test rows drawn from the {universe} universe; how "
                 f"heavy the residuals' tails are: {tails.fact()}.")
    if tails.how == "gaps":
        doubtful = bool(tails.beyond_heavy)
        return Assumption(
            "universe_shape", statement, _INTERVALS, True,
            "Read from the public-minus-private gaps at correlation "
            f"{tails.scale.correlation:g} between entries: the tiers and the best set rest on "
            "the gaps themselves; each entry's own interval assumes the entries do not share "
            "their largest errors." + (" The gaps spread more than even heavy-tailed residuals "
                                       "allow." if doubtful else ""),
            "doubtful" if doubtful else "holds",
            "Check the slices' sizes and whether the public slice is like the private one."
            if doubtful else "Nothing, unless the entries share their largest errors (then "
            "their own intervals are too narrow).", tails.to_json())
    return Assumption(
        "universe_shape", statement, _INTERVALS, False, None, "not checkable",
        said("State the residuals' kurtosis (--kurtosis, from a validation set's residuals), or "
             "give public and private scores with both slices' sizes, whose gaps show the noise.")
        if tails.how == "unknown" else "Nothing, if the stated tails are right.",
        tails.to_json())


def _scores_correlation(analysis, sweep: dict | None) -> Assumption:
    c = analysis.correlation
    affects = ("tiers", "rank intervals", "P(best)", "the post-mortem's noise baseline")
    statement = f"Any two entries' errors are taken to have correlation {c.used:g}: {c.source}."
    if c.estimated:
        doubtful = c.estimate is not None and getattr(c.estimate, "excess", False)
        return Assumption(
            "correlation_between_entries", statement, affects, True,
            f"Estimated from the public/private pairs: {c.value:.3f} "
            f"({c._interval()}); the comparisons use the lower end, {c.used:g}."
            + (" The gaps spread more than the modelled noise allows: the universe may "
               "understate the noise." if doubtful else ""),
            "doubtful" if doubtful else "holds",
            "Check the test-set sizes and the universe options." if doubtful else "Nothing.",
            {"value": c.value, "low": c.low, "high": c.high, "used": c.used})
    measured = dict(sweep or {})
    if REAL_BOARD_CORRELATIONS["boards"]:
        measured["real_boards"] = dict(REAL_BOARD_CORRELATIONS)
    checked = None
    words = ("It cannot be checked here" + (f": {c.why_not}." if c.why_not else
                                            " (the value was stated)." if c.source == "stated"
                                            else ": the board has one score per entry."))
    if sweep:
        pairs = ", ".join(f"{b:,} at {r:g}" for r, b in zip(sweep["correlation"],
                                                              sweep["best_set"]))
        tier1 = ", ".join(f"{t:,} at {r:g}" for r, t in zip(sweep["correlation"],
                                                            sweep["tier_1"]))
        words += (f" Across its plausible range, entries that could be the best: {pairs}; in "
                  f"tier 1: {tier1}.")
    real = REAL_BOARD_CORRELATIONS
    if real["boards"]:
        words += (f" On {real['boards']} real boards with public and private scores the "
                  f"estimated correlation ran from {real['low']:.2f} to {real['high']:.2f}.")
    return Assumption(
        "correlation_between_entries", f"{statement} {words}", affects, False, checked,
        "not checkable", said("If the entries share much of their predictions (ensembles of one "
                              "base model, forks of one notebook), a higher correlation is likely "
                              "and fewer entries are tied; give both public and private scores "
                              "with their sizes (--correlation auto estimates it), or the "
                              "predictions (which measure it)."), measured)
