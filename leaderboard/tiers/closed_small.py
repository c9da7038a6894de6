"""The closed-form rank sets of a small board with numpy: every pair at once, nothing compiled.

The block searches of :mod:`~leaderboard.tiers.closed_sets` are compiled kernels (about 13-15 s
of CPU to compile on a fresh install, half the first run of ``analyze --example``) built to
avoid visiting E^2 pairs on boards of thousands of entries. Up to :data:`SMALL` entries the
E x E pairs cost less than the searches' bookkeeping, so the plain step-downs over all pairs are run here
instead, with the same
arithmetic as the kernels (:func:`~leaderboard.tiers._block_kernels.se_pair`, ``d * (1 / se)``
for a centred replicate, ``gap / se`` for t; errors in float64), so the answers are the same
bits: the same sets, critical values, rounds and verdicts (tests/tiers/test_closed_sets.py
compares both with each other and with a brute force).

Memory: the marginal step-down holds its entry's two sides, each the size of the (E, R) error
array, at a time; the simultaneous pass over all pairs goes in chunks of 16 MB.
"""
from __future__ import annotations

import numpy as np

# Entries up to which a board takes the numpy step-downs. Raised from 64 (issue 27): warm, the
# whole ``analyze`` of real boards of 79, 129, 175 and 207 entries took 3.2, 4.5, 3.8 and 5.3 s
# with numpy against 4.6, 6.2, 6.3 and 10.7 s with the block searches (the same JSON); at 200
# entries the two were even (5.5 against 5.9 s and 3.8 against 3.2 s of CPU) and at 358 the
# block searches were five times faster: every pass here visits E^2 pairs x replicates.
SMALL = 160
_CELLS = 1 << 21  # values per replicate chunk of a pass over all pairs (16 MB of float64)
_GATHER = 1 << 14  # pairs x replicates up to which the maxima take one gather (128 kB)


def se_matrix(sd: np.ndarray, rho: float) -> np.ndarray:
    """``se[j, k]`` as :func:`~leaderboard.tiers._block_kernels.se_pair` computes it (the
    smaller SD first, so that the matrix is symmetric to the bit).

    Examples
    --------
    >>> se_matrix(np.array([0.03, 0.04]), 0.0).round(3).tolist()
    [[0.042, 0.05], [0.05, 0.057]]
    """
    lo, hi = np.minimum.outer(sd, sd), np.maximum.outer(sd, sd)
    var = lo ** 2 + hi ** 2 - 2 * rho * lo * hi
    return np.sqrt(np.maximum(var, 0.0))


def t_matrix(point: np.ndarray, se: np.ndarray) -> np.ndarray:
    """``t[j, k]`` = (point_j - point_k) / se_jk; se = 0 gives 0, +inf or -inf by the gap.

    Examples
    --------
    >>> t_matrix(np.array([1.0, 0.9]), np.array([[0.0, 0.05], [0.05, 0.0]])).tolist()
    [[0.0, 1.9999999999999996], [-1.9999999999999996, 0.0]]
    """
    gap = np.subtract.outer(point, point)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(se > 0, gap / se, np.where(gap > 0, np.inf, np.where(gap < 0, -np.inf,
                                                                              0.0)))


def inverse_se(se: np.ndarray) -> np.ndarray:
    """``1 / se``, and 0 where a pair's standard error is 0 (its products then count as 0): the
    studentising factors of the small boards' max-t passes, here and in
    :mod:`~leaderboard.tiers.boot_small`.

    Examples
    --------
    >>> inverse_se(np.array([[0.0, 0.5], [0.5, 0.0]])).tolist()
    [[0.0, 2.0], [2.0, 0.0]]
    """
    with np.errstate(divide="ignore"):
        return np.where(se > 0, 1.0 / se, 0.0)


def kth_smallest(m: np.ndarray, kq: int) -> float:
    """The ``kq``-th smallest of the replicate maxima ``m``: the max-t critical value.

    Examples
    --------
    >>> kth_smallest(np.array([3.0, 1.0, 2.0, 5.0]), 3)
    3.0
    """
    return float(np.partition(m, kq - 1)[kq - 1])


def pairs_max(e: np.ndarray, a: np.ndarray, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """Replicate maxima of (e_row - e_col) * a over the listed pairs (-inf where none).

    Every pair in one gather when that is small (under :data:`_GATHER` values); else one row's
    pairs at a time (``rows`` as ``np.nonzero`` lists them, grouped by row): the same products
    without the (pairs x replicates) temporaries, whose memory (page faults, once other work
    has given the heap back) cost more than the arithmetic: a family-wise error test's 1,500
    step-downs of 20 entries 5.2 -> 2.2 s, boards of 60 and 160 entries 2.2x and 1.5x faster
    (``benchmarks/bench_tier_paths.py``). The maximum of the same values is the same bits.

    Examples
    --------
    >>> e = np.array([[1.0, 2.0], [0.0, 3.0], [0.5, 0.5]])
    >>> pairs_max(e, np.ones((3, 3)), np.array([0, 0]), np.array([1, 2])).tolist()
    [1.0, 1.5]
    """
    n_rep = e.shape[1]
    m = np.full(n_rep, -np.inf)
    if rows.size == 0:
        return m
    if rows.size * n_rep <= _GATHER:
        m[:] = ((e[rows] - e[cols]) * a[rows, cols][:, None]).max(axis=0)
        return m
    starts = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]]).tolist()
    runs = [(int(rows[s]), cols[s:t], a[rows[s], cols[s:t]][:, None])
            for s, t in zip(starts, starts[1:] + [rows.size])]
    step = max(1, _CELLS // e.shape[0])
    for r0 in range(0, n_rep, step):
        block, out = e[:, r0:r0 + step], m[r0:r0 + step]
        for j, c, coef in runs:
            x = block[c]                       # e_col, then e_row - e_col in place
            np.subtract(block[j], x, out=x)
            x *= coef
            np.maximum(out, x.max(axis=0), out=out)
    return m


def _board(err, point, sd, rho):
    se = se_matrix(np.asarray(sd, np.float64), rho)
    return np.asarray(err, np.float64), t_matrix(point, se), inverse_se(se)


def simultaneous(err, point, sd, rho, kq):
    """The max-t step-down over all ordered pairs: (beats, beaten, rounds, c, first-round
    rejections), as :func:`~leaderboard.tiers.closed_sets.simultaneous`.

    Examples
    --------
    >>> err = np.random.default_rng(0).normal(0, 0.01, (3, 400))
    >>> beats, beaten, rounds, c, first = simultaneous(err, np.array([1.0, 0.5, 0.49]),
    ...                                                np.full(3, 0.01), 0.0, 380)
    >>> beats.tolist(), beaten.tolist(), rounds
    ([2, 0, 0], [0, 1, 1], 2)
    """
    e, t, a = _board(err, point, sd, rho)
    n = point.size
    off = ~np.eye(n, dtype=bool)
    c_prev, done, steps, first = np.inf, -1, 0, None
    while True:
        rows, cols = np.nonzero(off & (t <= c_prev))   # the hypotheses still standing
        c = kth_smallest(pairs_max(e, a, rows, cols), kq)
        steps += 1
        shown = off & (t > c)                          # j shown better than k
        total = int(shown.sum())
        first = total if first is None else first
        if total == done:
            break
        done, c_prev = total, c
    return shown.sum(axis=1), shown.sum(axis=0), steps, c, first


def marginal(err, point, sd, rho, kq):
    """Each entry's own step-down over {(i, j), (j, i)}: (beats, beaten, rounds, critical
    values, first-round rejections), as :func:`~leaderboard.tiers.closed_sets.marginal`.

    Examples
    --------
    >>> err = np.random.default_rng(0).normal(0, 0.01, (3, 400))
    >>> beats, beaten, rounds, crit, first = marginal(err, np.array([1.0, 0.5, 0.49]),
    ...                                               np.full(3, 0.01), 0.0, 380)
    >>> beats.tolist(), beaten.tolist()
    ([2, 0, 0], [0, 1, 1])
    """
    e, t, a = _board(err, point, sd, rho)
    n = point.size
    beats, beaten = np.zeros(n, np.int64), np.zeros(n, np.int64)
    steps, crit, first = np.zeros(n, np.int64), np.zeros(n), 0
    for i in range(n):
        others = np.arange(n) != i
        up = (e - e[i]) * a[:, i][:, None]     # j over i: (e_j - e_i) / se
        down = (e[i] - e) * a[i][:, None]      # i over j
        t_up, t_down = t[:, i], t[i]
        c_prev, done = np.inf, -1
        while True:
            m = np.maximum(rows_max(up, others & (t_up <= c_prev)),
                           rows_max(down, others & (t_down <= c_prev)))
            c = kth_smallest(m, kq)
            steps[i] += 1
            beaten[i], beats[i] = (others & (t_up > c)).sum(), (others & (t_down > c)).sum()
            if steps[i] == 1:
                first += int(beats[i] + beaten[i])
            if beats[i] + beaten[i] == done:
                break
            done, c_prev = beats[i] + beaten[i], c
        crit[i] = c
    return beats, beaten, int(steps.max()), crit, first


def rows_max(values: np.ndarray, keep: np.ndarray) -> np.ndarray:
    """Each replicate's maximum over the rows of ``values`` that ``keep`` marks (-inf where none
    is kept).

    Examples
    --------
    >>> values = np.array([[1.0, 4.0], [3.0, 2.0]])
    >>> rows_max(values, np.array([True, True])).tolist(), rows_max(values, np.zeros(2, bool))
    ([3.0, 4.0], array([-inf, -inf]))
    """
    if not keep.any():
        return np.full(values.shape[1], -np.inf)
    return values[keep].max(axis=0)


def best(err, point, sd, rho, kq) -> np.ndarray:
    """The max-t test of each entry's one-sided family {(j, i): j != i}: True where kept.

    Examples
    --------
    >>> err = np.random.default_rng(0).normal(0, 0.01, (3, 400))
    >>> best(err, np.array([1.0, 0.99, 0.5]), np.full(3, 0.01), 0.0, 380).tolist()
    [True, True, False]
    """
    e, t, a = _board(err, point, sd, rho)
    n = point.size
    keep = np.zeros(n, dtype=bool)
    for i in range(n):
        others = np.arange(n) != i
        m = rows_max((e - e[i]) * a[:, i][:, None], others)
        tmax = t[others, i].max() if n > 1 else -np.inf
        keep[i] = tmax <= kth_smallest(m, kq)
    return keep


def layers(point, sd, rho, c) -> np.ndarray:
    """Tiers: 1 + the highest tier among the entries shown better (t_jk > c, scoring higher),
    in rank order, as :func:`~leaderboard.tiers._block_searches.closed_layers`.

    Examples
    --------
    >>> layers(np.array([1.0, 0.99, 0.5]), np.full(3, 0.01), 0.0, 2.5).tolist()
    [1, 1, 2]
    """
    t = t_matrix(point, se_matrix(np.asarray(sd, np.float64), rho))
    n = point.size
    tier = np.zeros(n, dtype=np.int64)
    for k in range(n):
        above = (point > point[k]) & (t[:, k] > c)
        tier[k] = 1 + (tier[above].max() if above.any() else 0)
    return tier
