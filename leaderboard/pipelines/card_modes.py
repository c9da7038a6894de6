"""The leaderboard card of each mode (scores, submissions, per-item results, battles), assembled
from the analysis that ran with the pieces of :mod:`leaderboard.pipelines.card`."""
from __future__ import annotations

import hashlib

import numpy as np

from leaderboard.pipelines.card import (Card, PairResolution, Shape, established,
                                        matrix_sha256, pair_resolution, resolved)


def analysis_card(analysis, provenance) -> Card:
    """The card of a scores, submissions or per-item analysis (an
    :class:`~leaderboard.pipelines.scores.Analysis`)."""
    items = analysis.items is not None
    mode = "items" if items else analysis.mode
    table = analysis.table
    ranked = table.loc[table["tier"] > 0] if analysis.ranking is not None else table.iloc[:0]
    names = ranked["team"].astype(str).tolist()
    shape = (_items_shape(analysis) if items else _submissions_shape(analysis)
             if mode == "submissions" else _scores_shape(analysis))
    return Card(mode=mode, shape=shape,
                established=established(analysis.ranking, len(names) if analysis.ranking
                                        is not None else len(table)),
                resolved=resolved(analysis.ranking, ranked, names),
                top_pair=_top_pair(analysis, ranked, shape), provenance=provenance)


def battles_card(analysis, provenance) -> Card:
    """The card of a battles analysis (:class:`~leaderboard.pipelines.battles.BattlesAnalysis`):
    its first group's (the one with the most battles; an arena in several groups has one card,
    for the group its table shows first); units are the battles among its models, resampled
    in clusters when the battles were."""
    t, b = analysis.table, analysis.battles
    names = t["model"].astype(str).tolist()
    rated = set(names)
    models = np.asarray(b.models, dtype=object)
    keep = np.array([models[i] in rated and models[j] in rated for i, j in zip(b.a, b.b)],
                    dtype=bool) if len(b.a) else np.zeros(0, bool)
    a_names, b_names = models[b.a[keep]].astype(str), models[b.b[keep]].astype(str)
    clusters = getattr(analysis.groups[0], "clusters", None) if hasattr(analysis, "groups") \
        else None
    shape = Shape(models=len(names), units=int(analysis.battles_rated), unit="battle",
                  clusters=clusters, outcome="win/tie/loss",
                  sha256=_battles_sha256(a_names, b_names, b.outcome[keep]),
                  hashed="the rated battles: model names sorted, then every battle's two "
                         "models (as indices into them) and outcome, sorted (see the schema)")
    top = None
    if len(names) >= 2:
        direct = int((((a_names == names[0]) & (b_names == names[1]))
                      | ((a_names == names[1]) & (b_names == names[0]))).sum())
        top = pair_resolution((names[0], names[1]),
                              float(t["rating"].iloc[0] - t["rating"].iloc[1]),
                              analysis.replicates[0], analysis.replicates[1],
                              current=clusters or int(analysis.battles_rated),
                              unit="cluster" if clusters else "battle",
                              alpha=analysis.settings.alpha, n_eff=direct,
                              n_eff_reason="battles between the two (a rating also draws on "
                                           "their battles with every other model)")
    return Card(mode="battles", shape=shape,
                established=established(analysis.ranking, len(names)),
                resolved=resolved(analysis.ranking, t, names), top_pair=top,
                provenance=provenance)


def _battles_sha256(a: np.ndarray, b: np.ndarray, outcome: np.ndarray) -> str:
    """Names sorted; each battle as (index of model a, index of model b, outcome), int64
    little-endian, battles sorted: the same for the same battles in any row order."""
    names = sorted(set(a.tolist()) | set(b.tolist()))
    index = {name: k for k, name in enumerate(names)}
    rows = np.column_stack([np.array([index[x] for x in a], dtype="<i8"),
                            np.array([index[x] for x in b], dtype="<i8"),
                            np.asarray(outcome).astype("<i8")]) if a.size else \
        np.zeros((0, 3), dtype="<i8")
    rows = rows[np.lexsort(rows.T[::-1])]
    h = hashlib.sha256("".join(f"{n}\n" for n in names).encode("utf-8", "surrogatepass") + b"\0")
    h.update(np.ascontiguousarray(rows).tobytes())
    return h.hexdigest()


def _items_shape(a) -> Shape:
    files = {f.label: f.prediction for f in a.submissions.files if f.status == "ok"}
    names = a.table["team"].astype(str).tolist()
    values = np.stack([np.asarray(files[n], dtype=float) for n in names])
    finite = values[np.isfinite(values)]
    binary = bool(finite.size and np.all((finite == 0) | (finite == 1)))
    boot = a.bootstrap
    clusters = int(boot.n_units) if boot is not None and boot.resample == "grouped" else None
    return Shape(models=len(names), units=len(a.items.used), unit="item", clusters=clusters,
                 outcome="binary" if binary else "continuous",
                 sha256=matrix_sha256(names, list(a.items.used), values),
                 hashed="the models x items matrix analysed: names sorted, items sorted, "
                        "values as float64 (see the schema)")


def _submissions_shape(a) -> Shape:
    files = {f.label: f for f in a.submissions.files if f.status == "ok"}
    names = sorted(a.table["team"].astype(str).tolist())
    h = hashlib.sha256()
    for name in names:
        h.update(f"{name}\n".encode("utf-8", "surrogatepass"))
        h.update(files[name].digest or b"")
    boot = a.bootstrap
    return Shape(models=len(names), units=int(boot.n_rows), unit="test row",
                 clusters=int(boot.n_units) if boot.resample == "grouped" else None,
                 outcome=_outcome(a), sha256=h.hexdigest(),
                 hashed="each entry's name (sorted) and the SHA-256 of its predictions aligned "
                        "to the solution's rows (dtype, shape and bytes); the solution is among "
                        "the inputs")


def _scores_shape(a) -> Shape:
    names = a.table["team"].astype(str).tolist()
    scores = a.table["score"].to_numpy(dtype=float)[:, None]
    return Shape(models=len(names), units=a.settings.n_test, unit="test row", clusters=None,
                 outcome=_outcome(a), sha256=matrix_sha256(names, ["score"], scores),
                 hashed="the board: names sorted, each one's score as float64 (see the schema)")


def _outcome(a) -> str:
    """What one test row holds: a binary target (a prevalence, or a metric of binary scores such
    as AUC), a continuous one (regression), classes (submissions' other targets), or, for a
    board of scores of another metric without a prevalence, not known."""
    kind = a.settings.metric.kind
    if a.settings.prevalence is not None or kind == "scores":
        return "binary"
    if kind == "values":
        return "continuous"
    return "categorical" if a.submissions is not None else "not known"


def _top_pair(a, ranked, shape: Shape) -> PairResolution | None:
    """The two best-scored compared models: from the bootstrap's paired replicates, or (scores
    only) from their SDs and the correlation the comparisons assumed."""
    if len(ranked) < 2:
        return None
    rows = ranked.index[:2].to_numpy()
    pair = tuple(ranked["team"].astype(str).iloc[:2])
    sign = 1.0 if a.settings.higher_is_better else -1.0
    gap = float(sign * (ranked["score"].iloc[0] - ranked["score"].iloc[1]))
    if a.bootstrap is None:
        sd = (float(ranked["sd"].iloc[0]), float(ranked["sd"].iloc[1]))
        rho = a.correlation.used if a.correlation is not None else None
        return pair_resolution(pair, gap, None, None, sd=sd, correlation=rho,
                               current=shape.units, unit="test row", alpha=a.settings.alpha,
                               n_eff_reason="a board of scores has no per-row results")
    reps = a.bootstrap.replicates
    n_eff, why = _differing(a, pair)
    unit = "cluster" if shape.clusters is not None else shape.unit
    current = shape.clusters if shape.clusters is not None else shape.units
    return pair_resolution(pair, gap, sign * reps[rows[0]], sign * reps[rows[1]],
                           current=current, unit=unit, alpha=a.settings.alpha, n_eff=n_eff,
                           n_eff_reason=why, n_eff_among=None if shape.clusters is None
                           else (shape.units, shape.unit))


def _differing(a, pair: tuple[str, str]) -> tuple[int | None, str | None]:
    """Units on which the pair's values (items) or predictions (test rows) differ."""
    files = {f.label: f.prediction for f in a.submissions.files if f.status == "ok"}
    first, second = (files.get(name) for name in pair)
    if first is None or second is None:
        return None, "predictions read in batches are not kept (submissions from files)"
    x, y = np.asarray(first), np.asarray(second)
    if x.ndim > 1:
        differ = np.any(x != y, axis=tuple(range(1, x.ndim)))
    else:
        both = np.isfinite(x) & np.isfinite(y) if x.dtype.kind == "f" else np.ones(x.size, bool)
        differ = both & (x != y)
    if a.items is None:   # the solution is not kept: every split's rows
        return int(differ.sum()), ("rows of the whole solution (every split) on which their "
                                   f"predictions differ; ranked on the {a.leaderboard.split} "
                                   "rows")
    return int(differ.sum()), None
