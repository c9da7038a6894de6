"""Order statistics of every entry's resampled ranks, in half the memory of the ranks themselves.

The median and percentiles of an entry's rank over R replicates need all R ranks at once, and
replicates come a block at a time. :class:`RankQuantiles` keeps each rank as a 16-bit offset
from a base rank of the entry's own (its observed rank, or its place), 2 bytes per entry and
replicate instead of 4; offsets beyond +-:data:`OFFSET_LIMIT` are clipped. Clipping keeps the
order, so an order statistic that is not at a clipped end is exact; the entries whose order
statistic is (possible only on boards of more than 32,768 entries, when an entry's ranks spread
over more than 32,767 places on one side of the base) are named by
:meth:`RankQuantiles.select`, and :func:`collect` finds their clipped order statistics in one
more pass over the replicates (:func:`exact_order_statistics`): on such boards its first pass
also counts each entry's ranks in :data:`BUCKETS` buckets of equal width (32 bytes per entry,
64 at 65,536 replicates or more),
which tell, for each clipped order statistic, its bucket and its place there, so the exact
pass keeps only the ranks in that bucket (a fraction of the entry's R: at 300,000 entries x 100
replicates, 1.2M ranks for 51,115 clipped entries; keeping every rank of a clipped entry took
one pass per 2**26 / R of them, two at 1M x 100 and about 30 at 1M x 2,000). Used by the ranks
stage's rank percentiles
(:mod:`leaderboard.tiers.stability`) and by the post-mortem's private rank of each public place
(:mod:`leaderboard.shakeup.baseline`).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence

import numpy as np

OFFSET_LIMIT = 32767          # offsets kept in int16: -OFFSET_LIMIT - 1 .. OFFSET_LIMIT
SELECT_ELEMENTS = 1 << 23     # offsets partitioned at once (16 MB of int16)
COUNTED_ROWS = 160            # more rows: their order statistics counted by a compiled loop
EXACT_ELEMENTS = 1 << 26      # exact ranks kept at once by the exact pass (256 MB of int32)
BUCKETS = 16                  # buckets of ranks counted per entry by the first pass (see collect)
# offsets held at once (256 MB of int16): beyond, a group of entries per pass (collect). A
# 100,000-entry board's 2,000 replicates took 0.4 GB beside their 0.8 GB of draws (issue 41).
STORE_ELEMENTS = 1 << 27


class RankQuantiles:
    """Collect ranks block by block; then the order statistics ``positions`` of each row.

    Parameters
    ----------
    base : array of int, shape (E,), or None
        Each entry's base rank; ranks are stored as ``rank - base``. None: the middle of each
        entry's ranks in the first block added (so the offsets reach either way from there).
    n_replicates : int
    positions : sequence of int
        0-based order statistics to return (``k`` is the (k+1)-th smallest of the R ranks).

    Examples
    --------
    >>> q = RankQuantiles(np.array([1, 2]), 3, [1])
    >>> q.add(0, np.array([[1, 2], [2, 1]]))
    >>> q.add(2, np.array([[1, 2]]))
    >>> values, exact = q.select()
    >>> values.ravel().tolist(), exact.tolist()
    ([1, 2], [True, True])
    """

    def __init__(self, base: np.ndarray | None, n_replicates: int,
                 positions: Sequence[int]) -> None:
        self.base: np.ndarray | None = None if base is None else np.asarray(base, dtype=np.int64)
        self.positions = [int(k) for k in positions]
        self.n_replicates = int(n_replicates)
        self.offsets: np.ndarray | None = None

    def add(self, r0: int, ranks: np.ndarray) -> None:
        """Store the ranks of replicates ``r0 .. r0 + c - 1``, given as shape (c, E)."""
        ranks = np.asarray(ranks)
        if self.base is None:   # the middle of the first block's range: the window of offsets
            # then reaches as far to either side, so clipping needs a spread of about 65,535
            self.base = (ranks.min(axis=0).astype(np.int64) + ranks.max(axis=0)) // 2
        if self.offsets is None:
            self.offsets = np.empty((self.base.size, self.n_replicates), dtype=np.int16)
        low = -OFFSET_LIMIT - 1
        dev = ranks.T - self.base[:, None]
        self.offsets[:, r0:r0 + dev.shape[1]] = np.clip(dev, low, OFFSET_LIMIT)

    def select(self) -> tuple[np.ndarray, np.ndarray]:
        """``(values, exact)``: shape (E, len(positions)) order statistics, and which rows'
        values are exact (the others fell at a clipped end and need
        :func:`exact_order_statistics`). Frees the stored offsets."""
        offsets, base = self.offsets, self.base
        if offsets is None or base is None:
            raise ValueError("no ranks were added")
        n, r = offsets.shape
        kth = sorted(set(self.positions))
        values = np.empty((n, len(self.positions)), dtype=np.int64)
        rows = np.arange(n)
        if n > COUNTED_ROWS:   # counted by a compiled loop (a small board compiles nothing)
            from leaderboard.tiers._rank_kernel import order_statistics
            found, wide = np.empty((n, len(kth)), dtype=np.int64), np.empty(n, dtype=bool)
            order_statistics(offsets, np.array(kth, dtype=np.int64), found, wide)
            values[:] = found[:, [kth.index(k) for k in self.positions]]
            rows = np.flatnonzero(wide)   # spread too wide to count: partitioned
        step = max(1, SELECT_ELEMENTS // max(1, r))
        for g in range(0, rows.size, step):
            at = rows[g:g + step]
            values[at] = np.partition(offsets[at], kth, axis=1)[:, self.positions]
        exact = ~((values == OFFSET_LIMIT) | (values == -OFFSET_LIMIT - 1)).any(axis=1)
        values += base[:, None]
        self.offsets = np.empty((0, r), dtype=np.int16)
        return values, exact


def bucket_shift(n_entries: int) -> int:
    """The smallest ``shift`` with ranks 1 .. ``n_entries`` in at most :data:`BUCKETS` buckets
    ``rank >> shift``."""
    shift = 0
    while (n_entries >> shift) + 1 > BUCKETS:
        shift += 1
    return shift


def exact_order_statistics(rows: np.ndarray, need: np.ndarray, counts: np.ndarray, shift: int,
                           positions: Sequence[int],
                           passes: Callable[[], Iterable[tuple[int, np.ndarray]]]
                           ) -> np.ndarray:
    """The order statistics ``positions`` of the exact ranks of ``rows`` (entries) where
    ``need`` (shape (G, len(positions))) is True, from one more pass over the replicates (more
    only past :data:`EXACT_ELEMENTS` kept ranks); the other cells are left unset.

    ``counts[j, b]`` is how many of entry ``rows[j]``'s ranks fall in bucket ``rank >> shift``
    (the first pass's :func:`~leaderboard.tiers._rank_kernel.bucket_counts`), so each order
    statistic's bucket and its place in that bucket are known: the pass keeps only the ranks
    in those buckets (one per needed order statistic, shared when they coincide) and sorts
    them. ``passes()`` starts a pass, yielding ``(r0, ranks)`` with ranks of shape (c, E).
    """
    from leaderboard.tiers._rank_kernel import keep_in_buckets, segment_order_statistics
    rows = np.asarray(rows, dtype=np.int64)
    pos = np.asarray(positions, dtype=np.int64)
    below = np.zeros((rows.size, pos.size), dtype=np.int64)   # ranks in the buckets before
    bucket = np.zeros((rows.size, pos.size), dtype=np.int64)  # (G, P): the first cum > k
    cum = np.zeros((rows.size, 1), dtype=np.int64)
    for b in range(counts.shape[1] - 1):   # a bucket column at a time: (G, P) temporaries
        cum += counts[:, b, None]
        passed = cum <= pos
        bucket += passed
        np.copyto(below, cum, where=passed)
    kth = np.ascontiguousarray(pos[None, :] - below)
    bucket[~need] = -1
    slot = np.full(bucket.shape, -1, dtype=np.int64)   # a segment per bucket: its first position
    for p in range(pos.size):
        slot[need[:, p], p] = p
        for q in range(p - 1, -1, -1):
            slot[need[:, p] & (bucket[:, q] == bucket[:, p]), p] = q
    want = np.where(slot == np.arange(pos.size), bucket, -1)
    count = np.where(want >= 0, np.take_along_axis(counts, np.maximum(want, 0), axis=1),
                     0).astype(np.int64)
    ends = np.cumsum(count.sum(axis=1))
    out = np.empty(bucket.shape, dtype=np.int64)
    a = 0
    while a < rows.size:   # groups of at most EXACT_ELEMENTS kept ranks, one pass each
        b = max(a + 1, int(np.searchsorted(
            ends, (ends[a - 1] if a else 0) + EXACT_ELEMENTS, side="right")))
        size = np.ascontiguousarray(count[a:b]).astype(np.int64)
        start = (np.cumsum(size.ravel()) - size.ravel()).reshape(size.shape)
        fill = np.zeros_like(size)
        kept = np.empty(int(size.sum()), dtype=np.int32)
        for _, block in passes():
            keep_in_buckets(np.ascontiguousarray(block, dtype=np.int32), rows[a:b],
                            np.ascontiguousarray(want[a:b]), shift, counts.shape[1] - 1,
                            start, fill, kept)
        if not np.array_equal(fill, size):
            raise RuntimeError("the passes over the replicates gave different ranks")
        segment_order_statistics(kept, start, size, np.ascontiguousarray(slot[a:b]),
                                 kth[a:b], out[a:b])
        a = b
    return out


def collect(base: np.ndarray | None, n_replicates: int, positions: Sequence[int],
            blocks: Iterator[tuple[int, np.ndarray]],
            passes: Callable[[], Iterable[tuple[int, np.ndarray]]],
            each: Callable[[int, np.ndarray], None] | None = None,
            store_elements: int | None = None) -> np.ndarray:
    """Order statistics of every entry's ranks from one pass of ``blocks``, and one more pass
    (``passes``; more only past :data:`EXACT_ELEMENTS` kept ranks) for the clipped ones;
    ``each(r0, ranks)`` sees every block of the first pass (the caller's other summaries).
    Returns shape (E, len(positions)).

    At most ``store_elements`` (default :data:`STORE_ELEMENTS`) offsets are held at once: a
    board with more entries times replicates is collected a group of entries per pass over the
    replicates (each pass ranks every replicate again; the order statistics are those of one
    pass, as each entry's are its
    own).

    Examples
    --------
    Two entries, four replicates in two blocks; the lower median and the largest rank:

    >>> blocks = lambda: iter([(0, np.array([[1, 2], [2, 1]])), (2, np.array([[1, 2], [1, 2]]))])
    >>> collect(None, 4, [1, 3], blocks(), blocks).tolist()
    [[1, 2], [2, 2]]
    >>> collect(None, 4, [1, 3], blocks(), blocks, store_elements=4).tolist()   # two passes
    [[1, 2], [2, 2]]
    """
    store_elements = STORE_ELEMENTS if store_elements is None else store_elements
    values: np.ndarray | None = None
    exact: np.ndarray | None = None
    redo: list[np.ndarray] = []      # entries whose order statistic was clipped
    redo_counts: list[np.ndarray] = []
    redo_need: list[np.ndarray] = []
    shift: int | None = None
    counts: np.ndarray | None = None
    g0 = 0
    while True:
        store: RankQuantiles | None = None
        for r0, block in blocks:
            if values is None:   # the first block: the board's size
                n = block.shape[1]
                groups = -(-n * n_replicates // max(1, store_elements))
                step = -(-n // max(1, groups))
                values = np.empty((n, len(positions)), dtype=np.int64)
                exact = np.ones(n, dtype=bool)
                # ranks 1 .. n from a base in the first block's range: past the limit only
                # when n - 1 > OFFSET_LIMIT; then the first pass also counts each entry's ranks
                # per bucket, for the exact pass
                shift = bucket_shift(n) if base is not None or n - 1 > OFFSET_LIMIT else None
            if store is None:
                g1 = min(n, g0 + step)
                store = RankQuantiles(None if base is None else base[g0:g1], n_replicates,
                                      positions)
                counts = None if shift is None else np.zeros(   # 2 bytes a count when R fits
                    (g1 - g0, (n >> shift) + 1),
                    dtype=np.uint16 if n_replicates < 1 << 16 else np.int32)
            store.add(r0, block[:, g0:g1])
            if counts is not None and shift is not None:
                from leaderboard.tiers._rank_kernel import bucket_counts
                bucket_counts(np.ascontiguousarray(block, dtype=np.int32), g0, shift, counts)
            if each is not None and g0 == 0:
                each(r0, block)
        if store is None or values is None or exact is None:
            raise ValueError("no replicates to collect")
        values[g0:g1], exact[g0:g1] = store.select()
        wide = np.flatnonzero(~exact[g0:g1])
        if wide.size:
            if counts is None or store.base is None:
                raise RuntimeError("a clipped order statistic without its bucket counts")
            redo.append(g0 + wide)
            redo_counts.append(counts[wide])
            off = values[g0 + wide] - store.base[wide, None]   # the clipped ones only
            redo_need.append((off == OFFSET_LIMIT) | (off == -OFFSET_LIMIT - 1))
        g0 = g1
        if g0 >= n:
            break
        blocks = iter(passes())
    if redo and shift is not None:
        rows, need = np.concatenate(redo), np.concatenate(redo_need)
        values[rows] = np.where(need, exact_order_statistics(
            rows, need, np.concatenate(redo_counts), shift, positions, passes), values[rows])
    return values
