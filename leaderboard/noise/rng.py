"""Random numbers in fixed blocks, so results never depend on how work is chunked.

Every simulation and bootstrap draws its random test sets in blocks of :data:`BLOCK` draws, block
``b`` from a generator seeded by ``(seed, stream, b)``: fewer draws are a prefix of more draws, and
splitting the work into batches or passes cannot change a number.
"""
from __future__ import annotations

from enum import IntEnum, unique

import numpy as np

@unique   # two names on one stream would share their random numbers: refused at import
class Stream(IntEnum):
    """The registry of random streams: each consumer of random numbers draws from its own stream,
    so two stages never share (or shift) each other's numbers. A value is part of what a seed
    means: never renumber one, add new streams with new values."""

    SEEDS_UNIVERSE = 0          # the seed articles' AUC universe (linspace)
    BINOMIAL_UNIVERSE = 1       # accuracy's binomial universe
    BOOTSTRAP = 2               # the paired bootstrap of test rows or items (the ranking split)
    FINITE_UNIVERSE = 3         # finite universes' test sets (binormal, bounded, ...)
    RANK_DRAWS = 4              # scores only: the normal draws behind ranks, P(best), stability
    SHAKEUP_PUBLIC = 5          # scores only: the shake-up baseline's public errors
    SHAKEUP_PRIVATE = 6         # ... and its private errors
    CHOOSE_PREDICTIVE = 7       # choose: draws from the predictive distribution
    OTHER_SPLIT_BOOTSTRAP = 8   # post-mortems: the bootstrap of the split that does not rank
    NOISE_STUDY = 11            # the noise study's simulated models
    BATTLES_BOOTSTRAP = 20      # battles: the Poisson bootstrap of battles
    CROSSING_CLUSTERS = 21      # per-category results whose clusters cross categories: one draw
    OVERFIT_TRUTH = 25          # post-mortems: true scores drawn for the detectable-overfit power
    PLAN_FROM_BOARDS = 29       # plan --from: the simulated boards' noise (issue 40)
    PLAN_FROM_REPLICATES = 30   # plan --from: the replicates behind each simulated board's tiers
    SIGN_FLIPS = 39             # the randomization tests' sign flips of per-item differences
    GUARANTEE_CHECK = 40        # the self-check's null boards (models permuted within items)
    # Seeded by entropy_rng / entropy_seed (one generator, not blocks; their numbers depend on
    # _ENTROPY_TAG below, not on these values):
    PLAN_POWER_CHECK = 22       # plan: the simulated-power check's test sets (not the SD's)
    CALIBRATION_STUDY = 23      # studies: the scores-only calibration's competitions
    SCORES_CALIBRATION_STUDY = 24   # studies: the simulated boards of AUC submissions
    CORRELATION_STUDY = 26      # studies: the correlation study's boards
    BATTLES_COVERAGE_STUDY = 27     # studies: the battles coverage study's arenas
    REGRESSION_CALIBRATION_STUDY = 28   # studies: the regression universes' boards
    CATEGORIES = 1000           # per-category tiers: category k draws from CATEGORIES + k


BLOCK = 32  # draws per random-number block; part of what a seed means, so never change it lightly
_PICKS_PER_CALL = 1 << 20  # bounds the memory of counted draws; the numbers do not depend on it
# Above this many rows a test set's counts are drawn as one multinomial per draw (a binomial per
# individual) instead of counting uniform picks: the same distribution, exactly, at a cost that no
# longer grows with the test set (picks cost ~5 s of CPU per million rows per 5,000 draws; the
# binomials of 16,384 individuals cost as much as ~160,000 picks). At or below it the picks are
# counted as always, so those numbers are unchanged (issue 43: --n-test 1e9 ran for hours).
MULTINOMIAL_ROWS = 1_000_000


# The value each entropy-seeded stream mixes into its entropy: the tags these consumers used before
# the registry existed (hence not their Stream values), kept so that a seed still means the same
# numbers; None: the stream's keys alone, as the correlation study always drew.
_ENTROPY_TAG = {Stream.PLAN_POWER_CHECK: 1, Stream.CALIBRATION_STUDY: 7,
                Stream.SCORES_CALIBRATION_STUDY: 14, Stream.REGRESSION_CALIBRATION_STUDY: 25,
                Stream.CORRELATION_STUDY: None, Stream.BATTLES_COVERAGE_STUDY: None,
                Stream.OVERFIT_TRUTH: None}


def block_rng(seed: int, stream: int, block: int, *key: int) -> np.random.Generator:
    """The generator of one block of draws: depends only on (seed, stream, block, *key)."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(int(stream), block,
                                                                         *key)))


def _entropy(seed: int, stream: Stream, key: tuple[int, ...]) -> list[int]:
    tag = _ENTROPY_TAG[stream]   # KeyError: a block stream (block_rng) asked for one generator
    return [int(seed), *(int(k) for k in key), *(() if tag is None else (tag,))]


def entropy_rng(seed: int, stream: Stream, *key: int) -> np.random.Generator:
    """One generator for a whole computation of ``stream`` (a study's board, a competition),
    seeded by ``[seed, *key, tag]``: depends only on them.

    Examples
    --------
    >>> a = entropy_rng(3, Stream.CALIBRATION_STUDY).random()
    >>> a == np.random.default_rng([3, 7]).random()   # the tag kept from before the registry
    True
    """
    return np.random.default_rng(_entropy(seed, stream, key))


def entropy_seed(seed: int, stream: Stream, *key: int) -> int:
    """A seed derived from ``seed`` for ``stream``: for a consumer that takes a seed, not a
    generator (plan's power check hands it to a universe, whose own blocks then draw)."""
    return int(np.random.SeedSequence(_entropy(seed, stream, key)).generate_state(1)[0])


def draw_rows(rng: np.random.Generator, rows: int, individuals: int,
              sort: bool = True) -> np.ndarray:
    """One block of test-set draws of ``rows`` rows from ``individuals``, with replacement.

    Few rows: the drawn indices, shape (BLOCK, rows), sorted per draw unless ``sort`` is False
    (sorted, later lookups walk memory in order; the random numbers are the same either way). More
    rows than individuals: how often each individual was drawn, shape (BLOCK, individuals), counted
    from the same uniform picks (a multinomial draw; numpy's ``multinomial`` took ten times longer).
    """
    if rows > individuals:
        return _counted_rows(rng, rows, individuals)
    picks = rng.integers(0, individuals, size=(BLOCK, rows))
    return np.sort(picks, axis=1) if sort else picks


def _counted_rows(rng: np.random.Generator, rows: int, individuals: int) -> np.ndarray:
    """Counts of ``rows`` uniform picks per draw, shape (BLOCK, individuals), picked in calls of at
    most ``_PICKS_PER_CALL`` values. A generator yields the same picks however its calls are split,
    so these are the counts of one ``integers(0, individuals, (BLOCK, rows))`` call. Above
    :data:`MULTINOMIAL_ROWS` rows: drawn as Multinomial(rows, 1/individuals each), which is the
    distribution of those counts, without a pick per row.

    Examples
    --------
    >>> counts = draw_rows(np.random.default_rng(0), 10**9, 1000)   # in milliseconds
    >>> counts.shape, bool((counts.sum(axis=1) == 10**9).all())
    ((32, 1000), True)
    """
    if rows > MULTINOMIAL_ROWS:
        return multinomial_rows(rng, rows, np.full(individuals, 1.0 / individuals))
    if BLOCK * rows <= _PICKS_PER_CALL:
        return _count_picks(rng.integers(0, individuals, size=(BLOCK, rows)), individuals)
    counts = np.zeros((BLOCK, individuals), dtype=np.int64)
    for draw in counts:
        for start in range(0, rows, _PICKS_PER_CALL):
            picks = rng.integers(0, individuals, size=min(_PICKS_PER_CALL, rows - start))
            draw += np.bincount(picks, minlength=individuals)
    return counts


def multinomial_rows(rng: np.random.Generator, rows: int, probabilities: np.ndarray) -> np.ndarray:
    """One block of test sets of ``rows`` rows as counts per individual, shape (BLOCK,
    individuals): each draw Multinomial(rows, probabilities), the distribution of the counts of
    ``rows`` independent picks, at a cost that does not grow with ``rows``."""
    return rng.multinomial(rows, probabilities, size=BLOCK)


def row_counts(picks: np.ndarray, rows: int, individuals: int) -> np.ndarray:
    """Counts per individual, shape (BLOCK, individuals), from what :func:`draw_rows` returned."""
    return picks if rows > individuals else _count_picks(picks, individuals)


def _count_picks(picks: np.ndarray, individuals: int) -> np.ndarray:
    offsets = (np.arange(BLOCK) * individuals)[:, None]
    return np.bincount((picks + offsets).ravel(), minlength=BLOCK * individuals).reshape(
        BLOCK, individuals)
