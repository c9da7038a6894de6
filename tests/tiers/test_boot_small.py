"""The numpy step-downs of small bootstrap boards (leaderboard/tiers/boot_small.py) give the same
bits as the compiled pair tiles (issue 27)."""
from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

from leaderboard.tiers import boot_small
from leaderboard.tiers.best_set import best_set
from leaderboard.tiers.rank_sets import TILE_ROWS, rank_confidence_sets, rank_set_tiers
from leaderboard.tiers.replicates import RankReplicates


def bootstrap_board(seed: int, n: int, kind: str, higher: bool = True) -> RankReplicates:
    """Paired bootstrap of accuracy on 0/1 rows: ``ties`` copies submissions (se = 0, tied
    scores), ``heavy`` adds Cauchy noise (first-round values above Bonferroni: the fallback
    entries and the screen's redo), ``dense`` puts every entry near the others."""
    rng = np.random.default_rng(seed)
    rows, n_rep = int(rng.integers(40, 400)), int(rng.choice([200, 333, 500]))
    skill = rng.uniform(0.5, 0.95 if kind != "dense" else 0.55, n)
    correct = rng.random((n, rows)) < skill[:, None]
    if kind == "ties":
        copies = rng.integers(0, n, n // 2)
        correct[rng.integers(0, n, n // 2)] = correct[copies]
    idx = rng.integers(0, rows, (n_rep, rows))
    point = correct.mean(axis=1)
    reps = np.stack([correct[:, i].mean(axis=1) for i in idx], axis=1)
    if kind == "heavy":
        reps = reps + 0.002 * rng.standard_cauchy(reps.shape)
    if not higher:
        point, reps = 1 - point, 1 - reps
    order = np.argsort(-point if higher else point, kind="stable")
    return RankReplicates.from_bootstrap(point[order], reps[order], higher)


def boards():
    out = []
    for seed in range(40):
        kind = ("plain", "ties", "heavy", "dense")[seed % 4]
        n = [2, 3, 5, 9, 17, 33, 64, boot_small.SMALL][seed % 8]
        out.append(bootstrap_board(seed, n, kind, higher=seed % 3 != 0))
    return out


def same_sets(got, ref):
    for field in ("low", "high", "critical_value"):
        assert getattr(got, field).tobytes() == getattr(ref, field).tobytes(), field
    assert ((got.steps, got.pairs_examined, got.pairs_screened) ==
            (ref.steps, ref.pairs_examined, ref.pairs_screened))


def test_small_bootstrap_boards_numpy_equals_the_pair_tiles():
    """Simultaneous and marginal sets, critical values, rounds, screen counts, the 'shown better'
    relation (pair by pair, in order), tiers and the best set: numpy (``batch=None``) against the
    pair tiles (``batch=TILE_ROWS``, the same one tile) on bootstrap boards of 2 to SMALL entries,
    ties, lower-is-better, heavy tails (the fallback entries and the screen's redo) and dense
    boards; alpha 0.05 and 0.2."""
    seen = {"fallback": 0, "redo": 0, "ties": 0, "rounds>2": 0}
    for reps in boards():
        for alpha in (0.05, 0.2):
            for simultaneous in (True, False):
                try:
                    ref = rank_confidence_sets(reps, alpha, simultaneous=simultaneous,
                                               batch=TILE_ROWS)
                except RuntimeError as exc:
                    with pytest.raises(RuntimeError, match=str(exc)[:40]):
                        rank_confidence_sets(reps, alpha, simultaneous=simultaneous)
                    continue
                got = rank_confidence_sets(reps, alpha, simultaneous=simultaneous)
                same_sets(got, ref)
                seen["rounds>2"] += ref.steps > 2
                if simultaneous:
                    a, b = got.shown_better, ref.shown_better
                    assert a.indptr.tobytes() == b.indptr.tobytes()
                    assert a.partner.tobytes() == b.partner.tobytes()
                    assert a.critical_value == b.critical_value
                    assert (rank_set_tiers(got).tier.tobytes() ==
                            rank_set_tiers(ref).tier.tobytes())
                    n = reps.n_entries
                    seen["redo"] += ref.critical_value[0] > norm.isf(alpha / (n * (n - 1)))
                else:
                    n = reps.n_entries
                    seen["fallback"] += bool(np.any(ref.critical_value >
                                                    norm.isf(alpha / (2 * max(n - 1, 1)))))
            assert (best_set(reps, alpha).tobytes() ==
                    best_set(reps, alpha, batch=TILE_ROWS).tobytes())
        seen["ties"] += bool(np.any(np.diff(reps.point) == 0))
    assert all(v > 0 for v in seen.values()), seen   # every branch was compared


def test_biased_replicates_same_answer_or_refusal():
    """Replicates biased with the point order: both engines give the same sets (or the same
    "too biased" RuntimeError). The refusal itself cannot be reached once the screen equals the
    first round (a far pair's surviving statistic below c(K) in kq replicates would put c1 above
    its |t|), so it is kept as a guard in both, not provoked here."""
    rng = np.random.default_rng(3)
    point = np.linspace(1.0, 0.0, 6)
    err = rng.normal(0, 0.01, (6, 400)) + 0.5 * point[:, None]
    reps = RankReplicates(point=point, errors=err, sd=err.std(axis=1, ddof=1), correlation=None,
                          sign=1.0, source="test", dropped=0)
    for simultaneous in (True, False):
        outcomes = []
        for batch in (None, TILE_ROWS):
            try:
                outcomes.append(rank_confidence_sets(reps, simultaneous=simultaneous,
                                                     batch=batch).low.tolist())
            except RuntimeError as exc:
                outcomes.append(str(exc))
        assert outcomes[0] == outcomes[1]
