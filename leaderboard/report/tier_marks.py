"""Marks on tiers that the page and the JSON share: each tier's first entry, and entries placed in
a better tier than some entry ranked above them (rank-set tiers interleave)."""
from __future__ import annotations

import numpy as np


def anchor_mask(tiers: np.ndarray) -> np.ndarray:
    """True for the first entry of each tier in rank order (tiers > 0; tiers may interleave).

    Examples
    --------
    >>> anchor_mask(np.array([1, 2, 1, 2, 3])).tolist()
    [True, True, False, False, True]
    """
    tiers = np.asarray(tiers, dtype=int)
    mask = np.zeros(tiers.size, dtype=bool)
    values, first = np.unique(tiers, return_index=True)
    mask[first[values > 0]] = True
    return mask


def out_of_order_mask(tier: np.ndarray) -> np.ndarray:
    """Entries in a better tier than some entry ranked above them (rank-set tiers interleave).

    Examples
    --------
    >>> out_of_order_mask(np.array([1, 2, 1, 3, 2])).tolist()
    [False, False, True, False, True]
    """
    tier = np.asarray(tier, dtype=int)
    return (tier > 0) & (tier < highest_above(tier))   # tier 0: left out, not placed


def highest_above(tier: np.ndarray) -> np.ndarray:
    """For each entry, the highest tier among the entries ranked above it (0 for the first)."""
    tier = np.asarray(tier, dtype=int)
    return np.r_[0, np.maximum.accumulate(tier)[:-1]] if tier.size else tier
