"""The search behind :func:`leaderboard.pipelines.plan.plan`: the SD of an entry's observed score, the
smallest n and the minimum detectable difference (MDD) it implies, their refinement by simulation,
the simulated-power check, and the MDD table and curve.

The method (normal approximation, exact or root-n-scaled simulated SD, fixed-point refinement, the
check on independent simulated test sets) is described in :mod:`leaderboard.pipelines.plan`. Nothing here
reads command-line options or writes words for people beyond error messages.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr, ndtri   # norm.cdf / norm.ppf, bit for bit, without scipy.stats

from leaderboard.errors import InputError
from leaderboard.noise.rng import Stream, entropy_seed
from leaderboard.noise.universes import class_counts

TABLE_N = (500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000)
MAX_N = 10**9            # larger answers are reported as an error: choose a larger delta
MAX_SIMULATED_N = 2_000_000   # simulations above this size would take minutes
REFINE_STEPS = 8
CURVE_POINTS = 28


@dataclass(frozen=True)
class TableRow:
    """At n rows: the SD of one entry's observed score at the true score, the MDD, the public
    slice's rows and MDD; None where n rows cannot hold every class or nothing within reach is
    resolved. ``marks``: "your n", "minimum n"."""

    n: int
    sd: float | None
    mdd: float | None
    public_n: int | None
    mdd_public: float | None
    marks: tuple[str, ...] = ()


@dataclass(frozen=True)
class Check:
    """Simulated power at an answer, for independent entries (rho = 0).

    ``simulated_power`` is the share of ``pairs`` pairs of independent simulated test sets of n rows
    on which the better entry leads by more than ``critical = z_{1-alpha/2} * sd_diff``;
    ``normal_power`` is what the normal approximation predicts; ``mc_se = sqrt(p (1 - p) / pairs)``
    bounds the Monte Carlo SE from above (see :func:`check_power`).
    """

    n: int
    delta: float
    sd_diff: float
    critical: float
    normal_power: float
    simulated_power: float
    mc_se: float
    pairs: int


# --- the SD of one entry's observed score, sd(level, n) -------------------------------------

class ExactSD:
    """The universe's exact SD, cached (None where the test set is too small to score); an
    example is under :class:`Planner`."""

    def __init__(self, universe, prevalence):
        self.universe, self.prevalence, self.cache = universe, prevalence, {}

    def __call__(self, level: float, n: int) -> float | None:
        key = (float(level), int(n))
        if key not in self.cache:
            try:
                self.cache[key] = self.universe.exact_sd(level, int(n), self.prevalence)
            except InputError:
                self.cache[key] = None
        return self.cache[key]


class _Scaled:
    """SDs known at ``n0`` on a few levels, linear in the level between them, scaled to any n.

    ``base(n)`` is the SD at the true score s for n rows (None where n rows cannot be scored), and
    ``sd(level, n) = base(n) * ratio(level)`` with ``ratio`` the SDs at n0 relative to the one at s.
    Simulated SDs use ``base(n) = sd(s, n0) * sqrt(n0 / n)``: root-n scaling.
    """

    def __init__(self, levels, sds, base):
        levels, sds = np.asarray(levels, dtype=float), np.asarray(sds, dtype=float)
        order = np.argsort(levels)
        self.levels, self.sds, self.base = levels[order], sds[order], base
        self.at_s = float(sds[0])  # levels[0] is always the true score s

    def __call__(self, level: float, n: int) -> float | None:
        b = self.base(n)
        if b is None or self.at_s == 0:
            return b
        return b * float(np.interp(level, self.levels, self.sds)) / self.at_s


def _boundary(resolves, start: int, d: float) -> int:
    """The k with resolves(k) and not resolves(k - 1): gallop from ``start`` to a bracket, then
    bisect (``resolves`` is false below the boundary and true above it; n = 1 never resolves)."""
    lo, hi, step = max(start, 2) - 1, max(start, 2), 1
    while not resolves(hi):
        lo, hi, step = hi, hi + step, 2 * step
        if hi > MAX_N:
            raise InputError(f"telling apart a difference of {d:g} needs more than {MAX_N:,} "
                             "rows; choose a larger --delta")
    while lo >= 2 and resolves(lo):
        hi, lo, step = lo, max(lo - step, 1), 2 * step
    while hi - lo > 1:  # lo does not resolve, hi does
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if resolves(mid) else (mid, hi)
    return hi


class Planner:
    """The answers for one universe; holds the settings that every step needs.

    ``s`` is the :class:`~leaderboard.pipelines.plan.PlanSettings`, ``probe`` the n where the search for the
    minimum n starts, and ``progress`` is passed on to every simulation.

    Examples
    --------
    Accuracy 0.80 against 0.82 at power 80%: the two-proportion formula gives n = 6035.8.

    >>> from leaderboard.metrics import get_metric
    >>> from leaderboard.noise.universes import get_universe
    >>> from leaderboard.pipelines.plan import PlanSettings
    >>> from leaderboard.options import NoiseOptions
    >>> s = PlanSettings(get_metric("accuracy"), 0.80, NoiseOptions(draws=200), delta=0.02)
    >>> u = get_universe(s.metric, 1000, None)
    >>> p, sd = Planner(s, u, 1000, None), ExactSD(u, None)
    >>> p.min_n(sd, 0.02, 0.0), round(p.mdd(sd, 6036, 0.0), 6)
    (6036, 0.02)
    >>> check = check_power(p, sd, 6036, 0.02)
    >>> round(check.normal_power, 3), check.pairs
    (0.8, 200)
    >>> rows, curve = mdd_table(p, sd, {}, {"min_n": 6036})
    >>> rows[0].n, round(rows[0].mdd, 4), len(curve)
    (500, 0.0658, 28)
    """

    def __init__(self, s, universe, probe: int, progress):
        self.s, self.u, self.probe, self.progress = s, universe, probe, progress
        self.sign = 1.0 if s.metric.higher_is_better else -1.0
        self.z_alpha = float(ndtri(1 - s.alpha / 2))
        self.z_power = float(ndtri(s.power))
        lo, hi = (float(x) for x in universe.reachable())
        self.room = hi - s.score if self.sign > 0 else s.score - lo
        if not math.isfinite(self.room):  # unbounded side: far beyond any difference asked about
            self.room = 10.0 * max(abs(s.score), 1.0)
        self.simulated_at: list[int] = []
        self.mdd_cache: dict = {}
        self.last: _Scaled | None = None   # the latest simulated SDs

    def valid(self, n: int) -> bool:
        """Whether a test set of n rows can be drawn (every class gets a row)."""
        if n < 2:
            return False
        try:
            if hasattr(self.u, "test_counts"):
                self.u.test_counts(n, self.s.prevalence)
            elif self.s.prevalence is not None:
                class_counts(n, self.s.prevalence)
        except InputError:
            return False
        return True

    # - the criterion --------------------------------------------------------------------------
    def sd_diff(self, sd, d: float, n: int, rho: float) -> float | None:
        a, b = sd(self.s.score, n), sd(self.s.score + self.sign * d, n)
        if a is None or b is None:
            return None
        return math.sqrt(max(a * a + b * b - 2 * rho * a * b, 0.0))

    def resolves(self, sd, d: float, n: int, rho: float) -> bool:
        v = self.sd_diff(sd, d, n, rho)
        return v is not None and (self.z_alpha + self.z_power) * v <= d

    def min_n(self, sd, d: float, rho: float) -> int:
        """Smallest n that resolves d: on return, n resolves and n - 1 does not.

        Starts where root-n scaling from a probe puts the answer and walks to the boundary, so a
        few evaluations suffice when the SD is nearly root-n (it always is for large n).
        """
        z = self.z_alpha + self.z_power
        n = self.probe
        for _ in range(6):  # Newton-like steps on n * sd_diff(n)^2, constant under root-n scaling
            v = self.sd_diff(sd, d, n, rho)
            if v is None or v == 0:
                break
            step = min(max(math.ceil(n * (z * v / d) ** 2), 2), MAX_N + 1)
            if step == n:
                break
            n = step
        return _boundary(lambda k: self.resolves(sd, d, k, rho), n, d)

    def mdd(self, sd, n: int, rho: float) -> float | None:  # cached: the table reuses answers
        """The d with d = (z_a + z_b) sd_diff(n, d); None if no reachable d is detectable.

        sd_diff changes slowly with d, so a fixed-point step from z * sd_diff(n, 0) and then secant
        steps find the root in a few evaluations. The result r is accepted only if d = r resolves
        and d = r (1 - 1e-9) does not, so "MDD(n) <= delta" agrees with "n resolves delta" to 1e-9
        relative; otherwise bisection (brentq) over the whole reachable range decides.
        """
        key = (sd, n, rho)
        if key not in self.mdd_cache:
            self.mdd_cache[key] = self._mdd(sd, n, rho)
        return self.mdd_cache[key]

    def _mdd(self, sd, n: int, rho: float) -> float | None:
        z = self.z_alpha + self.z_power
        base = self.sd_diff(sd, 0.0, n, rho)
        if base is None:
            return None
        if base == 0:
            return 0.0

        def gap(d: float) -> float:
            step = self.sd_diff(sd, d, n, rho)
            assert step is not None   # defined at 0, so within reach
            return d - z * step

        a = min(z * base, self.room)
        fa = gap(a)
        b = min(a - fa, self.room)
        fb = gap(b)
        for _ in range(30):
            if fb == fa or abs(b - a) <= 1e-9 * b:
                break
            a, fa, b = b, fb, min(max(b - fb * (b - a) / (fb - fa), 0.0), self.room)
            fb = gap(b)
        # Return a d that resolves with d (1 - 1e-9) not resolving: the root pinned to 1e-9 (the
        # exact SDs of finite universes step by ~1e-10, so a tighter pin need not exist).
        if fb >= 0:
            known = fa < 0 and b * (1 - 1e-9) <= a < b
            if known or gap(b * (1 - 1e-9)) < 0:
                return float(b)
        elif b < self.room and gap(b * (1 + 1e-9)) >= 0:
            return float(b * (1 + 1e-9))
        if gap(self.room) < 0:
            return None
        from scipy.optimize import brentq   # lazily: scipy.optimize takes ~0.5 s to import
        return float(brentq(gap, 0.0, self.room, xtol=1e-15, rtol=1e-13))

    # - simulation -----------------------------------------------------------------------------
    def simulated(self, levels, n: int) -> _Scaled:
        """SDs simulated at n rows on ``levels`` (the first is s), scaled as root-n elsewhere."""
        levels = np.asarray(levels, dtype=float)
        x = self.u.simulate(levels, n, self.s.prevalence, self.s.draws, self.s.seed,
                            progress=self.progress)
        sds = np.empty(levels.size)
        for i, row in enumerate(x):
            ok = row[np.isfinite(row)]
            if ok.size < max(10, self.s.draws // 2):
                share = 1 - ok.size / row.size
                raise InputError(f"{self.s.metric.label} is undefined on {share:.0%} of simulated "
                                 f"test sets of {n:,} rows; plan a larger test set")
            sds[i] = ok.std(ddof=1)
        self.simulated_at.append(int(n))
        at_s = float(sds[0])
        self.last = _Scaled(levels, sds,
                            lambda k: at_s * math.sqrt(n / k) if self.valid(k) else None)
        return self.last

    def tolerance(self) -> float:
        """Relative change of n at which refinement stops: 1%, or two Monte Carlo SEs of a
        simulated variance (sqrt(2 / (B - 1)) each), below which a step only moves n by noise."""
        return max(0.01, 2 * math.sqrt(2 / (self.s.draws - 1)))

    def refined_min_n(self, d: float, rho: float, n0: int) -> tuple[int, _Scaled]:
        """Fixed-point refinement: simulate at n0, solve for n, simulate at that n, ..."""
        levels = [self.s.score, self.s.score + self.sign * d]
        for _ in range(REFINE_STEPS):
            model = self.simulated(levels, n0)
            n1 = self.min_n(model, d, rho)
            if abs(n1 - n0) <= self.tolerance() * n0 or (n0 == MAX_SIMULATED_N and n1 > n0):
                break
            n0 = min(n1, MAX_SIMULATED_N)
        return n1, model

    def refined_mdd(self, n: int, rho: float) -> tuple[float | None, _Scaled]:
        """Fixed-point refinement of the MDD at n: simulate s and s + d, solve for d, repeat."""
        # Start from any earlier simulation scaled to n, else from sd(s + d) = sd(s) at n.
        d = self.mdd(self.last or self.simulated([self.s.score], n), n, rho)
        for _ in range(REFINE_STEPS):
            d = self.room if d is None else d  # nothing within reach at sd(s): try the far end
            model = self.simulated([self.s.score, self.s.score + self.sign * d], n)
            new = self.mdd(model, n, rho)
            if new is None or abs(new - d) <= 0.01 * d:
                return new, model
            d = new
        return d, model


def check_power(p: Planner, sd, n: int, d: float) -> Check:
    """Simulated power of independent entries at (n, d): see :class:`Check`.

    Pairs (x_r, y_(r - B/2)) use different test sets. Pair r and pair r + B/2 share test sets in
    reverse roles, so their differences are negatively correlated (common random numbers make x_r
    and y_r positively correlated); the share's variance is then at most p (1 - p) / B.
    """
    s = p.s
    seed = entropy_seed(s.seed, Stream.PLAN_POWER_CHECK)   # not the SD's test sets
    x = p.u.simulate(np.array([s.score, s.score + p.sign * d]), n, s.prevalence, s.draws, seed,
                     progress=p.progress)
    diff = p.sign * (np.roll(x[1], s.draws // 2) - x[0])
    diff = diff[np.isfinite(diff)]
    sdd = p.sd_diff(sd, d, n, 0.0)
    assert sdd is not None   # checked at an answer, where the SD is defined
    critical = p.z_alpha * sdd
    share = float(np.mean(diff > critical)) if diff.size else math.nan
    return Check(n=int(n), delta=float(d), sd_diff=sdd, critical=critical,
                 normal_power=float(ndtr((d - critical) / sdd)) if sdd > 0 else 1.0,
                 simulated_power=share, mc_se=math.sqrt(share * (1 - share) / max(diff.size, 1)),
                 pairs=int(diff.size))


def mdd_table(p: Planner, sd, answer_models: dict, out: dict) -> tuple[tuple, tuple]:
    """MDD at the usual sizes plus the user's n and the minimum n, and the curve for the chart.

    Exact SD: table rows are exact; the curve uses the exact SD at s for every n times the ratio
    sd(level) / sd(s) at one reference n, interpolated over six levels (the ratio hardly depends on
    n, and the curve is only drawn). Simulated SD: both come from one simulation at the answer's
    n on six levels, scaled as root-n; rows at an answer's n use that answer's own refined model.
    """
    s = p.s
    marks: dict[int, list[str]] = {}
    for value, label in ((s.n_test, "your n"), (out.get("min_n"), "minimum n")):
        if value is not None:
            marks.setdefault(value, []).append(label)
    ns = sorted(set(TABLE_N) | set(marks))
    ref_n = out.get("min_n") or s.n_test
    if sd is None:
        first = answer_models[ref_n]
        sizes = ns + ([public_rows(n, s.public_fraction) for n in ns]
                      if s.public_fraction is not None else [])
        small = min((n for n in sizes if p.valid(n)), default=ref_n)
        far = p.mdd(first, small, s.correlation)
        far = p.room if far is None else min(1.3 * far, p.room)
        grid_n = min(ref_n, MAX_SIMULATED_N)
        sd = grid = p.simulated(s.score + p.sign * np.linspace(0.0, far, 6), grid_n)
    rows = []
    for n in ns:
        row_sd = answer_models.get(n, sd)
        public_n = public_rows(n, s.public_fraction) if s.public_fraction is not None else None
        public_sd = answer_models.get(public_n, sd)
        rows.append(TableRow(n, row_sd(s.score, n), p.mdd(row_sd, n, s.correlation), public_n,
                             p.mdd(public_sd, public_n, s.correlation) if public_n else None,
                             tuple(marks.get(n, ()))))
    if isinstance(sd, ExactSD):
        reach = [r.mdd for r in rows if r.mdd is not None] + [r.mdd_public for r in rows
                                                               if r.mdd_public is not None]
        far = min(1.05 * max(reach), p.room) if reach else p.room
        levels = s.score + p.sign * np.linspace(0.0, far, 6)
        known = [(x, sd(x, ref_n)) for x in levels if sd(x, ref_n) is not None]
        grid = _Scaled([x for x, _ in known], [v for _, v in known], lambda k: sd(s.score, k))
    curve = []
    for n in np.unique(np.round(np.geomspace(ns[0], ns[-1], CURVE_POINTS)).astype(int)):
        d = p.mdd(grid, int(n), s.correlation)
        if d is not None:
            curve.append((int(n), d))
    return tuple(rows), tuple(curve)


def public_rows(n: int, fraction: float) -> int:
    """Rows of the public slice: n * F rounded half up.

    Examples
    --------
    >>> public_rows(1000, 0.3), public_rows(5, 0.3)
    (300, 2)
    """
    return int(math.floor(n * fraction + 0.5))
