"""Random numbers in fixed blocks, so results never depend on how work is chunked.

Every simulation and bootstrap draws its random test sets in blocks of :data:`BLOCK` draws, block
``b`` from a generator seeded by ``(seed, stream, b)``: fewer draws are a prefix of more draws, and
splitting the work into batches or passes cannot change a number.
"""
from __future__ import annotations

import numpy as np

BLOCK = 32  # draws per random-number block; part of what a seed means, so never change it lightly


def block_rng(seed: int, stream: int, block: int) -> np.random.Generator:
    """The generator of one block of draws: depends only on (seed, stream, block)."""
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(stream, block)))


def draw_rows(rng: np.random.Generator, rows: int, individuals: int,
              sort: bool = True) -> np.ndarray:
    """One block of test-set draws of ``rows`` rows from ``individuals``, with replacement.

    Few rows: the drawn indices, shape (BLOCK, rows), sorted per draw unless ``sort`` is False
    (sorted, later lookups walk memory in order; the random numbers are the same either way). More
    rows than individuals: how often each individual was drawn, shape (BLOCK, individuals).
    """
    if rows > individuals:
        return rng.multinomial(rows, np.full(individuals, 1.0 / individuals), size=BLOCK)
    picks = rng.integers(0, individuals, size=(BLOCK, rows))
    return np.sort(picks, axis=1) if sort else picks


def row_counts(picks: np.ndarray, rows: int, individuals: int) -> np.ndarray:
    """Counts per individual, shape (BLOCK, individuals), from what :func:`draw_rows` returned."""
    if rows > individuals:
        return picks
    offsets = (np.arange(BLOCK) * individuals)[:, None]
    return np.bincount((picks + offsets).ravel(), minlength=BLOCK * individuals).reshape(
        BLOCK, individuals)
