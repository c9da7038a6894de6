"""The engine shared by the calibrated universes: a finite universe of rows in strata (classes),
one parameter that sets the model's quality, calibration to a target score, and simulation with the
metric registry's weighted form.

A universe here is a fixed table of rows ``(y, prediction)``: each stratum (a class, or all rows for
regression) holds a few thousand rows built from quantiles or a fixed random sample of its
distribution. A test set of ``n_test`` rows takes a fixed number of rows from each stratum (its share
of the test set), drawn with replacement, which is exactly a vector of row *counts*. So a block of
simulated test sets is a count matrix ``(BLOCK, rows)`` and the metric under it is
``impl.evaluate(prepared, counts)``: the same code that scores submissions under bootstrap weights,
one matrix product for row-sum metrics and one sorted pass for rank metrics, every level at once.

The true score is the metric on the whole universe with each stratum weighted by its share of the
test set, so that e.g. accuracy's truth is prevalence * TPR + (1 - prevalence) * TNR.
"""
from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np
from numpy.typing import ArrayLike

from leaderboard.errors import InputError

from leaderboard.metrics import Metric, RowMean, RowSums
from leaderboard.noise.rng import BLOCK, Stream, block_rng, draw_rows, row_counts
from leaderboard.noise.universes.exact import stratified_mean_sd

STREAM = int(Stream.FINITE_UNIVERSE)
_MAX_ROUNDS = 200     # calibration iterations (each one batched over every level)
_SCAN = 25           # parameter values scanned to bracket the levels before refining
_LARGEST_ROW_LOSS = float(-np.log(np.finfo(np.float64).eps))  # a clipped log loss's worst row
# A label metric is simulated on its cells (:meth:`CalibratedUniverse._cell_labels`) while all
# the test sets together draw at most this many rows per universe row: merging a drawn row into
# its cell costs each model about as much as ten feature columns of the rows' sparse product, so
# the cells win by skipping the features of every universe row only while few rows are drawn
# (measured: QWK, 6 classes, 80 levels, 500 rows a test set: 100 draws 1.09 -> 0.21 s, 2,000
# draws even; binary F1 at 3,263 rows, 100 draws: the rows' path 4 times faster).
_CELLS_DRAWN_ROWS = 4


class CalibratedUniverse(ABC):
    """A finite universe whose quality parameter is solved for each target score.

    Subclasses set the truth ``y``, the strata (:attr:`strata`, contiguous rows) and their
    :attr:`shares` of a test set, the parameter's range ``(worst, best)``, and give
    :meth:`predictions` for an array of parameter values.
    """

    name: str
    metric: Metric
    y: np.ndarray
    strata: list[slice]          # universe rows of each stratum, contiguous
    shares: np.ndarray           # each stratum's share of a test set (sums to 1)
    param_range: tuple[float, float]  # (worst, best)
    # One stratum whose rows are not equally likely (a test set draws row i with probability
    # row_weights[i]; :meth:`_draw_rows` must draw so): None, every row of a stratum equally likely.
    row_weights: np.ndarray | None = None

    def __init__(self, metric: Metric) -> None:
        self.metric = metric
        self.impl = metric.impl

    # --- what subclasses provide ----------------------------------------------------------------

    @abstractmethod
    def predictions(self, params: np.ndarray) -> list[np.ndarray]:
        """The universe's predictions for each parameter value (same rows as ``y``)."""

    @abstractmethod
    def assumptions(self, n_test: int, prevalence: float | None) -> str:
        """One plain paragraph for the report."""

    # --- calibration ----------------------------------------------------------------------------

    def _truth_weights(self) -> np.ndarray:
        if self.row_weights is not None:
            return np.asarray(self.row_weights, dtype=float)
        w = np.empty(self.y.shape[0])
        for s, share in zip(self.strata, self.shares):
            w[s] = share / (s.stop - s.start)
        return w

    def truth(self, params: ArrayLike) -> np.ndarray:
        """The metric on the whole universe at each parameter value: the true scores."""
        return self._truth_of(self.predictions(np.asarray(params, dtype=float)))

    def _truth_of(self, models: list[np.ndarray]) -> np.ndarray:
        """The metric on the whole universe for each array of predictions."""
        if self.metric.kind == "labels" and models:
            return self._truth_of_labels(models)
        return self._truth_of_rows(models)

    def _truth_of_labels(self, models: list[np.ndarray]) -> np.ndarray:
        """Label metrics: the truth from each model's weighted cells (true class, predicted class).

        A metric in weighted form sees the rows only through their weights (a bootstrap count is
        that row repeated), so rows with the same true and predicted label can be merged into one
        row carrying their summed weight. The universe's ``K x K`` cells, weighted by one
        bincount per model, then stand in for its rows: an evaluation of ``K^2`` rows per model
        instead of features for every row of the universe. Equal to
        :meth:`_truth_of_rows` up to the order of the additions (tests/noise/test_universes.py
        checks 1e-12 on every label metric); cells of weight 0 are absent, as rows of weight 0 are.
        """
        k = self._cell_plan(models)
        if k is None:
            return self._truth_of_rows(models)     # labels the cells do not cover
        weights = [np.bincount(self._true_cell + m, weights=self._row_weights, minlength=k * k)
                   for m in models]
        return np.array([self.impl.evaluate(self._cells, row[None, :])[0, 0] for row in weights])

    def _cell_plan(self, models: list[np.ndarray]) -> int | None:
        """The number of classes ``k`` when every model's labels are cells' (integers 0..k-1),
        with the metric prepared on the ``k x k`` cells (true class, predicted class), as rows
        ``true * k + predicted``, and each universe row's truth weight and ``true * k``; else
        None."""
        k = int(self.y.max()) + 1
        if any(m.dtype.kind not in "iub" or m.min() < 0 or m.max() >= k for m in models):
            return None
        if "_cells" not in self.__dict__:
            cells = np.arange(k * k)
            self._cells = self.impl.prepare(cells // k, [cells % k])
            self._row_weights = self._truth_weights()
            self._true_cell = self.y * k
        return k

    def _truth_of_rows(self, models: list[np.ndarray]) -> np.ndarray:
        """The metric on the whole universe's rows for each array of predictions."""
        if self.row_weights is not None and isinstance(self.impl, RowSums):
            # Weighted rows span many orders of magnitude (a deep tail's rare, huge residuals),
            # which the rounding that makes simulated sums order-independent (exact_columns, to
            # 2**-37 of a column's largest value) would blur by ~1e-7: the truth, which
            # calibration solves to 1e-10, sums in full precision.
            blocks = self.impl._features(self.y, models)
            sums = np.concatenate([np.einsum("i,ij->j", self.row_weights, block)
                                   for block in blocks])[None, :]
            k = blocks[1].shape[1] if len(blocks) > 1 else 0
            return self.impl._finalize_sums(sums, blocks[0].shape[1], k)[:, 0]
        prepared = self.impl.prepare(self.y, models)
        if isinstance(self.impl, RowSums) and type(self.impl).evaluate is RowSums.evaluate:
            # each model's sum on its own: its truth is then the same whichever models share the
            # call (the over-confident path reuses a truth it computed for two models)
            return self.impl.evaluate_each(prepared, self._truth_weights())
        return self.impl.evaluate(prepared, self._truth_weights()[None, :])[:, 0]

    def reachable(self) -> tuple[float, float]:
        """The true scores this universe can be calibrated to, low to high."""
        _, values = self._scan()
        return float(np.nanmin(values)), float(np.nanmax(values))

    def calibrate(self, levels: ArrayLike) -> np.ndarray:
        """The parameter at which the universe's true score equals each level (remembered, since
        the grid, the exact SD and the simulation all ask for the same levels)."""
        target = np.asarray(levels, dtype=float)
        cache = self.__dict__.setdefault("_calibrated", {})
        new = np.unique(target[[t not in cache for t in target.tolist()]])
        if new.size:
            cache.update(zip(new.tolist(), self._solve(new).tolist()))
        return np.array([cache[t] for t in target.tolist()])

    def scan_points(self, count: int) -> np.ndarray:
        """Parameter values calibration scans first to bracket its targets."""
        return np.linspace(*self.param_range, count)

    def _scan(self) -> tuple[np.ndarray, np.ndarray]:
        if "_scanned" not in self.__dict__:
            scan = self.scan_points(_SCAN)
            self._scanned = self._trim_scan(scan, self.truth(scan))
        return self._scanned

    def _trim_scan(self, scan: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Hook for universes whose worst models stop moving the score monotonically: the scan
        (and so the reach) is cut where they do. Unchanged by default."""
        return scan, values

    def _brackets(self, target: np.ndarray, scan: np.ndarray,
                  values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Hook: the scan that brackets ``target`` (a universe may add points where targets
        lie); the coarse scan by default."""
        return scan, values

    def _solve(self, levels: np.ndarray) -> np.ndarray:
        """The parameter at which the universe's true score equals each level.

        Solved for all levels at once by the Illinois variant of false position, with a bisection
        step every third round so that it also converges on a metric that moves in small steps
        (labels on a finite universe change the score by about 1/rows at a time). Raises
        InputError for a level the universe cannot reach.
        """
        target = np.asarray(levels, dtype=float)
        # A coarse scan brackets every level between neighbouring parameters (the score is
        # monotone in the parameter), so the refinement starts narrow.
        scan, values = self._scan()
        low, high = np.nanmin(values), np.nanmax(values)
        spread = high - low
        outside = (target < low - 1e-12 * spread) | (target > high + 1e-12 * spread)
        if outside.any():
            bad = float(target[outside][0])
            raise InputError(f"{self.metric.label} {bad:g} cannot be reached by the {self.name} "
                             f"universe: it spans {values[0]:.6g} (its worst model) to {values[-1]:.6g} "
                             f"({self._best_words()}) for these settings")
        scan, values = self._brackets(target, scan, values)
        rising = values[-1] >= values[0]
        count = scan.size
        position = np.searchsorted(values if rising else values[::-1], target)
        position = np.clip(position if rising else count - position, 1, count - 1)
        a, b = scan[position - 1], scan[position]
        fa, fb = values[position - 1] - target, values[position] - target
        done = (fa == 0) | (fb == 0) | (np.sign(fa) == np.sign(fb))
        closer = np.abs(fa) <= np.abs(fb)
        best, f_best = np.where(closer, a, b), np.where(closer, fa, fb)   # f: truth - target
        tolerance, acceptable = self._tolerance(target)
        width = 1e-12 * abs(scan[-1] - scan[0])
        self.rounds = 0
        for round_ in range(_MAX_ROUNDS):
            active = np.flatnonzero(~done)
            if active.size == 0:
                break
            a_, b_, fa_, fb_ = a[active], b[active], fa[active], fb[active]
            with np.errstate(divide="ignore", invalid="ignore"):
                c = b_ - fb_ * (b_ - a_) / (fb_ - fa_)
            midpoint = 0.5 * (a_ + b_)
            bad = ~np.isfinite(c) | (c <= np.minimum(a_, b_)) | (c >= np.maximum(a_, b_))
            c = np.where(bad | (round_ % 3 == 2), midpoint, c)
            fc = self.truth(c) - target[active]
            self.rounds += 1
            crossed = np.sign(fc) != np.sign(fb_)
            # Illinois: keep the bracket; halve the stale end's value when the same end stays.
            a[active] = np.where(crossed, b_, a_)
            fa[active] = np.where(crossed, fb_, 0.5 * fa_)
            b[active], fb[active] = c, fc
            best[active], f_best[active] = c, fc
            done[active] = ((np.abs(fc) <= tolerance[active])
                            | (np.abs(b[active] - a[active]) <= width))
        # A label metric on a finite universe moves in steps of about 1/rows: land within a step
        # (checked on the truths the rounds computed: a truth is the same whichever models share
        # its call, so scoring the answers again, a sixth of the models scored, changes nothing)
        missed = ~(np.abs(f_best) <= np.maximum(tolerance, acceptable))
        if missed.any():
            raise InputError(self._jump_message(float(target[missed][0])))
        if self.metric.kind == "labels":
            self._check_no_jump(best, target, spread)
        return best

    def _check_no_jump(self, params: np.ndarray, target: np.ndarray, spread: float) -> None:
        """Labels can make the truth jump: e.g. precision goes from 0 (nothing predicted
        positive) to at least the threshold as soon as one row is. A target inside such a jump is
        met only by a model that predicts almost nothing, whose test sets mostly score 0: refuse
        it rather than simulate that."""
        # relative to the calibrated models' span (a longer path to worse models must not widen it)
        step = 1e-3 * getattr(self, "max_separation", abs(self.param_range[1] - self.param_range[0]))
        lo, hi = self.param_range
        around = np.clip(np.concatenate([params - step, params + step]), min(lo, hi), max(lo, hi))
        values = self.truth(around).reshape(2, -1)
        jump = np.abs(values[1] - values[0]) > 0.05 * spread
        if jump.any():
            raise InputError(self._jump_message(float(target[jump][0])))

    def _jump_message(self, level: float) -> str:
        return (f"{self.metric.label} {level:g} sits at a jump of the {self.name} universe: its "
                "score leaps past this value (e.g. from predicting no rows of a class to "
                "predicting some); choose another score, or another --threshold")

    def _tolerance(self, target: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """How close to the target the truth is solved, and how close it must end.

        Probabilities and values move smoothly with the parameter and are solved to 1e-10
        relative. Labels move in steps of one row's weight, and rank metrics in steps of one
        pair (AUC, about 1e-8) up to one row near the top of the ranking (average precision): they
        are solved as closely as the universe allows and must end within a few rows' weight,
        which is far below any test set's sampling noise. Probabilities past the over-confident
        models (:mod:`~leaderboard.noise.universes.miscalibrated`) are hard 0/1 predictions: they
        too move a row at a time, each row by at most the metric's largest row value (log loss:
        -log of float64's eps, about 36), and must end within a few such steps.
        """
        scale = np.maximum(np.abs(target), 1e-3)
        step = max(share / (s.stop - s.start) for s, share in zip(self.strata, self.shares))
        if self.metric.kind == "probabilities":
            return 1e-10 * scale, np.maximum(1e-10 * scale, 4.0 * step * _LARGEST_ROW_LOSS)
        if self.metric.kind not in ("labels", "scores"):
            return 1e-10 * scale, 1e-10 * scale
        acceptable = 4.0 * step * np.maximum(scale, 1.0)
        if self.metric.kind == "labels":
            return acceptable, acceptable
        return 1e-7 * np.maximum(scale, 1.0), acceptable

    def _best_words(self) -> str:
        return "a perfect model"

    # --- simulation -----------------------------------------------------------------------------

    def test_counts(self, n_test: int, prevalence: float | None) -> list[int]:
        """Rows each stratum gives a test set: its share of ``n_test``, rounded so they add up
        (largest remainders); every stratum must get at least one row."""
        shares = self.shares
        raw = n_test * shares
        counts = np.floor(raw).astype(int)
        counts[np.argsort(-(raw - counts), kind="stable")[:n_test - counts.sum()]] += 1
        if counts.min() < 1:
            raise InputError(f"--n-test {n_test} leaves a class without rows (shares "
                             + ", ".join(f"{s:.3g}" for s in shares) + "); use a larger test set")
        return [int(c) for c in counts]

    def simulate(self, levels: np.ndarray, n_test: int, prevalence: float | None, draws: int,
                 seed: int, progress=None) -> np.ndarray:
        """Observed scores, shape ``(len(levels), draws)``: the same test sets at every level.

        Each block of :data:`~leaderboard.noise.rng.BLOCK` test sets is one count matrix drawn from
        ``(seed, block)``, scored for every level in one weighted evaluation. Draws where the metric
        is undefined on the test set are NaN.
        """
        levels = np.asarray(levels, dtype=float)
        counts = self.test_counts(n_test, prevalence)
        models = self.predictions(self.calibrate(levels))
        n_blocks = -(-draws // BLOCK)
        few = n_blocks * BLOCK * n_test <= _CELLS_DRAWN_ROWS * self.y.shape[0]
        cells = self._cell_labels(models) if few and self._sparse_blocks(counts) else None
        prepared = self.impl.prepare(self.y, models) if cells is None else None
        out = np.empty((levels.size, draws))
        if progress is not None:
            progress.start(n_blocks)
        for block in range(n_blocks):
            keep = min(BLOCK, draws - block * BLOCK)  # whole blocks: fewer draws are a prefix
            weights = self._count_block(block_rng(seed, STREAM, block), counts)
            with np.errstate(divide="ignore", invalid="ignore"):
                scores = (self.impl.evaluate(prepared, weights) if cells is None
                          else self._evaluate_cells(cells, weights))
            out[:, block * BLOCK:block * BLOCK + keep] = scores[:, :keep]
            if progress is not None:
                progress.advance()
        return out

    def _cell_labels(self, models: list[np.ndarray]) -> np.ndarray | None:
        """Each label model's cell (true class, predicted class) of every universe row,
        ``(models, rows)``, when the metric may be simulated on the cells; else None.

        A metric whose weighted sums are of whole numbers
        (:attr:`~leaderboard.metrics.base.MetricImpl.whole_number_features`) sees a test set's
        rows only through their counts, and the rows of one cell have the same features: the
        cells, weighted by the counts of their drawn rows, give the same sums, exactly (integers
        below 2**53), so the same scores, for ``K^2`` rows a model instead of features of every
        universe row (prostate2021: 181 models x 32,766 rows x 8 columns built, rounded and
        multiplied per call). The cells' plan is the truth's (:meth:`_truth_of_labels`).
        """
        if not (self.metric.kind == "labels" and self.impl.whole_number_features and models):
            return None
        if self._cell_plan(models) is None:
            return None
        return self._true_cell + np.stack(models)

    def _evaluate_cells(self, cells: np.ndarray, weights) -> np.ndarray:
        """Scores ``(models, BLOCK)`` of a sparse block of test sets, each model's on its cells:
        a cell's weight is the sum of its drawn rows' counts (one bincount for all models)."""
        n_models, n_cells = cells.shape[0], (int(self.y.max()) + 1) ** 2
        block_row = np.repeat(np.arange(weights.shape[0]), np.diff(weights.indptr))
        where = cells[:, weights.indices] + (block_row * n_cells
                                             + (np.arange(n_models) * weights.shape[0]
                                                * n_cells)[:, None])
        merged = np.bincount(where.ravel(), weights=np.tile(weights.data, n_models),
                             minlength=n_models * weights.shape[0] * n_cells)
        merged = merged.reshape(n_models, weights.shape[0], n_cells)
        return np.concatenate([self.impl.evaluate(self._cells, merged[m]) for m in range(n_models)])

    def _sparse_blocks(self, counts: list[int]) -> bool:
        """Whether :meth:`_count_block` gives sparse blocks for these per-stratum counts."""
        sizes = [s.stop - s.start for s in self.strata]
        return self.impl.sparse_weights and all(4 * rows <= size
                                               for rows, size in zip(counts, sizes))

    def _count_block(self, rng: np.random.Generator, counts: list[int]):
        """One block of test sets as row counts: dense, or sparse when a test set touches few of
        the universe's rows and the metric is a sum over rows (then the product costs the test
        set's size, not the universe's). Both hold the same counts from the same random numbers."""
        sizes = [s.stop - s.start for s in self.strata]
        if self._sparse_blocks(counts):
            from scipy import sparse   # here, not at the top: every run imports this module
            picks = [self._draw_rows(rng, rows, size) + s.start
                     for s, rows, size in zip(self.strata, counts, sizes)]
            columns = np.concatenate(picks, axis=1)
            n = columns.shape[1]
            matrix = sparse.csr_matrix((np.ones(columns.size), columns.ravel(),
                                        np.arange(0, BLOCK * n + 1, n)),
                                       shape=(BLOCK, self.y.shape[0]))
            matrix.sum_duplicates()
            return matrix
        weights = np.empty((BLOCK, self.y.shape[0]))
        for s, rows in zip(self.strata, counts):   # counted: picks need no sort (32 x 9,000 took 7 ms)
            size = s.stop - s.start
            weights[:, s] = row_counts(self._draw_rows(rng, rows, size, sort=False), rows, size)
        return weights

    def _draw_rows(self, rng: np.random.Generator, rows: int, size: int,
                   sort: bool = True) -> np.ndarray:
        """One block of test sets' rows from a stratum of ``size`` rows, as
        :func:`~leaderboard.noise.rng.draw_rows` returns them (picks, or counts when ``rows``
        exceeds ``size``); universes whose rows are not equally likely override it."""
        return draw_rows(rng, rows, size, sort=sort)

    # --- exact variance -------------------------------------------------------------------------

    def exact_sd(self, score: float, n_test: int, prevalence: float | None) -> float | None:
        """Exact SD of the observed score for a mean of per-row values (log loss, Brier, accuracy,
        MAE, ...); None for other metrics."""
        probe = np.array([0.25, 4.0])
        if not (isinstance(self.impl, RowMean) and np.array_equal(self.impl.transform(probe), probe)):
            return None
        param = self.calibrate([score])
        values = np.asarray(self.impl.row_values(self.y, self.predictions(param)[0]), dtype=float)
        if self.row_weights is not None:   # one stratum, rows weighted: Var = sigma_w^2 / n
            mean = float(np.dot(self.row_weights, values))
            return float(np.sqrt(np.dot(self.row_weights, (values - mean) ** 2) / n_test))
        return stratified_mean_sd(values, self.strata, self.test_counts(n_test, prevalence))
