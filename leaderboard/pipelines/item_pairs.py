"""Models on different item sets (``--items-policy pairwise``): each pair compared on the items
both have.

The tiers and rank sets of :mod:`leaderboard.tiers` take one vector of scores and its joint
replicates; with ragged item sets the only such vector is each model's mean over its own items,
which mixes skill with the difficulty of the items a model happened to get. So pairwise mode adds
what that machinery cannot say: for every pair, the mean difference on the items both have, with
intervals that hold for all pairs at once, and from them each model's *pairwise rank*: 1 + the
number of models better than it on the items they share.

Method: sign flips of the shared items' differences, studentised per draw (issue 39). Pair p's
difference ``d`` is the mean of its per-item differences on its ``n`` shared items, with the usual
standard error ``se`` (of the cluster totals, CR1, when items are clustered: ``G / (G - 1)``
times the sum of the squared residual totals, over ``n**2``). A draw flips the signs of the
differences item by item (cluster by cluster), the same signs for every pair, and studentises
again: ``T* = mean* / se*`` with ``se*`` computed from the flipped differences as ``se`` is from
the data. A pair's interval is ``d +- c * se`` with ``c`` the ``1 - alpha`` quantile of
``max_pairs |T*|`` (single-step max-t). When no two models differ (each pair's differences
symmetric about 0) the draws are the statistic's exact randomization distribution (draw 0 the
identity), so no interval excludes 0 with probability at least ``1 - alpha``, whatever the
number of items; with real differences each draw is still studentised, with the t-like tails of
the real statistic. The bootstrap it replaced (the differences over a fixed bootstrap SD) held
69-94% of null benchmarks "all at once", this 94-97.5% (docs/calibration.md). A
model's pairwise rank set ``[1 + #shown better than it, K - #shown worse]`` then holds for every
model at once with that probability. A pair with fewer than :data:`MIN_SHARED` shared items, or
no spread, gets no interval (missing, with the reason) and no verdict.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from leaderboard.params import DEFAULT_RESAMPLE


MIN_SHARED = 10      # shared items below which a pair is not compared (too_few_units' floor)
MAX_MODELS = 150     # pairs grow as K^2: 11,175 at 150 models
MAX_PAIR_CELLS = 1 << 24   # pairs x items: the bootstrap's work (2 R flops a cell), 15 s or so
CHUNK_CELLS = 1 << 21      # pairs x items prepared at once (2 float64 columns: 32 MB)


@dataclass(frozen=True)
class PairwiseTable:
    """Every pair of models on the items both have.

    Attributes
    ----------
    names : tuple of str
        Models, in the analysis's rank order.
    first, second : ndarray of int
        The pair's models (indices into ``names``).
    shared : ndarray of int
        Items both have.
    difference : ndarray
        ``first``'s mean minus ``second``'s on the shared items (NaN below :data:`MIN_SHARED`).
    low, high : ndarray
        Simultaneous interval of the difference (NaN when missing).
    critical : float
        The max-t quantile ``c``.
    rank_low, rank_high : ndarray of int
        Each model's pairwise rank set (1 + models better on shared items).
    higher_is_better : bool
    """

    names: tuple[str, ...]
    first: np.ndarray
    second: np.ndarray
    shared: np.ndarray
    difference: np.ndarray
    low: np.ndarray
    high: np.ndarray
    critical: float
    rank_low: np.ndarray
    rank_high: np.ndarray
    higher_is_better: bool
    alpha: float

    def shown_better(self) -> np.ndarray:
        """+1 where ``first`` is shown better than ``second``, -1 worse, 0 not shown."""
        sign = 1 if self.higher_is_better else -1
        with np.errstate(invalid="ignore"):
            return np.where(sign * self.low > 0, 1, np.where(sign * self.high < 0, -1, 0))

    def top_set(self) -> tuple[str, ...]:
        """Models no other model is shown better than on the items they share."""
        return tuple(n for n, lo in zip(self.names, self.rank_low) if lo == 1)

    def sentence(self) -> str:
        """What the table found, in one paragraph (the page and stderr)."""
        verdicts = self.shown_better()
        compared = int(np.isfinite(self.low).sum())
        level = f"{1 - self.alpha:.0%}"
        top = self.top_set()
        shown = ", ".join(top[:8]) + (f" and {len(top) - 8:,} more" if len(top) > 8 else "")
        return (f"Each pair on the items both have ({len(self.first):,} pairs, {compared:,} "
                f"with at least {MIN_SHARED} shared items): {int((verdicts != 0).sum()):,} pairs "
                f"differ at {level} simultaneous confidence (max-t over all pairs, c = "
                f"{self.critical:.2f}). For {len(top):,} of the {len(self.names):,} models no "
                f"other is shown better on the items they share: {shown}. A model's pairwise "
                "rank is 1 + the models "
                "shown better than it on shared items; the JSON's items.pairwise lists every "
                "pair.")

    def to_json(self) -> dict:
        """The JSON's ``items.pairwise``."""
        def num(x):
            return None if not math.isfinite(float(x)) else float(x)
        verdicts = self.shown_better()
        return {"method": "sign flips of the shared items' differences, studentised per draw, "
                          "single-step max-t simultaneous intervals over all pairs",
                "alpha": self.alpha,
                "critical": num(self.critical), "min_shared": MIN_SHARED,
                "models": [{"model": n, "pairwise_rank_low": int(lo), "pairwise_rank_high": int(hi)}
                           for n, lo, hi in zip(self.names, self.rank_low, self.rank_high)],
                "pairs": [{"a": self.names[a], "b": self.names[b], "shared_items": int(s),
                           "difference": num(d), "low": num(lo), "high": num(hi),
                           "a_better": int(v)}
                          for a, b, s, d, lo, hi, v in zip(
                              self.first, self.second, self.shared, self.difference, self.low,
                              self.high, verdicts)]}


def pairwise_on_shared(values: np.ndarray, names: list[str], *, replicates: int, seed: int,
                       alpha: float, higher_is_better: bool, resample: str = DEFAULT_RESAMPLE,
                       groups: np.ndarray | None = None) -> PairwiseTable | None:
    """Every pair's difference on the items both have, with simultaneous intervals.

    Parameters
    ----------
    values : ndarray
        (models, items), NaN where a model has no value; models in rank order.
    names : list of str
    replicates, seed : int
        Sign-flip draws (the flips of :mod:`~leaderboard.tiers.sign_flips`, by seed).
    alpha : float
    higher_is_better : bool
    resample, groups
        ``plain``, or ``grouped`` with each item's cluster.

    Returns
    -------
    PairwiseTable, or None above :data:`MAX_MODELS` models or :data:`MAX_PAIR_CELLS` pairs x
    items (:func:`too_many_pairs` says why).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> v = (rng.random((3, 400)) < np.array([[0.9], [0.5], [0.5]])).astype(float)
    >>> v[2, :200] = np.nan                               # c has half the items
    >>> table = pairwise_on_shared(v, ["a", "b", "c"], replicates=400, seed=0, alpha=0.05,
    ...                            higher_is_better=True)
    >>> table.shared.tolist(), table.top_set()
    ([400, 200, 200], ('a',))
    """
    k, n_items = values.shape
    if k < 2 or too_many_pairs(k, n_items):
        return None
    first, second = np.triu_indices(k, 1)
    code = (np.arange(n_items) if groups is None or resample != "grouped"
            else np.unique(np.asarray(groups), return_inverse=True)[1].ravel())
    units = int(code.max()) + 1
    parts = [_pair_stats(values[first[c]] - values[second[c]], code, units, replicates, seed)
             for c in _chunks(len(first), max(n_items, replicates))]
    point, se, shared = (np.concatenate([part[j] for part in parts]) for j in range(3))
    worst = np.max(np.stack([part[3] for part in parts]), axis=0)    # max |T*| per draw
    usable = (shared >= MIN_SHARED) & np.isfinite(se) & (se > 0)
    point = np.where(shared >= MIN_SHARED, point, np.nan)
    critical = math.nan
    low = high = np.full(len(point), np.nan)
    if usable.any():
        critical = float(np.quantile(worst, 1 - alpha))
        low = np.where(usable, point - critical * se, np.nan)
        high = np.where(usable, point + critical * se, np.nan)
    table = PairwiseTable(names=tuple(names), first=first, second=second, shared=shared,
                          difference=point, low=low, high=high, critical=critical,
                          rank_low=np.ones(k, dtype=int), rank_high=np.full(k, k),
                          higher_is_better=higher_is_better, alpha=alpha)
    verdict = table.shown_better()
    better_than = np.zeros(k, dtype=int)   # models shown worse than it
    worse_than = np.zeros(k, dtype=int)    # models shown better than it
    np.add.at(better_than, first[verdict > 0], 1)
    np.add.at(worse_than, second[verdict > 0], 1)
    np.add.at(better_than, second[verdict < 0], 1)
    np.add.at(worse_than, first[verdict < 0], 1)
    return PairwiseTable(**{**table.__dict__, "rank_low": 1 + worse_than,
                            "rank_high": k - better_than})


def _pair_stats(diffs: np.ndarray, code: np.ndarray, units: int, replicates: int, seed: int):
    """For a chunk of pairs' per-item differences (NaN: not shared): mean, SE (CR1 over the
    units), shared items, and each draw's largest ``|T*|`` over the chunk's usable pairs.

    Per pair: unit totals ``D_c`` of the differences over the unit's ``m_c`` shared items, ``G``
    units with a shared item. A draw's signs ``s_c`` give the flipped mean ``S / n`` with ``S =
    sum s_c D_c``, and with ``M = sum s_c m_c D_c`` its own residuals' sum of squares ``Q - 2
    (S / n) M + (S / n)**2 sum m_c**2`` (``Q = sum D_c**2``), whence its SE as the data's.
    """
    from leaderboard.tiers.sign_flips import flip_block
    from leaderboard.noise.rng import BLOCK

    has = np.isfinite(diffs)
    shared = has.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(shared > 0, np.where(has, diffs, 0.0).sum(axis=1) / shared, np.nan)
    # the differences themselves, not their residuals: flipping them is a randomization test
    # of "no pair differs", exact for all pairs at once (each draw studentised as the data are)
    resid = np.where(has, diffs, 0.0)
    e = _unit_sums(resid, code, units)                    # (pairs, units) difference totals
    m = _unit_sums(has.astype(float), code, units)        # shared items per unit
    g = (m > 0).sum(axis=1)
    q, w = (e * e).sum(axis=1), (m * m).sum(axis=1)
    n = np.maximum(shared, 1)
    cr1 = np.where(g > 1, g / np.maximum(g - 1, 1), np.nan)
    # the data's SE: the residual totals D_c - m_c d, as each draw's below
    se = np.sqrt(cr1 * np.maximum(q - 2 * mean * (m * e).sum(axis=1) + mean ** 2 * w, 0.0)) / n
    ok = (shared >= MIN_SHARED) & (se > 0)
    worst = np.zeros(replicates)
    if ok.any():
        e, em, q, w, n, cr1 = e[ok], e[ok] * m[ok], q[ok], w[ok], n[ok], cr1[ok]
        for b in range(-(-replicates // BLOCK)):
            r0 = b * BLOCK
            signs = flip_block(units, seed, b)[:replicates - r0]
            shift = (e @ signs.T) / n[:, None]                          # S / n
            ss = q[:, None] - 2 * shift * (em @ signs.T) + shift ** 2 * w[:, None]
            with np.errstate(invalid="ignore", divide="ignore"):
                t = np.abs(shift) / (np.sqrt(cr1[:, None] * np.maximum(ss, 0.0)) / n[:, None])
            t = np.where(np.isfinite(t), t, 0.0)          # a draw with no spread: no deviation
            worst[r0:r0 + signs.shape[0]] = t.max(axis=0)
    return mean, se, shared, worst


def _unit_sums(x: np.ndarray, code: np.ndarray, units: int) -> np.ndarray:
    """Sums of ``x``'s columns by unit (``code``: each item's unit, every unit used)."""
    if units == x.shape[1]:
        return x if np.array_equal(code, np.arange(units)) else x[:, np.argsort(code)]
    order = np.argsort(code, kind="stable")
    starts = np.searchsorted(code[order], np.arange(units))
    return np.add.reduceat(x[:, order], starts, axis=1)


def too_many_pairs(models: int, items: int) -> str | None:
    """Why no pairwise table is computed for ``models`` x ``items``, or None.

    Examples
    --------
    >>> too_many_pairs(60, 1000) is None, too_many_pairs(200, 10)[:28]
    (True, 'it compares up to 150 models')
    """
    if models > MAX_MODELS:
        return f"it compares up to {MAX_MODELS} models, not {models:,}"
    cells = models * (models - 1) // 2 * items
    if cells > MAX_PAIR_CELLS:
        return (f"{models * (models - 1) // 2:,} pairs x {items:,} items is more bootstrap work "
                f"than it takes on (at most {MAX_PAIR_CELLS:,} pair-items)")
    return None


def _chunks(n_pairs: int, n_items: int):
    step = max(1, CHUNK_CELLS // max(n_items, 1))
    return [slice(start, start + step) for start in range(0, n_pairs, step)]
