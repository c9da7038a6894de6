"""Battles mode: Bradley-Terry ratings of models from pairwise battles, with intervals, rank sets,
P(best) and tiers.

ingest (:func:`leaderboard.ingest.battles.read_battles`) -> fit and noise
(:mod:`leaderboard.noise.bradley_terry`: Firth's bias-reduced fit, its sandwich covariance, a
bootstrap of battles, or of clusters of battles, refitting every model on each redraw) -> tiers
(:func:`leaderboard.tiers.ranking.rank_board` on the replicate ratings, exactly as the bootstrap
of test rows feeds it). Nothing here imports the report.

**Groups.** Models that no chain of battles links are not comparable: every connected group is
rated on its own (its own table, ratings, rank sets and tiers; the group with the most battles
first), or, with ``disconnected="largest"``, that group alone, or, with ``"error"``, none.

**Models too thin to place.** A model whose simultaneous rank set is every rank of its group and
whose interval is more than twice as wide as the group's typical interval (a handful of battles)
is not placed: its rank set still says where it could be, but it is
given no tier (``tier`` 0, ``placed`` False), rather than tier 1 because nothing could be shown
better than it. The page's tier guarantee is then about the placed models.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from leaderboard.errors import InputError
from leaderboard.ingest.battles import Battles, grouping_sentence
from leaderboard.ingest.toolkit.messages import show
from leaderboard.noise.bradley_terry import (SCALE, ClusterCells, PairCounts, bootstrap_fits,
                                             cluster_scores, firth_fit, fit,
                                             sandwich_covariance, unbounded_models)
from leaderboard.pipelines.analysis import join_ranking
from leaderboard.tiers import RankReplicates
from leaderboard.tiers.ranking import Ranking, rank_board
from leaderboard.options import ArenaOptions, NoiseOptions, RankOptions

if TYPE_CHECKING:
    from leaderboard.noise.clusters import ClusterCount

_NAMES_SHOWN = 5
# Memory of one model x replicate of the bootstrap and the ranks stage, and of one model x model
# cell of the fit's dense matrices (a few live at once): checked against --max-memory first
_BYTES_PER_MODEL_PAIR = 64
# replicates are checked as the other modes' are (limits.BYTES_PER_REPLICATE_ENTRY per model and
# replicate), counting at least this many models: a redraw's draws and refit cost that much
# however few the models, and ten million redraws of two models would run for hours
_MIN_MODELS_COUNTED = 10


@dataclass(frozen=True)
class BattlesSettings:
    """What the user chose, echoed in the report and the JSON, each value held and checked once,
    in its options object (:mod:`leaderboard.options`): the seed (``noise``; battles have no
    metric or universe), the error rate, replicates, tier method and P(top k) lines (``ranks``:
    its ``prize_lines``), the anchor and the groups that never met (``arena``).

    The read-only attributes below are shorthands (``settings.alpha`` is
    ``settings.ranks.alpha``), as :class:`~leaderboard.pipelines.analysis.Settings`' are.

    Examples
    --------
    >>> s = BattlesSettings(ranks=RankOptions(alpha=0.1, prizes=1, top_k=(5, 1)))
    >>> s.alpha, s.top_k, s.seed, s.anchor_rating, s.disconnected
    (0.1, (1, 5), 0, 1000.0, 'all')
    """

    noise: NoiseOptions = field(default_factory=NoiseOptions)
    ranks: RankOptions = field(default_factory=RankOptions)
    arena: ArenaOptions = field(default_factory=ArenaOptions)

    alpha = property(lambda self: self.ranks.alpha)
    replicates = property(lambda self: self.ranks.replicates)
    seed = property(lambda self: self.noise.seed)
    tier_method = property(lambda self: self.ranks.method)
    top_k = property(lambda self: self.ranks.prize_lines)
    anchor = property(lambda self: self.arena.anchor)      # a model fixed at anchor_rating
    anchor_rating = property(lambda self: self.arena.anchor_rating)
    disconnected = property(lambda self: self.arena.disconnected)


@dataclass(frozen=True)
class GroupRating:
    """One connected group of models, rated.

    Attributes
    ----------
    table : DataFrame
        One row per model, best first: ``rank``, ``model``, ``rating`` (Firth's bias-reduced
        fit), ``rating_mle`` (the plain maximum-likelihood fit the arenas publish; NaN where it
        is infinite), ``ci_low`` and ``ci_high`` (percentile interval of the bootstrap),
        ``se_bootstrap``, ``se_sandwich``, ``sandwich_low`` and ``sandwich_high``, ``battles``,
        ``wins``, ``losses``, ``ties``, ``score_share`` (wins + ties / 2 over battles),
        ``placed`` (False: too thin to place, see the module's docstring) and the ranks stage's
        columns (``tier``, 0 for a model not placed; ``rank_sim_low``/``high``,
        ``rank_ci_low``/``high``, ``p_best``, ``p_top_<k>``, ``in_best_set``).
    ranking : Ranking
    replicates : ndarray, shape (models, replicates)
        Bootstrap ratings in table order.
    battles : int
        Battles among the group's models.
    pairs_met : int
    dropped_replicates : int
        Redraws whose refit failed numerically, left out (0 expected: every redraw is refitted
        with the virtual ties, which keep its fit finite).
    clusters : int or None
        Clusters resampled (with ``cluster_col``).
    few_clusters : ClusterCount or None
        Set when they are few (under 30, or one holding a quarter of the battles): the redraws
        are then stretched to a t reference with G - 1 degrees of freedom.
    unbounded : tuple of (str, str)
        Models whose plain fit is infinite, with ``"never lost"`` or ``"never won"``.
    """

    table: pd.DataFrame
    ranking: Ranking
    replicates: np.ndarray
    battles: int
    pairs_met: int
    dropped_replicates: int
    clusters: int | None = None
    unbounded: tuple[tuple[str, str], ...] = ()
    few_clusters: ClusterCount | None = None      # when the clusters are few

    @property
    def thin(self) -> tuple[str, ...]:
        """Models too thin to place."""
        return tuple(self.table.loc[~self.table["placed"], "model"])


@dataclass(frozen=True)
class BattlesAnalysis:
    """The result of rating one arena: every connected group (``groups``, the one with the most
    battles first); ``table``, ``ranking`` and the counts below are the first group's.

    Attributes
    ----------
    battles : Battles
        What was read, every row accounted for.
    settings : BattlesSettings
    groups : tuple of GroupRating
    not_comparable : tuple of tuple of str
        Groups of models not rated (``disconnected="largest"``).
    notes : tuple of str
    """

    battles: Battles
    settings: BattlesSettings
    groups: tuple[GroupRating, ...]
    not_comparable: tuple[tuple[str, ...], ...]
    notes: tuple[str, ...] = ()
    card: object = None    # the leaderboard card (leaderboard.pipelines.card, issue 40)

    @property
    def mode(self) -> str:
        return "battles"

    @property
    def table(self) -> pd.DataFrame:
        return self.groups[0].table

    @property
    def ranking(self) -> Ranking:
        return self.groups[0].ranking

    @property
    def replicates(self) -> np.ndarray:
        return self.groups[0].replicates

    @property
    def battles_rated(self) -> int:
        return self.groups[0].battles

    @property
    def pairs_met(self) -> int:
        return self.groups[0].pairs_met

    @property
    def dropped_replicates(self) -> int:
        return sum(g.dropped_replicates for g in self.groups)


def check_size(models: int, replicates: int, source: str) -> None:
    """Refuse, before any work, an arena whose fit or bootstrap would not fit the caps in force
    (``--max-models``, ``--max-memory``): the fit holds a few models x models matrices, the
    bootstrap and the ranks stage models x replicates numbers.

    Examples
    --------
    >>> check_size(14, 2000, "arena.csv")
    >>> check_size(14, 10_000_000, "arena.csv")  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    leaderboard.errors.InputError: 10,000,000 replicates of 14 entries would take about 65.19G of
    memory, over the cap of 4G; lower --replicates, or raise --max-memory
    """
    from leaderboard import limits

    caps = limits.current()
    if models > caps.max_models:
        raise InputError(f"{models:,} models, over the cap of {caps.max_models:,}; raise it with "
                         "--max-models if the arena is genuine", file=source)
    caps.check_memory(models * models * _BYTES_PER_MODEL_PAIR,
                      f"the fit of {models:,} models", "rate fewer models")
    caps.check_replicates(replicates, max(models, _MIN_MODELS_COUNTED))


def rate_battles(battles: Battles, settings: BattlesSettings) -> BattlesAnalysis:
    """Fit, resample and tier the models of ``battles`` (see the module's docstring)."""
    models = np.asarray(battles.models, dtype=object)
    groups = _components(battles)
    if len(groups) > 1 and settings.disconnected == "error":
        raise InputError(f"the models fall into {len(groups)} groups that never met in a battle, "
                         f"so no rating compares them: {_groups_text(models, groups)}; rate one "
                         "group at a time, or let every group be rated on its own "
                         "(disconnected='all', --disconnected all)", file=battles.source)
    rated = groups if settings.disconnected == "all" else groups[:1]
    check_size(max(g.size for g in rated), settings.replicates, battles.source)
    if settings.anchor is not None and settings.anchor not in set(models[np.concatenate(rated)]):
        names = models[np.concatenate(rated)]
        raise InputError(f"anchor {show(settings.anchor)} is not among the rated models; rated: "
                         f"{', '.join(show(n) for n in names[:_NAMES_SHOWN])}"
                         f"{', ...' if names.size > _NAMES_SHOWN else ''}")
    results = tuple(_rate_group(battles, members, settings, k)
                    for k, members in enumerate(rated))
    others = groups[len(rated):]
    return BattlesAnalysis(battles=battles, settings=settings, groups=results,
                           not_comparable=tuple(tuple(models[g]) for g in others),
                           notes=tuple(_notes(battles, results, others, models,
                                             settings.anchor)))


def _rate_group(battles: Battles, members: np.ndarray, settings: BattlesSettings,
                group: int) -> GroupRating:
    models = np.asarray(battles.models, dtype=object)
    index = np.full(len(models), -1)
    index[members] = np.arange(members.size)
    keep = index[battles.a] >= 0
    a, b, outcome = index[battles.a[keep]], index[battles.b[keep]], battles.outcome[keep]
    pc = PairCounts.from_battles(a, b, outcome, members.size)
    names = models[members]
    cells = None
    if battles.cluster is not None:
        cluster = pd.factorize(battles.cluster[keep])[0]
        cells = ClusterCells.from_battles(pc, a, b, outcome, cluster)
    theta, virtual = firth_fit(pc)
    stuck = unbounded_models(pc)
    mle = np.full(members.size, np.nan) if stuck else fit(pc)
    contrast = _anchor_contrast(names, settings.anchor)
    rating = settings.anchor_rating + SCALE * (contrast @ theta)
    rating_mle = settings.anchor_rating + SCALE * (contrast @ mle)
    scores = None if cells is None else cluster_scores(pc, theta, cells)
    cov = SCALE ** 2 * contrast @ sandwich_covariance(pc, theta, virtual, scores) @ contrast.T
    fits = bootstrap_fits(pc, theta, settings.replicates, settings.seed, virtual, cells, group)
    dropped = int(np.isnan(fits).any(axis=0).sum())
    boot = settings.anchor_rating + SCALE * (contrast @ fits[:, ~np.isnan(fits).any(axis=0)])
    count = None
    if cells is not None:
        # few clusters: the cluster bootstrap is too narrow; stretched to a t reference with
        # G - 1 degrees of freedom, as per-item results are (leaderboard.noise.clusters)
        from leaderboard.noise.clusters import cluster_count

        assert battles.cluster is not None   # cells come from the cluster column
        count = cluster_count(pd.factorize(battles.cluster[keep])[0])
        factor = count.factor(settings.alpha)
        boot = rating[:, None] + factor * (boot - rating[:, None])
    if boot.shape[1] == 0:
        raise ArithmeticError("no bootstrap redraw of the battles could be refitted")

    order = np.lexsort((names, -rating))
    reps = RankReplicates.from_bootstrap(rating[order], boot[order], True)
    reps = replace(reps, source="bootstrap of " + ("clusters of battles" if cells else "battles")
                   + " (every model refitted on each redraw)", dropped=dropped)
    ranking = rank_board(reps, method=settings.tier_method, alpha=settings.alpha,
                         top_k=settings.top_k)
    table = _table(pc, names, rating, rating_mle, cov, reps, settings, order)
    table = join_ranking(table, ranking)
    table["placed"] = _placed(table)
    table.loc[~table["placed"], "tier"] = 0
    return GroupRating(table=table, ranking=ranking, replicates=reps.point[:, None] + reps.errors,
                       battles=int(keep.sum()), pairs_met=len(pc.pairs),
                       dropped_replicates=dropped,
                       clusters=None if cells is None else cells.n_clusters,
                       few_clusters=None if count is None or not count.few else count,
                       unbounded=tuple((str(n), kind) for g, kind in stuck
                                       for n in names[g] if 2 * len(g) <= members.size))


THIN_WIDTH = 2.0


def _placed(table: pd.DataFrame) -> np.ndarray:
    """False for a model the battles do not place (three or more models): its simultaneous rank
    set is every rank, and its interval is more than :data:`THIN_WIDTH` times as wide as the
    group's median interval. (Models that are all alike, every rank set whole, are placed
    together: nothing sets one apart.)"""
    m = len(table)
    if m < 3:
        return np.ones(m, bool)
    width = (table["ci_high"] - table["ci_low"]).to_numpy(float)
    typical = np.nanmedian(width) if np.isfinite(width).any() else np.nan
    whole = (table["rank_sim_low"].to_numpy() == 1) & (table["rank_sim_high"].to_numpy() == m)
    with np.errstate(invalid="ignore"):
        return ~(whole & (width > THIN_WIDTH * typical))


def _components(battles: Battles) -> list[np.ndarray]:
    """Connected groups of the comparison graph: most battles first, then most models, then the
    first name."""
    from scipy import sparse
    from scipy.sparse.csgraph import connected_components

    m = len(battles.models)
    graph = sparse.csr_matrix((np.ones(battles.a.size), (battles.a, battles.b)), shape=(m, m))
    count, label = connected_components(graph, directed=False)
    per_group = np.bincount(label[battles.a], minlength=count)
    groups = [np.flatnonzero(label == c) for c in range(count)]
    return sorted(groups, key=lambda g: (-per_group[label[g[0]]], -g.size, int(g[0])))


def _groups_text(models: np.ndarray, groups: list[np.ndarray]) -> str:
    """The groups in words: ``island-a and island-b; x, y, z and 4 more``."""
    return "; ".join(_list_names(models[g]) + (f" ({g.size:,} models)"
                                              if g.size > _NAMES_SHOWN else "")
                     for g in groups[:_NAMES_SHOWN]) + (
        f"; and {len(groups) - _NAMES_SHOWN:,} more groups" if len(groups) > _NAMES_SHOWN
        else "")


def _anchor_contrast(names: np.ndarray, anchor: str | None) -> np.ndarray:
    """The matrix taking zero-sum log-strengths to anchored ones: the identity (the mean is the
    anchor) or ``I - 1 e_a^T`` (model ``a`` is); a group without the anchor keeps its mean."""
    m = names.size
    hits = np.flatnonzero(names == anchor) if anchor is not None else np.array([], int)
    contrast = np.eye(m)
    if hits.size:
        contrast[:, hits[0]] -= 1.0
    return contrast


def _table(pc: PairCounts, names: np.ndarray, rating: np.ndarray, rating_mle: np.ndarray,
           cov: np.ndarray, reps: RankReplicates, settings: BattlesSettings,
           order: np.ndarray) -> pd.DataFrame:
    from scipy.special import ndtri   # norm.isf(q) is -ndtri(q), bit for bit, without scipy.stats

    m = names.size
    i, j = pc.pairs[:, 0], pc.pairs[:, 1]
    wins = np.bincount(i, pc.counts[:, 0], m) + np.bincount(j, pc.counts[:, 1], m)
    losses = np.bincount(i, pc.counts[:, 1], m) + np.bincount(j, pc.counts[:, 0], m)
    ties = np.bincount(i, pc.counts[:, 2], m) + np.bincount(j, pc.counts[:, 2], m)
    se = np.sqrt(np.maximum(np.diag(cov), 0.0))
    boot_se = reps.sd.copy()
    z = -ndtri(settings.alpha / 2)
    # The percentile interval of the smoothed bootstrap of the bias-reduced fit, chosen by
    # measurement (leaderboard.studies.battles_coverage, docs/battles.md): with a 15-battle model
    # among well-measured ones, the basic (reflected) interval covered that model's rating 80%
    # of the time and the plain sandwich 83%, the smoothed percentile one 94%.
    low, high = np.percentile(reps.point[:, None] + reps.errors,
                              [100 * settings.alpha / 2, 100 * (1 - settings.alpha / 2)], axis=1)
    # No interval where none is backed: the anchor's rating is fixed by definition, and a rating
    # that no redraw moved (every battle a tie) has a zero-width interval that measures nothing.
    frozen = (names[order] == settings.anchor) | ~(boot_se > 1e-9)
    for values in (low, high, boot_se):
        values[frozen] = np.nan
    se = np.where(frozen, np.nan, se[order])
    battles = (wins + losses + ties)[order]
    return pd.DataFrame({
        "rank": np.arange(1, m + 1), "model": names[order].astype(str), "rating": rating[order],
        "rating_mle": rating_mle[order],
        "ci_low": low, "ci_high": high, "se_bootstrap": boot_se, "se_sandwich": se,
        "sandwich_low": rating[order] - z * se, "sandwich_high": rating[order] + z * se,
        "battles": battles.astype(np.int64), "wins": wins[order].astype(np.int64),
        "losses": losses[order].astype(np.int64), "ties": ties[order].astype(np.int64),
        "score_share": (wins + 0.5 * ties)[order] / battles})


def _list_names(names) -> str:
    names = [show(n) for n in names]
    if len(names) <= _NAMES_SHOWN:
        return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    return ", ".join(names[:_NAMES_SHOWN]) + f" and {len(names) - _NAMES_SHOWN:,} more"


def group_sentence(g: GroupRating) -> str:
    """``6 models rated from 1,977 battles``."""
    m = len(g.table)
    return (f"{m:,} model{'s' if m != 1 else ''} rated from {g.battles:,} "
            f"battle{'s' if g.battles != 1 else ''}")


def _notes(battles: Battles, groups: tuple[GroupRating, ...], others: list[np.ndarray],
           models: np.ndarray, anchor: str | None) -> list[str]:
    notes = []
    if len(groups) > 1:
        notes.append(f"The models fall into {len(groups):,} groups that never met, directly or "
                     "through a chain of opponents, so no rating compares models of different "
                     "groups; each group is rated on its own: " + "; ".join(
                         f"{group_sentence(g)} ({_list_names(g.table['model'])})"
                         for g in groups[:_NAMES_SHOWN]) + ".")
    if others:
        left = sum(g.size for g in others)
        notes.append(f"{left:,} model{'s' if left != 1 else ''} never met the rated models, "
                     "directly or through a chain of opponents, so no rating compares them with "
                     f"these: {_groups_text(models, others)}. They are not rated.")
    for g in groups:
        if g.thin:
            one = len(g.thin) == 1
            notes.append(f"Too few battles to place {_list_names(g.thin)}: "
                         f"{'it' if one else 'each'} could hold any rank of "
                         f"{'its' if one else 'their'} group (rank set 1 to {len(g.table)}), "
                         f"and {'its interval is' if one else 'their intervals are'} more than "
                         "twice as wide as the group's typical one, so "
                         f"{'it is' if one else 'they are'} given no tier rather than tier 1.")
        t = g.table
        wide = t[(t["tier"] == 1) & (t["ci_high"] < t["rating"].iloc[0])]
        for row in wide.head(_NAMES_SHOWN).itertuples(index=False):
            notes.append(f"{show(row.model)} is in tier 1 although its own interval ends below "
                         f"{show(t['model'].iloc[0])}'s rating: with {row.battles:,} battles, its "
                         "gap to the leader is not shown at the page's confidence for all pairs "
                         "at once, which asks more than one interval does.")
        if g.unbounded:
            said = "; ".join(f"{show(n)} {kind} a battle against the others"
                             for n, kind in g.unbounded[:_NAMES_SHOWN])
            notes.append(f"{said}: the plain fit's rating would be infinite (rating_mle is "
                         "empty); the bias-reduced fit gives a finite one, and its interval says "
                         "how little the battles pin it down.")
        if g.dropped_replicates:
            notes.append(f"{g.dropped_replicates:,} redraws of the battles could not be refitted "
                         "(the fit did not settle) and are left out of the intervals and ranks.")
        frozen = ~(g.table["se_bootstrap"].to_numpy() > 1e-9) & (
            g.table["model"].to_numpy() != anchor)
        if frozen.any():
            notes.append("No redraw of the battles moved the rating of "
                         f"{_list_names(g.table['model'][frozen])} "
                         "(every battle among them a tie, each counted as half a win for both), "
                         "so no interval is given: a zero width would measure nothing.")
    if battles.repeats:
        count = sum(d.count for d in battles.repeats)
        notes.append(f"{count:,} row{'s' if count != 1 else ''} repeat a battle already read "
                     "(the same battle id, or the same timestamp, models and winner, or the "
                     "whole file given again) and "
                     f"{'are' if count != 1 else 'is'} counted once.")
    for names in battles.look_alike[:_NAMES_SHOWN]:
        notes.append(f"{_list_names(names)} differ only in case or spaces and are rated as "
                     "different models; if they are one model, give them one name.")
    for k, g in enumerate(groups, start=1):
        c = g.few_clusters
        if c is None:
            continue
        where = f" of group {k}" if len(groups) > 1 else ""
        big = (f"; the largest holds {c.largest_share:.0%} of them" if c.largest_share >= 0.25
               else "")
        notes.append(f"Few clusters: the {c.items:,} battles{where} fall into {c.clusters:,} "
                     f"cluster{'s' if c.clusters != 1 else ''}{big}. "
                     + ("One cluster cannot show how battles vary between clusters: its "
                        "intervals measure nothing of it." if c.clusters < 2 else
                        "With so few, the cluster bootstrap is too narrow, so the intervals, "
                        f"rank sets and tiers use a t reference with {c.clusters - 1} degrees of "
                        "freedom (the redraws stretched by sqrt(G/(G-1)) t/z); treat them as "
                        "approximate."))
    if battles.cluster is not None:
        notes.append(f"Battles of one {show(battles.columns['cluster'])} are resampled together "
                     f"({', '.join(f'{g.clusters:,}' for g in groups)} cluster"
                     f"{'s' if sum(g.clusters or 0 for g in groups) != 1 else ''}), and the sandwich "
                     "is cluster-robust.")
    for column, count in battles.grouping:
        sentence = grouping_sentence(column, count)
        notes.append(sentence[0].upper() + sentence[1:] + ".")
    return notes

