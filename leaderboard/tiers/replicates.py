"""The one input every rank and tier method reads: scores and paired draws of their error.

Two sources make it:

- **submissions** (:meth:`RankReplicates.from_bootstrap`): the paired bootstrap's replicates, so
  each column is one redraw of the test rows scored for every entry, and differences between
  entries keep the correlation that a shared test set gives them;
- **scores only** (:meth:`RankReplicates.normal`): each entry's error is normal with the standard
  deviation the universe simulation gave at its score, and every pair of entries has the stated
  correlation (``--correlation``; 0 means as if each entry had its own test set, the conservative
  choice for entries that share one).

Scores and errors are oriented so that higher is better whatever the metric, and entries are in rank
order (entry 0 is the observed leader).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
from leaderboard._jit import njit

from leaderboard.noise.rng import BLOCK, Stream, block_rng
from leaderboard.tiers import small_ranks
from leaderboard.params import DEFAULT_REPLICATES, DEFAULT_SEED

STREAM = int(Stream.RANK_DRAWS)
CHUNK_ELEMENTS = 1 << 21  # errors converted to float64 at once by the block-wise readers
DRAW_ELEMENTS = 1 << 22   # normals drawn at once by RankReplicates.normal (32 MB of float64)


def draw_rows(n_entries: int, draw_elements: int = DRAW_ELEMENTS) -> int:
    """Draws (rows of ``n_entries`` normals) made at once: as many of a seeded block's
    :data:`~leaderboard.noise.rng.BLOCK` as fit in ``draw_elements``, at least one.

    Examples
    --------
    >>> draw_rows(1000), draw_rows(1_000_000), draw_rows(1_000_000, 1)
    (32, 4, 1)
    """
    return int(min(BLOCK, max(1, draw_elements // max(1, n_entries))))


@dataclass(frozen=True)
class RankReplicates:
    """Scores and paired draws of their estimation error, oriented so higher is better.

    Attributes
    ----------
    point : ndarray, shape (E,)
        Observed scores times ``sign`` (higher is better), entries in rank order.
    errors : ndarray, shape (E, R)
        Paired draws of "observed minus true" score, oriented like ``point``: column ``r`` of every
        entry comes from the same draw. ``point[:, None] + errors`` are resampled scores. float64
        from the bootstrap, float32 (C-contiguous) from :meth:`normal`; every consumer reads
        either and works in blocks, adding the errors to ``point`` in float64.
    sd : ndarray, shape (E,)
        Standard error of each entry's score.
    correlation : float or None
        Scores only: the assumed correlation between any two entries' errors, which fixes the
        standard error of every difference in closed form. None for the bootstrap.
    sign : float
        +1 if the metric's higher scores are better, -1 otherwise (to turn results back).
    source : str
        How the errors were made, in words.
    dropped : int
        Bootstrap replicates left out because the metric was undefined on them for some entry.
    released : int or None
        The number of replicates when ``errors`` were let go (:meth:`without_errors`; ``errors``
        then has no columns), else None.
    null : bool
        The errors are draws of the pairs' differences under the null hypothesis (the sign flips
        of :mod:`~leaderboard.tiers.sign_flips`), not draws of each entry's estimation error:
        only the pairwise tests (rank sets, tiers, the best set, the map) may read them.
    """

    point: np.ndarray
    errors: np.ndarray
    sd: np.ndarray
    correlation: float | None
    sign: float
    source: str
    dropped: int = 0
    released: int | None = None
    null: bool = False

    @property
    def n_entries(self) -> int:
        return self.point.size

    @property
    def n_replicates(self) -> int:
        return self.errors.shape[1] if self.released is None else self.released

    def without_errors(self) -> RankReplicates:
        """The same description without the error draws (``errors`` of shape (E, 0)), for what
        outlives the ranks stage (a page's wording: the source, the count, the dropped ones):
        the draws of a 100,000-entry board are 0.8 GB (issue 41).

        Examples
        --------
        >>> reps = RankReplicates.normal(np.array([0.8, 0.7]), np.full(2, 0.01), 0.0, True,
        ...                              replicates=50)
        >>> light = reps.without_errors()
        >>> light.n_replicates, light.errors.shape
        (50, (2, 0))
        """
        return replace(self, errors=np.empty((self.n_entries, 0), dtype=self.errors.dtype),
                       released=self.n_replicates)

    def scores(self) -> np.ndarray:
        """Resampled scores, shape (E, R), float64, oriented so higher is better.

        A full float64 copy (1.6 GB at 100,000 entries and 2,000 replicates): small boards and
        tests only; the package's statistics read the errors in blocks instead.
        """
        return self.point[:, None] + self.errors

    def pair_se(self, i: int, others: np.ndarray) -> np.ndarray:
        """Standard error of ``point[i] - point[others]`` (closed form for scores only).

        The bootstrap's SEs are the SDs of the paired differences, taken a block of ``others`` at
        a time so that no (len(others), R) float64 array is made (the same numbers either way:
        each row is reduced on its own).
        """
        others = np.asarray(others, dtype=int)
        if self.correlation is not None:
            s_i, s_o = self.sd[i], self.sd[others]
            var = s_i ** 2 + s_o ** 2 - 2 * self.correlation * s_i * s_o
            return np.sqrt(np.maximum(var, 0.0))
        out = np.empty(others.size)
        step = max(1, CHUNK_ELEMENTS // max(1, self.n_replicates))
        mine = np.asarray(self.errors[i], dtype=np.float64)[None, :]
        for k in range(0, others.size, step):
            part = others[k:k + step]
            out[k:k + step] = np.std(mine - np.asarray(self.errors[part], dtype=np.float64),
                                     axis=1, ddof=1)
        return out

    @classmethod
    def from_bootstrap(cls, point: np.ndarray, replicates: np.ndarray,
                       higher_is_better: bool) -> RankReplicates:
        """From a paired bootstrap: errors are replicates minus the point scores.

        Replicates on which the metric was undefined (NaN) for any entry are left out, so every
        column stays a draw for all entries at once (``dropped`` counts them).

        Examples
        --------
        >>> reps = np.array([[0.9, 0.7, np.nan], [0.6, 0.5, 0.4]])
        >>> rr = RankReplicates.from_bootstrap(np.array([0.8, 0.5]), reps, True)
        >>> rr.errors.round(2).tolist(), rr.dropped
        ([[0.1, -0.1], [0.1, 0.0]], 1)
        """
        sign = 1.0 if higher_is_better else -1.0
        replicates = np.asarray(replicates, dtype=float)
        keep = np.isfinite(replicates).all(axis=0)
        errors = sign * (replicates[:, keep] - np.asarray(point, dtype=float)[:, None])
        return cls(point=sign * np.asarray(point, dtype=float), errors=errors,
                   sd=errors.std(axis=1, ddof=1), correlation=None, sign=sign,
                   source="paired bootstrap of the test rows",
                   dropped=int((~keep).sum()))

    @classmethod
    def normal(cls, point: np.ndarray, sd: np.ndarray, correlation: float, higher_is_better: bool,
               *, replicates: int = DEFAULT_REPLICATES, seed: int = DEFAULT_SEED,
               draw_elements: int = DRAW_ELEMENTS) -> RankReplicates:
        """Scores only: normal errors with standard deviations ``sd`` and equal correlation.

        Each draw is ``sd_i * (sqrt(c) * Z0 + sqrt(1 - c) * Z_i)`` with ``Z0`` shared by all
        entries, so any two entries' errors have correlation ``c``. Draws come in seeded blocks,
        so the numbers depend on ``seed`` and ``replicates`` only. The draws are computed in
        float64 and stored in float32 (4 bytes per draw: 0.8 GB at 100,000 entries and 2,000
        replicates), a relative rounding of at most 6e-8, far below their Monte Carlo error;
        the array is written a few draws at a time (at most ``draw_elements`` float64 normals
        held at once, and always one draw's), so nothing larger is ever made; the numbers are
        the same whatever ``draw_elements`` is.

        Examples
        --------
        >>> rr = RankReplicates.normal(np.array([0.8, 0.7]), np.array([0.01, 0.02]), 0.5, True,
        ...                            replicates=20000, seed=1)
        >>> bool(abs(np.corrcoef(rr.errors)[0, 1] - 0.5) < 0.03)
        True
        """
        if not 0 <= correlation < 1:
            raise ValueError(f"correlation must be in [0, 1), got {correlation:g}")
        point = np.asarray(point, dtype=float)
        # a writable C copy: pandas hands out read-only arrays and broadcasts are strided, and
        # each of those is a compiled version of its own of every kernel that reads sd
        sd = np.array(sd, dtype=float)
        sign = 1.0 if higher_is_better else -1.0
        replicates = int(replicates)
        errors = np.empty((point.size, replicates), dtype=np.float32)
        write = _write_small if small_ranks.small(point.size) else _write_block
        rows = draw_rows(point.size, draw_elements)
        for b in range(-(-replicates // BLOCK)):
            rng = block_rng(seed, STREAM, b)
            shared = rng.standard_normal(BLOCK)
            # the block's own draws, a few of its rows at a time: a generator's draws are the
            # same numbers however the request is split, so only the memory changes (a whole
            # block was 32 x E float64, 256 MB at 1,000,000 entries: issue 41)
            for k0 in range(0, min(BLOCK, replicates - b * BLOCK), rows):
                own = rng.standard_normal((min(rows, BLOCK - k0), point.size))
                # sd_i * (sqrt(c) Z0 + sqrt(1 - c) Z_i) in float64, then rounded once to float32
                write(errors, b * BLOCK + k0, shared[k0:k0 + own.shape[0]], own, sd,
                      np.sqrt(correlation), np.sqrt(1 - correlation))
        return cls(point=sign * point, errors=errors, sd=sd, correlation=float(correlation),
                   sign=sign, source=f"normal errors with correlation {correlation:g} between "
                                     "entries, SDs from the simulated noise")


@njit(cache=True)
def _write_block(errors, r0, shared, own, sd, a, b):
    """``errors[i, r0 + k] = sd[i] * (a * shared[k] + b * own[k, i])`` for the block's draws that
    fit, each entry's few draws written together (the float64 operations numpy did, in order).
    One thread: memory-bound, and a parallel loop measured 100x slower here."""
    m = min(own.shape[0], errors.shape[1] - r0)
    for i in range(errors.shape[0]):
        for k in range(m):
            errors[i, r0 + k] = sd[i] * (a * shared[k] + b * own[k, i])


def _write_small(errors, r0, shared, own, sd, a, b):
    """:func:`_write_block` with numpy, for a small board (nothing compiled): the same float64
    operations, rounded to float32 on assignment."""
    m = min(own.shape[0], errors.shape[1] - r0)
    errors[:, r0:r0 + m] = sd[:, None] * (a * shared[:m] + b * own[:m].T)


def all_finite(values: np.ndarray, chunk_elements: int = CHUNK_ELEMENTS) -> bool:
    """Whether every value of a 2-D array is finite, checked a block of rows at a time (no
    full-size boolean temporary).

    Examples
    --------
    >>> all_finite(np.ones((3, 4), dtype=np.float32)), all_finite(np.array([[1.0, np.nan]]))
    (True, False)
    """
    values = np.asarray(values)
    step = max(1, chunk_elements // max(1, values.shape[-1]))
    return all(bool(np.isfinite(values[k:k + step]).all()) for k in range(0, len(values), step))
