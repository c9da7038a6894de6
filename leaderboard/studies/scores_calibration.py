"""Scores-only calibration: leaderboards of real-model families with known truth.

:mod:`leaderboard.studies.calibration` checks the pipeline on accuracies, whose noise the binomial
universe models exactly. Here the entries are AUC models from the families of
:mod:`leaderboard.studies.noise` (their score shapes differ from every universe's), all scored on
one shared test set split into public and private rows, as on a real board. Each competition is
analysed twice on the same predictions:

- **scores only**: the public and private AUCs and the slices' sizes go to
  :func:`leaderboard.analyze` with its default settings (the default universe, and the default
  correlation between entries);
- **submissions**: the private rows' paired bootstrap, as ``analyze --solution`` does.

Entries share a row's difficulty through a Gaussian copula: entry i's score on row j is the
``u_ij``-quantile of its own class-conditional score distribution, with ``u_ij = Phi(sqrt(c) s_j +
sqrt(1 - c) e_ij)``, ``s_j`` shared by every entry and ``e_ij`` its own. Each entry's marginal
distributions are exactly its family member's, so its true AUC is the member's, whatever ``c``.

Measured per competition: the share of entries whose score interval holds the true AUC, whether
the true best is in tier 1 and in the best set, and the size of tier 1 in both modes.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.special import ndtr   # norm.cdf(x) is ndtr(x), bit for bit, without scipy.stats

from leaderboard.pipelines.scores import Settings, analyze
from leaderboard.ingest.leaderboards import Leaderboard
from leaderboard.metrics import get_metric
from leaderboard.noise.bootstrap import paired_bootstrap
from leaderboard.options import NoiseOptions, RankOptions
from leaderboard.slices import SliceSizes
from leaderboard.noise.rng import Stream, entropy_rng
from leaderboard.noise.universes import class_counts
from leaderboard.studies.noise import auc_population
from leaderboard.tiers import RankReplicates
from leaderboard.tiers.ranking import rank_board
from leaderboard.params import DEFAULT_ALPHA, DEFAULT_SEED

FAMILIES = ("binormal", "minority spread", "exponential", "tree-like ties", "logistic")


@dataclass(frozen=True)
class BoardDesign:
    """One cell: a family, a board size, how many competitions, and the test set."""

    family: str
    entries: int
    competitions: int
    n_test: int = 3000
    prevalence: float = 0.1
    public_fraction: float = 0.3
    shared: float = 0.5
    top: float = 0.85
    draws: int = 1000
    replicates: int = 1000


def true_aucs(design: BoardDesign) -> np.ndarray:
    """A Kaggle-like board, dense at the top: gaps that grow down the board, in units of the top
    entry's standard error on the private rows (floored at AUC 0.55)."""
    n_private = design.n_test - round(design.public_fraction * design.n_test)
    se = auc_population(design.family, design.top, design.prevalence).sd(n_private,
                                                                          design.prevalence)
    i = np.arange(design.entries, dtype=float)
    return np.maximum(design.top - se * 0.3 * i ** 1.3, 0.55)


def simulate_board(design: BoardDesign, truth_targets: np.ndarray, rng: np.random.Generator):
    """Labels, each entry's scores on the shared rows, each entry's true AUC, and the public mask."""
    m, k = class_counts(design.n_test, design.prevalence)
    y = rng.permutation(np.r_[np.zeros(k, int), np.ones(m, int)])
    public = np.zeros(design.n_test, bool)
    public[rng.choice(design.n_test, round(design.public_fraction * design.n_test),
                      replace=False)] = True
    shared = rng.standard_normal(design.n_test)
    preds, truth = [], []
    for target in truth_targets:
        population = auc_population(design.family, float(target), design.prevalence)
        u = ndtr(np.sqrt(design.shared) * shared
                     + np.sqrt(1 - design.shared) * rng.standard_normal(design.n_test))
        neg, pos = np.sort(population.neg), np.sort(population.pos)
        preds.append(np.where(y == 1, _at(pos, u), _at(neg, u)))
        truth.append(population.auc)
    return y, preds, np.array(truth), public


def _at(values: np.ndarray, u: np.ndarray) -> np.ndarray:
    """The sorted ``values`` at the uniforms ``u``: the value whose share of ``values`` below
    holds ``u`` (the last for ``u`` near 1)."""
    return values[np.minimum((u * values.size).astype(int), values.size - 1)]


def _one(design: BoardDesign, seed: int, alpha: float) -> dict:
    rng = entropy_rng(seed, Stream.SCORES_CALIBRATION_STUDY)
    y, preds, truth, public = simulate_board(design, true_aucs(design), rng)
    impl, metric = get_metric("auc").impl, get_metric("auc")
    prepared = impl.prepare(y, preds)
    pub, priv = impl.evaluate(prepared, np.vstack([public, ~public]).astype(float)).T
    n_public, n_private = int(public.sum()), int((~public).sum())
    board = Leaderboard(entries=pd.DataFrame({"team": np.arange(truth.size).astype(str),
                                              "score": priv, "public_score": pub,
                                              "private_score": priv,
                                              "line": np.arange(2, truth.size + 2)}),
                        source="simulated", format="table", score_column="private_score",
                        split="private", rows_read=truth.size)
    settings = Settings(metric, NoiseOptions(higher_is_better=True,
                                             prevalence=float(y[~public].mean()),
                                             draws=design.draws, seed=seed),
                        RankOptions(alpha=alpha, replicates=design.replicates),
                        SliceSizes(ranking=n_private, public=n_public, private=n_private))
    result = analyze(board, settings)
    t = result.table
    order = t["team"].astype(int).to_numpy()
    best = truth[order] == truth.max()
    row = {"score_cover": float(np.mean((t["ci_low"] <= truth[order])
                                        & (truth[order] <= t["ci_high"]))),
           "best_in_tier1": float(np.all(t["tier"].to_numpy()[best] == 1)),
           "best_in_best_set": float(np.all(t["in_best_set"].to_numpy(bool)[best])),
           "tier1_size": float((t["tier"] == 1).sum()),
           "best_set_size": float(t["in_best_set"].sum())}
    # submissions mode on the same predictions: the private rows' paired bootstrap
    sub_order = np.argsort(-priv, kind="stable")
    boot = paired_bootstrap(impl, y[~public], [preds[i][~public] for i in sub_order],
                            replicates=design.replicates, seed=seed)
    ranking = rank_board(RankReplicates.from_bootstrap(boot.point, boot.replicates, True),
                         alpha=alpha)
    sub_best = truth[sub_order] == truth.max()
    row["submissions_tier1_size"] = float((ranking.tiers.tier == 1).sum())
    row["submissions_best_in_tier1"] = float(np.all(ranking.tiers.tier[sub_best] == 1))
    return row


def run_board_design(design: BoardDesign, *, alpha: float = DEFAULT_ALPHA, seed: int = DEFAULT_SEED) -> dict:
    """One cell's competitions: the mean of every measure and the Monte Carlo SE of each.

    Examples
    --------
    >>> out = run_board_design(BoardDesign("binormal", 6, 2, n_test=1500, draws=300,
    ...                                    replicates=300))
    >>> 0 <= out["score_cover"] <= 1 and out["tier1_size"] >= 1
    True
    """
    rows = [_one(design, seed * 100_003 + c, alpha) for c in range(design.competitions)]
    frame = pd.DataFrame(rows)
    out = {"family": design.family, "entries": design.entries,
           "competitions": design.competitions, "n_test": design.n_test,
           "prevalence": design.prevalence}
    for column in frame.columns:
        out[column] = float(frame[column].mean())
        out[f"se:{column}"] = float(frame[column].std(ddof=1) / np.sqrt(len(frame)))
    return out


def default_board_designs(quick: bool = False) -> list[BoardDesign]:
    """Every family at 10, 50 and 200 entries (fewer competitions where each costs more);
    ``quick``, a smoke run, has every family on two small boards with the fewest draws."""
    if quick:
        return [BoardDesign(f, 6, 2, n_test=1000, draws=100, replicates=100) for f in FAMILIES]
    return [BoardDesign(f, e, c) for f in FAMILIES for e, c in ((10, 60), (50, 25), (200, 10))]

