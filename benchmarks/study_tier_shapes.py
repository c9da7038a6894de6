"""Known-truth study of the simultaneous family at the shapes benchmarks have (issue 39).

Per-item boards (models x items) with known true scores, analysed by the real code: the paired
bootstrap of items (``paired_bootstrap`` with the items' mean, as ``analyze --items`` draws it)
or the sign flips of :mod:`leaderboard.tiers.sign_flips`, each read by
:func:`~leaderboard.tiers.rank_sets.rank_confidence_sets`, the rank-set tiers and the best set;
and, for comparison, Holm's step-down over every ordered pair with paired t(n - 1) tests (numpy,
here only).

Boards (``--kinds``):

* ``bin``: 0/1 values, model j correct on item i with probability expit(b_i + a_j); ``con``:
  values b_i + a_j + N(0, 1) noise. Suffix ``d``: a per-item difficulty b_i ~ N(0, 1.5^2) shared
  by every model (items correlated, as real benchmarks are); ``0``: b_i = 0 (bin: 0.6 correct).
* ``clu``: continuous with difficulty and clusters of 5 items sharing a model-by-cluster effect
  N(0, 0.5^2) (so clusters must be resampled, or flipped, as wholes: ``--cluster-col``).

Truths (``--truths``): ``null``, every a_j = 0 (the complete null: the share of boards with no
pair declared different must be at least 1 - alpha); ``partial``, the top half of the models
tied at 0 and the rest spread below (family-wise error over the true hypotheses);
``spread``, a_j evenly spaced so that the best and the worst model are 10 standard errors of a
pair difference apart (is the true best in tier 1? how many tiers? how wide is tier 1?).

Rates are the share of boards, with their Monte Carlo standard error. Usage::

    nice -n 10 python benchmarks/study_tier_shapes.py [--boards 200] [--replicates 1000]
        [--shapes 90x10,181x41] [--kinds bind,cond] [--truths null,spread] [--methods ...]

docs/calibration.md ("Many models on few items") quotes its output.
"""
from __future__ import annotations

import argparse
import math
import time

import numpy as np
from scipy import stats
from scipy.special import expit

from leaderboard.metrics import items_metric
from leaderboard.noise.bootstrap import paired_bootstrap
from leaderboard.tiers.best_set import best_set
from leaderboard.tiers.rank_sets import rank_confidence_sets
from leaderboard.tiers.replicates import RankReplicates
from leaderboard.tiers.shown_better import rank_set_tiers
from leaderboard.tiers.sign_flips import sign_flip_replicates, unit_totals
from leaderboard.noise.clusters import cluster_count, stretch

SHAPES = ((90, 10), (181, 41), (101, 42), (16, 51), (35, 183), (5, 10), (300, 30),
          (50, 1000), (300, 1000), (20, 10000))
KINDS = ("bin0", "bind", "con0", "cond", "clu")
TRUTHS = ("null", "partial", "spread")
METHODS = ("bootstrap", "sign-flip", "holm-t")
CLUSTER = 5      # items per cluster on "clu" boards


def abilities(truth: str, models: int, items: int, kind: str) -> np.ndarray:
    """True per-model effects a_j, best first (ties: the lowest index is "the" best)."""
    if truth == "null":
        return np.zeros(models)
    # one SE of a pair difference on the mean's scale (continuous: noise SD 1; binary: the
    # logit slope at 0.6 correct, 0.24, makes a logit unit 0.24 of a mean unit)
    units = items // CLUSTER if kind == "clu" else items
    sd = math.sqrt(2.0 / units) * (math.sqrt(1 + 0.25 * CLUSTER) if kind == "clu" else 1.0)
    if kind.startswith("bin"):
        sd = math.sqrt(2 * 0.24 / items) / 0.24
    if truth == "spread":
        return -np.linspace(0.0, 10 * sd, models)
    half = models // 2
    return np.r_[np.zeros(half), -np.linspace(2 * sd, 10 * sd, models - half)]


def board(rng: np.random.Generator, kind: str, a: np.ndarray, items: int):
    """Values (models x items) and the items' clusters (None unless ``clu``)."""
    models = a.size
    diff = rng.normal(0.0, 1.5, items) if kind.endswith("d") or kind == "clu" else np.zeros(items)
    if kind.startswith("bin"):
        base = 0.405 if kind == "bin0" else 0.0      # 0.6 correct without difficulty
        p = expit(base + diff[None, :] + a[:, None])
        return (rng.random((models, items)) < p).astype(float), None
    x = diff[None, :] + a[:, None] + rng.standard_normal((models, items))
    if kind != "clu":
        return x, None
    groups = np.arange(items) // CLUSTER
    x += 0.5 * rng.standard_normal((models, groups.max() + 1))[:, groups]
    return x, groups


def _verdicts_rank_sets(reps: RankReplicates, alpha: float):
    sets = rank_confidence_sets(reps, alpha, simultaneous=True)
    tiers = rank_set_tiers(sets).tier
    return sets.shown_better.matrix(reps.n_entries), tiers, best_set(reps, alpha)


def _holm_t(x, groups, alpha: float):
    """Holm over every ordered pair, paired t with n - 1 (clusters: G - 1) degrees of freedom,
    on the cluster totals when clustered; tiers as layers of the verdicts, best set from each
    entry's own one-sided family (Holm within it). SDs of differences from the Gram matrix."""
    units = x if groups is None else unit_totals(x, groups)
    e, n = units.shape
    mean = units.mean(axis=1)
    c = units - mean[:, None]
    gram = c @ c.T
    var = np.maximum(np.add.outer(np.diag(gram), np.diag(gram)) - 2 * gram, 0.0) / (n - 1)
    gap = np.subtract.outer(mean, mean)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(var > 1e-24, gap / np.sqrt(var / n),
                     np.where(gap > 0, np.inf, np.where(gap < 0, -np.inf, 0)))
    p = stats.t.sf(t, n - 1)
    off = ~np.eye(e, dtype=bool)
    order = np.argsort(p[off], kind="stable")
    m = order.size
    passed = p[off][order] <= alpha / (m - np.arange(m))
    k = m if passed.all() else int(np.argmin(passed))
    flat = np.zeros(m, dtype=bool)
    flat[order[:k]] = True
    shown = np.zeros((e, e), dtype=bool)
    shown[off] = flat
    tier = np.zeros(e, dtype=int)
    for kk in np.argsort(-x.mean(axis=1), kind="stable"):
        above = shown[:, kk]
        tier[kk] = 1 + (tier[above].max() if above.any() else 0)
    p_in = np.where(off, p, np.inf)          # column i: the tests of "j better than i"
    best = ~(p_in.min(axis=0) <= alpha / (e - 1))
    return shown, tier, best


def analyse(x, groups, method: str, alpha: float, replicates: int, seed: int):
    """``(shown[j, k] in the models' own order, tier, in best set)`` by ``method``."""
    if method == "holm-t":
        return _holm_t(x, groups, alpha)
    score = x.mean(axis=1)
    order = np.argsort(-score, kind="stable")
    xs = x[order]
    g = None if groups is None else groups
    if method == "bootstrap":
        boot = paired_bootstrap(items_metric("mean")[0].impl, np.zeros(x.shape[1]), list(xs),
                                replicates=replicates, seed=seed,
                                resample="grouped" if g is not None else "plain", groups=g)
        if g is not None:   # few clusters: the t(G - 1) stretch, as analyze --items applies it
            boot = stretch(boot, cluster_count(g).factor(alpha))
        reps = RankReplicates.from_bootstrap(boot.point, boot.replicates, True)
    else:
        reps = sign_flip_replicates(xs, True, replicates=replicates, seed=seed, groups=g)
    shown, tier, best = _verdicts_rank_sets(reps, alpha)
    back = np.empty_like(order)
    back[order] = np.arange(order.size)
    return shown[np.ix_(back, back)], tier[back], best[back]


def one_cell(models, items, kind, truth, methods, boards, replicates, alpha, seed):
    a = abilities(truth, models, items, kind)
    rng = np.random.default_rng([seed, models, items, KINDS.index(kind), TRUTHS.index(truth)])
    better = a[:, None] > a[None, :]        # j truly better than k
    top = a == a.max()
    out = {m: {"fwe": 0, "best_in_1": 0, "tier1": 0.0, "tiers": 0.0, "best_set": 0.0,
               "cpu": 0.0} for m in methods}
    for b in range(boards):
        x, groups = board(rng, kind, a, items)
        for m in methods:
            t0 = time.process_time()
            shown, tier, best = analyse(x, groups, m, alpha, replicates, seed + b)
            o = out[m]
            o["cpu"] += time.process_time() - t0
            o["fwe"] += bool((shown & ~better).any())
            o["best_in_1"] += bool((tier[top] == 1).all())
            o["tier1"] += (tier == 1).sum() / boards
            o["tiers"] += tier.max() / boards
            o["best_set"] += best.sum() / boards
    return out


def _rate(k: int, n: int) -> str:
    p = k / n
    return f"{100 * p:.1f} ± {100 * math.sqrt(max(p * (1 - p), 1 / n) / n):.1f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--boards", type=int, default=200)
    ap.add_argument("--replicates", type=int, default=1000)
    ap.add_argument("--alpha", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=39)
    ap.add_argument("--shapes", default=",".join(f"{m}x{n}" for m, n in SHAPES))
    ap.add_argument("--kinds", default=",".join(KINDS))
    ap.add_argument("--truths", default=",".join(TRUTHS))
    ap.add_argument("--methods", default=",".join(METHODS))
    args = ap.parse_args()
    methods = args.methods.split(",")
    print("| models x items | values | truth | boards | "
          + " | ".join(f"{m}: no false claim | {m}: best in tier 1 | {m}: tier-1 size | "
                       f"{m}: tiers | {m}: best set" for m in methods) + " |", flush=True)
    print("|---" * (4 + 5 * len(methods)) + "|", flush=True)
    for shape in args.shapes.split(","):
        models, items = (int(v) for v in shape.split("x"))
        for kind in args.kinds.split(","):
            if kind == "clu" and items < 6 * CLUSTER:   # fewer than 6 clusters is refused
                continue
            for truth in args.truths.split(","):
                boards = args.boards if models * items <= 20_000 else max(20, args.boards // 4)
                out = one_cell(models, items, kind, truth, methods, boards, args.replicates,
                               args.alpha, args.seed)
                cells = []
                for m in methods:
                    o = out[m]
                    cells += [_rate(boards - o["fwe"], boards), _rate(o["best_in_1"], boards),
                              f"{o['tier1']:.1f}", f"{o['tiers']:.1f}", f"{o['best_set']:.1f}"]
                cpu = " ".join(f"{m} {out[m]['cpu'] / boards:.2f}s" for m in methods)
                print(f"| {models} x {items:,} | {kind} | {truth} | {boards} | "
                      + " | ".join(cells) + f" | <!-- cpu/board: {cpu} -->", flush=True)


if __name__ == "__main__":
    main()
