"""What an odd row of a board is, from what its data show (issue 39 item 6).

Two questions the sanity flags (:mod:`leaderboard.flags`) ask of a row far from the rest:

* **Is it an entry at all?** A published results matrix can end with a line that is not a model:
  ProteinGym's ends with "Number of Mutants" (assay sizes, 63 to 536,962) among Spearman
  correlations in [-1, 1]. Ranked as a model it is "the best" by orders of magnitude.
  :func:`foreign_rows` finds rows whose values lie far outside the range of the board's typical
  rows; the pipelines set them aside (out of the ranking, the tiers and the best set) and say why.
* **What kind of entry scores far worse than the rest?** A weak baseline (a constant prediction,
  the majority class, a logistic regression) is an entry, not a broken run.
  :func:`item_kinds` reads the kind from a model's per-item values: the same value on every item
  (constant), values that do not follow the other models' across items (no signal: a random
  baseline or a failed run), or values that do (a weaker model). The scores-only and submissions
  boards name a constant prediction by its score (:func:`leaderboard.flags.board_flags`).

Nothing here imports the report; :mod:`leaderboard.flags` words the findings.
"""
from __future__ import annotations

import numpy as np

FOREIGN_GAP = 30.0    # outside the typical rows' range by this many times its scale (orders of
                      # magnitude: no real board of /work/shared/data has such a row at 30) ...
FOREIGN_SHARE = 0.5   # ... for at least this share of a row's values
FOREIGN_MIN_ROWS = 4  # fewer rows than this: no typical range to judge by


def typical_range(values: np.ndarray) -> tuple[float, float, float] | None:
    """The range ``(low, high)`` of the values of the board's typical rows, and its scale.

    ``values``: one row per entry (its per-item values, NaN where it has none; or one column,
    its score). The typical rows are those whose median lies within the interquartile range of
    the rows' medians (at least half the rows, so one or two odd rows cannot move it). The scale
    is the larger of the range's width and its largest magnitude, so a board whose typical rows
    agree (every one scoring 1 on every item) still has a scale. None with fewer than
    :data:`FOREIGN_MIN_ROWS` rows with values.

    Examples
    --------
    >>> rows = np.array([[0.1, 0.3], [0.2, 0.5], [0.0, 0.4], [0.3, 0.6], [63.0, 5400.0]])
    >>> typical_range(rows)
    (0.0, 0.6, 0.6)
    """
    v = np.asarray(values, dtype=float).reshape(len(values), -1)
    v = v[np.isfinite(v).any(axis=1)]
    if len(v) < FOREIGN_MIN_ROWS:
        return None
    gaps = np.isnan(v).any()     # nan-aware only when needed: 4x faster on a full matrix
    medians = np.nanmedian(v, axis=1) if gaps else np.median(v, axis=1)
    q1, q3 = np.percentile(medians, [25, 75])
    inner = v[(medians >= q1) & (medians <= q3)]
    low, high = ((float(np.nanmin(inner)), float(np.nanmax(inner))) if gaps
                 else (float(inner.min()), float(inner.max())))
    return low, high, max(high - low, abs(low), abs(high))


def foreign_rows(values: np.ndarray, higher_is_better: bool | None = None) -> np.ndarray:
    """Which rows are not entries: at least :data:`FOREIGN_SHARE` of their values lie beyond
    the typical rows' range (:func:`typical_range`) by more than :data:`FOREIGN_GAP` times its
    scale.

    ``values``: one row per entry (its per-item values, NaN where it has none; or one column,
    its score on a board of scores). ``higher_is_better``: only rows far on the better side are
    judged, where they would be ranked first (a row far on the worse side is flagged as far
    worse, its kind named); None judges both sides.

    Examples
    --------
    >>> spearman = np.array([[0.1, 0.4, -0.1], [0.3, 0.5, 0.2], [0.2, 0.6, 0.0],
    ...                      [0.0, 0.1, -0.2], [63.0, 536962.0, 1200.0]])
    >>> foreign_rows(spearman).tolist()
    [False, False, False, False, True]
    >>> foreign_rows(np.array([[0.70], [0.71], [0.72], [0.73], [0.9]]), True).tolist()
    [False, False, False, False, False]
    """
    v = np.asarray(values, dtype=float).reshape(len(values), -1)
    typical = typical_range(v)
    if typical is None:
        return np.zeros(len(v), dtype=bool)
    low, high, scale = typical
    count = np.maximum(np.isfinite(v).sum(axis=1), 1)
    with np.errstate(invalid="ignore"):
        above = (v > high + FOREIGN_GAP * scale).sum(axis=1) / count
        below = (v < low - FOREIGN_GAP * scale).sum(axis=1) / count
    if higher_is_better is not None:    # the better side only
        above, below = (above, 0 * below) if higher_is_better else (0 * above, below)
    return (np.maximum(above, below) >= FOREIGN_SHARE) & np.isfinite(v).any(axis=1)


def item_kinds(values: np.ndarray, rows: np.ndarray) -> list[str]:
    """The kind of each of ``rows`` (indices into ``values``, shape (models, items)), read from
    its per-item values: ``"constant"`` (one value on every item), ``"no_signal"`` (its values
    do not follow the other models' mean per item: correlation under ``2 / sqrt(items)``, about
    the 5% level of no association) or ``"follows"`` (a weaker model whose values do).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> difficulty = rng.random(200)
    >>> good = (rng.random((5, 200)) < 0.3 + 0.6 * difficulty).astype(float)
    >>> weak = (rng.random(200) < 0.1 + 0.3 * difficulty).astype(float)
    >>> board = np.vstack([good, weak, np.zeros(200), (rng.random(200) < 0.25).astype(float)])
    >>> item_kinds(board, np.array([5, 6, 7]))
    ['follows', 'constant', 'no_signal']
    """
    values = np.asarray(values, dtype=float)
    n = values.shape[1]
    total = np.nansum(values, axis=0)
    count = np.isfinite(values).sum(axis=0)
    kinds = []
    for k in rows:
        v = values[k]
        ok = np.isfinite(v)
        if np.unique(v[ok]).size <= 1:
            kinds.append("constant")
            continue
        others = (total - np.where(ok, v, 0)) / np.maximum(count - ok, 1)
        both = ok & np.isfinite(others)
        r = _correlation(v[both], others[both])
        kinds.append("follows" if r is not None and r > 2 / np.sqrt(max(n, 1)) else "no_signal")
    return kinds


def _correlation(x: np.ndarray, y: np.ndarray) -> float | None:
    """Pearson's correlation, or None when either has no spread."""
    if x.size < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return None
    return float(np.corrcoef(x, y)[0, 1])
