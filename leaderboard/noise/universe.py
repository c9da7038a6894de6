"""Universes whose true score is known, and test sets drawn from them.

A *universe* is every row a model could ever be scored on. Its true score is the metric on all of
it; a test set is a random draw from it, and the observed score is the metric on the draw. Each
universe here can (1) simulate observed scores for many true scores at once, reusing the same random
test sets at every level (common random numbers: smooth curves across levels and ordered draws),
and (2) give the exact standard deviation of the observed score, which the tests hold the
simulation to.

Random numbers come in fixed blocks of draws, each block seeded by ``(seed, block index)``, so the
numbers do not depend on how the work is chunked.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import binom

from leaderboard.errors import InputError

BLOCK = 32  # draws per random-number block; part of what a seed means, so never change it lightly


def block_rng(seed: int, stream: int, block: int) -> np.random.Generator:
    """The generator of one block of draws: depends only on (seed, stream, block)."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(stream, block)))


@dataclass(frozen=True)
class SeedsAUCUniverse:
    """The seed articles' universe for ROC AUC, built exactly as they build it.

    ``size`` individuals, half positive. The negatives' predicted probabilities are evenly spaced on
    [0, 1] and the positives' evenly spaced on [a, 1] with ``a = 2 * AUC - 1``, which makes the AUC on
    the whole universe equal to the target (to within 1/size). A test set of ``n_test`` rows holds
    exactly ``round(n_test * prevalence)`` positives and the rest negatives, each drawn with
    replacement from its own half, so the test set's prevalence is fixed. A target below 0.5 is the
    mirror image of ``1 - AUC`` (the same model with its scores reversed).
    """

    size: int = 100_000
    name: str = "seeds-linspace"

    def assumptions(self, n_test: int, prevalence: float) -> str:
        m, k = class_counts(n_test, prevalence)
        return (f"Every entry is scored on its own test set of {n_test} rows with exactly {m} "
                f"positives and {k} negatives, drawn with replacement from a universe of "
                f"{self.size:,} rows (half positive) in which the negatives' scores are evenly spaced "
                "on [0, 1] and the positives' on [2 AUC - 1, 1], so the universe's AUC is the true "
                "score. This is the seed articles' universe: it fixes the shape of the score "
                "distributions, and real models whose scores are distributed differently have a "
                "somewhat different noise.")

    def _grids(self, auc: float) -> tuple[np.ndarray, np.ndarray]:
        half = self.size // 2
        neg = np.linspace(0.0, 1.0, self.size - half)
        pos = np.linspace(2.0 * auc - 1.0, 1.0, half)
        return neg, pos

    def _placements(self, auc: float) -> tuple[np.ndarray, np.ndarray]:
        """For each positive of the universe: how many negatives score below it, and at or below."""
        neg, pos = self._grids(auc)
        return np.searchsorted(neg, pos, "left"), np.searchsorted(neg, pos, "right")

    def universe_auc(self, auc: float) -> float:
        """AUC on the whole universe (ties count one half), for checking the construction."""
        neg, _ = self._grids(max(auc, 1 - auc))
        below, at_or_below = self._placements(max(auc, 1 - auc))
        value = (below.sum() + 0.5 * (at_or_below - below).sum()) / (below.size * neg.size)
        return value if auc >= 0.5 else 1.0 - value

    def exact_sd(self, auc: float, n_test: int, prevalence: float) -> float:
        """Exact standard deviation of the observed AUC on a test set drawn from this universe.

        The observed AUC is a two-sample U-statistic with kernel psi(x, y) = 1[x > y] + 1/2 1[x = y]
        over i.i.d. positives and negatives, so with m positives and k negatives

            Var = [ (E psi^2 - A^2) + (m - 1)(Q1 - A^2) + (k - 1)(Q2 - A^2) ] / (m k),

        where Q1 = P(two positives both outrank one negative) and Q2 = P(one positive outranks two
        negatives), computed here exactly on the universe's grids (ties with half credit).
        """
        m, k = class_counts(n_test, prevalence)
        a = max(auc, 1.0 - auc)  # the mirror has the same spread
        neg, pos = self._grids(a)
        below, at_or_below = self._placements(a)
        ties = at_or_below - below
        per_positive = (below + 0.5 * ties) / neg.size           # P(psi) given the positive
        theta = per_positive.mean()
        psi_sq = (below + 0.25 * ties).sum() / (pos.size * neg.size)
        q2 = np.mean(per_positive ** 2)
        pos_right = np.searchsorted(pos, neg, "right")
        pos_left = np.searchsorted(pos, neg, "left")
        per_negative = (pos.size - pos_right + 0.5 * (pos_right - pos_left)) / pos.size
        q1 = np.mean(per_negative ** 2)
        var = ((psi_sq - theta ** 2) + (m - 1) * (q1 - theta ** 2)
               + (k - 1) * (q2 - theta ** 2)) / (m * k)
        return float(np.sqrt(max(var, 0.0)))

    def simulate(self, levels: np.ndarray, n_test: int, prevalence: float, draws: int, seed: int,
                 progress=None) -> np.ndarray:
        """Observed AUCs, shape (len(levels), draws): the same test sets at every level.

        A test set is a multiset of positive and negative individuals of the universe. For each block
        of draws, the cumulative count of drawn negatives below every universe index is built once;
        then at each level a positive's count of negatives below it is one lookup, so a block costs
        O(draws * positives) per level with no per-draw Python loop. A class with more rows than the
        universe has individuals is drawn as how many times each individual was picked (exactly
        multinomial), so memory and time stop growing with the test set's size.
        """
        levels = np.asarray(levels, dtype=float)
        m, k = class_counts(n_test, prevalence)
        half_neg, half_pos = self.size - self.size // 2, self.size // 2
        placements = [self._placements(max(a, 1 - a)) for a in levels]
        out = np.empty((levels.size, draws))
        n_blocks = -(-draws // BLOCK)
        if progress is not None:
            progress.start(n_blocks)
        for b in range(n_blocks):
            # Always draw a whole block, so that fewer draws are a prefix of more draws.
            keep = min(BLOCK, draws - b * BLOCK)
            rng = block_rng(seed, 0, b)
            neg_counts = _as_counts(_picks(rng, k, half_neg), k, half_neg)
            pos = _picks(rng, m, half_pos)
            # below[r, j] = how many of draw r's negatives have universe index < j
            below = np.zeros((BLOCK, half_neg + 1), dtype=np.int32)
            np.cumsum(neg_counts, axis=1, out=below[:, 1:])
            for g, (lt, le) in enumerate(placements):
                wins = _wins(below, lt, le - lt, pos, counts=m > half_pos)
                out[g, b * BLOCK:b * BLOCK + keep] = (wins / (m * k))[:keep]
            if progress is not None:
                progress.advance()
        mirrored = levels < 0.5
        out[mirrored] = 1.0 - out[mirrored]
        return out


def _picks(rng: np.random.Generator, rows: int, individuals: int) -> np.ndarray:
    """One block of test-set draws of ``rows`` rows from ``individuals``, with replacement.

    Few rows: the drawn indices, sorted per draw (so later lookups walk memory in order), shape
    (BLOCK, rows). More rows than individuals: how often each individual was drawn, shape
    (BLOCK, individuals). The negatives are always wanted as counts, so small draws are counted.
    """
    if rows > individuals:
        return rng.multinomial(rows, np.full(individuals, 1.0 / individuals), size=BLOCK)
    return np.sort(rng.integers(0, individuals, size=(BLOCK, rows)), axis=1)


def _wins(below: np.ndarray, lt: np.ndarray, tied: np.ndarray, pos: np.ndarray,
          counts: bool) -> np.ndarray:
    """Per draw: sum over drawn positives of (negatives below) + 1/2 (negatives tied)."""
    if counts:  # pos[r, p] = times positive p was drawn
        at = below[:, lt]
        wins = (pos * at).sum(axis=1, dtype=np.int64).astype(float)
        if tied.any():  # a positive level with a negative: half credit per tied negative
            wins += 0.5 * (pos[:, tied == 1] * (below[:, lt[tied == 1] + 1]
                                                - at[:, tied == 1])).sum(axis=1)
        return wins
    flat = below.ravel()  # flat lookups with row offsets are faster than 2-D fancy indexing
    where = lt[pos] + (np.arange(below.shape[0]) * below.shape[1])[:, None]
    wins = flat[where].sum(axis=1, dtype=np.int64).astype(float)
    is_tied = tied[pos].astype(bool)
    if is_tied.any():  # a tied positive's index + 1 stays in its row: it is below a negative
        wins += 0.5 * np.where(is_tied, flat[where + 1] - flat[where], 0).sum(axis=1)
    return wins


def _as_counts(picks: np.ndarray, rows: int, individuals: int) -> np.ndarray:
    """Counts per individual, shape (BLOCK, individuals), from what :func:`_picks` returned."""
    if rows > individuals:
        return picks
    offsets = (np.arange(BLOCK) * individuals)[:, None]
    return np.bincount((picks + offsets).ravel(), minlength=BLOCK * individuals).reshape(
        BLOCK, individuals)


@dataclass(frozen=True)
class BinomialAccuracyUniverse:
    """A universe in which every row is classified correctly with probability equal to the accuracy.

    The number of correct rows in a test set of ``n_test`` is then Binomial(n_test, accuracy), so the
    simulation and its exact variance, accuracy (1 - accuracy) / n_test, are the binomial's. If the
    test set's classes are fixed in number and each class has the same accuracy, the count is still
    this binomial, so the prevalence does not enter.
    """

    name: str = "binomial"

    def assumptions(self, n_test: int, prevalence: float | None) -> str:
        return (f"Every entry is scored on its own test set of {n_test} rows, each row classified "
                "correctly with probability equal to the entry's true accuracy, independently of the "
                "others; the number of correct rows is then binomial. Rows that are not independent "
                "(several rows per patient, per user, per day) make the real noise larger.")

    def exact_sd(self, accuracy: float, n_test: int, prevalence: float | None = None) -> float:
        """Binomial standard deviation of the observed accuracy."""
        return float(np.sqrt(accuracy * (1.0 - accuracy) / n_test))

    def simulate(self, levels: np.ndarray, n_test: int, prevalence: float | None, draws: int,
                 seed: int, progress=None) -> np.ndarray:
        """Observed accuracies, shape (len(levels), draws), by inverting the binomial CDF at uniforms
        shared across levels (common random numbers)."""
        levels = np.asarray(levels, dtype=float)
        n_blocks = -(-draws // BLOCK)
        uniforms = np.concatenate([block_rng(seed, 1, b).random(BLOCK) for b in range(n_blocks)])
        uniforms = uniforms[:draws]
        if progress is not None:
            progress.start(1)
        out = binom.ppf(uniforms[None, :], n_test, levels[:, None]) / n_test
        if progress is not None:
            progress.advance()
        return out


UNIVERSES = {"auc": SeedsAUCUniverse(), "accuracy": BinomialAccuracyUniverse()}


def class_counts(n_test: int, prevalence: float) -> tuple[int, int]:
    """Positives and negatives in a test set, as the seeds count them: m = round(n * prevalence).

    Raises InputError when either class would be empty.
    """
    m = int(round(n_test * prevalence))
    k = n_test - m
    if m < 1 or k < 1:
        raise InputError(f"--n-test {n_test} with --prevalence {prevalence:g} gives {m} positives "
                         f"and {k} negatives; AUC needs at least one of each")
    return m, k


def get_universe(noise_model: str, n_test: int, prevalence: float | None):
    """The universe for a registry noise-model key, after checking the settings it needs."""
    universe = UNIVERSES[noise_model]
    if isinstance(universe, SeedsAUCUniverse):
        if prevalence is None:
            raise InputError("--prevalence is needed for AUC: the share of positives in the test set "
                             "(e.g. --prevalence 0.1)")
        class_counts(n_test, prevalence)
    return universe
