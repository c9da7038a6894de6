"""The leaderboard card (issue 40 item 4): what a reporting standard asks a board's maintainers to
publish beside it, read from the analysis that ran (its tiers, rank sets and bootstrap; nothing is
tested again here). Nothing here imports the report; :mod:`leaderboard.report.card_text` words it.

- **shape**: models, units (items, test rows or battles), what a unit holds (binary, continuous,
  categorical, win/tie/loss), and the SHA-256 of the analysed matrix (:func:`matrix_sha256`).
- **established share**: the share of all pairs of compared models that the simultaneous family
  behind the rank sets and the significance map shows different (family-wise error ``alpha``:
  with probability at least ``1 - alpha`` every one of them is right).
- **resolved positions**: the number of tiers, the largest tier, how many models' simultaneous rank
  set is a single rank (a position the data resolves), and the largest group of models no pair of
  which is shown different (:func:`largest_unresolved_group`: exact, or a lower bound when the
  search stops).
- **top pair**: the two best-scored models' gap, the SD of their paired difference against the SD
  were they scored independently (:func:`pair_resolution`), ``n_eff`` (the units on which their
  values differ: the only ones that carry their comparison) and the units needed to separate them
  at the current gap by a paired two-sided test at level ``alpha`` with power 0.8,
  ``n = ceil(n_now * ((z_{1-alpha/2} + z_0.8) * sd_diff / gap)^2)``, assuming the difference's SD
  shrinks as one over the root of the units (independent units drawn like these). The tiers need
  more than one pair's test (``leaderboard plan --from`` answers for them).
- **provenance**: :mod:`leaderboard.provenance`.
"""
from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtri

POWER = 0.8              # the top pair's "needed" units: a paired test with this power
SEARCH_ENTRIES = 1000    # the largest unresolved group is searched up to this many models
SEARCH_NODES = 20_000    # ... and this many branches, else a lower bound is given


@dataclass(frozen=True)
class Shape:
    """The analysed matrix: ``models`` compared, ``units`` of kind ``unit`` (None: not known,
    e.g. a board of scores without ``--n-test``), ``clusters`` resampled whole (or None),
    ``outcome`` (what one unit holds), ``sha256`` of the matrix and ``hashed`` (what, in words)."""

    models: int
    units: int | None
    unit: str
    clusters: int | None
    outcome: str
    sha256: str | None
    hashed: str


@dataclass(frozen=True)
class Established:
    """``shown`` of ``pairs`` pairs shown different by ``family`` (``share``; None with
    ``reason`` when nothing was compared)."""

    share: float | None
    shown: int
    pairs: int
    family: str
    reason: str | None = None
    alpha: float | None = None


@dataclass(frozen=True)
class Resolved:
    """How many positions the data resolves (see the module docstring)."""

    tiers: int | None
    largest_tier: int | None
    alone: int | None
    group: int | None
    group_exact: bool
    group_models: tuple[str, ...]
    reason: str | None = None


@dataclass(frozen=True)
class PairResolution:
    """One pair's resolution: ``gap`` (the better minus the other, oriented so positive is
    better), ``sd_diff`` (SD of the paired difference), ``sd_independent`` (what it would be
    were the two scored on independent units: the root of the sum of their variances),
    ``correlation`` of their scores, ``n_eff`` of ``current`` units on which they differ, and
    ``needed`` units to separate them at this gap (module docstring); None with ``reason``."""

    models: tuple[str, str]
    gap: float
    sd_diff: float | None
    sd_independent: float | None
    correlation: float | None
    n_eff: int | None
    n_eff_reason: str | None
    current: int | None
    needed: int | None
    unit: str
    alpha: float
    power: float = POWER
    reason: str | None = None
    # what n_eff counts when it is not ``current`` ``unit``s: the items (or test rows) inside
    # the clusters resampled whole ("49 of 240 items", never "49 of 40 clusters")
    n_eff_of: int | None = None
    n_eff_unit: str | None = None

    @property
    def differ_of(self) -> tuple[int | None, str]:
        """The units ``n_eff`` is counted among, and their name (``(240, "item")``)."""
        if self.n_eff_unit is not None:
            return self.n_eff_of, self.n_eff_unit
        return self.current, self.unit

    @property
    def ratio(self) -> float | None:
        """``sd_diff / sd_independent``: below 1, pairing sharpens the comparison."""
        if self.sd_diff is None or not self.sd_independent:
            return None
        return self.sd_diff / self.sd_independent


@dataclass(frozen=True)
class Card:
    """The card of one analysis (module docstring)."""

    mode: str
    shape: Shape
    established: Established
    resolved: Resolved
    top_pair: PairResolution | None
    provenance: object   # Provenance (leaderboard.provenance)


# --- the pieces ------------------------------------------------------------------------------

def units_needed(current: int | None, gap: float, sd_diff: float | None, alpha: float,
                 power: float = POWER) -> int | None:
    """Units for a paired two-sided test at ``alpha`` to detect ``gap`` with ``power``, from
    ``sd_diff`` at ``current`` units, scaled as one over their root.

    Examples
    --------
    Two proportions 0.8 and 0.78 on 1,000 independent items: the textbook
    (z_0.975 + z_0.8)^2 (0.16 + 0.1716) / 0.02^2 = 2.8016^2 * 829.0 = 6,506.8 items.

    >>> sd = math.sqrt((0.8 * 0.2 + 0.78 * 0.22) / 1000)
    >>> units_needed(1000, 0.02, sd, 0.05)
    6507
    """
    if current is None or sd_diff is None or not math.isfinite(sd_diff) or gap <= 0:
        return None
    z = -ndtri(alpha / 2) + ndtri(power)
    return int(math.ceil(current * (z * sd_diff / gap) ** 2))


def pair_resolution(models: tuple[str, str], gap: float, a: np.ndarray | None,
                    b: np.ndarray | None, *, sd: tuple[float, float] | None = None,
                    correlation: float | None = None, current: int | None, unit: str,
                    alpha: float, n_eff: int | None = None,
                    n_eff_reason: str | None = None,
                    n_eff_among: tuple[int | None, str] | None = None) -> PairResolution:
    """A pair's resolution from paired replicates ``a`` and ``b`` (bootstrap scores, same
    draws), or from SDs and an assumed ``correlation`` (scores only). ``n_eff_among``: the
    units ``n_eff`` counts, when not ``current`` ``unit``s (items inside resampled clusters).

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> shared = rng.normal(size=4000)
    >>> a, b = 0.02 + shared + 0.5 * rng.normal(size=4000), shared + 0.5 * rng.normal(size=4000)
    >>> r = pair_resolution(("x", "y"), 0.02, a, b, current=100, unit="item", alpha=0.05)
    >>> round(r.ratio, 2), round(r.correlation, 2)     # paired: SD 0.71 against 1.58
    (0.45, 0.8)
    """
    if a is not None and b is not None:
        keep = np.isfinite(a) & np.isfinite(b)
        a, b = np.asarray(a, float)[keep], np.asarray(b, float)[keep]
        if a.size < 2:
            sd_diff = sd_ind = rho = None
        else:
            sd_diff = float(np.std(a - b, ddof=1))
            va, vb = float(np.var(a, ddof=1)), float(np.var(b, ddof=1))
            sd_ind = math.sqrt(va + vb)
            rho = float(np.corrcoef(a, b)[0, 1]) if va > 0 and vb > 0 else None
    elif sd is not None and all(math.isfinite(s) for s in sd):
        rho = 0.0 if correlation is None else float(correlation)
        sd_ind = math.hypot(*sd)
        sd_diff = math.sqrt(max(sd[0] ** 2 + sd[1] ** 2 - 2 * rho * sd[0] * sd[1], 0.0))
    else:
        sd_diff = sd_ind = rho = None
    needed = units_needed(current, gap, sd_diff, alpha)
    reason = (None if needed is not None else
              "the two score the same: no number of units separates a gap of 0" if gap <= 0 else
              f"the number of {unit}s is not known" if current is None else
              "their difference has no standard deviation")
    return PairResolution(models=models, gap=float(gap), sd_diff=sd_diff, sd_independent=sd_ind,
                          correlation=rho, n_eff=n_eff, n_eff_reason=n_eff_reason,
                          current=current, needed=needed, unit=unit, alpha=float(alpha),
                          reason=reason,
                          n_eff_of=None if n_eff_among is None else n_eff_among[0],
                          n_eff_unit=None if n_eff_among is None else n_eff_among[1])


def established(ranking, models: int) -> Established:
    """Pairs shown different by the simultaneous family (read from the rank sets' relation:
    pairs with different scores less the unresolved ones; equal scores are never shown).

    Examples
    --------
    >>> from leaderboard.tiers.ranking import rank_board
    >>> from leaderboard.tiers.replicates import RankReplicates
    >>> reps = RankReplicates.normal(np.array([1.0, 0.99, 0.5]), np.full(3, 0.01), 0.0, True,
    ...                              replicates=500, seed=0)
    >>> e = established(rank_board(reps), 3)
    >>> e.shown, e.pairs                        # 1 and 2 each beat 3; 1 vs 2 is not shown
    (2, 3)
    """
    pairs = models * (models - 1) // 2
    family = "the simultaneous family of the rank sets (max-t step-down)"
    if ranking is None or models < 2:
        return Established(None, 0, pairs, family, "no two models were compared")
    rel = ranking.simultaneous.shown_better
    family = getattr(ranking.significance, "family", family)
    _, counts = np.unique(np.asarray(rel.point), return_counts=True)
    tied = int((counts * (counts - 1) // 2).sum())
    shown = pairs - tied - int(rel.n_unresolved)
    return Established(shown / pairs, shown, pairs, family,
                       alpha=float(ranking.simultaneous.alpha))


def resolved(ranking, table, names: list[str]) -> Resolved:
    """Tiers, the largest tier, positions resolved, the largest unresolved group."""
    if ranking is None:
        return Resolved(None, None, None, None, False, (), "no model was compared")
    tier = np.asarray(ranking.tiers.tier, dtype=int)
    sizes = np.bincount(tier)[1:]
    low = np.asarray(ranking.simultaneous.low)
    high = np.asarray(ranking.simultaneous.high)
    group, exact, members, reason = largest_unresolved_group(ranking.simultaneous.shown_better,
                                                             tier, names)
    return Resolved(tiers=int(tier.max()), largest_tier=int(sizes.max()),
                    alone=int((low == high).sum()), group=group, group_exact=exact,
                    group_models=members, reason=reason)


def largest_unresolved_group(rel, tier: np.ndarray, names: list[str]
                             ) -> tuple[int, bool, tuple[str, ...], str | None]:
    """The largest set of models no two of which the family shows different (a maximum clique
    of the "not shown different" graph, by branch and bound with greedy colouring), with whether
    it is exact; every tier is such a set, so the largest tier is the starting bound. Above
    :data:`SEARCH_ENTRIES` models, or after :data:`SEARCH_NODES` branches, the best set found is
    a lower bound (``exact`` False, the reason given).

    Examples
    --------
    >>> from leaderboard.tiers.shown_better import ShownBetter
    >>> rel = ShownBetter(np.array([3.0, 2.0, 1.0, 0.0]), np.array([0, 0, 1, 2, 3]),
    ...                   np.array([0, 1, 2], dtype=np.int32), 2.0)   # a chain of near pairs
    >>> largest_unresolved_group(rel, np.array([1, 1, 2, 2]), list("abcd"))[:3]
    (2, True, ('a', 'b'))
    """
    n = len(tier)
    names = list(names) + [f"entry {k + 1}" for k in range(len(names), n)]   # a table cut short
    biggest = int(np.argmax(np.bincount(tier)))
    start = np.flatnonzero(tier == biggest)
    if n > SEARCH_ENTRIES:
        return (int(start.size), False, tuple(names[i] for i in start),
                f"not searched above {SEARCH_ENTRIES:,} models: the largest tier, a lower bound")
    shown = np.asarray(rel.matrix(n), dtype=bool)
    near = ~(shown | shown.T)
    np.fill_diagonal(near, False)
    adj = [int.from_bytes(np.packbits(row, bitorder="little").tobytes(), "little")
           for row in near]
    best, exact = _max_clique(adj, sum(1 << int(i) for i in start))
    members = [i for i in range(n) if best >> i & 1]
    return (len(members), exact, tuple(names[i] for i in members),
            None if exact else f"search stopped after {SEARCH_NODES:,} branches: a lower bound")


def _max_clique(adj: list[int], start: int) -> tuple[int, bool]:
    """Maximum clique of the graph ``adj`` (bitsets), starting from the clique ``start``."""
    best = [start, bin(start).count("1")]
    nodes = [0]

    class _Stop(Exception):
        pass

    def expand(size: int, members: int, candidates: int) -> None:
        order, colour, left = [], 0, candidates
        while left:                      # greedy colouring: a bound on any clique within
            colour += 1
            free = left
            while free:
                v = (free & -free).bit_length() - 1
                free &= ~adj[v] & ~(1 << v)
                left &= ~(1 << v)
                order.append((v, colour))
        for v, c in reversed(order):
            if size + c <= best[1]:
                return
            nodes[0] += 1
            if nodes[0] > SEARCH_NODES:
                raise _Stop
            inner = candidates & adj[v]
            if inner:
                expand(size + 1, members | 1 << v, inner)
            elif size + 1 > best[1]:
                best[0], best[1] = members | 1 << v, size + 1
            candidates &= ~(1 << v)

    try:
        expand(0, 0, (1 << len(adj)) - 1)
    except _Stop:
        return best[0], False
    return best[0], True


def matrix_sha256(names: list[str], columns: list[str], values: np.ndarray) -> str:
    """SHA-256 of a models x units matrix, independent of the file's row order: the model names
    sorted (by code point), each followed by a line feed, a NUL byte, the column names sorted
    likewise, a NUL byte, then the values as little-endian float64 in those orders (NaN where a
    model has no value).

    Examples
    --------
    >>> v = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> matrix_sha256(["b", "a"], ["q2", "q1"], v) == matrix_sha256(
    ...     ["a", "b"], ["q1", "q2"], v[::-1, ::-1])
    True
    """
    rows = np.argsort(np.asarray(names, dtype=object).astype(str), kind="stable")
    cols = np.argsort(np.asarray(columns, dtype=object).astype(str), kind="stable")
    h = hashlib.sha256()
    h.update("".join(f"{names[i]}\n" for i in rows).encode("utf-8", "surrogatepass") + b"\0")
    h.update("".join(f"{columns[j]}\n" for j in cols).encode("utf-8", "surrogatepass") + b"\0")
    ordered = np.asarray(values, dtype="<f8")[np.ix_(rows, cols)]
    h.update(np.ascontiguousarray(ordered).tobytes())
    return h.hexdigest()
