"""The seed articles' universe for AUC, built exactly as they build it, with its exact variance."""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from leaderboard._jit import njit

from leaderboard._threads import threaded
from leaderboard.errors import InputError
from leaderboard.noise.rng import BLOCK, Stream, block_rng, draw_rows, row_counts
from leaderboard.noise.universes.exact import auc_sd


MERGE_COST = 0.6  # cost per element of sorting and merging relative to a running count (measured)


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

    def assumptions(self, n_test: int, prevalence: float | None) -> str:
        m, k = class_counts(n_test, _given(prevalence))
        return (f"Every entry is scored on its own test set of {n_test:,} rows with exactly {m:,} "
                f"positives and {k:,} negatives, drawn with replacement from a universe of "
                f"{self.size:,} rows (half positive) in which the negatives' scores are evenly spaced "
                "on [0, 1] and the positives' on [2 AUC - 1, 1], so the universe's AUC is the true "
                "score. This is the seed articles' universe: it fixes the shape of the score "
                "distributions, and real models whose scores are distributed differently have a "
                "somewhat different noise.")

    def reachable(self) -> tuple[float, float]:
        """The true scores this universe can be calibrated to."""
        return 0.0, 1.0

    def _grids(self, auc: float) -> tuple[np.ndarray, np.ndarray]:
        return _seeds_grids(self.size, float(auc))

    def _placements(self, auc: float) -> tuple[np.ndarray, np.ndarray]:
        """For each positive of the universe: how many negatives score below it, and at or below
        (one merge of the two grids instead of two binary searches per positive: the same counts)."""
        from leaderboard.noise.universes.sorted_auc import merge_places

        neg, pos = self._grids(auc)
        return merge_places(neg, pos)

    def universe_auc(self, auc: float) -> float:
        """AUC on the whole universe (ties count one half), for checking the construction."""
        neg, _ = self._grids(max(auc, 1 - auc))
        below, at_or_below = self._placements(max(auc, 1 - auc))
        value = (below.sum() + 0.5 * (at_or_below - below).sum()) / (below.size * neg.size)
        return value if auc >= 0.5 else 1.0 - value

    def exact_sd(self, auc: float, n_test: int, prevalence: float | None) -> float:
        """Exact standard deviation of the observed AUC on a test set drawn from this universe
        (the U-statistic variance with Q1 and Q2 computed on the universe's grids, see
        :func:`~leaderboard.noise.universes.exact.auc_sd`)."""
        m, k = class_counts(n_test, _given(prevalence))
        return _exact_sd(self.size, max(float(auc), 1.0 - float(auc)), m, k)

    def simulate(self, levels: np.ndarray, n_test: int, prevalence: float | None, draws: int,
                 seed: int, progress=None) -> np.ndarray:
        """Observed AUCs, shape (len(levels), draws): the same test sets at every level.

        A test set is a multiset of positive and negative individuals of the universe. For each block
        of draws, the cumulative count of drawn negatives below every universe index is built once;
        then at each level a positive's count of negatives below it is one lookup, so a block costs
        O(draws * positives) per level with no per-draw Python loop. A class with more rows than the
        universe has individuals is drawn as how many times each individual was picked (exactly
        multinomial: counted picks, or one multinomial draw above
        :data:`~leaderboard.noise.rng.MULTINOMIAL_ROWS` rows), so memory stops growing with the
        test set's size, and time too above that many rows.
        """
        levels = np.asarray(levels, dtype=float)
        m, k = class_counts(n_test, _given(prevalence))
        half_neg, half_pos = self.size - self.size // 2, self.size // 2
        placements = [self._placements(max(a, 1 - a)) for a in levels]
        stacked = tuple(np.stack([p[i] for p in placements]).astype(np.int64) for i in (0, 1))
        out = np.empty((levels.size, draws))
        n_blocks = -(-draws // BLOCK)
        if progress is not None:
            progress.start(n_blocks)
        for b in range(n_blocks):
            # Always draw a whole block, so that fewer draws are a prefix of more draws.
            keep = min(BLOCK, draws - b * BLOCK)
            rng = block_rng(seed, Stream.SEEDS_UNIVERSE, b)
            neg = draw_rows(rng, k, half_neg, sort=False)
            pos = draw_rows(rng, m, half_pos, sort=False)
            counted = m > half_pos
            if not counted:
                pos = _sorted_indices(pos, half_pos)
            if k <= half_neg and not counted and _merging_is_cheaper(k, m, levels.size, half_neg):
                wins = _wins_by_merge(neg, pos, stacked, half_neg)
            else:
                # below[r, j] = how many of draw r's negatives have universe index < j
                below = np.zeros((BLOCK, half_neg + 1), dtype=np.int32)
                np.cumsum(row_counts(neg, k, half_neg), axis=1, out=below[:, 1:])
                wins = [_wins(below, lt, le - lt, pos, counts=counted) for lt, le in placements]
            for g, level_wins in enumerate(wins):
                out[g, b * BLOCK:b * BLOCK + keep] = (level_wins / (m * k))[:keep]
            if progress is not None:
                progress.advance()
        mirrored = levels < 0.5
        out[mirrored] = 1.0 - out[mirrored]
        return out


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


@lru_cache(maxsize=64)
def _seeds_grids(size: int, auc: float) -> tuple[np.ndarray, np.ndarray]:
    """The universe's negative and positive scores (read-only: they are shared by the cache)."""
    half = size // 2
    neg = np.linspace(0.0, 1.0, size - half)
    pos = np.linspace(2.0 * auc - 1.0, 1.0, half)
    neg.flags.writeable = pos.flags.writeable = False
    return neg, pos


@lru_cache(maxsize=256)
def _exact_sd(size: int, auc: float, m: int, k: int) -> float:
    neg, pos = _seeds_grids(size, auc)   # the mirror (auc below 0.5) has the same spread
    return auc_sd(neg, pos, m, k, presorted=True)


def _merging_is_cheaper(k: int, m: int, n_levels: int, individuals: int) -> bool:
    """Sorting each draw's k negatives and walking them beside the positives costs about
    k + levels * (k + m) per draw; the running count over the universe costs about
    ``individuals`` per draw. Both give identical counts from the same random numbers."""
    return MERGE_COST * (k + n_levels * (k + m)) < individuals


def _sorted_indices(picks: np.ndarray, individuals: int) -> np.ndarray:
    """Each draw's indices in ascending order; 16-bit keys when they fit (numpy radix-sorts them)."""
    small = np.uint16 if individuals <= np.iinfo(np.uint16).max else np.int64
    return np.sort(picks.astype(small), axis=1, kind="stable")


def _wins_by_merge(neg: np.ndarray, pos: np.ndarray, placements: tuple[np.ndarray, ...],
                   individuals: int) -> list:
    """Per level, per draw: sum over drawn positives of (negatives below) + 1/2 (negatives tied),
    by sorting each draw's negatives once and galloping through them beside the (sorted)
    positives."""
    neg = _sorted_indices(neg, individuals)
    lt, le = placements
    out = np.empty((lt.shape[0], neg.shape[0]))
    _merge_wins(neg, np.ascontiguousarray(pos), lt, le, out)
    return list(out)


def _merge_wins(neg: np.ndarray, pos: np.ndarray, lt: np.ndarray, le: np.ndarray,
                out: np.ndarray) -> None:
    """Draws on threads (each writes its own column of ``out``)."""
    threaded(_merge_wins_rows, neg.shape[0], neg, pos, lt, le, out)


@njit(cache=True, nogil=True)
def _merge_wins_rows(neg, pos, lt, le, out, r0, r1):  # pragma: no cover - compiled
    k = neg.shape[1]
    m = pos.shape[1]
    for r in range(r0, r1):
        for g in range(lt.shape[0]):
            below = 0
            total = 0
            tied = 0
            for p in range(m):  # positives ascend, so their thresholds do: one pass per level
                t = lt[g, pos[r, p]]
                if below < k and neg[r, below] < t:
                    # gallop then bisect: O(m log(k / m)), fast for few and for many positives
                    low, step = below, 1
                    high = low + 1
                    while high < k and neg[r, high] < t:
                        low, step = high, 2 * step
                        high = low + step
                    high = min(high, k)
                    while high - low > 1:   # neg[low] < t, and high == k or neg[high] >= t
                        mid = (low + high) // 2
                        if neg[r, mid] < t:
                            low = mid
                        else:
                            high = mid
                    below = high
                total += below
                if le[g, pos[r, p]] > t:  # negatives at exactly this score: half credit each
                    at = below
                    while at < k and neg[r, at] == t:
                        at += 1
                    tied += at - below
            out[g, r] = total + 0.5 * tied


def _given(prevalence: float | None) -> float:
    """The prevalence, which this universe needs (get_universe refuses it missing first)."""
    if prevalence is None:
        raise InputError("--prevalence is needed for the seeds universe")
    return prevalence


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
