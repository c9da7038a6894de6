"""Which submissions have identical predictions: one definition for `analyze` and `choose`.

Two submissions are *identical* when their aligned prediction arrays are byte-identical over every
row of the solution (public, private and ignored alike), with the same shape and dtype. A file
that differs in a single digit of a single row is not identical, even when no score can tell it
apart; `choose` names that looser notion separately ("same public scores",
:func:`leaderboard.choose.posterior.same_public_groups`).
"""
from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np


def digest(pred: np.ndarray) -> bytes:
    """SHA-256 of an aligned prediction's bytes, shape and dtype: equal digests, identical
    predictions (what a worker returns instead of the prediction itself)."""
    array = np.ascontiguousarray(pred)
    header = f"{array.dtype.str}{array.shape}".encode()
    return hashlib.sha256(header + array.tobytes()).digest()


def identical_groups(preds: Sequence[np.ndarray]) -> np.ndarray:
    """For each submission, the index of the first one with byte-identical predictions (itself if
    none came before).

    Examples
    --------
    >>> a, b = np.array([0.1, 0.9]), np.array([0.1, 0.8])
    >>> identical_groups([a, b, a.copy(), b]).tolist()
    [0, 1, 0, 1]
    """
    return _first_of([digest(p) for p in preds])


def _first_of(digests: Sequence[bytes]) -> np.ndarray:
    first: dict[bytes, int] = {}
    return np.array([first.setdefault(d, i) for i, d in enumerate(digests)], dtype=int)


def identical_to(preds: Sequence[np.ndarray], labels: Sequence[str]) -> list[str | None]:
    """For each submission, the label of the first one with byte-identical predictions, else None.

    Examples
    --------
    >>> a, b = np.array([0.1, 0.9]), np.array([0.1, 0.8])
    >>> identical_to([a, b, a.copy()], ["x", "y", "z"])
    [None, None, 'x']
    """
    return identical_by_digest([digest(p) for p in preds], labels)


def identical_by_digest(digests: Sequence[bytes], labels: Sequence[str]) -> list[str | None]:
    """:func:`identical_to` from the predictions' digests (:func:`digest`).

    Examples
    --------
    >>> a, b = np.array([0.1, 0.9]), np.array([0.1, 0.8])
    >>> identical_by_digest([digest(a), digest(b), digest(a.copy())], ["x", "y", "z"])
    [None, None, 'x']
    """
    groups = _first_of(digests)
    return [None if g == i else labels[g] for i, g in enumerate(groups)]
