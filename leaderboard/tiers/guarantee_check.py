"""The self-check: does the family-wise error hold at this board's own shape?

The simultaneous family promises that, with probability at least 1 - alpha, no "shown better"
on the page is false. How well a method keeps that promise depends on the shape of the board
(many models on few items is where the paired bootstrap fails), so before anything is printed
the analysis measures it on null boards of the board's own shape, built from its own values:

* **Null boards.** On every item (or cluster) the models' values are permuted among the models,
  independently from item to item. Each item keeps its difficulty and the spread of the models'
  values on it, the clusters their items, and every model becomes exactly as good as every other:
  on such a board any pair declared different is a false claim.
* **What is measured.** The share of null boards on which the method in use declares some pair
  different. Under the complete null a max-t step-down rejects something only if its first
  round does, so the first round's verdict is that board's outcome (no shortcut in the answer).
  The share is a binomial proportion: its Monte Carlo standard error is reported with it.
* **Verdict.** The guarantee *falls short* when so many null boards had a false claim that a
  method with error ``alpha`` would give that many less than 1% of the time (a one-sided binomial
  test); the page then shows the measured figure instead of the promise.

The paired bootstrap's check (metrics that are not a mean of per-row values: AUC, F1, R²) is
:mod:`leaderboard.tiers.bootstrap_check`.

The sign flips' check uses ``draws`` flips per null board (a randomization test is exact for any
number of draws, so this measures the method, not its Monte Carlo error) and each pair's exact
flip SE, ``sqrt(sum of squared unit differences) / n``, of which the analysis' SE from its 2,000
draws is a Monte Carlo estimate (within about 2%). Cost: ``draws * pairs`` maxima and a shuffle
and product of ``models * units`` per board; the number of boards shrinks to keep it to about
two seconds (:data:`BUDGET`; measured on 2 shared cores: 0.2 s at 90 x 10, 0.7 s at 181 x 41,
200 boards each; 300 x 3,000 gets 60 boards), and a board too large for :data:`MIN_BOARDS` is
not checked (the result says why).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from leaderboard._threads import one_blas_thread
from leaderboard.noise.rng import Stream, block_rng
from leaderboard.params import DEFAULT_SEED

STREAM = int(Stream.GUARANTEE_CHECK)
BOARDS = 200        # null boards at most (Monte Carlo SE 1.5 points at 5%)
MIN_BOARDS = 40     # fewer than this: not checked (SE 3.4 points at 5%)
DRAWS = 100         # sign flips per null board
BUDGET = 1.2e9      # work units per check: about 2 s of CPU on the development machine
UNIT_COST = 17      # work units per model and unit of a null board (its shuffle and flips)
SHORT_P = 0.01      # the binomial test's level for "falls short"


@dataclass(frozen=True)
class GuaranteeCheck:
    """Family-wise error measured on null boards of the board's shape.

    Attributes
    ----------
    family : str
        The tests checked (a key of :data:`~leaderboard.tiers.methods.FAMILIES`).
    models, units : int
        The board's shape: models, and items (or clusters, ``unit``).
    unit : str
        "item", "cluster" or "test row".
    boards, draws : int
        Null boards simulated, and draws (flips) per board; 0 when not run.
    rejected : int
        Null boards on which some pair was declared different.
    alpha : float
    reason : str or None
        Why the check was not run (None when it ran).
    """

    family: str
    models: int
    units: int
    unit: str
    boards: int
    draws: int
    rejected: int
    alpha: float
    reason: str | None = None

    @property
    def ran(self) -> bool:
        return self.reason is None and self.boards > 0

    @property
    def error(self) -> float:
        """The measured family-wise error (NaN when not run)."""
        return self.rejected / self.boards if self.ran else math.nan

    @property
    def se(self) -> float:
        """Its Monte Carlo standard error (binomial; at least that of one board in ``boards``)."""
        if not self.ran:
            return math.nan
        p = self.error
        return math.sqrt(max(p * (1 - p), 1.0 / self.boards) / self.boards)

    @property
    def falls_short(self) -> bool:
        """More false claims than a method with error ``alpha`` gives 99% of the time.

        Examples
        --------
        >>> GuaranteeCheck("sign-flip", 90, 10, "item", 200, 100, 10, 0.05).falls_short
        False
        >>> GuaranteeCheck("bootstrap", 90, 10, "item", 200, 100, 200, 0.05).falls_short
        True
        """
        if not self.ran or self.rejected == 0:
            return False
        from scipy.special import betainc   # P(X >= k) = I_alpha(k, n - k + 1); not scipy.stats

        tail = betainc(self.rejected, self.boards - self.rejected + 1, self.alpha)
        return bool(tail < SHORT_P)

    def sentence(self) -> str:
        """The page's words beside the guarantee.

        Examples
        --------
        >>> GuaranteeCheck("sign-flip", 90, 10, "item", 200, 100, 9, 0.05).sentence()[:61]
        'Checked at this board’s shape (90 models × 10 items): on 200 '
        """
        items = self.unit in ("item", "cluster")   # per-item results, else submissions
        who, what = ("models", "values") if items else ("entries", "predictions")
        shape = f"{self.models:,} {who} \u00d7 {self.units:,} {self.unit}s"
        if not self.ran:
            return f"Not checked at this board\u2019s shape ({shape}): {self.reason}."
        pct = f"{100 * self.error:.1f}% \u00b1 {100 * self.se:.1f}%"
        said = (f"Checked at this board\u2019s shape ({shape}): on {self.boards:,} null boards "
                f"made from its own {what} ({who} permuted within each {self.unit}, so all are "
                f"equally good), some pair was declared different on {pct} of them")
        if self.falls_short:
            return (said + f", more than the {100 * self.alpha:g}% promised: the guarantee falls "
                    f"short here, and the measured figure is the one to go by.")
        return said + f" (promised: at most {100 * self.alpha:g}%)."

    def to_json(self) -> dict:
        """The JSON's ``guarantee_check``."""
        def num(x):
            return None if not math.isfinite(x) else float(x)
        return {"method": self.family, "shape": {"models": self.models, "units": self.units,
                                                 "unit": self.unit},
                "boards": self.boards, "draws": self.draws, "rejected": self.rejected,
                "measured_error": num(self.error), "mc_se": num(self.se), "alpha": self.alpha,
                "falls_short": self.falls_short, "reason": self.reason,
                "null_boards": "models permuted among themselves within each unit"}


def check_sign_flips(totals: np.ndarray, n_items: int, alpha: float, *, seed: int = DEFAULT_SEED,
                     unit: str = "item", boards: int = BOARDS, draws: int = DRAWS,
                     budget: float = BUDGET) -> GuaranteeCheck:
    """The sign flips' family-wise error on null boards made from ``totals``.

    Parameters
    ----------
    totals : ndarray, shape (E, G)
        Each model's per-unit totals (:func:`~leaderboard.tiers.sign_flips.unit_totals`).
    n_items : int
        Items behind the totals (the means' denominator; the verdicts do not depend on it).
    alpha : float
    seed : int
    unit : str
        What a column is, for the words.
    boards, draws, budget
        At most ``boards`` null boards of ``draws`` flips each, fewer when ``boards * draws *
        pairs`` passes ``budget``.

    Returns
    -------
    GuaranteeCheck

    Examples
    --------
    A board of 30 models on 12 items, continuous values with an item difficulty:

    >>> rng = np.random.default_rng(1)
    >>> x = rng.normal(0, 1, 12) + rng.normal(0, 0.5, (30, 12))
    >>> c = check_sign_flips(x, 12, 0.05, boards=60)
    >>> c.boards, c.falls_short
    (60, False)
    """
    totals = np.asarray(totals, dtype=np.float64)
    e, g = totals.shape
    pairs = e * (e - 1) // 2
    per_board = max(1, draws * pairs + UNIT_COST * e * g)   # measured: 1.6 ns a unit
    boards = int(min(boards, budget // per_board))
    base = dict(family="sign-flip", models=e, units=g, unit=unit, alpha=float(alpha))
    skipped = not_checked(base, boards, f"{e:,} models \u00d7 {g:,} {unit}s")
    if skipped is not None:
        return skipped
    kq = critical_place(alpha, draws)
    with one_blas_thread():   # small products: OpenBLAS's threads cost more than they save
        rejected = sum(_null_board(totals, seed, b, draws, kq) for b in range(boards))
    return GuaranteeCheck(**base, boards=boards, draws=draws, rejected=rejected)


def critical_place(alpha: float, draws: int) -> int:
    """The critical value's place among ``draws`` sorted maxima (as the rank sets take it):
    a null board rejects when its observed maximum is above the maximum at this place (1-based).

    Examples
    --------
    >>> critical_place(0.05, 100), critical_place(0.05, 39), critical_place(0.5, 1)
    (95, 38, 1)
    """
    return min(draws, max(1, math.ceil(round((1 - alpha) * draws, 9))))


def not_checked(base: dict, boards: int, shape: str) -> GuaranteeCheck | None:
    """The check not run, and why (one entry; too large for :data:`MIN_BOARDS` in seconds), or
    None when it runs. ``base`` holds the :class:`GuaranteeCheck`'s fields but its counts.

    Examples
    --------
    >>> base = dict(family="bootstrap", models=3, units=30, unit="test row", alpha=0.05)
    >>> not_checked(base, 200, "3 entries") is None
    True
    >>> not_checked(base, 12, "3 entries").reason[:43]
    '3 entries is more than 40 null boards in se'
    """
    if base["models"] < 2:
        return GuaranteeCheck(**base, boards=0, draws=0, rejected=0, reason="one entry")
    if boards < MIN_BOARDS:
        return GuaranteeCheck(**base, boards=0, draws=0, rejected=0, reason=(
            f"{shape} is more than {MIN_BOARDS} null boards in seconds can do; "
            "docs/calibration.md has the study's shapes"))
    return None


def _null_board(totals: np.ndarray, seed: int, b: int, draws: int, kq: int) -> bool:
    """Null board ``b``: models permuted within each unit, then the first round's verdict."""
    e, g = totals.shape
    rng = block_rng(seed, STREAM, b)
    perm = np.argsort(rng.random((g, e)), axis=1)              # each unit's models shuffled
    null = totals[perm, np.arange(g)[:, None]].T                # (E, G)
    signs = 1.0 - 2.0 * rng.integers(0, 2, size=(draws, g), dtype=np.int8)
    signs[0] = 1.0                                              # the identity: the observed
    return _first_round_rejects(null, signs, kq)


def _first_round_rejects(totals: np.ndarray, signs: np.ndarray, kq: int) -> bool:
    """Whether the max-t step-down's first round rejects some pair: the identity draw's maximum
    above the ``kq``-th smallest of all draws' maxima (each pair over its exact flip SE)."""
    flips = totals @ signs.T                                    # (E, draws), totals' scale
    sq = np.einsum("ij,ij->i", totals, totals)
    var = sq[:, None] + sq[None, :] - 2 * (totals @ totals.T)  # sum of squared differences
    with np.errstate(divide="ignore"):
        inv = np.where(var > 1e-12 * max(1.0, float(sq.max())), 1.0 / np.sqrt(
            np.maximum(var, 0.0)), 0.0)
    best = np.zeros(flips.shape[1])
    for j in range(flips.shape[0] - 1):   # one model against every later one: rows, contiguous
        d = np.abs(flips[j + 1:] - flips[j])
        d *= inv[j, j + 1:, None]
        np.maximum(best, d.max(axis=0), out=best)
    return bool(best[0] > np.partition(best, kq - 1)[kq - 1])
