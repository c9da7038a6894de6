"""`leaderboard choose`: which two final submissions should a team select?

ingest (a table of public scores, and/or predictions with a solution) -> metrics (public scores)
-> noise (the universe's SD at the public size, or a paired bootstrap of the public rows) ->
:mod:`leaderboard.choose` (winner's-curse-corrected posterior, the pair, the ladder). Nothing here
imports the report.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import cast

import numpy as np
import pandas as pd

from leaderboard.pipelines.submission_scoring import split_scores
from leaderboard.choose import Choice, Ladder, Posterior, candidate_posterior, choose_pair, ladder_check
from leaderboard.api_words import said
from leaderboard import limits
from leaderboard.errors import InputError
from leaderboard.ingest.leaderboards import Leaderboard
from leaderboard.metrics import Metric
from leaderboard.noise.bootstrap import paired_bootstrap
from leaderboard.noise.grid import build_noise_model
from leaderboard.noise.universes import not_simulable_reason
from leaderboard.options import NoiseOptions, OptionShorthands, RankOptions, SliceOptions
from leaderboard.progress import Progress
from leaderboard.ingest.submissions import Solution, SubmissionSet
from leaderboard.ingest.submissions.identical import identical_to
from leaderboard.ingest.toolkit.messages import show


UNIVERSE_DRAWS = 2000  # simulated test sets per score level for a table's SDs (analyze's default)
# A team's candidates share most of their predictions, so their public scores' noise is strongly
# correlated: one real team's 27 submissions (kaggle_insults, AUC) measured 0.75 median (0.62-0.86
# quartiles). Assumed for candidates given only by a score. Known-truth study (12 candidates, SDs
# 0.9-1.1, true scores N(0, 0.2^2), 300 competitions per true correlation, the design of
# tests/choose/test_choose_correlation.py): the candidates' 95% intervals held the truth in 96.3, 96.2,
# 95.2, 94.5, 93.6, 93.0% (SE 0.3-1.4) at true correlation 0, 0.3, 0.6, 0.75, 0.9, 0.95; assuming
# 0 instead: 99.3, 87.7, 73.5, 66.6, 61.3, 59.5%. The recommended pair's best private score minus
# the top two public's: -0.0008 to 0 noise SDs (SE up to 0.0006).
TABLE_CORRELATION = 0.9


CHOOSE_DRAWS = 20000   # draws from the predictive distribution of the private scores


@dataclass(frozen=True)
class ChooseSettings(OptionShorthands):
    """What the team told us, echoed in the report and the JSON: the metric (configured), the
    noise (``noise``: prevalence, universe, correlation between candidates, draws from the
    predictive distribution, seed, direction), the comparisons (``ranks``: alpha, bootstrap
    replicates of the public rows) and the boards' sizes (``slices``: ``n_public``,
    ``n_private``), each value held and checked once in
    its options object (:mod:`leaderboard.options`); the read-only attributes are shorthands.

    ``correlation`` is a number, or None for ``"auto"``: measured from the predictions, else
    :data:`TABLE_CORRELATION`.

    Examples
    --------
    >>> from leaderboard.metrics import get_metric
    >>> s = ChooseSettings(get_metric("accuracy"), slices=SliceOptions(n_public=500))
    >>> s.draws, s.correlation, s.higher_is_better
    (20000, None, True)
    """

    metric: Metric
    noise: NoiseOptions = field(default_factory=lambda: NoiseOptions(draws=CHOOSE_DRAWS))
    ranks: RankOptions = field(default_factory=RankOptions)
    slices: SliceOptions = field(default_factory=SliceOptions)

    n_public = property(lambda self: self.slices.n_public)     # the public board's rows
    n_private = property(lambda self: self.slices.n_private)   # the private board's rows

    @property
    def correlation(self) -> float | None:
        return None if self.noise.correlation == "auto" else float(self.noise.correlation)


@dataclass(frozen=True)
class Candidates:
    """The team's candidates, their public scores and the noise of those scores.

    Attributes
    ----------
    names : list of str
        One per candidate, in submission order (file order of the table, file-name order of the
        predictions), which is the order the ladder walks.
    scores : ndarray, shape (K,)
        Public scores (raw scale).
    cov : ndarray, shape (K, K)
        Covariance of the public scores' sampling noise at the public size.
    source : list of str
        ``"predictions"`` (bootstrap of the public rows) or ``"table"`` (the universe's SD and the
        assumed correlation) per candidate.
    n_public, n_private : int
        Rows seen (public) and rows that will decide (private).
    hindsight : ndarray or None
        Private scores, when the solution holds private labels: shown after the choice, never used
        by it.
    noise : str
        How ``cov`` was obtained, in words.
    identical_to : list of str or None
        Per candidate, the first earlier candidate with byte-identical predictions over every row
        (:func:`leaderboard.ingest.submissions.identical.identical_to`, as ``analyze`` uses), else None;
        always None for candidates given only by a public score.
    """

    names: list[str]
    scores: np.ndarray
    cov: np.ndarray
    source: list[str]
    n_public: int
    n_private: int
    hindsight: np.ndarray | None
    noise: str
    identical_to: list[str | None]


@dataclass(frozen=True)
class ChooseResult:
    """Everything the report and the JSON of ``leaderboard choose`` show."""

    settings: ChooseSettings
    candidates: Candidates
    posterior: Posterior
    choice: Choice
    ladder: Ladder
    table: pd.DataFrame
    notes: tuple[str, ...]
    inputs: tuple[str, ...]
    correlation: dict | None = None   # what was assumed between candidates (correlation_used)


def table_candidates(board: Leaderboard, settings: ChooseSettings, *,
                     quiet: bool = True) -> Candidates:
    """Candidates from a table of public scores: the SD of each score comes from the metric's
    simulated universe at ``n_public`` rows, and any two candidates' noise is assumed to have
    correlation ``settings.correlation`` (by default :data:`TABLE_CORRELATION`: a team's
    candidates share most of their predictions; assuming 0 makes the common noise vanish from
    the intervals, which then held the truth in 48-70% of simulated competitions)."""
    metric = settings.metric
    if settings.n_public is None:
        raise InputError("--public-scores needs --n-public (the rows of the public board)")
    reason = not_simulable_reason(metric, settings.universe)
    if reason is not None:
        raise InputError(f"{reason}; give the candidates' predictions (--solution, --submissions)")
    scores = board.entries["score"].to_numpy(dtype=float)
    progress = Progress("simulating test sets", quiet=quiet)
    best = scores.max() if settings.higher_is_better else scores.min()
    noise = build_noise_model(metric, scores, leader_score=float(best), n_test=settings.n_public,
                              prevalence=settings.prevalence, draws=UNIVERSE_DRAWS, seed=settings.seed,
                              alpha=settings.alpha, options=settings.universe, progress=progress)
    progress.close()
    sd = noise.sd_at(scores)
    cov, rho = table_cov(sd, settings.correlation)
    n_private = settings.n_private or settings.n_public
    return Candidates(names=board.entries["team"].tolist(), scores=scores, cov=cov,
                      source=["table"] * len(scores), n_public=settings.n_public,
                      n_private=n_private, hindsight=None,
                      noise=f"the {noise.universe} universe's SD at {settings.n_public:,} rows, "
                            f"correlation {rho:g} between candidates (assumed"
                            f"{'' if settings.correlation is not None else ', the default'})",
                      identical_to=[None] * len(scores))


def table_cov(sd: np.ndarray, correlation: float | None) -> tuple[np.ndarray, float]:
    """The noise covariance of candidates given by a score: SDs ``sd``, one correlation between
    any two (None: :data:`TABLE_CORRELATION`); returns it and the correlation used.

    Examples
    --------
    >>> cov, rho = table_cov(np.array([1.0, 2.0]), None)
    >>> cov.tolist(), rho
    ([[1.0, 1.8], [1.8, 4.0]], 0.9)
    """
    rho = TABLE_CORRELATION if correlation is None else float(correlation)
    cov = rho * np.outer(sd, sd)
    np.fill_diagonal(cov, sd ** 2)
    return cov, rho


def prediction_candidates(solution: Solution, submissions: SubmissionSet,
                          settings: ChooseSettings, *, quiet: bool = True) -> Candidates:
    """Candidates from their predictions: scored on the rows the team has seen (the public rows,
    or every row when the solution has no Usage column), with the noise covariance from a paired
    bootstrap of those rows, which measures how alike the candidates' errors are."""
    metric = settings.metric
    files = submissions.scored
    if len(files) < 2:
        raise InputError(f"choose needs at least two valid candidates, found {len(files)}",
                         file=submissions.source)
    preds = cast("list[np.ndarray]", [f.prediction for f in files])   # scored: all present
    seen = solution.usage == "public"
    has_split = bool(seen.any())
    if not has_split:
        seen = solution.usage != "ignored"
    unseen = int((solution.usage == "private").sum()) if has_split else 0
    n_public = int(seen.sum())
    n_private = settings.n_private or unseen or n_public
    limits.current().check_replicates(settings.replicates, len(files))   # as analyze, before a draw
    progress = Progress("resampling the public rows", quiet=quiet)
    try:
        boot = paired_bootstrap(metric.impl, solution.target[seen], [p[seen] for p in preds],
                                replicates=settings.replicates, seed=settings.seed,
                                progress=progress)
    finally:
        progress.close()
    names = [f.label for f in files]
    _require_defined(boot.point, names, solution, seen, metric.label)
    reps = boot.replicates[:, np.isfinite(boot.replicates).all(axis=0)]
    hindsight = split_scores(metric, solution, preds, "private") if has_split else None
    return Candidates(names=names, scores=boot.point, cov=np.cov(reps),
                      source=["predictions"] * len(files), n_public=n_public,
                      n_private=n_private, hindsight=hindsight,
                      noise=f"a paired bootstrap of the {n_public:,} "
                            f"{'public' if has_split else ''} rows ({reps.shape[1]:,} replicates)"
                            .replace("  ", " "),
                      identical_to=identical_to(preds, names))


def _require_defined(scores: np.ndarray, names: list[str], solution, seen: np.ndarray,
                     label: str) -> None:
    """An :class:`InputError` when the metric is undefined (NaN) on the rows the team has seen
    for some candidate: no choice can rest on a score that does not exist (AUC of one class)."""
    undefined = ~np.isfinite(scores)
    if not undefined.any():
        return
    truth = np.asarray(solution.target)[seen]
    classes = np.unique(truth.astype(str)) if truth.ndim == 1 else None
    why = (f": they hold one class only ({show(classes[0])})"
           if classes is not None and classes.size == 1 else "")
    who = ("every candidate" if undefined.all() else
           ", ".join(show(names[k]) for k in np.flatnonzero(undefined)[:3]))
    raise InputError(f"{label} is undefined for {who} on the {int(seen.sum()):,} rows the team "
                     f"has seen{why}; choose compares the candidates' scores there",
                     file=solution.source, column=solution.target_columns[0])


def merge_candidates(predicted: Candidates, table: Candidates,
                     correlation: float | None) -> Candidates:
    """Both inputs at once: candidates with predictions keep their bootstrap covariance; those
    only in the table join with the universe's SD and the assumed correlation to every other
    (None: the median correlation measured between the candidates with predictions)."""
    if correlation is None:
        correlation = measured_correlation(predicted.cov)
    if predicted.n_public != table.n_public:
        raise InputError(f"--n-public {table.n_public:,} disagrees with the solution's "
                         f"{predicted.n_public:,} public rows")
    extra = [i for i, name in enumerate(table.names) if name not in set(predicted.names)]
    k, m = len(predicted.names), len(extra)
    sd = np.sqrt(np.concatenate([np.diag(predicted.cov), np.diag(table.cov)[extra]]))
    cov = correlation * np.outer(sd, sd)
    cov[:k, :k] = predicted.cov
    cov[k:, k:] = table.cov[np.ix_(extra, extra)]
    hindsight = None if predicted.hindsight is None else np.concatenate(
        [predicted.hindsight, np.full(m, np.nan)])
    return Candidates(names=predicted.names + [table.names[i] for i in extra],
                      scores=np.concatenate([predicted.scores, table.scores[extra]]), cov=cov,
                      source=predicted.source + ["table"] * m, n_public=predicted.n_public,
                      n_private=predicted.n_private, hindsight=hindsight,
                      noise=f"{predicted.noise}; for the {m} candidate(s) only in the table, "
                            f"{table.noise}" if m else predicted.noise,
                      identical_to=predicted.identical_to + [None] * m)


def measured_correlation(cov: np.ndarray) -> float:
    """The median correlation between candidates' noise (off the diagonal), clipped to [0, 1).

    Examples
    --------
    >>> measured_correlation(np.array([[1.0, 0.8], [0.8, 1.0]]))
    0.8
    """
    sd = np.sqrt(np.diag(cov))
    with np.errstate(invalid="ignore", divide="ignore"):
        corr = cov / np.outer(sd, sd)
    off = corr[~np.eye(len(corr), dtype=bool)]
    off = off[np.isfinite(off)]
    return float(np.clip(np.median(off), 0.0, 0.99)) if off.size else 0.0


def choose(candidates: Candidates, settings: ChooseSettings, *,
           inputs: tuple[str, ...] = ()) -> ChooseResult:
    """Correct every candidate for the winner's curse, pick the pair, replay the ladder.

    Parameters
    ----------
    candidates : Candidates
        From :func:`table_candidates`, :func:`prediction_candidates` or both merged.
    settings : ChooseSettings
    inputs : tuple of str
        The input files, for the report.

    Returns
    -------
    ChooseResult
        ``table`` has one row per candidate in submission order with ``candidate``,
        ``public_score``, ``expected`` (winner's-curse-corrected expected private score),
        ``ci_low``/``ci_high`` (95% posterior interval of its true score), ``p_best``,
        ``p_top_tier``, ``pick`` (1 and 2 for the recommended pair, else 0), ``safest``,
        ``top_two_public``, ``identical_to`` (the first earlier candidate with byte-identical
        predictions, as in ``analyze``), ``same_public_scores_as`` (the first candidate with the
        same public score and noise, which the choice treats as one; identical files are, and so
        are files that differ only where no public score can see it), ``ladder_step`` and, when
        the solution holds private labels, ``private_hindsight``.
    """
    c, higher = candidates, settings.higher_is_better
    if len(c.names) < 2:
        raise InputError(f"choose needs at least two candidates, found {len(c.names)}")
    posterior = candidate_posterior(c.scores, c.cov, higher)
    try:
        choice = choose_pair(posterior, c.cov * (c.n_public / c.n_private), higher,
                             draws=settings.draws, seed=settings.seed, names=c.names)
    except ValueError as error:  # e.g. all with the same public scores: nothing to choose
        raise InputError(f"cannot choose: {error}") from None
    assumed = all(src == "table" for src in c.source)
    if assumed and choice.recommended != choice.top_two_public and not (
            choice.gain_over_top_two > 3 * choice.gain_se):
        # Scores only: the covariance is assumed, so a pair other than the top two public
        # scores rests on the model alone; unless its gain clears the Monte Carlo error, the top
        # two are kept (measured: never worse than them in expectation,
        # tests/choose/test_choose_correlation.py)
        choice = replace(choice, recommended=choice.top_two_public,
                         recommended_expected=choice.top_two_expected, gain_over_top_two=0.0)
    var = np.diag(c.cov)
    sd_diff = np.sqrt(np.maximum(var[:, None] + var[None, :] - 2 * c.cov, 0.0))
    ladder = ladder_check(c.scores, sd_diff, higher, alpha=settings.alpha)
    low, high = posterior.interval(settings.alpha)
    pick = np.zeros(len(c.names), dtype=int)
    pick[list(choice.recommended)] = (1, 2)
    table = pd.DataFrame({
        "candidate": c.names, "public_score": c.scores, "expected": choice.expected,
        "ci_low": low, "ci_high": high, "p_best": choice.p_best, "p_true_best": choice.p_true_best,
        "p_top_tier": choice.p_top_tier,
        "pick": pick, "safest": np.isin(np.arange(len(c.names)), choice.safest),
        "top_two_public": np.isin(np.arange(len(c.names)), choice.top_two_public),
        "ladder_step": ladder.is_step, "source": c.source})
    # pandas turns a None among strings into NaN; keep "no original" as None
    table["identical_to"] = pd.Series(c.identical_to, dtype=object)
    table["same_public_scores_as"] = pd.Series(
        [None if k == i else c.names[k] for i, k in enumerate(posterior.same_public_as)],
        dtype=object)
    if c.hindsight is not None:
        table["private_hindsight"] = c.hindsight
    notes = _group_notes(c.names, c.identical_to, posterior.same_public_as)
    if any(src == "table" for src in c.source):
        notes.append(_assumed_note(c, settings))
    return ChooseResult(settings=settings, candidates=c, posterior=posterior, choice=choice,
                        ladder=ladder, table=table, notes=tuple(notes), inputs=inputs,
                        correlation=correlation_used(c, settings))


def correlation_used(c: Candidates, settings: ChooseSettings) -> dict:
    """The correlation between candidates' noise and where it came from: ``measured`` (every
    candidate has predictions; ``value`` the median), ``stated`` (--correlation), ``default``
    (:data:`TABLE_CORRELATION`) or ``measured median`` (table candidates joined at the median
    measured between those with predictions)."""
    rows = np.flatnonzero(np.array(c.source) == "predictions")
    measured = measured_correlation(c.cov[np.ix_(rows, rows)]) if rows.size > 1 else None
    if rows.size == len(c.source):
        return {"value": measured, "source": "measured"}
    if settings.correlation is not None:
        return {"value": float(settings.correlation), "source": "stated"}
    if rows.size:
        return {"value": measured, "source": "measured median"}
    return {"value": TABLE_CORRELATION, "source": "default"}


def _assumed_note(c: Candidates, settings: ChooseSettings) -> str:
    """What the choice assumed about candidates given only by a public score."""
    if settings.correlation is not None:
        rho = said(f"{settings.correlation:g} (--correlation)")
    elif all(src == "table" for src in c.source):
        rho = (f"{TABLE_CORRELATION:g}, the default: a team's submissions usually share most of "
               "their predictions (one real team's 27 measured 0.75 median)")
    else:
        rows = np.flatnonzero(np.array(c.source) == "predictions")
        rho = (f"{measured_correlation(c.cov[np.ix_(rows, rows)]):.2f}, the median measured "
               "between the candidates with predictions")
    words = (f"Candidates given only by their public scores: their noise is assumed to have "
             f"correlation {rho}. ")
    if settings.correlation is not None and settings.correlation < 0.5:
        words += ("With little correlation assumed, the candidates' shared noise is left out of "
                  "their intervals, which held the truth in as few as half of simulated "
                  "competitions whose candidates were alike. ")
    return words + said("Giving their predictions (--solution, --submissions) measures it; "
                        "without them the pair is the two best public scores unless the model's "
                        "gain over them clears its Monte Carlo error.")


def _group_notes(names: list[str], identical: list[str | None],
                 same_public: np.ndarray) -> list[str]:
    """One sentence for byte-identical files, one for groups the public rows cannot tell apart
    that are not all identical (both count as one candidate for the choice)."""
    groups: dict[str, list[str]] = {}
    for name, first in zip(names, identical):
        if first is not None:
            groups.setdefault(first, [first]).append(name)
    loose: dict[int, list[str]] = {}
    for i, k in enumerate(same_public):
        loose.setdefault(int(k), []).append(names[i])
    loose_only = [m for m in loose.values()
                  if len(m) > 1 and not any(set(m) <= set(g) for g in groups.values())]
    notes = []
    if groups:
        listed = "; ".join(", ".join(g) for g in groups.values())
        notes.append(f"Identical predictions (byte for byte on every row, as analyze counts them): "
                     f"{listed}. Each group counts as one candidate and is never recommended "
                     "twice, since the second would add nothing.")
    if loose_only:
        listed = "; ".join(", ".join(g) for g in loose_only)
        notes.append(f"Same public scores, not all identical: {listed}. Their predictions differ "
                     "only where no public score can see it (the same score on the public rows "
                     "and on every resample of them), so each group counts as one candidate for "
                     "the choice; their private scores may differ.")
    return notes
