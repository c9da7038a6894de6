"""``leaderboard plan --from FILE`` (issue 40 item 5): with a board like this one, how many units
(test rows, items or battles) until the current leader stands alone in tier 1 with probability
``power``, and until the top ``k`` separate (each alone in its own tier, in order)?

Method
------
**The truth is the board as measured.** The compared entries' true scores are their observed
scores ``mu`` (oriented, higher is better), and at the board's current size ``n0`` their
estimates have the covariance ``V0`` the analysis measured: the covariance of its paired bootstrap
replicates (items, submissions, battles), or, scores only, the SDs of its simulated noise with the
correlation its comparisons assumed. At ``n`` units the estimates are normal with mean ``mu`` and
covariance ``V0 * n0 / n`` (every score here is root-n).

**A board of n units** is ``mu + L0 z sqrt(n0 / n)`` (``L0 L0' = V0``), and its tiers are cut as
the analysis cuts them, by the tier method in force (:func:`leaderboard.tiers.ranking.tier_entries`,
the analysis's method and alpha), from ``R`` paired replicates of normal errors with that
covariance (what the bootstrap measures at that size). It *succeeds* when the current leader is
alone in tier 1 (for the top ``k``: the current first ``k`` are each alone in tiers 1 to ``k``,
in order).

**Sizes.** Scaling every score and error by the same factor moves no tier, so a size ``n`` is
simulated at the current scale with ``mu`` stretched by ``sqrt(n / n0)``: the same ``S`` boards'
noise and the same replicate errors at every size (common random numbers), which keeps the
estimated probability monotone in ``n``. ``needed`` is the smallest ``n`` at which the share of
successful boards reaches ``power``, found by doubling from the current size and then bisecting
(to 2%); ``current`` holds the share at ``n0``. Each share has Monte Carlo error
``sqrt(p (1 - p) / S)`` (about 0.028 at 0.8 with the default 200 boards).

**Assumes**: the units are independent and drawn like these ones (more of the same items, test
rows, or battles with the same mix of pairings); the true scores are the observed ones (a pilot's
leader is often lucky: its lead is overstated by the winner's curse, which makes the answer
optimistic, and the smaller the pilot the more); normal errors; the tiers' SEs known at each size
(the simulation does not add the noise of estimating them). Checked against known truth in
tests/pipelines/test_plan_board.py: boards drawn at the planned size from a 300-item pilot taken
as the truth, analysed by the package's own bootstrap and tiers, put the leader alone in tier 1
about as often as promised. Vectorised: boards and replicates are drawn at once; the loop is over
boards, one call of the tier method each (no loop over replicates).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from leaderboard.errors import InputError
from leaderboard.noise.rng import Stream, block_rng
from leaderboard.params import DEFAULT_ALPHA, DEFAULT_POWER, DEFAULT_SEED, DEFAULT_TIERS

BOARDS = 200          # simulated boards per size (--boards)
REPLICATES = 500      # normal replicates behind each simulated board's tiers
MAX_FACTOR = 10 ** 6  # sizes searched up to this many times the current one
PRACTICAL_FACTOR = 100   # a test set this many times the board's is no practical plan
PRECISION = 1.02      # the bisection stops when the bracket's ends are this close (ratio)


@dataclass(frozen=True)
class Goal:
    """One question's answer: ``needed`` units (None with ``reason``) and the share of boards
    that succeed at the current size (``current_share``) and at ``needed`` (``needed_share``)."""

    name: str
    k: int
    needed: int | None
    current_share: float
    needed_share: float | None
    reason: str | None = None


@dataclass(frozen=True)
class BoardPlan:
    """What ``plan --from`` answers (see the module docstring)."""

    mode: str
    source: str
    unit: str
    current: int
    models: tuple[str, ...]
    power: float
    boards: int
    replicates: int
    method: str
    alpha: float
    seed: int
    leader: Goal
    top: Goal
    curve: tuple[tuple[int, float, float | None], ...] = ()   # (n, leader share, top share)
    notes: tuple[str, ...] = field(default=())


@dataclass(frozen=True)
class Truth:
    """The board taken as the truth: oriented scores ``mu`` in rank order, the covariance
    ``cov`` of their estimates at ``n0`` units, or (scores only) their ``sd`` and one
    ``correlation``."""

    mu: np.ndarray
    names: tuple[str, ...]
    n0: int
    unit: str
    cov: np.ndarray | None = None
    sd: np.ndarray | None = None
    correlation: float | None = None


def truth_of(analysis) -> Truth:
    """The truth a board's analysis implies (scores, submissions, items or battles)."""
    if getattr(analysis, "mode", None) == "battles":   # the first (largest) group's
        t = analysis.table
        clusters = getattr(analysis.groups[0], "clusters", None) if hasattr(
            analysis, "groups") else None
        return Truth(mu=t["rating"].to_numpy(float), names=tuple(t["model"].astype(str)),
                     n0=int(clusters or analysis.battles_rated),
                     unit="cluster" if clusters else "battle", cov=_cov(analysis.replicates))
    t, s = analysis.table, analysis.settings
    sign = 1.0 if s.higher_is_better else -1.0
    if analysis.bootstrap is not None:
        boot = analysis.bootstrap
        grouped = boot.resample == "grouped"
        unit = "cluster" if grouped else ("item" if analysis.items is not None else "test row")
        return Truth(mu=sign * boot.point, names=tuple(t["team"].astype(str)),
                     n0=int(boot.n_units), unit=unit, cov=_cov(sign * boot.replicates))
    if analysis.ranking is None or s.n_test is None:
        raise InputError("plan --from a board of scores needs its noise: give --n-test (and "
                         "--prevalence for a binary metric), as for analyze")
    ranked = t.loc[t["tier"] > 0]
    rho = analysis.correlation.used if analysis.correlation is not None else 0.0
    return Truth(mu=sign * ranked["score"].to_numpy(float),
                 names=tuple(ranked["team"].astype(str)), n0=int(s.n_test), unit="test row",
                 sd=ranked["sd"].to_numpy(float), correlation=float(rho))


def _cov(replicates: np.ndarray) -> np.ndarray:
    """Covariance of paired replicates (entries x replicates), replicates with a NaN left out."""
    reps = np.asarray(replicates, dtype=float)
    reps = reps[:, np.isfinite(reps).all(axis=0)]
    return np.atleast_2d(np.cov(reps))


def plan_board(truth: Truth, *, power: float = DEFAULT_POWER, k: int = 3, method: str = DEFAULT_TIERS,
               alpha: float = DEFAULT_ALPHA, boards: int = BOARDS, replicates: int = REPLICATES,
               seed: int = DEFAULT_SEED, progress=None, mode: str = "", source: str = "") -> BoardPlan:
    """Units needed for the leader to stand alone in tier 1, and for the top ``k`` to separate,
    with probability ``power`` (module docstring).

    Examples
    --------
    Two models 0.05 apart, each with SD 0.02 at 400 items and independent: a paired test needs
    (1.96 + 0.84)^2 * 2 * 0.02^2 / 0.05^2 * 400 = 1,004 items for power 0.8; the two-entry tiers
    ask the same question.

    >>> t = Truth(mu=np.array([0.75, 0.70]), names=("a", "b"), n0=400, unit="item",
    ...           cov=np.diag([0.02 ** 2, 0.02 ** 2]))
    >>> p = plan_board(t, k=2, boards=400, replicates=400)
    >>> 850 < p.leader.needed < 1200, p.leader.needed == p.top.needed
    (True, True)
    """
    mu = np.asarray(truth.mu, dtype=float)
    m = mu.size
    if m < 2:
        raise InputError("plan --from needs at least two compared entries")
    k = max(1, min(int(k), m - 1))
    sim = _Simulation(truth, boards, replicates, seed, method, alpha)
    sim.goals = (1, k)                 # every size simulated answers both questions at once
    if progress is not None:
        progress.start(24, "simulating boards")
    leader = _search(sim, 1, power, "leader alone in tier 1", progress, _guess(truth, 1))
    top = _search(sim, k, power, f"top {k} separate", progress,
                  max(_guess(truth, k), leader.needed or 0))
    curve = tuple((n, round(shares[1], 6), shares.get(k)) for n, shares in
                  sorted(sim.cache.items()))
    return BoardPlan(mode=mode, source=source, unit=truth.unit, current=truth.n0,
                     models=truth.names, power=power, boards=boards, replicates=replicates,
                     method=method, alpha=alpha, seed=seed, leader=leader, top=top,
                     curve=tuple((n, a, b) for n, a, b in curve),
                     notes=far_notes(truth, (leader, top)))


class _Simulation:
    """The S boards' noise and the replicate errors, drawn once (module docstring)."""

    def __init__(self, truth: Truth, boards: int, replicates: int, seed: int, method: str,
                 alpha: float):
        from leaderboard.tiers.replicates import RankReplicates

        self.truth, self.method, self.alpha = truth, method, alpha
        m = truth.mu.size
        z = np.concatenate([block_rng(seed, Stream.PLAN_FROM_BOARDS, b).standard_normal((32, m))
                            for b in range(-(-boards // 32))])[:boards]
        if truth.cov is not None:
            root = _root(truth.cov)
            self.noise = z @ root.T                       # (boards, m): each row one board
            zr = np.concatenate([block_rng(seed, Stream.PLAN_FROM_REPLICATES, b)
                                 .standard_normal((32, m)) for b in range(-(-replicates // 32))])
            self.errors = root @ zr[:replicates].T        # (m, R)
            self.sd = np.sqrt(np.maximum(np.diag(truth.cov), 0.0))
            self.rho = None
        else:
            assert truth.correlation is not None   # no covariance: an SD and one correlation
            rho, sd = float(truth.correlation), np.asarray(truth.sd, dtype=float)
            shared = np.sqrt(rho) * z[:, :1] + np.sqrt(1 - rho) * z
            self.noise = shared * sd[None, :]
            self.errors = RankReplicates.normal(np.zeros(m), sd, rho, True,
                                                replicates=replicates,
                                                seed=seed).errors   # float32, closed form
            self.sd, self.rho = sd, rho
        self.cache: dict[int, dict[int, float]] = {}
        self.goals: tuple[int, ...] = (1,)
        self._reps = RankReplicates

    def shares(self, n: int, ks: tuple[int, ...]) -> dict[int, float]:
        """Share of boards whose current first ``k`` are alone in tiers 1..k, per ``k``."""
        from leaderboard.tiers.ranking import tier_entries

        done = self.cache.setdefault(n, {})
        todo = sorted({k for k in (*ks, *self.goals) if k not in done})
        if not todo:
            return done
        stretch = math.sqrt(n / self.truth.n0)
        points = stretch * self.truth.mu[None, :] + self.noise       # (boards, m)
        wins = np.zeros(len(todo), dtype=int)
        for board in points:
            order = np.argsort(-board, kind="stable")
            reps = self._reps(point=board[order], errors=self.errors[order], sd=self.sd[order],
                              correlation=self.rho, sign=1.0, source="plan --from")
            tier = np.empty(board.size, dtype=int)
            tier[order] = tier_entries(reps, self.method, self.alpha).tier
            counts = np.bincount(tier, minlength=max(todo) + 2)
            alone = (tier[:max(todo)] == np.arange(1, max(todo) + 1)) & \
                (counts[1:max(todo) + 1] == 1)
            for j, kk in enumerate(todo):
                wins[j] += bool(alone[:kk].all())
        for j, kk in enumerate(todo):
            done[kk] = wins[j] / points.shape[0]
        return done


def _root(cov: np.ndarray) -> np.ndarray:
    """A matrix square root ``L`` with ``L L' = cov`` (symmetric; a singular covariance, e.g.
    two identical models, is fine)."""
    values, vectors = np.linalg.eigh((cov + cov.T) / 2)
    return vectors * np.sqrt(np.clip(values, 0.0, None))[None, :]


def _guess(truth: Truth, k: int) -> int:
    """Where the search starts: the size at which the hardest of the first ``k`` adjacent gaps
    is about 3.8 of its difference's SDs (a one-pair test with a family's critical value near
    3 and power 0.8), at least 1. Only a start: the simulation decides."""
    n0 = truth.n0
    worst = 0.0
    for j in range(min(k, truth.mu.size - 1)):
        gap, var = _adjacent(truth, j)
        if gap <= 0 or not var > 0:
            return n0
        worst = max(worst, 3.8 ** 2 * var / gap ** 2)
    return int(min(max(math.ceil(n0 * worst), 1), MAX_FACTOR * n0))


def _adjacent(truth: Truth, j: int) -> tuple[float, float]:
    """Entries j and j + 1: their gap (oriented) and the variance of their difference at the
    board's size."""
    if truth.cov is not None:
        var = truth.cov[j, j] + truth.cov[j + 1, j + 1] - 2 * truth.cov[j, j + 1]
    else:
        assert truth.sd is not None and truth.correlation is not None   # no covariance
        a, b = truth.sd[j], truth.sd[j + 1]
        var = a * a + b * b - 2 * truth.correlation * a * b
    return float(truth.mu[j] - truth.mu[j + 1]), float(var)


def far_notes(truth: Truth, goals: tuple[Goal, ...]) -> tuple[str, ...]:
    """What a goal of :data:`PRACTICAL_FACTOR` or more times the board's size (or none found)
    means: the adjacent pair that needs it (the smallest gap for the SD of its difference among
    the goal's first entries), how far apart they are in score and in standard errors, and
    that unless that many units can be had the two read as tied. One note per such pair (the
    leader's and the top k's goals often share it).

    Examples
    --------
    >>> t = Truth(mu=np.array([0.80, 0.7999, 0.70]), names=("a", "b", "c"), n0=1000,
    ...           unit="item", cov=np.diag([1e-4, 1e-4, 1e-4]))
    >>> far = Goal("leader alone in tier 1", 1, None, 0.0, None, "more than ...")
    >>> print(far_notes(t, (far,))[0][:60])
    Leader alone in tier 1: a and b hold it back, 0.0001 apart o
    """
    goals_of: dict[int, list[str]] = {}   # pair -> the goals it holds back, in order
    for goal in goals:
        if goal.needed is not None and goal.needed < PRACTICAL_FACTOR * truth.n0:
            continue
        pairs = range(min(goal.k, truth.mu.size - 1))
        j = max(pairs, key=lambda i: _hardness(truth, i))
        gap, var = _adjacent(truth, j)
        if gap > 0 and var > 0:   # a tie has its own reason already
            goals_of.setdefault(j, []).append(goal.name)
    notes = []
    for j, names in goals_of.items():
        gap, var = _adjacent(truth, j)
        what = " and ".join(names)
        notes.append(
            f"{what[0].upper()}{what[1:]}: {truth.names[j]} and {truth.names[j + 1]} hold it "
            f"back, {_plain(gap)} apart on this board, {_plain(gap / math.sqrt(var))} standard "
            f"errors of their difference at its size. Ordering them takes {PRACTICAL_FACTOR:,} "
            f"or more times this board's {truth.unit}s: unless that many can be had, read the "
            "two as tied (their true gap may be smaller still, or zero).")
    return tuple(notes)


def _plain(x: float) -> str:
    """Two significant digits, never in exponent form (a gap of 5e-05 reads 0.00005)."""
    return np.format_float_positional(x, precision=2, unique=False, fractional=False, trim="-")


def _hardness(truth: Truth, j: int) -> float:
    """How many times the board's size pair j needs, up to a constant: var / gap^2."""
    gap, var = _adjacent(truth, j)
    return math.inf if gap <= 0 else var / gap ** 2


def _search(sim: _Simulation, k: int, power: float, name: str, progress,
            start: int | None = None) -> Goal:
    """The smallest size whose share of successful boards reaches ``power``: from ``start``
    (default the current size), doubling or halving until the answer is bracketed, then
    bisecting in log size."""
    mu, n0 = sim.truth.mu, sim.truth.n0
    if np.any(mu[:k] <= mu[1:k + 1]):
        tied = int(np.argmax(mu[:k] <= mu[1:k + 1]))
        return Goal(name, k, None, sim.shares(n0, (k,))[k], None,
                    f"entries {tied + 1} and {tied + 2} score the same: no number of units "
                    "separates a gap of 0")

    def share(n: int) -> float:
        if progress is not None:
            progress.advance()
        return sim.shares(n, (k,))[k]

    now = share(n0)
    n = n0 if not start else int(start)
    first = now if n == n0 else share(n)
    lo, hi = (None, n) if first >= power else (n, None)
    while hi is None:
        n *= 2
        if n > MAX_FACTOR * n0:
            return Goal(name, k, None, now, None, f"more than {MAX_FACTOR * n0:,} "
                        f"{sim.truth.unit}s ({MAX_FACTOR:,} times the current number)")
        if share(n) >= power:
            hi = n
        else:
            lo = n
    while lo is None:
        n = hi // 2
        if n < 1:
            lo = 0
        elif share(n) < power:
            lo = n
        else:
            hi = n
    while hi - lo > 1 and hi > PRECISION * max(lo, 1):
        mid = int(round(math.sqrt(max(lo, 1) * hi)))
        mid = min(max(mid, lo + 1), hi - 1)
        if share(mid) >= power:
            hi = mid
        else:
            lo = mid
    return Goal(name, k, hi, now, sim.cache[hi][k])
