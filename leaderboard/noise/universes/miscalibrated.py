"""Models that score worse than no skill, so that a universe reaches every score a submission can get.

A calibrated universe (binormal, multi-class) spans the scores from no skill to perfect: its worst
model predicts the class shares for every row. Real submissions score worse than that, and their
scores need a noise too (Data Science Bowl 2017: most of the board's log losses are worse than
predicting the prevalence). Without it such entries got the no-skill model's noise, which is zero
when the class counts are fixed, and zero-width intervals.

The universes here move along one scalar *path* ``u`` instead of the separation ``mu`` alone. Each
row has a log-likelihood ratio ``s(mu)`` (the calibrated log-odds minus the prior), and the model
predicts from ``T * s(mu) + prior`` for a *temperature* ``T``:

``u >= 0``          the calibrated model, ``mu = u``, ``T = 1`` (as before).
``-1 <= u < 0``     probabilities (log loss, Brier): over-confidence. With ``v = -u`` the
                    temperature is ``T = 1 / (1 - v)`` (1 to infinity), and ``mu`` is the
                    separation at which that temperature scores *worst*. So a score worse than no
                    skill is given to the *least* over-confident model that can score that badly:
                    the noise of a model with real skill whose probabilities are too extreme, as
                    such submissions usually are. As ``T`` grows the predictions become hard 0/1
                    labels, wrong half the time. The worst separation is found at node
                    temperatures; between two nodes the path takes whichever of the two nodes'
                    separations scores worse at its temperature, which keeps the score continuous
                    and monotone (at a fixed separation, a calibrated model's proper score only
                    worsens as its temperature rises above 1).
``u < -1``          probabilities: hard labels that are wrong more often than not (``mu = -u - 1``
                    with the ranking reversed), up to every row wrong: each row then scores the
                    metric's worst value (log loss: -log of float64's eps).
``u < 0``           labels and scores: the calibrated model reversed (``mu = -u``, ``T = -1``):
                    AUC below 0.5, negative MCC or kappa, an F1 below what no skill gets. Where a
                    reversed label metric stops moving away from the best (a thresholded model that
                    predicts almost nothing), the universe's reach ends there (see
                    :meth:`~leaderboard.noise.universes.finite.CalibratedUniverse.reachable`).

At ``u = 0`` exactly the separation is a vanishing ``MU_MIN`` rather than 0, so that a label metric
thresholded at the prior does not sit on the constant model's tie. Tests check that the score
moves monotonically along the path and that every score in the metric's range is reached.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from leaderboard.metrics.base import Metric

BRANCH = 1.0                                # length of the over-confident stretch of the path
TEMPERATURES = 10.0 ** (np.arange(33) / 4)  # 1 to 1e8: the stretch's nodes, 4 a decade
MU_MIN = 1e-9                               # "no separation" without an exactly constant model
_SCAN = 16                                  # separations scanned per temperature
_REFINE = 24                                # golden-section rounds
_CHUNK = 128                                # models held at once while scanning
_NODES: dict[tuple, tuple[np.ndarray, np.ndarray]] = {}   # computed once per universe and metric


class MiscalibrationPath:
    """Mixin for calibrated universes: maps the path parameter to ``(mu, temperature)``.

    The universe provides ``_model(mu, temperature)`` (its predictions, of the metric's kind, with
    ``temperature`` possibly +-inf for hard labels), ``max_separation``, ``metric`` and
    ``_truth_of(models)`` (the metric on the whole universe for a list of prediction arrays), and
    a ``_path_key()`` naming everything the over-confident nodes depend on.
    """

    max_separation: float

    if TYPE_CHECKING:   # what the universe provides; declared for the type checker only, so
        # that at run time these names still resolve to the universe's own (later in the MRO)
        metric: Metric

        def _model(self, mu: float, temperature: float) -> np.ndarray: ...

        def _truth_of(self, models: list[np.ndarray]) -> np.ndarray: ...

        def _path_key(self) -> tuple: ...

    @property
    def overconfident(self) -> bool:
        """Whether the path continues with over-confident models (probability metrics) rather
        than reversed ones."""
        return self.metric.kind == "probabilities"

    def path_range(self) -> tuple[float, float]:
        """``(worst, best)`` ends of the path."""
        worst = BRANCH + self.max_separation if self.overconfident else self.max_separation
        return -worst, self.max_separation

    def path_point(self, u: float) -> tuple[float, float]:
        """``(mu, temperature)`` at path parameter ``u`` (see the module docstring)."""
        return self._path_model(u)[:2]

    def _path_model(self, u: float) -> tuple[float, float, np.ndarray | None, float | None]:
        """``(mu, temperature)`` at ``u`` and, between two over-confident nodes, the model there
        and its true score (computed to compare the nodes' separations; None elsewhere)."""
        if u >= 0:
            return max(u, MU_MIN), 1.0, None, None
        if not self.overconfident:
            return -u, -1.0, None, None
        if u < -BRANCH:
            return max(-u - BRANCH, MU_MIN), -np.inf, None, None
        v = -u / BRANCH
        if v >= 1:
            return MU_MIN, np.inf, None, None
        temperature = 1.0 / (1.0 - v)
        nodes_v, nodes_mu = self._overconfident_nodes()
        k = int(np.clip(np.searchsorted(nodes_v, v, side="right") - 1, 0, nodes_v.size - 2))
        pair = [float(nodes_mu[k]), float(nodes_mu[k + 1])]
        if pair[0] == pair[1] or v == nodes_v[k]:
            return pair[0], temperature, None, None
        models = [self._model(mu, temperature) for mu in pair]   # as _badness builds them
        truths = self._truth_of(models)
        worse = self._sign() * truths
        pick = int(worse[1] > worse[0])
        return pair[pick], temperature, models[pick], float(truths[pick])

    def scan_points(self, count: int) -> np.ndarray:
        """Where calibration first looks: both ends, no skill, and the start of every stretch;
        the over-confident stretch's inside is only entered when a target lies there (its nodes
        cost a search per temperature)."""
        worst, best = self.path_range()
        calibrated = np.linspace(0.0, best, count)
        if not self.overconfident:
            return np.concatenate([np.linspace(worst, 0.0, count)[:-1], calibrated])
        return np.concatenate([np.linspace(worst, -BRANCH, max(count // 2, 3)), calibrated])

    def _brackets(self, target: np.ndarray, scan: np.ndarray,
                  values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The coarse scan, plus the over-confident stretch's inner nodes once a target lies in
        that stretch: calibration then starts within one node interval (the score is smooth
        between nodes) rather than between no skill and hard labels, where the temperature runs
        from 1 to infinity; about half the rounds for log loss."""
        if not self.overconfident:
            return scan, values
        ends = values[np.isin(scan, (-BRANCH, 0.0))]
        if not np.any((target > ends.min()) & (target < ends.max())):
            return scan, values
        if "_stretch_scanned" not in self.__dict__:
            inner = -BRANCH * self._overconfident_nodes()[0][1:-1]   # strictly inside (-1, 0)
            points = np.concatenate([scan, inner])
            order = np.argsort(points, kind="stable")
            self._stretch_scanned = (points[order],
                                     np.concatenate([values, self.truth(inner)])[order])
        return self._stretch_scanned

    def predictions(self, params: np.ndarray) -> list[np.ndarray]:
        out = []
        for u in np.atleast_1d(params):
            mu, temperature, model, _ = self._path_model(float(u))
            out.append(self._model(mu, temperature) if model is None else model)
        return out

    def truth(self, params) -> np.ndarray:
        """The true scores along the path: a model between two over-confident nodes was scored
        when the nodes were compared (a truth does not depend on the models scored with it, see
        :meth:`~leaderboard.noise.universes.finite.CalibratedUniverse._truth_of_rows`), so only
        the others are scored here."""
        points = [self._path_model(float(u)) for u in np.atleast_1d(np.asarray(params, float))]
        out = np.array([np.nan if known is None else known for *_, known in points])
        todo = [i for i, point in enumerate(points) if point[3] is None]
        if todo:
            out[todo] = self._truth_of([self._model(*points[i][:2]) for i in todo])
        return out

    def branch_of(self, u: float) -> str:
        """Which kind of model the path holds at ``u``: ``calibrated``, ``over-confident``,
        ``hard`` (0/1 predictions, mostly wrong) or ``reversed``."""
        if u >= 0:
            return "calibrated"
        if not self.overconfident:
            return "reversed"
        return "over-confident" if u >= -BRANCH else "hard"

    def breakpoints(self) -> tuple[float, ...]:
        """True scores where the path changes family (no skill; hard labels), for the grid."""
        points = [0.0, -BRANCH] if self.overconfident else [0.0]
        return tuple(float(v) for v in self.truth(np.array(points)))

    def _trim_scan(self, scan: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Cut the reversed stretch where the score stops moving away from the best: a
        thresholded label metric can turn back (a reversed model that predicts almost no
        positives scores like one that predicts none), and calibration needs a monotone path."""
        start = int(np.searchsorted(scan, 0.0))
        away = np.sign(values[start] - values[-1])
        keep = start
        while keep > 0 and (values[keep - 1] - values[keep]) * away >= 0:
            keep -= 1
        return scan[keep:], values[keep:]

    def path_words(self) -> str:
        """One sentence for the report: which models give the scores worse than no skill."""
        if self.overconfident:
            return (" A score worse than predicting the class shares for every row comes from an "
                    "over-confident model: the least over-confident one (its log-odds multiplied "
                    "by the smallest factor) that can score that badly, and beyond what any factor "
                    "reaches, from hard 0/1 predictions that are wrong more often than not.")
        return " A score below no skill comes from the same model with its predictions reversed."

    def _overconfident_nodes(self) -> tuple[np.ndarray, np.ndarray]:
        """The worst separation at each node temperature, as ``(v, mu)`` with ``v = 1 - 1/T``;
        the last node is ``v = 1`` (hard labels, no separation)."""
        key = self._path_key()
        if key not in _NODES:
            mu = self._worst_separation(TEMPERATURES)
            _NODES[key] = (np.append(1.0 - 1.0 / TEMPERATURES, 1.0), np.append(mu, MU_MIN))
        return _NODES[key]

    def _sign(self) -> float:
        return -1.0 if self.metric.higher_is_better else 1.0

    def _badness(self, mu: np.ndarray, temperature: np.ndarray) -> np.ndarray:
        sign = self._sign()
        out = np.empty(mu.size)
        for start in range(0, mu.size, _CHUNK):
            stop = min(start + _CHUNK, mu.size)
            models = [self._model(float(m), float(t))
                      for m, t in zip(mu[start:stop], temperature[start:stop])]
            out[start:stop] = sign * self._truth_of(models)
        return out

    def _worst_separation(self, temperatures: np.ndarray) -> np.ndarray:
        """For each temperature, the separation whose model scores worst: a scan on a log grid
        finds the highest point (the score can have a second, lower hump near no separation), and
        golden-section search refines it between the scan's neighbours: each round keeps one of
        its two inner points and scores one new model per temperature (the bracket shrinks by
        the golden ratio per round, to 1e-5 of its width after :data:`_REFINE` rounds)."""
        grid = np.log(np.geomspace(MU_MIN, self.max_separation, _SCAN))
        t_all = np.repeat(temperatures, _SCAN)
        values = self._badness(np.exp(np.tile(grid, temperatures.size)), t_all)
        best = values.reshape(temperatures.size, _SCAN).argmax(axis=1)
        lo, hi = grid[np.maximum(best - 1, 0)], grid[np.minimum(best + 1, _SCAN - 1)]
        ratio = (np.sqrt(5.0) - 1.0) / 2.0
        a, b = hi - ratio * (hi - lo), lo + ratio * (hi - lo)
        fa, fb = (self._badness(np.exp(np.concatenate([a, b])), np.tile(temperatures, 2))
                  .reshape(2, -1))
        for _ in range(_REFINE):
            left = fa >= fb             # the highest point lies in [lo, b]: a becomes its b
            lo, hi = np.where(left, lo, a), np.where(left, b, hi)
            new = np.where(left, hi - ratio * (hi - lo), lo + ratio * (hi - lo))
            f_new = self._badness(np.exp(new), temperatures)
            a, b, fa, fb = (np.where(left, new, b), np.where(left, a, new),
                            np.where(left, f_new, fb), np.where(left, fa, f_new))
        middle = 0.5 * (lo + hi)
        # keep the scan's best when the refinement did not beat it (a flat or two-humped curve)
        scanned = np.exp(grid[best])
        refined = np.exp(middle)
        better = self._badness(refined, temperatures) >= values.reshape(-1, _SCAN)[
            np.arange(temperatures.size), best]
        return np.where(better, refined, scanned)
