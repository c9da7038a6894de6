"""Battles mode: Bradley-Terry ratings of models from pairwise battles, with intervals, rank sets,
P(best) and tiers.

ingest (:func:`leaderboard.ingest.battles.read_battles`) -> fit and noise
(:mod:`leaderboard.noise.bradley_terry`: the fit, its sandwich covariance, a bootstrap of battles
refitting every model on each redraw) -> tiers (:func:`leaderboard.tiers.ranking.rank_board` on
the replicate ratings, exactly as the bootstrap of test rows feeds it). Nothing here imports the
report.

Models that no chain of battles links to the rated group are not comparable with it: only the
largest connected group is rated (or, with ``disconnected="error"``, nothing is), and the others
are named with the reason.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pandas as pd

from leaderboard.errors import InputError
from leaderboard.noise.bradley_terry import (SCALE, PairCounts, bootstrap_fits, fit,
                                             sandwich_covariance, unbounded_models)
from leaderboard.pipelines.scores import join_ranking
from leaderboard.ingest.battles import Battles
from leaderboard.ingest.submissions.table import show
from leaderboard.tiers import RankReplicates
from leaderboard.tiers.ranking import Ranking, rank_board

_NAMES_SHOWN = 5


@dataclass(frozen=True)
class BattlesSettings:
    """What the user chose, echoed in the report and the JSON."""

    alpha: float = 0.05
    replicates: int = 2000
    seed: int = 0
    anchor: str | None = None          # a model fixed at anchor_rating; None: the mean is
    anchor_rating: float = 1000.0
    tier_method: str = "rank-sets"
    top_k: tuple[int, ...] = (3,)
    disconnected: str = "largest"


@dataclass(frozen=True)
class BattlesAnalysis:
    """The result of rating one arena.

    Attributes
    ----------
    battles : Battles
        What was read, every row accounted for.
    settings : BattlesSettings
    table : DataFrame
        One row per rated model, best first: ``rank``, ``model``, ``rating``, ``ci_low`` and
        ``ci_high`` (basic bootstrap interval), ``se_bootstrap``, ``se_sandwich``,
        ``sandwich_low`` and ``sandwich_high``, ``battles``, ``wins``, ``losses``, ``ties``,
        ``score_share`` (wins + ties / 2 over battles), and the ranks stage's columns (``tier``,
        ``rank_sim_low``/``high``, ``rank_ci_low``/``high``, ``p_best``, ``p_top_<k>``,
        ``in_best_set``).
    ranking : Ranking
    replicates : ndarray, shape (models, kept replicates)
        Bootstrap ratings in table order (replicates whose fit was unbounded left out).
    not_comparable : tuple of tuple of str
        Groups of models never linked by battles to the rated ones (not rated).
    battles_rated : int
        Battles among the rated models.
    pairs_met : int
        Pairs of rated models that met at least once.
    dropped_replicates : int
        Bootstrap redraws on which some rating was unbounded (a model drew no loss), left out.
    notes : tuple of str
    """

    battles: Battles
    settings: BattlesSettings
    table: pd.DataFrame
    ranking: Ranking
    replicates: np.ndarray
    not_comparable: tuple[tuple[str, ...], ...]
    battles_rated: int
    pairs_met: int
    dropped_replicates: int
    notes: tuple[str, ...] = ()
    card: object = None    # the leaderboard card (leaderboard.pipelines.card, issue 40)

    @property
    def mode(self) -> str:
        return "battles"


def check_settings(settings: BattlesSettings) -> None:
    """Every setting's range, checked once by the parameters' table (a one-line
    :class:`InputError` naming the parameter)."""
    from leaderboard.params import check_all

    check_all({"alpha": settings.alpha, "replicates": settings.replicates,
               "seed": settings.seed, "tiers": settings.tier_method,
               "disconnected": settings.disconnected, "anchor": settings.anchor,
               "anchor_rating": settings.anchor_rating, "top_k": settings.top_k})
    if not settings.top_k:
        raise InputError("top_k= must name at least one line, got ()")


def rate_battles(battles: Battles, settings: BattlesSettings) -> BattlesAnalysis:
    """Fit, resample and tier the models of ``battles`` (see the module's docstring)."""
    check_settings(settings)
    models = np.asarray(battles.models, dtype=object)
    groups = _components(battles)
    rated, others = groups[0], groups[1:]
    if others and settings.disconnected == "error":
        raise InputError(f"the models fall into {len(groups)} groups that never met in a battle, "
                         f"so no rating compares them: {_groups_text(models, groups)}; rate one "
                         "group at a time, or let the largest be rated (disconnected='largest', "
                         "--disconnected largest)", file=battles.source)
    index = np.full(len(models), -1)
    index[rated] = np.arange(rated.size)
    keep = index[battles.a] >= 0
    pc = PairCounts.from_battles(index[battles.a[keep]], index[battles.b[keep]],
                                 battles.outcome[keep], rated.size)
    names = models[rated]
    stuck = unbounded_models(pc)
    if stuck:
        said = "; ".join(f"{', '.join(show(m) for m in names[g][:_NAMES_SHOWN])} {kind} a "
                         f"battle against the other models" for g, kind in stuck)
        raise InputError(f"these ratings would be infinite: {said} (wins and ties, or losses "
                         "and ties, only). A Bradley-Terry rating needs every group of models to "
                         "have lost and won (or tied) against the rest; leave those models out "
                         "or add their battles", file=battles.source)
    theta = fit(pc)
    contrast = _anchor_contrast(names, settings.anchor)
    rating = settings.anchor_rating + SCALE * (contrast @ theta)
    cov = SCALE ** 2 * contrast @ sandwich_covariance(pc, theta) @ contrast.T
    boot = settings.anchor_rating + SCALE * (contrast @ bootstrap_fits(
        pc, theta, settings.replicates, settings.seed))

    order = np.lexsort((names, -rating))
    reps = RankReplicates.from_bootstrap(rating[order], boot[order], True)
    reps = replace(reps, source="bootstrap of battles (every model refitted on each redraw)")
    ranking = rank_board(reps, method=settings.tier_method, alpha=settings.alpha,
                         top_k=settings.top_k)
    table = _table(pc, names, rating, cov, reps, settings, order)
    table = join_ranking(table, ranking)
    return BattlesAnalysis(battles=battles, settings=settings, table=table, ranking=ranking,
                           replicates=reps.point[:, None] + reps.errors,
                           not_comparable=tuple(tuple(models[g]) for g in others),
                           battles_rated=int(keep.sum()), pairs_met=len(pc.pairs),
                           dropped_replicates=reps.dropped,
                           notes=tuple(_notes(battles, reps, settings, others, models,
                                             names[order])))


def _components(battles: Battles) -> list[np.ndarray]:
    """Connected groups of the comparison graph, the one to rate first: most models, then most
    battles, then the first name."""
    from scipy import sparse
    from scipy.sparse.csgraph import connected_components

    m = len(battles.models)
    graph = sparse.csr_matrix((np.ones(battles.a.size), (battles.a, battles.b)), shape=(m, m))
    count, label = connected_components(graph, directed=False)
    per_group = np.bincount(label[battles.a], minlength=count)
    groups = [np.flatnonzero(label == c) for c in range(count)]
    return sorted(groups, key=lambda g: (-g.size, -per_group[label[g[0]]], int(g[0])))


def _groups_text(models: np.ndarray, groups: list[np.ndarray]) -> str:
    parts = []
    for g in groups[:_NAMES_SHOWN]:
        shown = ", ".join(show(m) for m in models[g][:_NAMES_SHOWN])
        parts.append("{" + shown + (f", ... ({g.size} models)" if g.size > _NAMES_SHOWN else "")
                     + "}")
    return " ".join(parts) + (" ..." if len(groups) > _NAMES_SHOWN else "")


def _anchor_contrast(names: np.ndarray, anchor: str | None) -> np.ndarray:
    """The matrix taking zero-sum log-strengths to anchored ones: the identity (the mean is the
    anchor) or ``I - 1 e_a^T`` (model ``a`` is)."""
    m = names.size
    if anchor is None:
        return np.eye(m)
    hits = np.flatnonzero(names == anchor)
    if hits.size == 0:
        raise InputError(f"anchor {show(anchor)} is not among the rated models; rated: "
                         f"{', '.join(show(n) for n in names[:_NAMES_SHOWN])}"
                         f"{', ...' if m > _NAMES_SHOWN else ''}")
    contrast = np.eye(m)
    contrast[:, hits[0]] -= 1.0
    return contrast


def _table(pc: PairCounts, names: np.ndarray, rating: np.ndarray, cov: np.ndarray,
           reps: RankReplicates, settings: BattlesSettings, order: np.ndarray) -> pd.DataFrame:
    from scipy.special import ndtri   # norm.isf(q) is -ndtri(q), bit for bit, without scipy.stats

    m = names.size
    i, j = pc.pairs[:, 0], pc.pairs[:, 1]
    wins = np.bincount(i, pc.counts[:, 0], m) + np.bincount(j, pc.counts[:, 1], m)
    losses = np.bincount(i, pc.counts[:, 1], m) + np.bincount(j, pc.counts[:, 0], m)
    ties = np.bincount(i, pc.counts[:, 2], m) + np.bincount(j, pc.counts[:, 2], m)
    se = np.sqrt(np.maximum(np.diag(cov), 0.0))
    boot_se = reps.sd.copy()
    z = -ndtri(settings.alpha / 2)
    # The basic (reflected) bootstrap interval, 2 rating - the redraws' upper and lower points.
    # Both it and the percentile interval are first-order right; chosen by measurement: on 1,600
    # known-truth arenas (leaderboard.studies.battles_coverage) the percentile interval covered
    # 94.2-94.8%, short of 95% most with few battles, the basic one 94.6-95.4% (Monte Carlo SE
    # 0.3-0.5 points); docs/battles.md has the table.
    upper, lower = np.percentile(reps.errors, [100 * (1 - settings.alpha / 2),
                                               100 * settings.alpha / 2], axis=1)
    low, high = reps.point - upper, reps.point - lower
    # No interval where none is backed: the anchor's rating is fixed by definition, and a rating
    # that no redraw moved (every battle a tie) has a zero-width interval that measures nothing.
    frozen = (names[order] == settings.anchor) | ~(boot_se > 1e-9)
    for values in (low, high, boot_se):
        values[frozen] = np.nan
    se = np.where(frozen, np.nan, se[order])
    battles = (wins + losses + ties)[order]
    return pd.DataFrame({
        "rank": np.arange(1, m + 1), "model": names[order].astype(str), "rating": rating[order],
        "ci_low": low, "ci_high": high, "se_bootstrap": boot_se, "se_sandwich": se,
        "sandwich_low": rating[order] - z * se, "sandwich_high": rating[order] + z * se,
        "battles": battles.astype(np.int64), "wins": wins[order].astype(np.int64),
        "losses": losses[order].astype(np.int64), "ties": ties[order].astype(np.int64),
        "score_share": (wins + 0.5 * ties)[order] / battles})


def _list_names(names: np.ndarray) -> str:
    shown = ", ".join(show(n) for n in names[:_NAMES_SHOWN])
    return shown + (f" and {names.size - _NAMES_SHOWN:,} more" if names.size > _NAMES_SHOWN else "")


def _notes(battles: Battles, reps: RankReplicates, settings: BattlesSettings,
           others: list[np.ndarray], models: np.ndarray,
           models_in_order: np.ndarray) -> list[str]:
    notes = []
    if others:
        left = sum(g.size for g in others)
        notes.append(f"{left:,} model{'s' if left != 1 else ''} never met the rated models, "
                     "directly or through a chain of opponents, so no rating compares them with "
                     f"these: {_groups_text(models, others)}. They are not rated.")
    if reps.dropped:
        total = reps.dropped + reps.n_replicates
        notes.append(f"On {reps.dropped:,} of {total:,} bootstrap redraws some model drew no "
                     "loss (or no win), so its rating was unbounded; those redraws are left out, "
                     "which narrows the intervals of models with few battles.")
    frozen = ~(reps.sd > 1e-9)
    if settings.anchor is not None:
        frozen &= models_in_order != settings.anchor
    if frozen.any():
        notes.append("No redraw of the battles moved the rating of "
                     f"{_list_names(models_in_order[frozen])} "
                     "(every battle among them a tie, each counted as half a win for both), so "
                     "no interval is given: a zero width would measure nothing.")
    if "judge" in battles.columns:
        notes.append(f"Battles judged by the same voter ({battles.columns['judge']!r} column) "
                     "may be correlated; the bootstrap treats battles as independent.")
    return notes
