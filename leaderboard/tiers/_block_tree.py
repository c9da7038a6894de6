"""Block verdicts searched, not scanned: a tree over the blocks (issue 41).

For an entry i and a critical value c, the closed-form step-downs need, over every other entry
j, how many have ``t_ji > c`` (or ``t_ij > c``), the largest ``t_ji``, or the highest tier among
the j with ``t_ji > c``. Looping over every block for every entry cost E^2 / 256 (160 s of the
simultaneous sets at 1,000,000 entries). Here the blocks are the leaves of a binary tree whose
nodes keep the SD range of the blocks under them; a node's entries are consecutive in rank
order, so their gaps ``p_j - p_i`` lie between its first and last entry's, and with i's own SD
and the node's SD range a node bounds ``t_ji`` for all its entries at once
(:func:`~leaderboard.tiers._block_kernels.se_range`, widened by its slack). A node wholly above
or wholly at most c is settled without looking inside; only nodes that straddle c (or hold i)
are opened, down to the blocks, whose sub-blocks and pairs are then settled as before.

**Why the answers do not change.** Every settled node is settled by a bound that holds for all
its entries, so a count adds exactly the entries with ``t > c`` and a maximum is the maximum;
the tests compare these searches with loops over every entry on adversarial boards.

**Why it is n log n on sorted boards.** When ``t_ji`` is monotone in j up to the bounds' slack
(points in rank order, SDs a smooth function of the score, as on a scores board), at most one
node per level straddles c (plus the path to i's own leaf), so an entry opens O(log(E / 256))
nodes and O(1) blocks. Where SDs jump between neighbours (a board whose SDs have nothing to do
with its scores), more nodes straddle; the work is then at most the old scan's, times two.
"""
from __future__ import annotations

import numpy as np
from leaderboard._jit import njit

from leaderboard.tiers._block_kernels import K, se_box, se_range, sub_ranges, t_of, t_range

STACK = 128   # nodes pending in a descent: two per level at most, and 2^64 leaves is plenty


@njit(cache=True)
def sd_tree(blo, bhi):
    """The tree over ``blo.size`` blocks: node 1 is the root, node k's children are 2k and
    2k + 1, leaves ``size + b``; per node the least and largest SD of its blocks and its block
    range [b0, b1) (empty past the last block)."""
    nb = blo.size
    size = 1
    while size < nb:
        size *= 2
    lo, hi = np.full(2 * size, np.inf), np.full(2 * size, -np.inf)
    b0, b1 = np.zeros(2 * size, np.int64), np.zeros(2 * size, np.int64)
    for b in range(size):
        b0[size + b], b1[size + b] = min(b, nb), min(b + 1, nb)
        if b < nb:
            lo[size + b], hi[size + b] = blo[b], bhi[b]
    for k in range(size - 1, 0, -1):
        lo[k], hi[k] = min(lo[2 * k], lo[2 * k + 1]), max(hi[2 * k], hi[2 * k + 1])
        b0[k], b1[k] = b0[2 * k], b1[2 * k + 1]
    return lo, hi, b0, b1


@njit(cache=True, forceinline=True)
def node_t(i, node, p, s, rho, bs, tree):
    """Range of t_ji over the j of a (non-empty) node, and its entries [e0, e1)."""
    lo, hi, b0, b1 = tree
    e0, e1 = b0[node] * bs, min(p.size, b1[node] * bs)
    ilo, ihi = se_range(s[i], lo[node], hi[node], rho)
    tlo, thi = t_range(p[e1 - 1] - p[i], p[e0] - p[i], ilo, ihi)
    return tlo, thi, e0, e1


@njit(cache=True, forceinline=True)
def settled(lo, hi, above, c):
    """Whether a range [lo, hi] of t_ji (``above``; else of t_ij = -t_ji) settles all of its
    entries against ``c``: 1 every one has t > c, 0 none has, -1 it must be opened."""
    if not above:
        lo, hi = -hi, -lo
    if hi <= c:
        return 0
    return 1 if lo > c else -1


@njit(cache=True)
def count_block(i, b, c, above, p, s, rho, sub, slo, shi, cache):
    """``above``: #{j in block b: t_ji > c}; else #{j in block b: t_ij = -t_ji > c}, j != i;
    sub-blocks the ranges settle are counted whole, the rest pair by pair."""
    n = p.size
    a0, a1 = b * sub * K, min(n, b * sub * K + sub * K)
    total = 0
    for q in range(a0 // sub, -(-a1 // sub)):
        q0, q1 = q * sub, min(n, q * sub + sub)
        if not q0 <= i < q1:
            ilo, ihi = sub_ranges(i, q, s[i], rho, slo[q], shi[q], cache)
            lo, hi = t_range(p[q1 - 1] - p[i], p[q0] - p[i], ilo, ihi)
            verdict = settled(lo, hi, above, c)
            if verdict >= 0:
                total += verdict * (q1 - q0)
                continue
        for j in range(q0, q1):
            if j != i:
                t = t_of(p, s, rho, j, i) if above else t_of(p, s, rho, i, j)
                total += t > c
    return total


@njit(cache=True)
def tree_count(i, c, above, p, s, rho, sub, tree, slo, shi, cache, stack):
    """``above``: #{j: t_ji > c} (entries shown better than i); else #{j: t_ij > c}."""
    bs = sub * K
    size = tree[0].size // 2
    b0, b1 = tree[2], tree[3]
    total, top = 0, 1
    stack[0] = 1
    while top > 0:
        top -= 1
        node = stack[top]
        if b0[node] >= b1[node]:
            continue
        lo, hi, e0, e1 = node_t(i, node, p, s, rho, bs, tree)
        if not e0 <= i < e1:
            verdict = settled(lo, hi, above, c)
            if verdict >= 0:
                total += verdict * (e1 - e0)
                continue
        if node >= size:
            total += count_block(i, node - size, c, above, p, s, rho, sub, slo, shi, cache)
        else:
            stack[top], stack[top + 1] = 2 * node + 1, 2 * node
            top += 2
    return total


@njit(cache=True)
def tree_max_t(i, p, s, rho, sub, tree, stack):
    """max over j != i of t_ji (entry i's strongest challenger); nodes whose bound cannot beat
    the best so far are not opened, higher-scoring nodes first."""
    n, bs = p.size, sub * K
    size = tree[0].size // 2
    b0, b1 = tree[2], tree[3]
    best, top = -np.inf, 1
    stack[0] = 1
    while top > 0:
        top -= 1
        node = stack[top]
        if b0[node] >= b1[node]:
            continue
        hi, e0, e1 = node_t(i, node, p, s, rho, bs, tree)[1:]
        if hi <= best:
            continue
        if node >= size:
            for j in range(e0, min(n, e1)):
                if j != i:
                    best = max(best, t_of(p, s, rho, j, i))
        else:
            stack[top], stack[top + 1] = 2 * node + 1, 2 * node
            top += 2
    return best


@njit(cache=True)
def box(b, own, rho, blo, bhi, ilo, ihi, stamp):
    """1 / se range of owner block ``own``'s entries against block b, into ``ilo[b]``,
    ``ihi[b]``, for the first owner of that block who asks (``stamp[b] != own``, which the
    callers test before calling: a call passing these arrays costs atomic reference counts,
    see :func:`~leaderboard.tiers._block_kernels.sub_ranges`): the searches visit a few blocks
    per entry, so none is computed for every block."""
    ilo[b], ihi[b] = se_box(blo[own], bhi[own], blo[b], bhi[b], rho)
    stamp[b] = own


@njit(cache=True, forceinline=True)
def rejected(i, b, c, up, n, bs, p_i, p_first, p_last, ilo_b, ihi_b):
    """Every j of block b (not i's) has its hypothesis against i rejected at ``c`` (up: t_ji >
    c, j shown better; else t_ij > c), so none of them can enter i's maxima. ``p_first``,
    ``p_last``: the block's first and last points, ``p_i`` entry i's, of a board of n."""
    if b * bs <= i < min(n, b * bs + bs) or not c < np.inf:
        return False
    lo, hi = t_range(p_last - p_i, p_first - p_i, ilo_b, ihi_b)
    return (lo if up else -hi) > c


@njit(cache=True, forceinline=True)
def verdicts(i, b, c, rho, n, bs, p_i, p_first, p_last, own_lo, own_hi, b_lo, b_hi, ilo_b,
             ihi_b, boxed):
    """Block b's flags for entry i at ``c``: (ilo, ihi, rejected up, rejected down), its 1 / se
    box against i's block (SDs ``own_lo`` .. ``own_hi``) computed unless ``boxed`` (then
    ``ilo_b``, ``ihi_b`` are kept). Scalars in and out, written where the walks reach a block
    (``stag[b] != tag``, then ``stamp[b]``, ``stag[b]`` set): a call passing the flag arrays
    paid two atomic reference counts per array, and where a round reaches most of the blocks
    filling them one call at a time cost more than filling all of them (issue 41)."""
    if not boxed:
        ilo_b, ihi_b = se_box(own_lo, own_hi, b_lo, b_hi, rho)
    return (ilo_b, ihi_b, rejected(i, b, c, True, n, bs, p_i, p_first, p_last, ilo_b, ihi_b),
            rejected(i, b, c, False, n, bs, p_i, p_first, p_last, ilo_b, ihi_b))


@njit(cache=True)
def all_flags(i, c, tag, rho, p, bs, blo, bhi, ilo, ihi, stamp, stag, skip):
    """:func:`verdicts` of every block at once: where the replicates outnumber the blocks,
    their walks reach most blocks in a round anyway, and one tight pass costs less than a call
    per block (the marginal sets were 40% slower at 100,000 entries and 2,000 replicates with
    the blocks' flags filled only as reached)."""
    n, own = p.size, i // bs
    for b in range(blo.size):
        ilo[b], ihi[b], skip[b, 0], skip[b, 1] = verdicts(
            i, b, c, rho, n, bs, p[i], p[b * bs], p[min(n, b * bs + bs) - 1], blo[own],
            bhi[own], blo[b], bhi[b], ilo[b], ihi[b], stamp[b] == own)
        stamp[b], stag[b] = own, tag
