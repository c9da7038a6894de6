r"""The correlation between entries' errors, estimated from a board's public/private pairs.

Scores only, the tool cannot see how entries' errors line up on the shared test set; the
comparisons (tiers, rank sets, P(best), the post-mortem's noise baseline) assume one correlation
``rho`` between any two entries' errors (:meth:`~leaderboard.tiers.RankReplicates.normal`). A board
with public *and* private scores on disjoint slices carries information about it: the two slices'
errors are independent, so the gap ``public - private`` of an entry is free of its true score, and
the part of the noise all entries share moves every gap alike. What is left over, from entry to
entry, is the noise entries do *not* share: ``1 - rho`` of it.

The model and the estimator
---------------------------
Entry ``i`` (``i = 1..E``) has public score ``P_i = t_i + d + e_i`` and private score
``Q_i = t_i + f_i``: ``t_i`` its true score, ``d`` a common shift between the boards (an easier
public slice, or other data in a two-stage competition), ``e_i`` and ``f_i`` its errors on the two
slices, normal with the SDs ``a_i`` and ``b_i`` the universe gives at each slice's size, and, within
a slice, equal correlation ``rho`` between any two entries. The slices share no rows, so ``e`` and
``f`` are independent. Equivalently ``e_i = a_i (sqrt(rho) Z + sqrt(1 - rho) Z_i)`` and
``f_i = b_i (sqrt(rho) W + sqrt(1 - rho) W_i)`` with ``Z, W, Z_i, W_i`` independent N(0, 1).
Standardise each gap by its own noise, ``S_i = sqrt(a_i^2 + b_i^2)``::

    u_i = (P_i - Q_i) / S_i
        = d / S_i + sqrt(rho) (Z a_i / S_i - W b_i / S_i) + sqrt(1 - rho) V_i,

where ``V_i = (a_i Z_i - b_i W_i) / S_i`` are independent N(0, 1) (``(a_i^2 + b_i^2) / S_i^2 = 1``).
The true scores cancel; the shift and the shared noise lie in the span of the three known vectors
``1/S``, ``a/S`` and ``b/S``, with unknown coefficients. Let ``H`` project onto the orthogonal
complement of that span, of rank ``E - k`` (``k`` the rank of the span: 3 in general, 1 when every
entry has the same two SDs, 2 when the SDs differ but keep one public/private ratio, as SDs that
shrink like ``1/sqrt(n)`` do, where ``a/S`` and ``b/S`` are constant). Then ``H u =
sqrt(1 - rho) H V`` exactly, whatever the shift and the shared draws, so

    ``R = ||H u||^2 ~ (1 - rho) chi2(E - k)``.

``R / (E - k)`` estimates ``1 - rho`` without bias, and ``[R / chi2_{1-alpha/2}, R /
chi2_{alpha/2}]`` (quantiles with ``E - k`` degrees of freedom) covers it with probability exactly
``1 - alpha``: an exact interval, not an asymptotic one. With one common SD the projection is plain
centring and ``R`` the centred sum of squares of the gaps over the common SD, the textbook
``Var(P - Q) = (1 - rho)(s_pub^2 + s_priv^2)``. ``rho``, its interval and the point estimate are
clipped to ``[0, 0.99]``.

What it assumes, and which way it errs
--------------------------------------
- **Known SDs**: ``a_i`` and ``b_i`` are the universe's SDs at an observed score, taken as known.
  The pipeline reads both at the entry's *private* score
  (:meth:`~leaderboard.pipelines.shakeup.SliceNoise.correlation`): read at a noisy or shifted
  public score they would inflate the spread (in :mod:`leaderboard.studies.correlation`, by 2-5%,
  and by 10-28% after a two-SD shift between the boards; at the private score, 1-2%). The
  estimate reads the gaps' spread in units of those SDs, so it also absorbs a wrong scale: if the
  universe overstates every SD by a factor ``c`` (the bounded universe of Dice does, by design),
  ``1 - rho`` comes out ``c^2`` smaller, and the variance of a difference of two equally noisy
  entries, ``2 s^2 (1 - rho)``, comes out right. If the universe *understates* the noise the
  estimate of ``1 - rho`` exceeds 1; the clip at ``rho = 0`` then keeps the old default, and
  :attr:`CorrelationEstimate.excess` says the gaps spread more than independent noise allows.
- **Errs toward less correlation** (wider tiers, the cautious side) whenever anything besides the
  modelled noise moves the gaps, because every such thing adds spread: entries that over-fitted the
  public board (their public score is too good), a public board on other data (each entry's true
  score differs between the datasets), Kaggle boards whose public score is a team's best public
  submission while the private score is that of a selected one, and scores rounded for display.
- **Errs toward more correlation** (narrower tiers) if the slices share rows: a private score that
  also counts the public rows makes the gaps smaller than the model says. State ``--correlation``
  (or 0) for such boards. One correlation for every pair is a model: entries that are near-copies
  are more correlated than the average and diverse entries less, and the estimate is an average
  over the board's pairs.
- The comparisons use the **lower end** of the interval (a ``1 - alpha/2`` lower confidence bound),
  so with probability at least ``1 - alpha/2`` they assume no more correlation than there is.

Entries without noise (a score no model of the universe produces: NaN SD) are left out and
counted. With fewer entries than ``k + 1`` there is nothing to estimate.

Examples
--------
>>> rng = np.random.default_rng(0)
>>> rho, n = 0.7, 400
>>> truth = rng.uniform(0.7, 0.9, n)
>>> a, b = rng.uniform(0.01, 0.02, n), rng.uniform(0.005, 0.01, n)
>>> def draw(sd):
...     return sd * (np.sqrt(rho) * rng.standard_normal() + np.sqrt(1 - rho) * rng.standard_normal(n))
>>> est = estimate_correlation(truth + draw(a), truth + draw(b), a, b)
>>> bool(est.low <= rho <= est.high), est.n_pairs, est.df
(True, 400, 397)
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np
from scipy.special import gammaincinv

from leaderboard.api_words import said
from leaderboard.confidence import confidence_label
from leaderboard.params import DEFAULT_ALPHA

CLIP = (0.0, 0.99)   # correlations the comparisons may assume (0.99: never a perfect copy)
RANK_TOL = 1e-9      # singular values below this share of the largest span no direction
SHARPER_NOTE = ("With the entries' predictions (submissions mode) the paired bootstrap measures the "
                "correlation directly instead of assuming it")


@dataclass(frozen=True)
class CorrelationEstimate:
    """The between-entry correlation estimated from public/private pairs (module docstring).

    Attributes
    ----------
    value, low, high : float
        The point estimate ``1 - R/df`` and the ``1 - alpha`` interval, clipped to [0, 0.99]; NaN
        when there is nothing to estimate (``reason`` says why).
    n_pairs : int
        Entries whose gap was used (both scores and both SDs finite).
    left_out : int
        Entries with both scores but no noise at one slice's size or both (left out).
    df : int
        Degrees of freedom ``E - k`` of the chi-square.
    spread : float
        ``R / df``: the gaps' spread in units of the noise, the unclipped estimate of ``1 - rho``.
    excess : bool
        Even independent entries are rejected: the gaps spread more than the noise allows
        (``R / chi2_{1-alpha/2} > 1``), from over-fitting, other data, or understated noise.
    alpha : float
    reason : str or None
        Why there is no estimate.
    duplicates : int
        With ``distinct``: entries whose (public, private) pair repeated an earlier entry's, each
        counted once (in ``n_pairs`` once, here for the rest).
    """

    value: float
    low: float
    high: float
    n_pairs: int
    left_out: int
    df: int
    spread: float
    excess: bool
    alpha: float
    reason: str | None = None
    duplicates: int = 0

    @property
    def ok(self) -> bool:
        return self.reason is None


def estimate_correlation(public: np.ndarray, private: np.ndarray, sd_public: np.ndarray,
                         sd_private: np.ndarray, *, alpha: float = DEFAULT_ALPHA,
                         distinct: bool = False) -> CorrelationEstimate:
    """Estimate the equal correlation between entries' errors from their public/private gaps.

    Parameters
    ----------
    public, private : array of float, shape (E,)
        Each entry's score on two disjoint slices (NaN where missing). Orientation does not matter.
    sd_public, sd_private : array of float, shape (E,)
        Each entry's noise SD at each slice's size (NaN where the universe has none).
    alpha : float
        The interval covers ``rho`` with probability ``1 - alpha`` (before clipping).
    distinct : bool
        Count each (public, private) pair once: entries with the same two scores are one
        submission (a shared notebook, a constant prediction), whose errors are one error, not
        several with correlation ``rho`` (the regression boards' reading of the tails does;
        counted in ``duplicates``).

    Returns
    -------
    CorrelationEstimate

    Examples
    --------
    Three entries with equal noise (gap SD 0.01): gaps of +0.005, -0.005 and 0 are half a noise SD
    from their mean, a spread of 0.25 of the noise, so 1 - rho is estimated at 0.25:

    >>> sd = [0.01 / np.sqrt(2)] * 3
    >>> est = estimate_correlation([0.805, 0.795, 0.8], [0.8, 0.8, 0.8], sd, sd)
    >>> est.df, round(est.spread, 3), round(est.value, 3), round(est.low, 3)
    (2, 0.25, 0.75, 0.0)

    An entry without known noise is left out and counted:

    >>> est = estimate_correlation([0.8, 0.7], [0.79, 0.72], [0.01, np.nan], [0.01, 0.01])
    >>> est.left_out, est.reason
    (1, 'too few entries with both scores and known noise (1)')
    """
    public, private, sd_public, sd_private = (np.asarray(x, dtype=float).ravel() for x in
                                              (public, private, sd_public, sd_private))
    both = np.isfinite(public) & np.isfinite(private)
    duplicates = 0
    if distinct:
        first = first_of_each_pair(public, private)
        duplicates, both = int((both & ~first).sum()), both & first
    usable = both & np.isfinite(sd_public) & np.isfinite(sd_private) & \
        (sd_public > 0) & (sd_private > 0)
    n, left_out = int(usable.sum()), int((both & ~usable).sum())
    a, b = sd_public[usable], sd_private[usable]
    total = np.hypot(a, b)
    u = (public[usable] - private[usable]) / total
    # the directions the shift and the shared noise can take; their rank k costs k degrees of freedom
    span = np.column_stack([1 / total, a / total, b / total]) if n else np.zeros((0, 3))
    basis = _orthonormal_basis(span)
    df = n - basis.shape[1]
    if df < 1:
        return replace(_none(n, left_out, alpha, "too few " + ("distinct " if distinct else "")
                             + f"entries with both scores and known noise ({n})"),
                       duplicates=duplicates)
    resid = u - basis @ (basis.T @ u)
    r = float(resid @ resid)
    if not r > 1e-12 * float(u @ u) or not np.isfinite(r):
        return replace(_none(n, left_out, alpha, "the public-minus-private gaps do not vary beyond "
                             "what every entry shares (identical or shifted copies of one board)"),
                       duplicates=duplicates)
    # chi2.ppf(q, df) is 2 gammaincinv(df / 2, q), bit for bit (scipy/stats/_continuous_distns.py),
    # without scipy.stats' ~1 s import
    lo_q, hi_q = 2 * gammaincinv(df / 2, np.array([alpha / 2, 1 - alpha / 2]))
    spread = r / df
    return CorrelationEstimate(value=_clip(1 - spread), low=_clip(1 - r / lo_q),
                               high=_clip(1 - r / hi_q), n_pairs=n, left_out=left_out, df=df,
                               spread=spread, excess=bool(r / hi_q > 1), alpha=alpha,
                               duplicates=duplicates)


def first_of_each_pair(public: np.ndarray, private: np.ndarray) -> np.ndarray:
    """Mask of the entries with both scores whose (public, private) pair no earlier entry has.

    Examples
    --------
    >>> first_of_each_pair(np.array([0.8, 0.8, 0.7, np.nan]), np.array([0.6, 0.6, 0.6, 0.6]))
    array([ True, False,  True, False])
    """
    public, private = np.asarray(public, dtype=float), np.asarray(private, dtype=float)
    keep = np.zeros(public.size, dtype=bool)
    rows = np.flatnonzero(np.isfinite(public) & np.isfinite(private))
    if rows.size:
        _, first = np.unique(np.column_stack([public[rows], private[rows]]), axis=0,
                             return_index=True)
        keep[rows[first]] = True
    return keep


def _orthonormal_basis(span: np.ndarray) -> np.ndarray:
    """Orthonormal columns spanning ``span``'s columns (scaled to unit length first)."""
    if span.shape[0] == 0:
        return np.zeros((0, 0))
    norms = np.linalg.norm(span, axis=0)
    u, sv, _ = np.linalg.svd(span / np.where(norms > 0, norms, 1), full_matrices=False)
    return u[:, sv > RANK_TOL * sv[0]]


def _clip(x: float) -> float:
    return float(np.clip(x, *CLIP))


def _none(n: int, left_out: int, alpha: float, reason: str) -> CorrelationEstimate:
    nan = float("nan")
    return CorrelationEstimate(nan, nan, nan, n, left_out, max(n - 1, 0), nan, False, alpha, reason)


@dataclass(frozen=True)
class CorrelationChoice:
    """The correlation the comparisons assume, where it came from, and the words that say so.

    Attributes
    ----------
    used : float
        What the comparisons assume: the stated value, the estimate's lower bound (rounded down to
        three decimals), or 0.
    value : float
        The stated value, the point estimate, or 0.
    low, high : float or None
        The estimate's interval (None unless estimated).
    source : str
        ``"stated"``, ``"estimated from N public/private pairs"``, or ``"assumed 0 (...)"`` with
        the reason in brackets.
    estimate : CorrelationEstimate or None
        The estimate behind ``auto`` (also when it could not estimate: its ``reason``).
    why_not : str or None
        Why ``auto`` fell back to 0, in words.
    """

    used: float
    value: float
    low: float | None
    high: float | None
    source: str
    estimate: CorrelationEstimate | None = None
    why_not: str | None = None

    @property
    def estimated(self) -> bool:
        return self.source.startswith("estimated")

    def _estimate(self) -> CorrelationEstimate:
        """The estimate behind an estimated correlation (always given with one)."""
        if self.estimate is None or self.low is None or self.high is None:
            raise ValueError("an estimated correlation needs its estimate and interval")
        return self.estimate

    def _interval(self) -> str:
        """The interval for the words, rounded outward to three decimals so that the value used
        (its lower end, rounded down) never prints below the interval's printed lower end."""
        if self.low is None or self.high is None:
            raise ValueError("no interval: the correlation was not estimated")
        return (f"{math.floor(self.low * 1000) / 1000:.3f}\u2013"
                f"{math.ceil(self.high * 1000) / 1000:.3f}")

    def fact(self) -> str:
        """The value for the report's "What was analysed" facts."""
        if self.estimated and self.high == 0:
            return (f"0, estimated from {self._estimate().n_pairs:,} public/private pairs: their gaps "
                    "spread at least as much as independent entries' noise")
        if self.estimated:
            e = self._estimate()
            return (f"{self.used:.3g}, the lower end of the {_conf(e.alpha)} interval "
                    f"{self._interval()} (estimate {self.value:.3g}), estimated "
                    f"from {e.n_pairs:,} public/private pairs")
        if self.source == "stated":
            return said(f"{self.used:g} (stated with --correlation)")
        return f"0 ({self.source[len('assumed 0 ('):-1]}): independent, the conservative choice"

    def note(self) -> str:
        """The report's note on the correlation the comparisons assumed."""
        if self.estimated:
            e = self._estimate()
            text = (f"Comparisons assume a correlation of {self.used:.3g} between entries' scores: "
                    f"the lower end of the {_conf(e.alpha)} interval {self._interval()} "
                    f"(estimate {self.value:.3g}) estimated from the spread of "
                    f"{e.n_pairs:,} entries' public-minus-private gaps "
                    + said("(--correlation auto). ")
                    if self.high is not None and self.high > 0 else
                    "Comparisons assume each entry's score moves independently (correlation 0): "
                    f"the public-minus-private gaps of {e.n_pairs:,} entries spread at least as "
                    "much as independent entries' noise would make them "
                    + said("(--correlation auto). "))
            text += ("Anything besides sampling noise that moves the gaps (entries that over-fitted "
                    "the public board, a public board on other data, public scores of other "
                    "submissions) widens them, so the estimate errs low, toward wider tiers.")
            if e.left_out:
                text += (f" {e.left_out:,} entr{'y' if e.left_out == 1 else 'ies'} without known "
                         "noise at one slice's size {0} left out of the estimate.".format(
                             "was" if e.left_out == 1 else "were"))
            if e.excess:
                text += (" The gaps spread more than the simulated noise allows even for "
                         "independent entries: some entries may have over-fitted the public board, "
                         "or the universe understates the noise.")
            return text
        if self.source == "stated":
            return (f"Comparisons assume a correlation of {self.used:g} between entries' scores, "
                    + said("as stated (--correlation). If the real correlation is lower, the "
                           "tiers are narrower than they should be."))
        text = ("Comparisons assume each entry's score moves independently, as if every entry had "
                "its own test set. Entries scored on one shared test set are positively "
                "correlated, so if the noise model holds the real differences are less noisy than "
                "assumed and the tiers are conservative (wider).")
        if self.why_not:
            text += f" The correlation was not estimated: {self.why_not}."
        return text + f" {SHARPER_NOTE}."


    def how_to_read(self) -> str:
        """The report's "How to read" paragraph on the correlation assumption."""
        if self.estimated:
            e = self._estimate()
            return ("Entries scored on one shared test set move together, so their differences "
                    "are less noisy than their scores. This board has public and private scores "
                    "on disjoint slices, which measures how much: each entry's public-minus-private "
                    "gap, divided by its noise, is free of its true score, and varies from entry "
                    "to entry only by the noise entries do not share, 1 \u2212 \u03c1 of it. The "
                    f"spread of {e.n_pairs:,} such gaps gives \u03c1 with an exact "
                    f"{_conf(e.alpha)} interval ({self._interval()}); the "
                    f"comparisons use its lower end, {self.used:.3g}, so with probability at least "
                    f"{_conf(e.alpha / 2)} they assume no more correlation than there is. Entries "
                    "that over-fitted the public board, a public board on other data and public "
                    "scores of other submissions all widen the gaps, so the estimate errs low, "
                    "toward wider tiers. If the private score also counts the public rows the gaps "
                    + said("shrink and it errs high: then state --correlation. ")
                    + "The gaps are measured in units of the simulated noise, so the estimate "
                    "also absorbs a universe that overstates the noise (as the bounded universe "
                    "of Dice and IoU does by design): the noise of a difference between two "
                    "entries then comes from the board's own gaps.")
        if self.source == "stated":
            return (f"Entries are compared assuming a correlation of {self.used:g} between their "
                    "scores (stated), as entries scored on one shared test set have. If the real "
                    "correlation is lower, tiers are narrower than they should be.")
        return ("Entries are compared as if each had its own test set (correlation 0). On a real "
                "leaderboard they share one test set, so their scores move together and true "
                "differences are less noisy than assumed: the tiers come out wider than "
                "necessary, never narrower. That is the conservative choice. With public and "
                "private scores and both slices' sizes, " + said("--correlation auto")
                + " estimates the correlation from the board; "
                f"{SHARPER_NOTE[0].lower()}{SHARPER_NOTE[1:]}.")

    def to_json(self) -> dict:
        """``{value, source, low, high, used}`` (``low``/``high`` None unless estimated)."""
        return {"value": self.value, "source": self.source, "low": self.low, "high": self.high,
                "used": self.used}


def _conf(alpha: float) -> str:
    return confidence_label(alpha)


FALLBACK = {  # why auto fell back to 0: (source's bracket, the sentence)
    "pairs": ("no public/private pairs", "the board has no public and private scores"),
    "sizes": ("slice sizes not given", "the sizes of the public and private slices were not "
              "given (--n-public and --n-private, or --n-test with --public-fraction)"),
    "universe": ("no universe", "the metric has no universe to simulate its noise"),
}


def choose_correlation(setting: float | str, estimate: CorrelationEstimate | None = None, *,
                       missing: str = "pairs") -> CorrelationChoice:
    """The correlation the comparisons assume, from ``--correlation`` and the board's estimate.

    A number is used as stated. ``"auto"`` uses the estimate's lower bound (rounded down to three
    decimals) when there is one, and
    otherwise 0, saying why: the estimate's own reason, or ``missing`` (a key of
    :data:`FALLBACK`) when there is no estimate.

    Examples
    --------
    >>> choose_correlation(0.4).source
    'stated'
    >>> choose_correlation("auto", missing="sizes").source
    'assumed 0 (slice sizes not given)'
    """
    if setting != "auto":
        return CorrelationChoice(float(setting), float(setting), None, None, "stated")
    if estimate is not None and estimate.ok:
        # rounded down, so the words can print it whole and it stays a lower bound
        used = math.floor(estimate.low * 1000) / 1000
        return CorrelationChoice(used, estimate.value, estimate.low, estimate.high,
                                 f"estimated from {estimate.n_pairs:,} public/private pairs",
                                 estimate)
    short, why = (("no usable public/private pairs", estimate.reason) if estimate is not None
                  else FALLBACK[missing])
    return CorrelationChoice(0.0, 0.0, None, None, f"assumed 0 ({short})", estimate,
                             None if why is None else said(why))
