"""Compiled loops behind the rank metrics: one pass over each sorted stream for every replicate.

A *stream* is a sequence of row indices in score order with a small code per position, built once
per entry by :mod:`leaderboard.metrics.rank`. Streams are concatenated; ``starts`` (length S + 1)
gives where each begins. Every kernel takes the weight block ``weights`` of shape ``(R, n)`` and
returns one value per stream and replicate, shape ``(S, R)``.

How the loops are laid out, and why (measured on 2 cores, n = 100,000):

* Replicates are processed in tiles of :data:`TILE` = 4. A tile's weights are first copied into a
  row-major ``(n, 4)`` buffer, so that the four weights of one row sit together; every stream is
  then walked once per tile. Four independent running sums hide the latency of the floating-point
  adds (one replicate at a time is add-latency bound), and four scalars per state fit in registers
  (eight spill and run slower). Tiles run on threads
  (:func:`~leaderboard._threads.threaded`).
* The walk reads the tile in random order, so its speed depends on the tile staying in cache.
  Bootstrap weights are small counts: when every weight of the block is an integer in [0, 255] the
  tile is stored as uint8 (4 bytes per row instead of 32), which keeps it in cache up to millions of
  rows (measured at n = 1,000,000: 1.8 instead of 6.8 ns per row and replicate). Other weights use
  a float64 tile. Both hold the same values, so the results are identical.
* The AUC loop is branch-free: a position's code becomes two coefficients (0, 1/2 or 1), so the
  unpredictable order of positives and negatives costs no branch mispredictions. The average
  precision loop computes every threshold's precision and keeps it or not (a select, no branch):
  a branch per replicate on "positive weight here?" cost three times the loop.
* Arithmetic is IEEE float64 without fast-math, in a fixed order along each stream, separately per
  replicate: a replicate's value does not depend on which other replicates or streams share the
  call. With integer weights (bootstrap counts) every AUC sum is an exact integer or half-integer
  (below 2**53).

Measured (2 cores shared with other work, n = 100,000, 30% positives): AUC of 100 entries under
1000 bootstrap replicates takes about 9 s with two threads (13 s with one), plus about 1.3 s to
sort; a loop of scikit-learn's ``roc_auc_score`` (31-34 ms per call here) would take about an hour.
"""
from __future__ import annotations

import numpy as np
from leaderboard._jit import njit

from leaderboard._threads import threaded

TILE = 4

# AUC stream codes (ascending score order).
NEG = 0        # a negative: adds its weight to the running negative weight
POS = 1        # a positive: credited with the negative weight seen so far
NEG_HALF = 2   # a negative tied with positives: appears twice, before and after them, half each

# AP / Lorenz stream codes (descending score order): bit 0 = positive, bit 1 = last of a tie group.
POSITIVE = 1
GROUP_END = 2


@njit(cache=True)
def small_counts(weights):
    """Whether every weight is an integer in [0, 255] (exactly representable as uint8)."""
    n_rep, n = weights.shape
    for r in range(n_rep):
        for j in range(n):
            w = weights[r, j]
            if not (0.0 <= w <= 255.0) or w != np.floor(w):
                return False
    return True


# A float64 tile of up to this many rows (1 MB) stays in cache: AUC of 40 entries, 32 replicates
# took 0.08 s of CPU with either tile at 16,384 rows; at 65,536 the uint8 tile was 20-35% faster.
SMALL_TILE_ROWS = 1 << 15


def tile_prototype(weights: np.ndarray) -> np.ndarray:
    """An empty array whose dtype the kernels use for their tiles (see the module docstring):
    uint8 only where it matters, above :data:`SMALL_TILE_ROWS` rows, so that small boards (the
    bundled example) compile each kernel for one tile type, not two (a second of compile time
    on a first run; the values, hence the results, are the same either way)."""
    big = weights.shape[1] > SMALL_TILE_ROWS
    return np.empty(0, dtype=np.uint8 if big and small_counts(weights) else np.float64)


@njit(cache=True)
def _load_tile(weights, r0, tile):
    """Copy replicates r0 .. r0 + TILE - 1 into ``tile`` as ``(n, TILE)``, zeros past the end."""
    n_rep, n = weights.shape
    for j in range(n):
        for k in range(TILE):
            r = r0 + k
            tile[j * TILE + k] = weights[r, j] if r < n_rep else 0.0


def _by_tiles(kernel, weights: np.ndarray, starts: np.ndarray, *args) -> np.ndarray:
    """``(S, R)`` values from ``kernel(weights, *args, out, t0, t1)`` run over the replicate
    tiles on threads; each tile writes its own columns, so the split cannot change a value."""
    out = np.empty((starts.size - 1, weights.shape[0]))
    threaded(kernel, -(-weights.shape[0] // TILE), weights, *args, out)
    return out


@njit(cache=True, nogil=True)
def _auc_numerators_tiles(weights, rows, codes, starts, proto, out, t0, t1):
    n = weights.shape[1]
    n_streams = starts.size - 1
    for t in range(t0, t1):
        r0 = t * TILE
        tile = np.empty(n * TILE, dtype=proto.dtype)
        _load_tile(weights, r0, tile)
        for s in range(n_streams):
            u0 = u1 = u2 = u3 = 0.0   # numerators
            g0 = g1 = g2 = g3 = 0.0   # negative weight so far
            for i in range(starts[s], starts[s + 1]):
                code = codes[i]
                a = 1.0 if code == POS else 0.0
                b = 1.0 if code == NEG else (0.5 if code == NEG_HALF else 0.0)
                j = rows[i] * TILE
                x0 = np.float64(tile[j])
                x1 = np.float64(tile[j + 1])
                x2 = np.float64(tile[j + 2])
                x3 = np.float64(tile[j + 3])
                u0 += (a * g0) * x0
                u1 += (a * g1) * x1
                u2 += (a * g2) * x2
                u3 += (a * g3) * x3
                g0 += b * x0
                g1 += b * x1
                g2 += b * x2
                g3 += b * x3
            _store4(out, s, r0, u0, u1, u2, u3)


def auc_numerators(weights, rows, codes, starts, proto):
    """Weighted Mann-Whitney numerators: sum over positives of weight times negative weight below.

    Ties count half through the :data:`NEG_HALF` positions. Returns ``(S, R)``.
    """
    return _by_tiles(_auc_numerators_tiles, weights, starts, rows, codes, starts, proto)


@njit(cache=True)
def _store4(out, s, r0, v0, v1, v2, v3):
    n_rep = out.shape[1]
    out[s, r0] = v0
    if r0 + 1 < n_rep:
        out[s, r0 + 1] = v1
    if r0 + 2 < n_rep:
        out[s, r0 + 2] = v2
    if r0 + 3 < n_rep:
        out[s, r0 + 3] = v3


@njit(cache=True, error_model="numpy")
def _gain(h, d, c):
    """A threshold's term ``h * (d / c)`` (its positive weight times the precision there) when it
    holds positive weight, else 0. The ratio is computed either way and then chosen, so the four
    replicates of a tile need no branch; numpy's error model lets a discarded 0/0 pass (numba's
    default checks every division and raises). The values are those of ``if h > 0: v += ...``:
    adding 0.0 leaves a non-negative sum unchanged."""
    q = h * (d / c)
    return q if h > 0.0 else 0.0


@njit(cache=True, nogil=True, error_model="numpy")
def _ap_numerators_tiles(weights, rows, codes, starts, proto, out, t0, t1):
    # Four scalars per state and a chosen, not branched, precision term (_gain): with the state
    # in a (5, TILE) array and a branch per replicate this loop took 67 ms of CPU for 40 entries
    # x 2,100 rows x 200 replicates (4.0 ns each), now 18 ms (1.1 ns), the same bits
    # (alternated runs of the two trees on 2 shared cores; benchmarks/bench_self_check.py).
    n = weights.shape[1]
    n_streams = starts.size - 1
    for t in range(t0, t1):
        r0 = t * TILE
        tile = np.empty(n * TILE, dtype=proto.dtype)
        _load_tile(weights, r0, tile)
        for s in range(n_streams):
            c0 = c1 = c2 = c3 = 0.0   # cumulative weight
            d0 = d1 = d2 = d3 = 0.0   # cumulative positive weight
            g0 = g1 = g2 = g3 = 0.0   # the tie group's weight
            h0 = h1 = h2 = h3 = 0.0   # the tie group's positive weight
            v0 = v1 = v2 = v3 = 0.0   # the sum
            for i in range(starts[s], starts[s + 1]):
                code = codes[i]
                a = 1.0 if code & POSITIVE else 0.0
                j = rows[i] * TILE
                x0 = np.float64(tile[j])
                x1 = np.float64(tile[j + 1])
                x2 = np.float64(tile[j + 2])
                x3 = np.float64(tile[j + 3])
                g0 += x0
                g1 += x1
                g2 += x2
                g3 += x3
                h0 += a * x0
                h1 += a * x1
                h2 += a * x2
                h3 += a * x3
                if code & GROUP_END:
                    c0 += g0
                    c1 += g1
                    c2 += g2
                    c3 += g3
                    d0 += h0
                    d1 += h1
                    d2 += h2
                    d3 += h3
                    v0 += _gain(h0, d0, c0)
                    v1 += _gain(h1, d1, c1)
                    v2 += _gain(h2, d2, c2)
                    v3 += _gain(h3, d3, c3)
                    g0 = g1 = g2 = g3 = 0.0
                    h0 = h1 = h2 = h3 = 0.0
            _store4(out, s, r0, v0, v1, v2, v3)


def ap_numerators(weights, rows, codes, starts, proto):
    """Sum over thresholds of (positive weight at the threshold) times precision there.

    Streams are in descending score order; a threshold is the end of a tie group. Dividing by the
    total positive weight gives scikit-learn's step-wise average precision. Returns ``(S, R)``.
    """
    return _by_tiles(_ap_numerators_tiles, weights, starts, rows, codes, starts, proto)


@njit(cache=True, nogil=True)
def _lorenz_sums_tiles(weights, rows, codes, values, starts, proto, out, t0, t1):
    n = weights.shape[1]
    n_streams = starts.size - 1
    for t in range(t0, t1):
        r0 = t * TILE
        tile = np.empty(n * TILE, dtype=proto.dtype)
        _load_tile(weights, r0, tile)
        # per replicate: [cumulative target, group weight, group target, result]
        st = np.zeros((4, TILE))
        for s in range(n_streams):
            st[:] = 0.0
            for i in range(starts[s], starts[s + 1]):
                v = values[i]
                j = rows[i] * TILE
                for k in range(TILE):
                    x = np.float64(tile[j + k])
                    st[1, k] += x
                    st[2, k] += x * v
                if codes[i] & GROUP_END:
                    for k in range(TILE):
                        st[3, k] += st[1, k] * (2.0 * st[0, k] + st[2, k])
                        st[0, k] += st[2, k]
                        st[1, k] = 0.0
                        st[2, k] = 0.0
            _store4(out, s, r0, st[3, 0], st[3, 1], st[3, 2], st[3, 3])


def lorenz_sums(weights, rows, codes, values, starts, proto):
    """Twice the area under each stream's Lorenz curve, in units of total weight times total value.

    Streams are in descending score order; ``values`` holds the target of each position. Each tie
    group is one straight segment, so the sum is ``sum_g W_g (2 C_{g-1} + Y_g)`` with ``W_g`` and
    ``Y_g`` the group's weight and weighted target and ``C`` the cumulative weighted target.
    Returns ``(S, R)``.
    """
    return _by_tiles(_lorenz_sums_tiles, weights, starts, rows, codes, values, starts, proto)


# The two row sums below are one memory-bound pass over the weights: no threads (they would cost
# compile time and gain little).
@njit(cache=True)
def class_totals(weights, labels, n_classes):
    """Total weight of each class per replicate, ``(R, n_classes)``, summed in row order.

    Four replicates at a time: one replicate's sums form one chain of dependent adds through
    memory, four hide each other's latency (3.5x faster at 20,000 rows x 100 replicates, 2.95
    -> 0.85 ms; the same additions in the same order, so the same bits)."""
    n_rep, n = weights.shape
    out = np.zeros((n_rep, n_classes))
    r = 0
    while r + 4 <= n_rep:
        for j in range(n):
            c = labels[j]
            out[r, c] += weights[r, j]
            out[r + 1, c] += weights[r + 1, j]
            out[r + 2, c] += weights[r + 2, j]
            out[r + 3, c] += weights[r + 3, j]
        r += 4
    for q in range(r, n_rep):
        for j in range(n):
            out[q, labels[j]] += weights[q, j]
    return out


@njit(cache=True)
def weighted_sums(weights, values):
    """``sum_j weights[r, j] * values[j]`` per replicate, summed in row order: ``(R,)``."""
    n_rep, n = weights.shape
    out = np.zeros(n_rep)
    for r in range(n_rep):
        acc = 0.0
        for j in range(n):
            acc += weights[r, j] * values[j]
        out[r] = acc
    return out
