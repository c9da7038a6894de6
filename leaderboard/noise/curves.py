"""The seeds' figures for a binary target: ROC, precision-recall, CAP (cumulative accuracy
profile) and cost curves of the leading entries, with pointwise bootstrap bands.

Every curve is a function of the cumulative true and false positives down the ranking of one
entry's scores (rows sorted by score, tied scores taken together, so a tie is one diagonal step,
as scikit-learn draws it). With row weights (a bootstrap replicate) the counts are weighted sums,
so a block of replicates is one weight matrix and one cumulative sum per entry: no loop over
replicates. The weights are those of :func:`~leaderboard.noise.bootstrap.paired_bootstrap` (same
plan, seed and stream), so replicate ``r`` of a curve comes from the very rows of replicate ``r``
of the scores.

Curves are read on fixed grids (:data:`GRID`: 0 to 1 in steps of 0.01):

- ROC: the true positive rate at each false positive rate, on the straight segments between the
  ROC points (at a vertical segment, its top).
- PR: the precision of the first threshold whose recall reaches each recall (the step function
  average precision integrates).
- CAP: the share of positives among the top-scored share of rows (seed 004), linearly between
  points. Its accuracy ratio AR is the area between it and the diagonal over that of the perfect
  model; AR = Gini = 2 AUC - 1. The Lorenz curve of seed 004 (cumulative share of negatives
  across, of positives up) is the ROC curve itself.
- Cost (seed 001): the normalised expected cost at each probability-cost PC of the best
  threshold, the lower envelope of the lines (0, FPR) to (1, 1 - TPR) of the ROC points.

Bands are pointwise percentile intervals of the replicates at each grid point: each holds the
curve's value at that point with probability about ``1 - alpha`` (not the whole curve at once).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from leaderboard.params import DEFAULT_ALPHA, DEFAULT_RESAMPLE, check_alpha
from leaderboard.noise._curve_kernels import walk
from leaderboard.noise.weights import STREAM, count_block, resampling
from leaderboard.noise.rng import BLOCK

GRID = np.linspace(0.0, 1.0, 101)


@dataclass(frozen=True)
class EntryCurves:
    """One entry's curves on :data:`GRID`.

    Attributes
    ----------
    roc, pr, cap, cost : ndarray, shape (G,)
        TPR at each FPR, precision at each recall, share of positives at each share of rows,
        normalised expected cost at each probability-cost.
    auc, gini, ar : float
        Area under the ROC curve, Gini = 2 AUC - 1 and the CAP's accuracy ratio (equal to Gini).
    roc_band, pr_band, cap_band : ndarray, shape (2, G), or None
        Pointwise bootstrap intervals (low, high); None when the entry was not resampled.
    auc_interval : tuple of float or None
        Percentile interval of the AUC over the same replicates.
    """

    roc: np.ndarray
    pr: np.ndarray
    cap: np.ndarray
    cost: np.ndarray
    auc: float
    gini: float
    ar: float
    roc_band: np.ndarray | None = None
    pr_band: np.ndarray | None = None
    cap_band: np.ndarray | None = None
    auc_interval: tuple[float, float] | None = None


@dataclass(frozen=True)
class Curves:
    """Curves of some entries (``entries[i]`` is table row ``rows[i]``) and how they were made."""

    rows: tuple[int, ...]
    entries: tuple[EntryCurves, ...]
    prevalence: float
    replicates: int
    alpha: float


def binary_target(y: np.ndarray) -> bool:
    """Whether ``y`` is a 0/1 target with both classes present.

    Examples
    --------
    >>> binary_target(np.array([0, 1, 1])), binary_target(np.array([0, 1, 2]))
    (True, False)
    """
    y = np.asarray(y)
    if y.ndim != 1 or not np.issubdtype(y.dtype, np.number):
        return False
    values = np.unique(y)
    return values.size == 2 and set(values.tolist()) == {0, 1}


def counts(y: np.ndarray, score: np.ndarray, weights: np.ndarray | None = None
           ) -> tuple[np.ndarray, np.ndarray]:
    """Cumulative (weighted) true and false positives at each distinct threshold, highest score
    first, each row of ``weights`` (shape (B, n); default one row of ones) a replicate: arrays of
    shape (B, m + 1), column 0 the empty selection.

    Examples
    --------
    >>> tp, fp = counts(np.array([1, 0, 1, 0]), np.array([0.9, 0.8, 0.8, 0.1]))
    >>> tp.tolist(), fp.tolist()
    ([[0.0, 1.0, 2.0, 2.0]], [[0.0, 0.0, 1.0, 2.0]])
    """
    y = np.asarray(y, dtype=float)
    score = np.asarray(score, dtype=float)
    order = np.argsort(-score, kind="stable")
    ranked = score[order]
    ends = np.r_[np.flatnonzero(ranked[1:] != ranked[:-1]), ranked.size - 1]   # last of a tie
    w = np.ones((1, y.size)) if weights is None else np.atleast_2d(weights)[:, order]
    tp = np.cumsum(w * y[order], axis=1)[:, ends]
    fp = np.cumsum(w, axis=1)[:, ends] - tp   # every row counted, less the positives
    zero = np.zeros((w.shape[0], 1))
    return np.hstack([zero, tp]), np.hstack([zero, fp])


def cost_curve(fpr: np.ndarray, tpr: np.ndarray, grid: np.ndarray = GRID,
               chunk: int = 8192) -> np.ndarray:
    """The lower envelope, at each probability-cost, of the normalised expected cost lines
    ``(1 - TPR) PC + FPR (1 - PC)`` of one curve's ROC points (1-D arrays); in chunks of points.

    Examples
    --------
    >>> cost_curve(np.array([0, 0, 1]), np.array([0, 1, 1]), np.array([0, 0.5, 1]))
    array([0., 0., 0.])
    """
    out = np.full(grid.size, np.inf)
    for s in range(0, fpr.size, chunk):
        f, t = fpr[s:s + chunk], tpr[s:s + chunk]
        lines = (1 - t)[None, :] * grid[:, None] + f[None, :] * (1 - grid)[:, None]
        out = np.minimum(out, lines.min(axis=1))
    return out


def _prepared(y: np.ndarray, score: np.ndarray):
    """An entry's ranking for the walk: rows by descending score, positives, ends of ties."""
    order = np.argsort(-np.asarray(score, dtype=float), kind="stable")
    ranked = np.asarray(score, dtype=float)[order]
    ends = np.r_[ranked[1:] != ranked[:-1], True]
    return order, y[order] > 0.5, ends


def point_curves(y: np.ndarray, score: np.ndarray) -> EntryCurves:
    """One entry's curves on the test rows (no resampling)."""
    y = np.asarray(y, dtype=float)
    ones = np.ones((1, y.size))
    _, positive, ends = _prepared(y, score)
    # unit weights as the bytes the bootstrap's counts are (the same values): one compiled walk
    roc, pr, cap, auc, ar = walk(ones.astype(np.uint8), ones.sum(axis=1), ones @ y, positive,
                                 ends, GRID)
    tp, fp = counts(y, score)
    return EntryCurves(roc=roc[0], pr=pr[0], cap=cap[0],
                       cost=cost_curve(fp[0] / fp[0, -1], tp[0] / tp[0, -1]),
                       auc=float(auc[0]), gini=float(2 * auc[0] - 1), ar=float(ar[0]))


def _curves_iv(y, preds, replicates, alpha):
    y = np.asarray(y)
    if not binary_target(y):
        raise ValueError("curves need a 0/1 target with both classes")
    for i, p in enumerate(preds):
        p = np.asarray(p)
        if p.shape != y.shape or not np.issubdtype(p.dtype, np.number):
            raise ValueError(f"entry {i}: curves need one numeric score per test row")
    check_alpha(alpha)   # the one check of an error rate (a ValueError)
    if int(replicates) < 0:
        raise ValueError("replicates must be >= 0")
    return y.astype(float)


def resampled_curves(y: np.ndarray, preds: Sequence[np.ndarray], *, replicates: int,
                     seed: int, resample: str = DEFAULT_RESAMPLE, strata: np.ndarray | None = None,
                     groups: np.ndarray | None = None, stream: int = STREAM,
                     alpha: float = DEFAULT_ALPHA) -> list[EntryCurves]:
    """Each entry's curves with pointwise bootstrap bands over ``replicates`` replicates drawn as
    :func:`~leaderboard.noise.bootstrap.paired_bootstrap` draws them (same ``seed``,
    ``resample``, ``strata``, ``groups`` and ``stream``: the same rows, replicate by
    replicate). Replicates without both classes are left out of the bands.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 400)
    >>> c, = resampled_curves(y, [y + rng.normal(size=400)], replicates=200, seed=1)
    >>> bool(np.all(c.roc_band[0] <= c.roc + 1e-12) and np.all(c.roc <= c.roc_band[1] + 1e-12))
    True
    """
    y = _curves_iv(y, preds, replicates, alpha)
    plan = resampling(y, resample, strata, groups)
    prepared = [_prepared(y, score) for score in preds]
    parts: list[list[tuple]] = [[] for _ in preds]
    for b in range(-(-int(replicates) // BLOCK)):     # one block of weights at a time, for all
        # the replicates' row counts (bytes unless some count passes 255: 8 times less memory
        # to gather than float64 weights)
        counts_ = count_block(plan, seed, b, stream)
        totals = counts_.sum(axis=1, dtype=float)
        positives = counts_.astype(float) @ y
        for i, (order, positive, ends) in enumerate(prepared):
            # take() gives C order (counts_[:, order] is Fortran-ordered): the walk reads each
            # replicate's row in sequence, and one layout means one compiled walk
            parts[i].append(walk(counts_.take(order, axis=1), totals, positives, positive, ends,
                                 GRID))
    q = [alpha / 2, 1 - alpha / 2]
    out = []
    for score, part in zip(preds, parts):
        point = point_curves(y, score)
        roc, pr, cap, auc = (np.concatenate([p[k] for p in part])[:replicates] for k in range(4))
        roc_band, pr_band, cap_band = (column_quantiles(v, q) for v in (roc, pr, cap))
        low, high = np.nanquantile(auc, q)
        out.append(EntryCurves(point.roc, point.pr, point.cap, point.cost, point.auc, point.gini,
                               point.ar, roc_band, pr_band, cap_band,
                               auc_interval=(float(low), float(high))))
    return out


def column_quantiles(values: np.ndarray, q: Sequence[float]) -> np.ndarray:
    """``np.nanquantile(values, q, axis=0)``, the same values (the same bits, but where -0.0 and
    0.0 tie either may come first, which curves never hold), without its Python loop over the
    columns (``nanquantile`` sorts each of a 2-D array's columns alone: 1,500 calls, about
    0.2 s, for the five banded entries of a board). The values are sorted once (NaN last) and
    the columns with the same number of values go through one vectorised ``np.quantile``: the
    quantiles of a column are those of its sorted values (the same order statistics and
    interpolation). A column without values is NaN, as ``nanquantile`` gives it (without its
    warning). A band has one group, or two when some replicates lack a class.

    Examples
    --------
    >>> v = np.array([[1.0, np.nan, np.nan], [3.0, 2.0, np.nan], [2.0, 4.0, np.nan]])
    >>> column_quantiles(v, [0.5, 1.0]).tolist()
    [[2.0, 3.0, nan], [3.0, 4.0, nan]]
    """
    values = np.asarray(values, dtype=float)
    levels = np.asarray(q, dtype=float)
    ordered = np.sort(values, axis=0)
    found = values.shape[0] - np.isnan(values).sum(axis=0)
    out = np.full(levels.shape + values.shape[1:], np.nan)
    for k in np.unique(found[found > 0]).tolist():
        cols = np.flatnonzero(found == k)
        out[:, cols] = np.quantile(ordered[:k, cols], levels, axis=0)
    return out


BANDED = 5     # entries whose curves get bootstrap bands (the top of the board)
SHOWN = 20     # entries whose point curves are kept (the page shows a selected team among them)


def curves_note(kind: str, y: np.ndarray, layout: str) -> str | None:
    """Why a board gets no curves (None when it does): they need one score per row of a 0/1
    target, as AUC, log loss or average precision read them.

    Examples
    --------
    >>> curves_note("labels", np.array([0, 1, 2]), "folder")
    'ROC, precision-recall, CAP and cost curves need a binary (0/1) target; this one has 3 classes or values.'
    """
    if layout == "items":
        return ("ROC, precision-recall, CAP and cost curves need each row's predicted score; "
                "per-item results carry only each item's value.")
    if not binary_target(y):
        values = np.unique(np.asarray(y)).size if np.asarray(y).ndim == 1 else None
        what = (f"this one has {values:,} classes or values" if values is not None else
                "this one has several target columns")
        return f"ROC, precision-recall, CAP and cost curves need a binary (0/1) target; {what}."
    if kind not in ("scores", "probabilities", "labels"):
        return (f"ROC, precision-recall, CAP and cost curves need one score per row; {kind} "
                "predictions are not scores.")
    return None


def board_curves(y: np.ndarray, preds: Sequence[np.ndarray], *, replicates: int, seed: int,
                 resample: str = DEFAULT_RESAMPLE, strata: np.ndarray | None = None,
                 groups: np.ndarray | None = None, alpha: float = DEFAULT_ALPHA,
                 banded: int = BANDED, shown: int = SHOWN) -> Curves:
    """The curves of the first ``shown`` entries of ``preds`` (best first), bands for the first
    ``banded`` (drawn as :func:`resampled_curves` draws them)."""
    y = np.asarray(y, dtype=float)
    preds = list(preds)[:shown]
    top = resampled_curves(y, preds[:banded], replicates=replicates, seed=seed,
                           resample=resample, strata=strata, groups=groups, alpha=alpha)
    rest = [point_curves(y, p) for p in preds[banded:]]
    return Curves(rows=tuple(range(len(preds))), entries=tuple(top + rest),
                  prevalence=float(y.mean()), replicates=int(replicates), alpha=float(alpha))
