"""The paired bootstrap's self-check: its family-wise error on null boards of the board's shape.

What the check measures and how its verdict is read are :mod:`leaderboard.tiers.guarantee_check`'s
(the same :class:`~leaderboard.tiers.guarantee_check.GuaranteeCheck`). For the paired bootstrap
(metrics that are not a mean of per-row values: AUC, F1, R²), a null board permutes the models'
predictions row by row (scores turned into ranks within each model first, so that rows of
different models mix on one scale) and is scored by the metric itself on :data:`BOOT_DRAWS`
bootstrap replicates for the maxima and :data:`BOOT_SE_DRAWS` others for the pairs' SEs
(:func:`check_bootstrap`); its first round is the bootstrap's max-t over all pairs, as the
analysis runs it. The SEs come from replicates of their own because SEs taken from the maxima's
own hundred draws make every draw's deviation SD-sized while the observed gap keeps the SEs'
noise, which 2,000 draws nearly do not: on null boards made from the insults competition's 27
submissions (AUC, 1,985 rows) this check measured 2.7% ± 0.9% (300 boards), the analysis itself
with 2,000 replicates 4.0% ± 1.4% (200 boards).

A board's SEs and observed largest |t| are computed first; its maxima are then scored
:data:`BOOT_STEPS` replicates at a time, and once more maxima reach the observed |t| than a
rejection allows with any number of finite draws, the board cannot reject and the rest is not
scored: the verdict, hence every number, is that of scoring all of them (a replicate's score does
not depend on which replicates share the call). Under the null most boards settle within the
first 16 or 32 maxima.

Cost. How many null boards a check runs is fixed by the board's shape and the metric, never by
a clock (same inputs and seed, same page). :func:`boot_boards` takes at most
:data:`BOOT_BOARDS`, at most :data:`BOOT_WORK` entries x rows x replicates (the rule before this
count, which still sets the submissions example's 95 boards), and at most what
:data:`BOOT_BUDGET` (about two seconds) holds of a null board's counted CPU,

    draws x (rows x (cost x entries x ENTRY_ROW + ROW) + pairs x PAIR) + cost x entries x ENTRY
    + BOARD    nanoseconds,

with ``cost`` the metric's factor from the registry
(:data:`~leaderboard.metrics.registry.CHECK_COST`: 1 for a binary AUC, 12.7 for a ten-class
one-vs-rest AUC, 4 for the median absolute error, ...) and the constants below, fitted to binary
AUC boards from 2 x 2,000 to 300 x 100 and 2 x 50,000 (twelve shapes: within 12% but 10 x 300,
22%). Fewer than
:data:`~leaderboard.tiers.guarantee_check.MIN_BOARDS` in that budget: that many boards when they
fit in :data:`BOOT_FLOOR_BUDGET` (about eight seconds: a ten-class AUC of 40 entries on 2,100
rows, 15 boards in two seconds, is checked on 40), else not checked, and the result says why.
Measured on 2 shared cores (load 2-4), old code against this: 300 entries x 100 rows of AUC ran
200 boards in 5.4 s, now 69 (about 1.9 s); average precision on 11 entries x 2,100 rows under
Poisson weights 2.5 s, now 1.15 s for the same 200 boards (its loop, not its boards, was the
cost: about 7 s at load 8); the submissions example's check (40 x 2,100, AUC, 95 boards) 1.56 s,
now 1.28 s with the same verdicts; AMI on 100 x 500 ran 160 boards in 16 s and now runs 40
(the floor). Per metric and shape: docs/benchmarks.md (benchmarks/bench_self_check.py).
"""
from __future__ import annotations

import numpy as np

from leaderboard._threads import one_blas_thread
from leaderboard.noise.rng import block_rng
from leaderboard.params import DEFAULT_SEED
from leaderboard.tiers.guarantee_check import (MIN_BOARDS, STREAM, GuaranteeCheck, critical_place,
                                               not_checked)

BOOT_BOARDS = 200   # null boards of the bootstrap's check (each is scored by the metric)
BOOT_DRAWS = 100    # bootstrap replicates per null board for the maxima
BOOT_SE_DRAWS = 100  # ... and, independent of them, for the pairs' SEs
BOOT_STEPS = (16, 32, 64)  # maxima scored 16, 32, then the rest (a board may settle early)
# A null board's CPU in nanoseconds on the machine these were measured on (2 shared cores of an
# AMD EPYC, kernels compiled; benchmarks/bench_self_check.py), per:
ROW = 4.0           # row and replicate (its weights and class totals, whatever the entries)
ENTRY_ROW = 0.45    # entry, row and replicate of a binary AUC (times the metric's cost)
PAIR = 1.0          # pair of entries and replicate (the max-t's first round)
ENTRY = 55_000.0    # entry (its predictions prepared: sorted for a rank metric)
BOARD = 500_000.0   # board (its shuffle, its steps)
BOOT_WORK = 1.6e9    # entries x rows x replicates scored per check at most (the rule before)
BOOT_BUDGET = 2.0e9  # nanoseconds of counted CPU per check at most: about two seconds
# ... but a check of MIN_BOARDS boards is run when they fit in this many (about eight seconds):
# a board checked at its minimum says more than one left unchecked for six seconds
BOOT_FLOOR_BUDGET = 8.0e9


def check_bootstrap(preds: np.ndarray, y: np.ndarray, metric, plan, alpha: float, *,
                    seed: int = DEFAULT_SEED, unit: str = "test row", factor: float = 1.0,
                    boards: int = BOOT_BOARDS, draws: int = BOOT_DRAWS,
                    se_draws: int = BOOT_SE_DRAWS, budget: float = BOOT_BUDGET,
                    work: float = BOOT_WORK) -> GuaranteeCheck:
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
    boards, draws, se_draws, budget, work
        At most ``boards`` null boards of ``draws + se_draws`` replicates, fewer when their
        entries x rows x replicates pass ``work`` or their counted CPU (:func:`boot_boards`)
        passes ``budget`` nanoseconds.

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
    boards = boot_boards(metric, preds, y, boards=boards, draws=draws, se_draws=se_draws,
                         budget=budget, work=work)
    skipped = not_checked(base, boards, f"{e:,} entries \u00d7 {n:,} rows")
    if skipped is not None:
        return skipped
    if metric.kind == "scores":   # one scale for every model: ranks within each model
        preds = np.stack([_average_ranks(p) for p in preds]) / n
    rejected, impl = 0, metric.impl
    # stopping early saves scoring and costs a pass over the pairs per step: where the pairs
    # cost more than the rows (300 entries x 100 rows: 31.6 ms a board in steps, 26.3 before),
    # the maxima are scored in one step
    steps = BOOT_STEPS if e * (e - 1) / 2 * PAIR < n * (e * ENTRY_ROW + ROW) else (draws,)
    with one_blas_thread():
        for b in range(boards):
            rng = block_rng(seed, STREAM, b)
            perm = np.argsort(rng.random((n, e)), axis=1)     # each row's models shuffled
            null = preds[perm.T, np.arange(n)[None, :]]        # (E, n, ...)
            # held until the next board's is made, as before: freed at once, a large prepared
            # board (F1 of 40 x 2,100 at 4 classes: 11 MB of features) went back to the system
            # and its pages were faulted in again on every board (2,900 faults a board, +25% CPU)
            prepared = impl.prepare(y, list(null))
            rejected += _null_board_rejects(impl, prepared, len(y), plan, int(seed) + b, alpha,
                                            factor, draws, se_draws, steps)
    return GuaranteeCheck(**base, boards=boards, draws=draws, rejected=rejected)


def boot_boards(metric, preds: np.ndarray, y: np.ndarray, *, boards: int = BOOT_BOARDS,
                draws: int = BOOT_DRAWS, se_draws: int = BOOT_SE_DRAWS,
                budget: float = BOOT_BUDGET, work: float = BOOT_WORK) -> int:
    """How many null boards the check runs (the module's docstring): at most ``boards``, at
    most ``work`` entries x rows x replicates, and at most what ``budget`` nanoseconds of
    counted CPU hold, but :data:`~leaderboard.tiers.guarantee_check.MIN_BOARDS` when those fit
    in :data:`BOOT_FLOOR_BUDGET` (four times ``budget``). It depends on the shape, the metric and
    its classes only.

    Examples
    --------
    The submissions example's shape (binary AUC), where the rule before decides; 300 entries on
    100 rows, where the counted CPU does (the rule before gave it 200 boards, 5.4 s); a
    ten-class AUC:

    >>> from leaderboard.metrics import get_metric
    >>> auc, y = get_metric("auc"), (np.arange(2100) % 10 == 0).astype(int)
    >>> boot_boards(auc, np.zeros((40, 2100)), y), boot_boards(auc, np.zeros((300, 100)), y[:100])
    (95, 69)
    >>> boot_boards(auc, np.zeros((40, 2100, 10)), y % 10)   # 15 in two seconds: the floor's 40
    40
    """
    from leaderboard.metrics.registry import check_cost

    e, n = preds.shape[0], preds.shape[1]
    boards = int(min(boards, work // max(1, e * n * (draws + se_draws))))
    if boards < MIN_BOARDS:   # not checked: no need to count the classes of a large board
        return boards
    cost = check_cost(metric, _classes(metric, preds, y))
    one = ((draws + se_draws) * (n * (cost * e * ENTRY_ROW + ROW) + e * (e - 1) / 2 * PAIR)
           + cost * e * ENTRY + BOARD)
    held = budget // one
    if held < MIN_BOARDS and MIN_BOARDS * one <= budget * BOOT_FLOOR_BUDGET / BOOT_BUDGET:
        held = MIN_BOARDS   # the fewest boards a verdict is read from, within the floor
    return int(min(boards, held))


def _classes(metric, preds: np.ndarray, y: np.ndarray) -> int:
    """The classes a metric's cost grows with: columns of a matrix of predictions; distinct
    labels of the truth and of the predictions for labels and clusters; else 1."""
    if preds.ndim > 2:
        return int(np.prod(preds.shape[2:]))
    if metric.kind in ("labels", "clusters"):
        distinct = [np.unique(y).size] + [np.unique(p).size for p in preds]
        return int(max(distinct))
    return 1


def _null_board_rejects(impl, prepared, n_rows: int, plan, seed: int, alpha: float, factor: float,
                        draws: int, se_draws: int, steps=BOOT_STEPS) -> bool:
    """Whether the bootstrap's first round declares some pair different on one null board
    (``prepared`` by ``impl``).

    Two independent sets of replicates: SEs from one (replicates ``draws ..``), maxima from the
    other (``0 .. draws - 1``); SEs from the maxima's own draws would make every draw's deviation
    exactly SD-sized while the observed gap keeps the SEs' noise: a 100-draw check would then
    find errors that 2,000 draws do not have. The SEs and the observed largest |t| come first;
    the maxima are then scored :data:`BOOT_STEPS` replicates at a time, and once more of them
    reach the observed |t| than any number of finite draws lets a rejection have, the board
    cannot reject and the rest is not scored: the same verdict as scoring all of them (tested).
    """
    from leaderboard.noise.bootstrap import replicate_chunks

    point = impl.point(prepared, n_rows)
    if not np.isfinite(point).all():      # every replicate dropped: nothing to compare
        return False
    reps = next(replicate_chunks(impl, prepared, plan, draws, draws + se_draws, seed, STREAM,
                                 se_draws))
    for_se = reps[:, np.isfinite(reps).all(axis=0)] - point[:, None]
    if for_se.shape[1] < 2:
        return False
    ses, t_max = _pair_ses(point, for_se, factor)
    settled, reached, maxima = _settled(alpha, draws), 0, []
    for reps in replicate_chunks(impl, prepared, plan, 0, draws, seed, STREAM, steps):
        best = _draw_maxima(reps[:, np.isfinite(reps).all(axis=0)] - point[:, None], ses)
        maxima.append(best)
        reached += int(np.count_nonzero(best >= t_max))
        if reached > settled:
            return False
    best = np.concatenate(maxima)
    if best.size < 2:
        return False
    kq = critical_place(alpha, best.size)
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
    return max(m - critical_place(alpha, m) for m in range(1, draws + 1))


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
