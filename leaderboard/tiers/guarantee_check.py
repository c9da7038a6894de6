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

For the paired bootstrap (metrics that are not a mean of per-row values: AUC, F1, R²), a null
board permutes the models' predictions row by row (scores turned into ranks within each model
first, so that rows of different models mix on one scale) and is scored by the metric itself
on :data:`BOOT_DRAWS` bootstrap replicates for the maxima and :data:`BOOT_SE_DRAWS` others for
the pairs' SEs (:func:`check_bootstrap`); its first round is the bootstrap's max-t over all
pairs, as the analysis runs it. The SEs come from replicates of their own because SEs taken
from the maxima's own hundred draws make every draw's deviation SD-sized while the observed gap
keeps the SEs' noise, which 2,000 draws nearly do not: on null boards made from the insults
competition's 27 submissions (AUC, 1,985 rows) this check measured 2.7% ± 0.9% (300 boards),
the analysis itself with 2,000 replicates 4.0% ± 1.4% (200 boards).

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
BOOT_BOARDS = 200   # null boards of the bootstrap's check (each is scored by the metric)
BOOT_DRAWS = 100    # bootstrap replicates per null board for the maxima
BOOT_SE_DRAWS = 100  # ... and, independent of them, for the pairs' SEs
BOOT_BUDGET = 1.6e9  # entries x rows x replicates scored per check (about 2 s)
BOOT_STEP = 16      # maxima scored this many replicates at a time (a board may settle early)


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
    skipped = _not_run(base, boards, f"{e:,} models \u00d7 {g:,} {unit}s")
    if skipped is not None:
        return skipped
    kq = _kth(alpha, draws)
    with one_blas_thread():   # small products: OpenBLAS's threads cost more than they save
        rejected = sum(_null_board(totals, seed, b, draws, kq) for b in range(boards))
    return GuaranteeCheck(**base, boards=boards, draws=draws, rejected=rejected)


def _kth(alpha: float, draws: int) -> int:
    """The critical value's place among ``draws`` sorted maxima (as the rank sets take it)."""
    return min(draws, max(1, math.ceil(round((1 - alpha) * draws, 9))))


def _not_run(base: dict, boards: int, shape: str) -> GuaranteeCheck | None:
    """The check not run, and why (one entry; too large for :data:`MIN_BOARDS` in seconds)."""
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


def check_bootstrap(preds: np.ndarray, y: np.ndarray, metric, plan, alpha: float, *,
                    seed: int = DEFAULT_SEED, unit: str = "test row", factor: float = 1.0,
                    boards: int = BOOT_BOARDS, draws: int = BOOT_DRAWS,
                    se_draws: int = BOOT_SE_DRAWS, budget: float = BOOT_BUDGET
                    ) -> GuaranteeCheck:
    """The paired bootstrap's family-wise error on null boards made from ``preds``.

    Parameters
    ----------
    preds : ndarray, shape (E, n, ...)
        The entries' predictions on the ranking rows, in rank order.
    y : ndarray
        The truth of those rows.
    metric : Metric
    plan
        The ranking split's resampling plan (:func:`~leaderboard.noise.weights.resampling`).
    alpha, seed, unit
    factor : float
        The few-clusters stretch the analysis applied (t statistics divided by it).
    boards, draws, budget
        At most ``boards`` null boards of ``draws`` replicates, fewer when ``boards * E * n *
        draws`` passes ``budget``.

    Examples
    --------
    >>> from leaderboard.metrics import get_metric
    >>> from leaderboard.noise.weights import resampling
    >>> rng = np.random.default_rng(0)
    >>> y = rng.integers(0, 2, 300)
    >>> preds = y + rng.normal(0, 1.5, (6, 300))
    >>> c = check_bootstrap(preds, y, get_metric("auc"), resampling(y, "plain"), 0.05, boards=40)
    >>> c.family, c.boards
    ('bootstrap', 40)
    """
    preds = np.asarray(preds)
    e, n = preds.shape[0], preds.shape[1]
    units = plan.n_groups if plan.resample == "grouped" else n
    base = dict(family="bootstrap", models=e, units=units, unit=unit, alpha=float(alpha))
    boards = int(min(boards, budget // max(1, e * n * (draws + se_draws))))
    skipped = _not_run(base, boards, f"{e:,} entries \u00d7 {n:,} rows")
    if skipped is not None:
        return skipped
    if metric.kind == "scores":   # one scale for every model: ranks within each model
        preds = np.stack([_average_ranks(p) for p in preds]) / n
    rejected = 0
    with one_blas_thread():
        for b in range(boards):
            rng = block_rng(seed, STREAM, b)
            perm = np.argsort(rng.random((n, e)), axis=1)     # each row's models shuffled
            null = preds[perm.T, np.arange(n)[None, :]]        # (E, n, ...)
            rejected += _null_board_rejects(metric.impl, y, null, plan, int(seed) + b, alpha,
                                            factor, draws, se_draws)
    return GuaranteeCheck(**base, boards=boards, draws=draws, rejected=rejected)


def _null_board_rejects(impl, y, null, plan, seed: int, alpha: float, factor: float, draws: int,
                        se_draws: int) -> bool:
    """Whether the bootstrap's first round declares some pair different on one null board.

    Two independent sets of replicates: SEs from one (replicates ``draws ..``), maxima from the
    other (``0 .. draws - 1``); SEs from the maxima's own draws would make every draw's deviation
    exactly SD-sized while the observed gap keeps the SEs' noise: a 100-draw check would then
    find errors that 2,000 draws do not have. The SEs and the observed largest |t| come first;
    the maxima are then scored :data:`BOOT_STEP` replicates at a time, and once more of them
    reach the observed |t| than any number of finite draws lets a rejection have, the board
    cannot reject and the rest is not scored: the same verdict as scoring all of them (tested).
    """
    from leaderboard.noise.bootstrap import replicate_chunks

    prepared = impl.prepare(y, list(null))
    point = impl.point(prepared, len(y))
    if not np.isfinite(point).all():      # every replicate dropped: nothing to compare
        return False
    reps = next(replicate_chunks(impl, prepared, plan, draws, draws + se_draws, seed, STREAM,
                                 se_draws))
    for_se = reps[:, np.isfinite(reps).all(axis=0)] - point[:, None]
    if for_se.shape[1] < 2:
        return False
    ses, t_max = _pair_ses(point, for_se, factor)
    settled, reached, maxima = _settled(alpha, draws), 0, []
    for reps in replicate_chunks(impl, prepared, plan, 0, draws, seed, STREAM, BOOT_STEP):
        best = _draw_maxima(reps[:, np.isfinite(reps).all(axis=0)] - point[:, None], ses)
        maxima.append(best)
        reached += int(np.count_nonzero(best >= t_max))
        if reached > settled:
            return False
    best = np.concatenate(maxima)
    if best.size < 2:
        return False
    kq = _kth(alpha, best.size)
    return bool(t_max > np.partition(best, kq - 1)[kq - 1])


def _average_ranks(x: np.ndarray) -> np.ndarray:
    """Ranks 1..n along the first axis, ties sharing their mean rank (each column on its own):
    ``scipy.stats.rankdata``'s, without importing scipy.stats.

    Examples
    --------
    >>> _average_ranks(np.array([0.3, 0.1, 0.3, 0.2])).tolist()
    [3.5, 1.0, 3.5, 2.0]
    """
    x = np.asarray(x, dtype=float)
    if x.ndim > 1:
        return np.stack([_average_ranks(col) for col in x.reshape(len(x), -1).T], axis=1
                        ).reshape(x.shape)
    order = np.argsort(x, kind="stable")
    sorted_x = x[order]
    start = np.r_[True, sorted_x[1:] != sorted_x[:-1]]
    group = np.cumsum(start) - 1
    first = np.flatnonzero(start)
    last = np.r_[first[1:], x.size] - 1
    ranks = np.empty(x.size)
    ranks[order] = ((first + last) / 2.0 + 1.0)[group]
    return ranks


def _settled(alpha: float, draws: int) -> int:
    """The most draws whose maximum may reach the observed |t| on a board that rejects, for any
    number of finite draws up to ``draws`` (rejection: the observed |t| above the ``kq``-th
    smallest maximum, i.e. at most ``m - kq`` maxima reach it).

    Examples
    --------
    >>> _settled(0.05, 100), _settled(0.05, 40), _settled(0.2, 100)
    (5, 2, 20)
    """
    return max(m - _kth(alpha, m) for m in range(1, draws + 1))


def _pair_ses(point: np.ndarray, for_se: np.ndarray, factor: float
              ) -> tuple[list[tuple[np.ndarray, np.ndarray]], float]:
    """Per model ``j``, which later models it has a positive SE against and those SEs (the SDs of
    the replicates ``for_se``, as :mod:`~leaderboard.tiers.rank_sets` takes them from its own),
    and the observed largest studentised |difference| over all pairs (divided by ``factor``)."""
    cen = for_se - for_se.mean(axis=1, keepdims=True)
    ses, t_max = [], 0.0
    for j in range(point.size - 1):
        d = cen[j + 1:] - cen[j]
        se = np.sqrt((d * d).sum(axis=1) / (cen.shape[1] - 1))
        ok = se > 0
        ses.append((ok, se[ok]))
        if ok.any():
            gap = np.abs(point[j + 1:][ok] - point[j])
            t_max = max(t_max, float((gap / se[ok]).max()) / factor)
    return ses, t_max


def _draw_maxima(err: np.ndarray, ses: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """Each replicate's (column of ``err``: replicate minus point) largest studentised
    |difference| over the pairs with a positive SE."""
    best = np.zeros(err.shape[1])
    for j, (ok, se) in enumerate(ses):
        if se.size:
            np.maximum(best, (np.abs(err[j + 1:][ok] - err[j]) / se[:, None]).max(axis=0),
                       out=best)
    return best
