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

This module holds the question, the answer and the checks of the settings; the search itself (the
SD models, n and MDD, their refinement, the simulated-power check and the table) is in
:mod:`leaderboard.pipelines.plan_search`, whose results :class:`Check` and :class:`TableRow` are part of a
:class:`Plan`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from leaderboard.errors import InputError
from leaderboard.metrics import Metric
from leaderboard.options import NoiseOptions, OptionShorthands, RankOptions, SliceOptions
from leaderboard.noise.universes import get_universe, not_simulable_reason
from leaderboard.noise.universes.regression import ResidualUniverse
from leaderboard.pipelines.plan_search import (MAX_SIMULATED_N, Check, ExactSD, Planner, TableRow,
                                     check_power, mdd_table, public_rows)
from leaderboard.params import DEFAULT_POWER, check


@dataclass(frozen=True)
class PlanSettings(OptionShorthands):
    """What ``leaderboard plan`` is asked (see the module docstring for the method): the true
    score of the weaker entry and the difference to detect or the test set's size (``slices``:
    ``n_test``, and ``public_fraction``, the public board's share of it), with the universe and
    its draws (``noise``: prevalence, universe, draws, seed, correlation between entries, where
    ``"auto"`` means 0, the conservative choice) and the error rate (``ranks``), each checked
    once in its options object (:mod:`leaderboard.options`).

    Examples
    --------
    >>> from leaderboard.metrics import get_metric
    >>> s = PlanSettings(get_metric("auc"), 0.8, NoiseOptions(prevalence=0.1), delta=0.02)
    >>> s.prevalence, s.correlation, s.alpha
    (0.1, 0.0, 0.05)
    """

    metric: Metric
    score: float
    noise: NoiseOptions = field(default_factory=NoiseOptions)
    ranks: RankOptions = field(default_factory=RankOptions)
    slices: SliceOptions = field(default_factory=SliceOptions)
    delta: float | None = None
    power: float = DEFAULT_POWER

    def __post_init__(self) -> None:
        """The question's own values checked by the parameter table (``noise``, ``ranks`` and
        ``slices`` checked theirs), then what makes no question: neither ``delta`` nor
        ``n_test``, a metric the universe cannot simulate."""
        for name in ("score", "delta", "power"):
            object.__setattr__(self, name, check(name, getattr(self, name)))
        if self.delta is None and self.n_test is None:
            raise InputError("give --delta (the difference to detect), --n-test (the test-set "
                             "size), or both")
        reason = not_simulable_reason(self.metric, self.universe)
        if reason is not None:
            raise InputError(reason)

    n_test = property(lambda self: self.slices.n_test)   # the test set's rows, if given
    public_fraction = property(lambda self: self.slices.public_fraction)

    @property
    def correlation(self) -> float:
        """The correlation between the two entries' scores: 0 unless stated."""
        return 0.0 if self.noise.correlation == "auto" else float(self.noise.correlation)


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


def plan(settings: PlanSettings, *, universe=None, progress=None, table: bool = True) -> Plan:
    """Minimum test-set size and minimum detectable difference (see the module docstring).

    ``universe`` replaces the one :func:`~leaderboard.noise.universes.get_universe` would build
    (tests use it to force the simulated SD); ``table=False`` skips the table and curve.

    Examples
    --------
    The two-proportion formula, n = (z_0.975 + z_0.8)^2 (0.8 * 0.2 + 0.82 * 0.18) / 0.02^2 = 6035.8:

    >>> from leaderboard.metrics import get_metric
    >>> question = PlanSettings(get_metric("accuracy"), 0.80, NoiseOptions(draws=200), delta=0.02)
    >>> p = plan(question, table=False)
    >>> p.min_n, p.sd_method
    (6036, 'exact')
    """
    s = settings   # checked when it was made
    probe = s.n_test or _pilot_n(s.prevalence)
    u = universe or get_universe(s.metric, probe, s.prevalence, s.universe)
    if universe is None and isinstance(u, ResidualUniverse):
        # Regression: the residuals' grid without its deep tails, whose rare huge rows give a
        # t(3) score an unstable SD that does not scale as 1/sqrt(n) (the universe says so)
        u = ResidualUniverse(s.metric, u.residuals, u.df, deep_tails=False)
    _check_reach(s, u)
    p = Planner(s, u, probe, progress)
    out: dict[str, Any] = {}
    rho, notes = s.correlation, []
    exact = u.exact_sd(s.score, probe, s.prevalence) is not None
    sd = ExactSD(u, s.prevalence) if exact else None
    answer_models = {}   # simulated SD: the model each answer was refined with, by its n

    def min_n(r: float) -> int:
        assert s.delta is not None   # asked only with a difference to detect
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
            out["public_n"] = public_rows(s.n_test, s.public_fraction)
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
        assert s.n_test is not None   # delta or n_test: checked when the settings were made
        check_n, check_d = s.n_test, out.get("mdd_independent", out["mdd"])
    check = None
    if check_d is not None and check_n <= MAX_SIMULATED_N:
        check = check_power(p, sd if exact else answer_models[check_n], check_n, check_d)
    elif check_d is not None:
        notes.append(f"The answer was not checked by simulation: {check_n:,} rows is above "
                     f"{MAX_SIMULATED_N:,}.")
    rows, curve = mdd_table(p, sd, answer_models, out) if table else ((), ())
    shown_n = s.n_test or out["min_n"]
    low, high = u.reachable()
    return Plan(settings=s, universe=u.name, assumptions=u.assumptions(shown_n, s.prevalence),
                sd_method="exact" if exact else "simulated",
                higher_is_better=s.metric.higher_is_better,
                reachable=(float(low), float(high)), z_alpha=p.z_alpha,
                z_power=p.z_power, check=check, table=rows, curve=curve,
                simulated_at=tuple(p.simulated_at), notes=tuple(notes), **out)


# --- settings --------------------------------------------------------------------------------

def _full_for_public(n_public: int, fraction: float) -> int:
    """Smallest full test set whose public slice has at least ``n_public`` rows (about n / F)."""
    n = max(int(math.ceil((n_public - 0.5) / fraction)), 1)
    while public_rows(n, fraction) < n_public:
        n += 1
    while n > 1 and public_rows(n - 1, fraction) >= n_public:
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
