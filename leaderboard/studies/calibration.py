"""The calibration study: simulated competitions with known truth, scored by the real pipeline.

Each competition has ``T`` entries with known true accuracies, all scored on one shared test set of
``n`` rows, as on a real leaderboard. Entry ``i`` is right on row ``j`` when ``w_ij < p_i``, where
``w_ij`` is the row's shared difficulty ``u_j`` with probability ``shared`` and the entry's own
uniform draw otherwise: every entry's expected accuracy is exactly ``p_i`` (the truth), and entries
agree on hard and easy rows, so their scores are positively correlated as real entries' are.

Both modes run on the same simulated boards:

- **submissions**: the entries' predictions are resampled by the paired bootstrap
  (:func:`~leaderboard.noise.bootstrap.paired_bootstrap`) and ranked by
  :func:`~leaderboard.tiers.ranking.rank_board`, the simultaneous family's tests reading the sign
  flips of the rows' correctness (accuracy is a mean of per-row values), as ``analyze
  --solution`` does;
- **scores**: only the observed accuracies and ``n`` go to :func:`leaderboard.analyze`, as for a
  leaderboard download (binomial universe, independent-entries assumption).

What is measured, per competition (rates are then averaged over competitions):

- for each tier method, the share of truly best entries that are in tier 1 (one entry unless the
  truth ties; target: at least 1 - alpha, the methods' guarantee for each best entry), whether
  *all* of them are (stricter when the truth ties: only simultaneous methods promise it), the
  size of tier 1 (smaller is better at equal coverage), and whether every entry's tier is at most
  1 + the number of entries truly better than it (what the rank-set tiers promise, all at once);
- the coverage of the score intervals (share of entries whose interval holds the truth);
- the coverage of the marginal rank sets (share of entries whose set holds the true rank) and of
  the simultaneous rank sets (whether all entries' sets hold at once);
- the share of truly best entries in the confidence set for the best (and whether all are), and
  the set's size;
- the winner's curse: the observed leader's raw score and its corrected estimate, minus its truth.

True ranks with ties: entry ``i``'s set is correct when it reaches from ``1 + #{truly better}`` to
``T - #{truly worse}``, the ranks the tie spans.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from leaderboard.pipelines.scores import Settings, analyze
from leaderboard.ingest.leaderboards import Leaderboard
from leaderboard.metrics import get_metric
from leaderboard.noise.bootstrap import paired_bootstrap
from leaderboard.options import NoiseOptions, RankOptions
from leaderboard.slices import SliceSizes
from leaderboard.noise.rng import Stream, entropy_rng
from leaderboard.tiers import RankReplicates
from leaderboard.tiers.ranking import TIER_METHODS, rank_board, tier_entries
from leaderboard.tiers.sign_flips import sign_flip_replicates
from leaderboard.params import DEFAULT_ALPHA, DEFAULT_SEED

SCENARIOS = ("cluster", "ties", "gaps", "spread")
MODES = ("submissions", "scores")


@dataclass(frozen=True)
class Design:
    """One cell of the study: a scenario, a number of entries and a mode."""

    scenario: str
    entries: int
    mode: str
    competitions: int
    n_test: int = 2000
    top: float = 0.85
    shared: float = 0.6
    replicates: int = 1000
    draws: int = 1000         # simulated test sets per level (scores mode's noise model)


def true_scores(scenario: str, entries: int, n_test: int, top: float) -> np.ndarray:
    """True accuracies, best first, in units of one entry's standard error at ``top``.

    ``cluster``: the best 5 within half a standard error; ``ties``: the best 3 exactly equal;
    ``gaps``: every entry 3 standard errors below the one above; ``spread``: a Kaggle-like board,
    dense at the top (gaps that grow down the board).

    Examples
    --------
    >>> true_scores("ties", 5, 2000, 0.85)[:4].round(4).tolist()
    [0.85, 0.85, 0.85, 0.83]
    """
    se = np.sqrt(top * (1 - top) / n_test)
    i = np.arange(entries, dtype=float)
    if scenario == "cluster":
        below = np.where(i < 5, 0.5 * i / 4, 0.5 + 1.5 * (i - 4))
    elif scenario == "ties":
        below = np.where(i < 3, 0.0, 2.5 * (i - 2))
    elif scenario == "gaps":
        below = 3.0 * i
    elif scenario == "spread":
        below = 0.15 * i ** 1.3
    else:
        raise ValueError(f"unknown scenario {scenario!r}; choose from {', '.join(SCENARIOS)}")
    return np.clip(top - se * below, 0.02, None)


def simulate_correct(truth: np.ndarray, n_test: int, shared: float,
                     rng: np.random.Generator) -> np.ndarray:
    """Which rows each entry gets right, shape (T, n): ``w_ij < p_i`` as in the module docstring."""
    difficulty = rng.random(n_test)
    own = rng.random((truth.size, n_test))
    use_shared = rng.random((truth.size, n_test)) < shared
    w = np.where(use_shared, difficulty[None, :], own)
    return w < truth[:, None]


def _truth_ranks(truth: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per entry, ``1 + #truly better`` and ``T - #truly worse`` (the ranks its ties span)."""
    order = np.sort(truth)
    better = truth.size - np.searchsorted(order, truth, side="right")
    worse = np.searchsorted(order, truth, side="left")
    return 1 + better, truth.size - worse


def _one_competition(design: Design, seed: int, alpha: float) -> dict:
    rng = entropy_rng(seed, Stream.CALIBRATION_STUDY)
    truth_by_entry = true_scores(design.scenario, design.entries, design.n_test, design.top)
    correct = simulate_correct(truth_by_entry, design.n_test, design.shared, rng)
    observed = correct.mean(axis=1)
    if design.mode == "submissions":
        order = np.argsort(-observed, kind="stable")
        y = rng.integers(0, 2, design.n_test)
        preds = [np.where(correct[i], y, 1 - y) for i in order]
        boot = paired_bootstrap(get_metric("accuracy").impl, y, preds,
                                replicates=design.replicates, seed=seed)
        reps = RankReplicates.from_bootstrap(boot.point, boot.replicates, True)
        # as analyze does for a mean of per-row values: the family's tests read sign flips
        tests = sign_flip_replicates(correct[order].astype(float), True,
                                     replicates=design.replicates, seed=seed)
        ranking = rank_board(reps, alpha=alpha, tests=tests)
        low, high = boot.percentile_interval(alpha)
    else:
        board = Leaderboard(entries=pd.DataFrame({"team": np.arange(design.entries).astype(str),
                                                  "score": observed,
                                                  "line": np.arange(2, design.entries + 2)}),
                            source="simulated", format="table", score_column="score",
                            split=None, rows_read=design.entries)
        settings = Settings(get_metric("accuracy"),
                            NoiseOptions(higher_is_better=True, draws=design.draws, seed=seed),
                            RankOptions(alpha=alpha, replicates=design.replicates),
                            SliceSizes(ranking=design.n_test, public=None, private=None))
        result = analyze(board, settings)
        order = result.table["team"].astype(int).to_numpy()
        if result.ranking is None:   # simulated accuracies always have a noise model
            raise RuntimeError("no ranking for a simulated board: " + "; ".join(result.notes))
        ranking = result.ranking
        reps = ranking.replicates
        low, high = result.table["ci_low"].to_numpy(), result.table["ci_high"].to_numpy()
    truth = truth_by_entry[order]
    best = truth == truth.max()
    rank_low, rank_high = _truth_ranks(truth)
    row = {"score_cover": float(np.mean((low <= truth) & (truth <= high)))}
    for method in TIER_METHODS:
        tiers = tier_entries(reps, method, alpha, ranking.simultaneous)
        tier1 = tiers.tier == 1
        row[f"best_in_tier1[{method}]"] = float(np.mean(tier1[best]))
        row[f"all_best_in_tier1[{method}]"] = float(np.all(tier1[best]))
        row[f"tier1_size[{method}]"] = float(tier1.sum())
        # every tier claim at once: an entry in tier t has at least t - 1 entries truly better
        row[f"tiers_hold[{method}]"] = float(np.all(tiers.tier <= rank_low))
    marginal, simultaneous = ranking.marginal, ranking.simultaneous
    row["rank_cover"] = float(np.mean((marginal.low <= rank_low) & (marginal.high >= rank_high)))
    row["rank_cover_all"] = float(np.all((simultaneous.low <= rank_low)
                                         & (simultaneous.high >= rank_high)))
    row["best_set_cover"] = float(np.mean(ranking.in_best_set[best]))
    row["best_set_cover_all"] = float(np.all(ranking.in_best_set[best]))
    row["best_set_size"] = float(ranking.in_best_set.sum())
    row["leader_raw_error"] = float(observed[order[0]] - truth[0])
    row["leader_corrected_error"] = float(ranking.corrected_leader_score - truth[0])
    return row


def run_design(design: Design, *, alpha: float = DEFAULT_ALPHA, seed: int = DEFAULT_SEED) -> dict:
    """Run one cell's competitions; mean of every measure and the Monte Carlo SE of each rate.

    Competition ``c`` uses seed ``(seed, c)`` whatever else runs, so cells are reproducible alone.
    """
    rows = [_one_competition(design, seed * 100_003 + c, alpha) for c in range(design.competitions)]
    frame = pd.DataFrame(rows)
    out = {"scenario": design.scenario, "entries": design.entries, "mode": design.mode,
           "competitions": design.competitions, "n_test": design.n_test}
    for column in frame.columns:
        out[column] = float(frame[column].mean())
        out[f"se:{column}"] = float(frame[column].std(ddof=1) / np.sqrt(len(frame)))
    return out


def default_designs(quick: bool = False) -> list[Design]:
    """The study in ``docs/calibration.md``: every scenario, 10 to 2000 entries, both modes.

    Fewer competitions where each one is expensive (many entries); ``quick`` is a small version
    for a smoke run.
    """
    sizes = ((10, 200), (100, 100), (2000, 20)) if not quick else ((10, 40), (50, 20))
    return [Design(scenario, entries, mode, competitions)
            for mode in MODES for entries, competitions in sizes for scenario in SCENARIOS]
