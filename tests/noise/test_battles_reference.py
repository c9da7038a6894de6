"""Battles mode against the arenas' own packages (issue 26): arena-rank (LMArena's) and arenakit,
on the same battles. Each test is skipped when its package is not installed: neither is a
dependency (arena-rank pins jax 0.8.1 and numpy 2.3.3)."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import leaderboard
from tests.noise.test_battles import arena, frame


def _battles():
    rng = np.random.default_rng(3)
    theta = rng.normal(0, 0.8, 10)
    a, b, outcome = arena(rng, theta, rng.uniform(0.3, 3, 10), 5000, 0.2)
    df = frame(a, b, outcome)
    df.loc[df.index[::7][df["winner"].iloc[::7].eq("tie")], "winner"] = "tie (bothbad)"
    return df


@pytest.mark.slow
def test_ratings_and_sandwich_intervals_equal_arena_rank():
    """arena-rank 0.1.1's BradleyTerry (L-BFGS to ftol/gtol 1e-9, a 1e-5 x battles ridge on the
    Hessian) against our plain fit (``rating_mle``) on 5,000 battles among 10 models with ties:
    the same estimate, so the ratings agree to 0.01 rating points (measured 1.9e-4; the page shows whole points) and the
    sandwich half-widths to 0.1% (measured 0.05%, the ridge). Slow: importing jax and compiling
    arena-rank's loop take 5-25 s; our side takes a fraction of a second."""
    pytest.importorskip("arena_rank.models.bradley_terry")
    from arena_rank.models.bradley_terry import BradleyTerry
    from arena_rank.utils.data_utils import PairDataset

    df = _battles()
    # arena-rank maps winner strings itself: "tie (bothbad)" is not in its table and falls to
    # its default, a tie (0.5), which is what ours counts it as.
    data = PairDataset.from_pandas(df)
    theirs = BradleyTerry(n_competitors=len(data.competitors)).compute_ratings_and_cis(
        data, significance_level=0.05)
    theirs = pd.DataFrame({k: np.asarray(v) for k, v in theirs.items() if k != "competitors"},
                          index=list(theirs["competitors"]))
    ours = leaderboard.analyze_battles(df, replicates=100).table.set_index("model")
    ours = ours.loc[theirs.index]
    assert np.abs(theirs["ratings"] - ours["rating_mle"]).max() < 0.01
    # the plain fit's sandwich (the table's is the bias-reduced fit's), from the same functions
    from leaderboard.ingest.battles import read_battles
    from leaderboard.noise.bradley_terry import SCALE, PairCounts, fit, sandwich_covariance

    read = read_battles(df)
    pc = PairCounts.from_battles(read.a, read.b, read.outcome, len(read.models))
    se = SCALE * np.sqrt(np.diag(sandwich_covariance(pc, fit(pc))))
    our_half = pd.Series(1.959964 * se, index=list(read.models)).loc[theirs.index]
    their_half = (theirs["rating_upper"] - theirs["rating_lower"]) / 2
    assert np.abs(their_half / our_half - 1).max() < 1e-3


def test_ratings_equal_arenakit():
    """arenakit 0.1.1's unpenalised fit (``fit_bt(prior=0)``, minorization-maximization to 1e-10
    in log-strength, ties as halves) on the same battles: ratings within 1e-4 points (measured
    about 1e-8)."""
    pytest.importorskip("arenakit")
    from arenakit import fit_bt, to_elo
    from arenakit.schema import PairCounts as TheirCounts

    df = _battles()
    names = sorted(set(df["model_a"]) | set(df["model_b"]))
    a = df["model_a"].map(names.index).to_numpy()
    b = df["model_b"].map(names.index).to_numpy()
    cells = []     # arenakit's statistics: [first, second] matrices of a's wins, b's, ties
    for won in (df["winner"] == "model_a", df["winner"] == "model_b",
                df["winner"].str.startswith("tie")):     # "tie (bothbad)" is a tie
        cell = np.zeros((len(names), len(names)))
        np.add.at(cell, (a[won], b[won]), 1.0)
        cells.append(cell)
    fitted = fit_bt(TheirCounts(*cells), ties="half", prior=0.0)
    theirs = pd.Series(to_elo(fitted.scores), index=names)
    ours = leaderboard.analyze_battles(df, replicates=100).table.set_index("model")["rating_mle"]
    assert np.abs(theirs - ours.loc[names]).max() < 1e-4


def test_question_clustered_intervals_equal_arenakit(tmp_path):
    """arenakit 0.1.1's bootstrap of items (``bootstrap(cluster="item")``, its battles of one
    question resampled together) against ``--cluster-col question_id`` on a generated look-alike
    of Arena-Hard-Auto's judge battles: 95% interval widths within 12% (each side's quantile
    width has a Monte Carlo error of about 3% at 1,000-2,000 redraws; measured on Arena-Hard's
    own file: 0-4%), and arenakit's battle-level widths as far from ours."""
    pytest.importorskip("arenakit")
    from arenakit import Arena, bootstrap, load_battles

    from tests.noise.test_battles import _question_arena

    df = _question_arena()
    path = tmp_path / "judge.csv"
    df.rename(columns={"question_id": "item_id"}).to_csv(path, index=False)
    arena = Arena(load_battles(path))
    names = list(arena.models)
    for cluster, ours_col in (("item", "item_id"), ("battle", None)):
        theirs = bootstrap(arena, n_resamples=1500, seed=0, cluster=cluster).score_ci(0.95)
        their_width = pd.Series(400 / np.log(10) * (theirs[:, 1] - theirs[:, 0]), index=names)
        ours = leaderboard.analyze_battles(path, replicates=2000, cluster_col=ours_col)
        table = ours.table.set_index("model").loc[names]
        ratio = (table["ci_high"] - table["ci_low"]) / their_width
        assert np.abs(ratio - 1).max() < 0.12, (cluster, ratio.round(3).tolist())
