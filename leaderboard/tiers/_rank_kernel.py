"""Compiled ranking of many resampled boards: each row sorted by a stable radix sort.

Ranking every replicate of a 100,000-entry board means 2,000 sorts of 100,000 scores; numba's own
``np.argsort`` (a quicksort) took about 40 ms per row there, numpy's about 11 ms, this least
significant digit radix sort about 4 ms (one core, measured on the development machine). The keys
are the float64 scores' bit patterns, mapped so that ascending keys are descending scores
(``-0.0`` is read as ``0.0``, so the two compare equal, as floats do); scores must not be NaN.
Being stable, the sort puts tied scores in index order, so every result is deterministic.

:func:`descending_order` is the one compiled sort; the small functions around it are
``inline="always"``: a compiled function of its own costs 0.2-0.5 s of CPU on a first run (its
wrappers, and LLVM optimising and emitting everything it calls once more), more than typing a
few lines again at each of their one to three call sites (issue 27).
"""
from __future__ import annotations

import numpy as np
from leaderboard._jit import njit

from leaderboard._threads import threaded

DIGIT_BITS = 11                       # 2048 buckets: the counts stay in the first-level cache
N_DIGITS = -(-64 // DIGIT_BITS)       # 6 passes at most; a pass whose digit never varies is skipped


@njit(cache=True, inline="always")
def _descending_keys(row, keys):
    """uint64 keys whose ascending order is the descending order of the float64 ``row``."""
    bits = row.view(np.uint64)
    top = np.uint64(1) << np.uint64(63)
    for i in range(row.size):
        u = np.uint64(0) if row[i] == 0.0 else bits[i]
        keys[i] = u if u & top else ~(u | top)


@njit(cache=True, inline="always")
def _one_bucket(counts, n):
    """Whether one bucket holds all ``n`` keys (``counts.max() == n``, as a loop: numba's
    ``max`` compiles for half a second)."""
    for b in range(counts.size):
        if counts[b] == n:
            return True
    return False


@njit(cache=True, inline="always")
def ascending_order(values):
    """Positions of the integer ``values`` from smallest to largest, ties in index order: the
    stable order numpy's ``argsort(kind="stable")`` gives, by the radix sort (compiled once for
    every caller, :func:`descending_order`, instead of numba's merge sort, seconds of compile
    time on a first run)."""
    row = np.empty(values.size)
    for i in range(values.size):
        row[i] = -np.float64(values[i])   # exact for |values| < 2**53; descending of -v
    return _sorted_row(row)[0]


@njit(cache=True)
def descending_order(row, keys, spare_keys, order, spare_order, counts):
    """Positions of ``row`` from its largest value to its smallest, ties in index order.

    ``keys``, ``spare_keys`` (uint64), ``order``, ``spare_order`` (int64) have the row's length
    and ``counts`` shape (N_DIGITS, 2 ** DIGIT_BITS); all are work space. Returns the array
    (``order`` or ``spare_order``) holding the order, and the one holding the sorted keys.
    """
    n = row.size
    _descending_keys(row, keys)
    mask = np.uint64((1 << DIGIT_BITS) - 1)
    counts[:] = 0
    for i in range(n):       # every digit's histogram in one read of the keys
        k = keys[i]
        for d in range(N_DIGITS):
            counts[d, (k >> np.uint64(d * DIGIT_BITS)) & mask] += 1
    for i in range(n):
        order[i] = i
    src_k, dst_k, src_i, dst_i = keys, spare_keys, order, spare_order
    for d in range(N_DIGITS):
        c = counts[d]
        if _one_bucket(c, n):   # one value of this digit for every key: the pass changes nothing
            continue
        total = 0
        for b in range(c.size):
            here = c[b]
            c[b] = total
            total += here
        shift = np.uint64(d * DIGIT_BITS)
        for i in range(n):
            k = src_k[i]
            b = (k >> shift) & mask
            p = c[b]
            c[b] = p + 1
            dst_k[p] = k
            dst_i[p] = src_i[i]
        src_k, dst_k = dst_k, src_k
        src_i, dst_i = dst_i, src_i
    return src_i, src_k


@njit(cache=True, inline="always")
def _sorted_row(row):
    """:func:`descending_order` of one row with its own work space: (positions, sorted keys)."""
    n = row.size
    return descending_order(row, np.empty(n, np.uint64), np.empty(n, np.uint64),
                            np.empty(n, np.int64), np.empty(n, np.int64),
                            np.empty((N_DIGITS, 1 << DIGIT_BITS), np.int64))


@njit(cache=True, nogil=True)
def _min_ranks_rows(block, out, r0, r1):
    for r in range(r0, r1):
        pos, sorted_keys = _sorted_row(block[r])
        rank = 1
        for t in range(block.shape[1]):
            if t > 0 and sorted_keys[t] != sorted_keys[t - 1]:
                rank = t + 1  # the t values before position t are all strictly larger
            out[r, pos[t]] = rank


def min_ranks(block: np.ndarray, out: np.ndarray) -> None:
    """Rank each row of ``block`` (one replicate): 1 + the number of strictly larger values.

    ``block`` is float64 of shape (c, E) without NaN; ``out`` is int32 of the same shape. Rows
    are independent (run on threads, :func:`~leaderboard._threads.threaded`), so results do not
    depend on how replicates are batched or split.
    """
    threaded(_min_ranks_rows, block.shape[0], block, out)


TILE = 512  # entries per tile of the transposing gather: its output rows stay in cache


@njit(cache=True, nogil=True)
def _gather_tiles(errors, cols, point, add_point, out, t0, t1):
    n = errors.shape[0]
    c = cols.size
    for t in range(t0, t1):
        for i in range(t * TILE, min(n, (t + 1) * TILE)):
            row = errors[i]
            if add_point:
                p = point[i]
                for k in range(c):
                    out[k, i] = p + np.float64(row[cols[k]])
            else:
                for k in range(c):
                    out[k, i] = np.float64(row[cols[k]])


def gather_columns(errors: np.ndarray, cols: np.ndarray, point: np.ndarray, add_point: bool,
                   out: np.ndarray) -> None:
    """``out[k, i] = point[i] + errors[i, cols[k]]`` in float64 (or the error alone when
    ``add_point`` is False): chosen replicates of an (E, R) array, float32 or float64, as
    contiguous float64 rows. Each entry's few errors are read together, tile by tile (tiles on
    threads; each writes its own columns of ``out``). Callers pass C-ordered ``errors``
    (``np.ascontiguousarray`` once, before their blocks): a Fortran-ordered bootstrap array was
    a compiled version of its own (issue 27)."""
    threaded(_gather_tiles, -(-errors.shape[0] // TILE), errors, cols, point, add_point, out)


@njit(cache=True, nogil=True)
def _board_ranks_rows(block, min_rank, avg_rank, order, r0, r1):
    n = block.shape[1]
    for r in range(r0, r1):
        pos, sorted_keys = _sorted_row(block[r])
        t = 0
        while t < n:
            u = t
            while u + 1 < n and sorted_keys[u + 1] == sorted_keys[t]:
                u += 1
            average = (t + u) / 2 + 1   # the tie group's places t + 1 .. u + 1, averaged
            for v in range(t, u + 1):
                min_rank[r, pos[v]] = t + 1
                avg_rank[r, pos[v]] = average
                order[r, v] = pos[v]
            t = u + 1


def board_ranks_rows(block: np.ndarray, min_rank: np.ndarray, avg_rank: np.ndarray,
                     order: np.ndarray) -> None:
    """Per row of ``block`` (one simulated board, higher is better): the order best first (ties
    in index order), the "min" ranks (int32) and the average ranks (float64) of its entries.
    Rows are independent (run on threads)."""
    threaded(_board_ranks_rows, block.shape[0], block, min_rank, avg_rank, order)


@njit(cache=True, nogil=True)
def _order_statistics_rows(values, positions, out, wide, i0, i1):
    n_rep = values.shape[1]
    counts = np.zeros(1 << 16, np.int32)   # one per task: int16 values span at most 2**16
    for i in range(i0, i1):
        lo, hi = np.int64(values[i, 0]), np.int64(values[i, 0])
        for r in range(n_rep):
            v = np.int64(values[i, r])
            lo = min(lo, v)
            hi = max(hi, v)
        span = hi - lo + 1
        wide[i] = span > 8 * n_rep
        if wide[i]:
            continue
        for r in range(n_rep):
            counts[values[i, r] - lo] += 1
        seen, v = 0, 0
        for k in range(positions.size):
            while seen + counts[v] <= positions[k]:
                seen += counts[v]
                v += 1
            out[i, k] = lo + v
        for v in range(span):
            counts[v] = 0


def order_statistics(values: np.ndarray, positions: np.ndarray, out: np.ndarray,
                     wide: np.ndarray) -> None:
    """``out[i, k]``: the ``positions[k]``-th smallest (0-based) of row ``i`` of the int16
    ``values`` (``positions`` ascending, int64), what ``np.partition`` gives, by counting the
    row's values over their span: O(R + span) instead of partitioning (~10 ns a value on rows
    of 2,000). A row spanning more than eight values per replicate is left (``wide[i]`` True)
    for the caller to partition. Rows on threads."""
    threaded(_order_statistics_rows, values.shape[0], values, positions, out, wide)


@njit(cache=True, nogil=True)
def _bucket_counts_rows(ranks, g0, shift, counts, j0, j1):
    top = counts.shape[1] - 1
    for j in range(j0, j1):
        for r in range(ranks.shape[0]):
            counts[j, min(top, max(0, ranks[r, g0 + j] >> shift))] += 1


def bucket_counts(ranks: np.ndarray, g0: int, shift: int, counts: np.ndarray) -> None:
    """Add to ``counts[j, b]`` (int32) how many of the int32 ``ranks[:, g0 + j]`` fall in bucket
    ``b = rank >> shift`` (the first and last buckets open-ended). Entries on threads."""
    threaded(_bucket_counts_rows, counts.shape[0], ranks, np.int64(g0), np.int64(shift), counts)


@njit(cache=True, nogil=True)
def _keep_in_buckets_rows(ranks, rows, want, shift, top, start, fill, kept, j0, j1):
    for j in range(j0, j1):
        for r in range(ranks.shape[0]):
            v = ranks[r, rows[j]]
            b = min(top, max(0, v >> shift))
            for s in range(want.shape[1]):
                if want[j, s] == b:
                    kept[start[j, s] + fill[j, s]] = v
                    fill[j, s] += 1
                    break


def keep_in_buckets(ranks: np.ndarray, rows: np.ndarray, want: np.ndarray, shift: int,
                    top: int, start: np.ndarray, fill: np.ndarray, kept: np.ndarray) -> None:
    """Append each int32 rank ``ranks[:, rows[j]]`` whose bucket (as :func:`bucket_counts`,
    ``top`` the last bucket) is ``want[j, s]`` to the segment ``kept[start[j, s]:]``, at
    ``fill[j, s]`` (then counted). Entries on threads."""
    threaded(_keep_in_buckets_rows, rows.size, ranks, rows, want, np.int64(shift),
             np.int64(top), start, fill, kept)


@njit(cache=True, nogil=True)
def _segment_order_statistics_rows(kept, start, count, slot, kth, out, j0, j1):
    for j in range(j0, j1):
        for s in range(start.shape[1]):
            if count[j, s] == 0:
                continue
            seg = np.sort(kept[start[j, s]:start[j, s] + count[j, s]])
            for p in range(slot.shape[1]):
                if slot[j, p] == s:
                    out[j, p] = seg[kth[j, p]]


def segment_order_statistics(kept: np.ndarray, start: np.ndarray, count: np.ndarray,
                             slot: np.ndarray, kth: np.ndarray, out: np.ndarray) -> None:
    """``out[j, p]``: the ``kth[j, p]``-th smallest (0-based) of the segment
    ``kept[start[j, s]:start[j, s] + count[j, s]]``, ``s = slot[j, p]``. Entries on threads."""
    threaded(_segment_order_statistics_rows, start.shape[0], kept, start, count, slot, kth, out)
