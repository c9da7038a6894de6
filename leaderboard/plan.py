"""Test-set planning: how many rows tell two entries apart, and how small a gap a test set resolves.

Method
------
Two entries with true scores ``s`` and ``s' = s + delta`` (``delta`` in the metric's better
direction) are each scored on a test set of ``n`` rows. The observed difference of their scores is
treated as normal (the normal approximation) with mean ``delta`` and standard deviation

    sd_diff(n) = sqrt(sd(s, n)**2 + sd(s', n)**2 - 2 * rho * sd(s, n) * sd(s', n)),

where ``sd(score, n)`` is the SD of one entry's observed score and ``rho`` the assumed correlation
between the entries' scores (0: independent test sets, the conservative choice; entries scored on
one shared test set are positively correlated, which makes differences less noisy). A two-sided test
at level ``alpha`` then detects the difference with probability at least ``power`` when

    delta >= (z_{1 - alpha/2} + z_{power}) * sd_diff(n).

The *minimum test-set size* is the smallest ``n`` that satisfies it; the *minimum detectable
difference* (MDD) at ``n`` is the ``delta`` that makes it an equality.

``sd(score, n)`` is the universe's exact SD where it has one (``sd_method = "exact"``). Otherwise it
is simulated at a pilot ``n0`` and scaled as ``sqrt(n0 / n)`` (every metric here is asymptotically
root-n), then refined by a fixed-point step: simulate again at the ``n`` found and rescale, until
``n`` moves by less than 1%, or by less than two Monte Carlo standard errors of the simulated
variance, below which further steps only move ``n`` by noise (``sd_method = "simulated"``).

Each answer is then checked by simulation: the two entries are scored on *independent* simulated
test sets of the answer's size (draw ``r`` of one with draw ``r + draws/2`` of the other: the
universes reuse the same test sets at every level), and the simulated power is the share of pairs
whose observed difference exceeds the critical value ``z_{1 - alpha/2} * sd_diff``. It checks the
normal approximation and the SD for ``rho = 0``; an assumed ``rho`` cannot be simulated, so with
``rho != 0`` the check is made at the ``rho = 0`` answer.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq
from scipy.stats import norm

from leaderboard.errors import InputError
from leaderboard.metrics import Metric
from leaderboard.noise.universes import (UniverseOptions, class_counts, get_universe,
                                         not_simulable_reason)

TABLE_N = (500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000)
MAX_N = 10**9            # larger answers are reported as an error: choose a larger delta
MAX_SIMULATED_N = 2_000_000   # simulations above this size would take minutes
REFINE_STEPS = 8
CURVE_POINTS = 28


@dataclass(frozen=True)
class PlanSettings:
    """What ``leaderboard plan`` is asked (see the module docstring for the method)."""

    metric: Metric
    score: float
    prevalence: float | None = None
    delta: float | None = None
    n_test: int | None = None
    alpha: float = 0.05
    power: float = 0.8
    public_fraction: float | None = None
    correlation: float = 0.0
    draws: int = 2000
    seed: int = 0
    universe: UniverseOptions = UniverseOptions()


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
    bounds the Monte Carlo SE from above (see :func:`_check_power`).
    """

    n: int
    delta: float
    sd_diff: float
    critical: float
    normal_power: float
    simulated_power: float
    mc_se: float
    pairs: int


@dataclass(frozen=True)
class Plan:
    """The answers of ``leaderboard plan``; None for a question not asked (or, with the reason in
    ``notes``, not answerable).

    Under the normal approximation with the stated SD: ``min_n`` rows detect ``delta`` with power
    at least ``power`` at level ``alpha`` and ``min_n - 1`` rows do not; ``mdd`` is the smallest
    difference that ``n_test`` rows detect so (to 1e-9 relative); ``min_n_public`` is the smallest
    full size whose public slice has ``min_n`` rows; ``mdd_public`` is the MDD of the slice of
    ``n_test``. ``*_independent``: the same for correlation 0. ``check`` tests the approximation.
    """

    settings: PlanSettings
    universe: str
    assumptions: str
    sd_method: str
    higher_is_better: bool
    reachable: tuple[float, float]
    z_alpha: float
    z_power: float
    min_n: int | None = None
    min_n_public: int | None = None
    mdd: float | None = None
    public_n: int | None = None
    mdd_public: float | None = None
    min_n_independent: int | None = None
    mdd_independent: float | None = None
    check: Check | None = None
    table: tuple[TableRow, ...] = ()
    curve: tuple[tuple[int, float], ...] = ()
    simulated_at: tuple[int, ...] = ()   # simulated SD: the n of each simulation, in order
    notes: tuple[str, ...] = ()


# --- the SD of one entry's observed score, sd(level, n) -------------------------------------

class _Exact:
    """The universe's exact SD (None where the test set is too small to score)."""

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


class _Planner:
    """The answers for one universe; holds the settings that every step needs."""

    def __init__(self, s: PlanSettings, universe, probe: int, progress):
        self.s, self.u, self.probe, self.progress = s, universe, probe, progress
        self.sign = 1.0 if s.metric.higher_is_better else -1.0
        self.z_alpha = float(norm.ppf(1 - s.alpha / 2))
        self.z_power = float(norm.ppf(s.power))
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
            return d - z * self.sd_diff(sd, d, n, rho)

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


def plan(settings: PlanSettings, *, universe=None, progress=None, table: bool = True) -> Plan:
    """Minimum test-set size and minimum detectable difference (see the module docstring).

    ``universe`` replaces the one :func:`~leaderboard.noise.universes.get_universe` would build
    (tests use it to force the simulated SD); ``table=False`` skips the table and curve.

    Examples
    --------
    The two-proportion formula, n = (z_0.975 + z_0.8)^2 (0.8 * 0.2 + 0.82 * 0.18) / 0.02^2 = 6035.8:

    >>> from leaderboard.metrics import get_metric
    >>> p = plan(PlanSettings(get_metric("accuracy"), 0.80, delta=0.02, draws=200), table=False)
    >>> p.min_n, p.sd_method
    (6036, 'exact')
    """
    s = settings
    _check(s)
    probe = s.n_test or _pilot_n(s.prevalence)
    u = universe or get_universe(s.metric, probe, s.prevalence, s.universe)
    _check_reach(s, u)
    p = _Planner(s, u, probe, progress)
    rho, out, notes = s.correlation, {}, []
    exact = u.exact_sd(s.score, probe, s.prevalence) is not None
    sd = _Exact(u, s.prevalence) if exact else None
    answer_models = {}   # simulated SD: the model each answer was refined with, by its n

    def min_n(r: float) -> int:
        if exact:
            return p.min_n(sd, s.delta, r)
        n, model = p.refined_min_n(s.delta, r, probe)
        answer_models[n] = model
        if n > MAX_SIMULATED_N:
            notes.append(f"Above {MAX_SIMULATED_N:,} rows the SD is scaled from a simulation at "
                         f"{MAX_SIMULATED_N:,} rows rather than refined at the answer.")
        return n

    def mdd(n: int, r: float) -> float | None:
        if exact:
            return p.mdd(sd, n, r)
        d, model = p.refined_mdd(n, r)
        answer_models[n] = model
        return d

    if s.delta is not None:
        out["min_n"] = min_n(rho)
        if s.public_fraction is not None:
            out["min_n_public"] = _full_for_public(out["min_n"], s.public_fraction)
    if s.n_test is not None:
        out["mdd"] = mdd(s.n_test, rho)
        if out["mdd"] is None:
            raise InputError(f"with --n-test {s.n_test:,} no difference within reach of "
                             f"{s.score:g} is detectable ({_reach_words(u)}); plan a larger "
                             "test set")
        if s.public_fraction is not None:
            out["public_n"] = _public_rows(s.n_test, s.public_fraction)
            out["mdd_public"] = mdd(out["public_n"], rho) if p.valid(out["public_n"]) else None
            if out["mdd_public"] is None:
                notes.append(f"The public slice of {out['public_n']:,} rows cannot resolve any "
                             "difference within reach.")
    if rho != 0:  # what independent entries would need: the conservative answer, and the check's
        if s.delta is not None:
            out["min_n_independent"] = min_n(0.0)
        if s.n_test is not None:
            out["mdd_independent"] = mdd(s.n_test, 0.0)
    if s.delta is not None:
        check_n, check_d = out.get("min_n_independent", out["min_n"]), s.delta
    else:
        check_n, check_d = s.n_test, out.get("mdd_independent", out["mdd"])
    check = None
    if check_d is not None and check_n <= MAX_SIMULATED_N:
        check = _check_power(p, sd if exact else answer_models[check_n], check_n, check_d)
    elif check_d is not None:
        notes.append(f"The answer was not checked by simulation: {check_n:,} rows is above "
                     f"{MAX_SIMULATED_N:,}.")
    rows, curve = _table(p, sd, answer_models, out) if table else ((), ())
    shown_n = s.n_test or out["min_n"]
    return Plan(settings=s, universe=u.name, assumptions=u.assumptions(shown_n, s.prevalence),
                sd_method="exact" if exact else "simulated",
                higher_is_better=s.metric.higher_is_better,
                reachable=tuple(float(x) for x in u.reachable()), z_alpha=p.z_alpha,
                z_power=p.z_power, check=check, table=rows, curve=curve,
                simulated_at=tuple(p.simulated_at), notes=tuple(notes), **out)


def _check_power(p: _Planner, sd, n: int, d: float) -> Check:
    """Simulated power of independent entries at (n, d): see :class:`Check`.

    Pairs (x_r, y_(r - B/2)) use different test sets. Pair r and pair r + B/2 share test sets in
    reverse roles, so their differences are negatively correlated (common random numbers make x_r
    and y_r positively correlated); the share's variance is then at most p (1 - p) / B.
    """
    s = p.s
    seed = int(np.random.SeedSequence([s.seed, 1]).generate_state(1)[0])  # not the SD's test sets
    x = p.u.simulate(np.array([s.score, s.score + p.sign * d]), n, s.prevalence, s.draws, seed,
                     progress=p.progress)
    diff = p.sign * (np.roll(x[1], s.draws // 2) - x[0])
    diff = diff[np.isfinite(diff)]
    sdd = p.sd_diff(sd, d, n, 0.0)
    critical = p.z_alpha * sdd
    share = float(np.mean(diff > critical)) if diff.size else math.nan
    return Check(n=int(n), delta=float(d), sd_diff=sdd, critical=critical,
                 normal_power=float(norm.cdf((d - critical) / sdd)) if sdd > 0 else 1.0,
                 simulated_power=share, mc_se=math.sqrt(share * (1 - share) / max(diff.size, 1)),
                 pairs=int(diff.size))


def _table(p: _Planner, sd, answer_models: dict, out: dict) -> tuple[tuple, tuple]:
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
        sizes = ns + ([_public_rows(n, s.public_fraction) for n in ns]
                      if s.public_fraction is not None else [])
        small = min((n for n in sizes if p.valid(n)), default=ref_n)
        far = p.mdd(first, small, s.correlation)
        far = p.room if far is None else min(1.3 * far, p.room)
        grid_n = min(ref_n, MAX_SIMULATED_N)
        sd = grid = p.simulated(s.score + p.sign * np.linspace(0.0, far, 6), grid_n)
    rows = []
    for n in ns:
        row_sd = answer_models.get(n, sd)
        public_n = _public_rows(n, s.public_fraction) if s.public_fraction is not None else None
        public_sd = answer_models.get(public_n, sd)
        rows.append(TableRow(n, row_sd(s.score, n), p.mdd(row_sd, n, s.correlation), public_n,
                             p.mdd(public_sd, public_n, s.correlation) if public_n else None,
                             tuple(marks.get(n, ()))))
    if isinstance(sd, _Exact):
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


# --- settings --------------------------------------------------------------------------------

def _public_rows(n: int, fraction: float) -> int:
    """Rows of the public slice: n * F rounded half up."""
    return int(math.floor(n * fraction + 0.5))


def _full_for_public(n_public: int, fraction: float) -> int:
    """Smallest full test set whose public slice has at least ``n_public`` rows (about n / F)."""
    n = max(int(math.ceil((n_public - 0.5) / fraction)), 1)
    while _public_rows(n, fraction) < n_public:
        n += 1
    while n > 1 and _public_rows(n - 1, fraction) >= n_public:
        n -= 1
    return n


def _pilot_n(prevalence: float | None) -> int:
    """A first simulation size with at least 30 rows of the rarer class."""
    if prevalence is None or not 0 < prevalence < 1:
        return 1000
    return max(1000, math.ceil(30 / min(prevalence, 1 - prevalence)))


def bound(x: float) -> str:
    """A reachable range's end for people: 9.5e-16 is 0."""
    return "0" if abs(x) < 1e-9 else f"{x:.6g}"


def _reach_words(u) -> str:
    lo, hi = u.reachable()
    return f"the {u.name} universe reaches true scores from {bound(lo)} to {bound(hi)}"


def _check(s: PlanSettings) -> None:
    """One-line errors for values that make no sense."""
    if s.delta is None and s.n_test is None:
        raise InputError("give --delta (the difference to detect), --n-test (the test-set size), "
                         "or both")
    checks = [
        (0 < s.alpha < 1, f"--alpha must be strictly between 0 and 1, got {s.alpha:g}"),
        (0 < s.power < 1, f"--power must be strictly between 0 and 1, got {s.power:g}"),
        (s.delta is None or s.delta > 0, f"--delta must be positive, got {s.delta}"),
        (s.n_test is None or s.n_test >= 2, f"--n-test must be at least 2 rows, got {s.n_test}"),
        (s.public_fraction is None or 0 < s.public_fraction <= 1,
         f"--public-fraction must be in (0, 1], got {s.public_fraction}"),
        (-1 < s.correlation < 1, f"--correlation must be in (-1, 1), got {s.correlation:g}"),
        (s.draws >= 100, f"--draws must be at least 100, got {s.draws}"),
        (s.prevalence is None or 0 < s.prevalence < 1,
         f"--prevalence must be strictly between 0 and 1, got {s.prevalence}"),
        (math.isfinite(s.score), f"--score must be a number, got {s.score}"),
    ]
    for ok, message in checks:
        if not ok:
            raise InputError(message)
    reason = not_simulable_reason(s.metric, s.universe)
    if reason is not None:
        raise InputError(reason)


def _check_reach(s: PlanSettings, u) -> None:
    lo, hi = u.reachable()
    if not lo <= s.score <= hi:
        raise InputError(f"--score {s.score:g} is out of reach: {_reach_words(u)}")
    better = "higher" if s.metric.higher_is_better else "lower"
    if s.score == (hi if s.metric.higher_is_better else lo):
        raise InputError(f"--score {s.score:g} is the best true score the universe reaches; no "
                         f"entry can be {better}")
    if s.delta is not None:
        target = s.score + (s.delta if s.metric.higher_is_better else -s.delta)
        if not lo <= target <= hi:
            raise InputError(f"--delta {s.delta:g}: the better entry's true score {target:g} is "
                             f"out of reach ({better} is better; {_reach_words(u)})")
