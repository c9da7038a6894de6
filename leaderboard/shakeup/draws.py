"""Paired draws of each slice's error for the simulated competitions of the noise baseline.

:class:`NoiseDraws` holds the true scores and the paired error draws, made in one of two ways:

- **scores only** (:meth:`NoiseDraws.normal`): normal errors with per-entry standard deviations (the
  universe simulation's SD at each score and slice size), an equal correlation between entries
  within a slice, the two slices independent. They are drawn from seeded blocks of 32 replicates
  and not stored whole: :meth:`NoiseDraws.blocks` draws each block again when a statistic reads
  it (two (E, R) float64 arrays were 3.2 GB at 100,000 entries and 2,000 replicates); a small
  board (at most :data:`KEPT_ELEMENTS` draws a slice) keeps the blocks it drew, as they are;
- **submissions** (:meth:`NoiseDraws.from_bootstrap`): the paired bootstrap of each slice's rows,
  which keeps the real correlation between entries that share the rows (held as arrays).

Either way the numbers are the same whatever the batch size.
"""
from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from leaderboard.noise.rng import BLOCK, Stream, block_rng
from leaderboard.tiers.replicates import all_finite
from leaderboard.params import DEFAULT_REPLICATES, DEFAULT_SEED

STREAM_PUBLIC, STREAM_PRIVATE = int(Stream.SHAKEUP_PUBLIC), int(Stream.SHAKEUP_PRIVATE)
CHUNK_ELEMENTS = 1 << 20  # simulated scores handled per chunk: bounds the working memory
# Scores-only draws of a slice kept after their first drawing when there are at most this many
# (8 MB): the baseline's pass and the overfitting test's pass then draw each block once, not twice
# (a 150-entry post-mortem spent a third of its time drawing).
KEPT_ELEMENTS = 1 << 20


@dataclass(frozen=True)
class _Normal:
    """What the scores-only draws are made from (oriented SDs, one correlation, seed)."""

    sd_public: np.ndarray
    sd_private: np.ndarray
    correlation: float
    replicates: int
    seed: int
    kept: dict = field(default_factory=dict, compare=False, repr=False)  # small boards' blocks

    def block(self, stream: int, b: int) -> np.ndarray:
        """Random block ``b`` of one slice: shape (m, E), m = 32 but fewer at the end (read-only
        when kept)."""
        out = self.kept.get((stream, b))
        if out is None:
            out = self._drawn(stream, b)
            if self.replicates * self.sd_public.size <= KEPT_ELEMENTS:
                out.flags.writeable = False     # shared by every pass: nobody may change it
                self.kept[stream, b] = out
        return out

    def _drawn(self, stream: int, b: int) -> np.ndarray:
        sd = self.sd_public if stream == STREAM_PUBLIC else self.sd_private
        m = min(BLOCK, self.replicates - b * BLOCK)
        rng = block_rng(self.seed, stream, b)
        shared = rng.standard_normal(BLOCK)
        own = rng.standard_normal((BLOCK, sd.size))
        out = np.multiply(own[:m], sd * math.sqrt(1 - self.correlation))
        if self.correlation > 0:
            out += math.sqrt(self.correlation) * shared[:m, None] * sd
        return out

    def whole(self, stream: int) -> np.ndarray:
        """Every replicate of one slice, shape (E, R) (a transposed view): small boards only."""
        out = np.empty((self.replicates, self.sd_public.size))
        for b in range(-(-self.replicates // BLOCK)):
            part = self.block(stream, b)
            out[b * BLOCK:b * BLOCK + part.shape[0]] = part
        return out.T


class NoiseDraws:
    """True scores and paired draws of each slice's error, oriented so higher is better.

    Attributes
    ----------
    truth : ndarray, shape (E,)
        The true scores the simulated competitions share (oriented).
    public_errors, private_errors : ndarray, shape (E, R)
        Draws of "observed minus true" score on the public and the private slice (oriented).
        Column ``r`` of every entry belongs to one simulated competition; the two slices are
        independent (disjoint rows). Scores-only draws are made whole only when these are read
        (small boards, tests); the statistics read :meth:`blocks`.
    source : str
        How the errors were made, in words.
    sign : float
        +1 if the metric's higher scores are better, -1 otherwise.
    dropped : int
        Bootstrap replicates left out because the metric was undefined on them (NaN).
    """

    def __init__(self, truth: np.ndarray, public_errors: np.ndarray | None = None,
                 private_errors: np.ndarray | None = None, source: str = "", sign: float = 1.0,
                 dropped: int = 0, normal: _Normal | None = None) -> None:
        self.truth = truth
        self._public, self._private, self._normal = public_errors, private_errors, normal
        self.source, self.sign, self.dropped = source, sign, dropped
        # scores only: each entry's sum of public minus private errors
        self._gap_total: np.ndarray | None = None

    def _arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """The stored ``(public, private)`` errors (draws that are not scores-only)."""
        if self._public is None or self._private is None:
            raise ValueError("no error draws: give public_errors and private_errors, or normal")
        return self._public, self._private

    @property
    def public_errors(self) -> np.ndarray:
        return self._normal.whole(STREAM_PUBLIC) if self._normal else self._arrays()[0]

    @property
    def private_errors(self) -> np.ndarray:
        return self._normal.whole(STREAM_PRIVATE) if self._normal else self._arrays()[1]

    @property
    def n_entries(self) -> int:
        return np.shape(self.truth)[0]

    @property
    def n_replicates(self) -> int:
        return self._normal.replicates if self._normal else np.shape(self._arrays()[0])[1]

    def shapes_agree(self) -> bool:
        """Both slices' draws are (E, R) for the E true scores."""
        if self._normal:
            return np.ndim(self.truth) == 1
        public, private = self._arrays()
        e, r = np.shape(public)
        return np.shape(private) == (e, r) and np.shape(self.truth) == (e,)

    def finite(self) -> bool:
        """Every truth and draw is finite (scores-only draws are, from finite SDs)."""
        if not np.isfinite(self.truth).all():
            return False
        if self._normal is not None:
            return True
        public, private = self._arrays()
        return all_finite(public) and all_finite(private)

    def blocks(self, batch: int) -> Iterator[tuple[slice, np.ndarray, np.ndarray]]:
        """``(cols, public, private)`` for consecutive replicates ``cols``, the errors as (c, E)
        arrays: one simulated competition per row. About ``batch`` replicates at a time (whole
        blocks of 32 for scores-only draws, which are drawn again here)."""
        r = self.n_replicates
        if self._normal is None:
            public, private = self._arrays()
            for r0 in range(0, r, batch):
                cols = slice(r0, min(r0 + batch, r))
                yield cols, public[:, cols].T, private[:, cols].T
            return
        per = max(1, batch // BLOCK)
        # a whole pass also adds up each entry's gaps, in replicate order, for gap_sd's mean
        total = np.zeros(self.n_entries) if self._gap_total is None else None
        for b0 in range(0, -(-r // BLOCK), per):
            bs = range(b0, min(b0 + per, -(-r // BLOCK)))
            pub = np.concatenate([self._normal.block(STREAM_PUBLIC, b) for b in bs])
            priv = np.concatenate([self._normal.block(STREAM_PRIVATE, b) for b in bs])
            if total is not None:
                for row in pub - priv:
                    total += row
            yield slice(b0 * BLOCK, b0 * BLOCK + pub.shape[0]), pub, priv
        if total is not None:
            self._gap_total = total

    def gap_sd(self, each=None, batch: int | None = None) -> np.ndarray:
        """Per entry, the SD of public minus private error: the noise in its public-private gap.

        ``np.std(public - private, axis=1, ddof=1)``, a block of entries at a time for arrays;
        for scores-only draws a pass for the mean (skipped when a whole pass of :meth:`blocks`
        already ran and left the sums) and one for the squares, both adding the replicates in
        order, as numpy does for the (E, R) view the draws once were: the same numbers, bit for
        bit. ``each(cols, public, private)``, if given, sees every block of a pass over the
        replicates (``batch`` at a time), so that a caller's own pass comes for free.
        """
        e, r = self.n_entries, self.n_replicates
        batch = max(1, CHUNK_ELEMENTS // max(1, e)) if batch is None else batch
        if self._normal is None:
            public, private = self._arrays()
            out = np.empty(e)
            step = max(1, CHUNK_ELEMENTS // max(1, r))
            for k in range(0, e, step):
                out[k:k + step] = np.std(public[k:k + step] - private[k:k + step],
                                         axis=1, ddof=1)
            for block in self.blocks(batch) if each is not None else ():
                each(*block)
            return out
        if self._gap_total is None:
            for _ in self.blocks(batch):
                pass
        gap_total = self._gap_total   # a whole pass of blocks() leaves it
        if gap_total is None:
            raise ValueError("no pass over the draws added up the gaps")
        mean = gap_total / r
        squares = np.zeros(e)
        for cols, pub, priv in self.blocks(batch):
            for row in pub - priv:
                dev = row - mean
                squares += dev * dev
            if each is not None:
                each(cols, pub, priv)
        return np.sqrt(squares / (r - 1))

    @classmethod
    def normal(cls, truth: np.ndarray, sd_public, sd_private, higher_is_better: bool, *,
               correlation: float = 0.0, replicates: int = DEFAULT_REPLICATES,
               seed: int = DEFAULT_SEED) -> NoiseDraws:
        """Scores only: normal errors with per-entry SDs and an equal correlation within a slice.

        A slice's draw is ``sd_i * (sqrt(c) * Z0 + sqrt(1 - c) * Z_i)`` with ``Z0`` shared by all
        entries (as in :meth:`~leaderboard.tiers.replicates.RankReplicates.normal`), so two
        entries' errors have correlation ``c``; public draws use stream 5 and private draws stream
        6, so the slices are independent. Draws come in seeded blocks of 32 replicates: the numbers
        depend on ``seed`` and ``replicates`` only, and fewer replicates are a prefix of more.
        Nothing of size (E, R) is kept beyond :data:`KEPT_ELEMENTS` draws a slice: the statistics
        draw each block again when they read it (:meth:`blocks`), so memory stays a few blocks
        however large the board.

        Parameters
        ----------
        truth : array_like, shape (E,)
            True scores on the metric's own scale (e.g. :func:`~leaderboard.shakeup.truth.estimate_truth`).
        sd_public, sd_private : float or array_like, shape (E,)
            Standard error of each entry's score at the public and the private slice size.
        higher_is_better : bool
        correlation : float
            Correlation in [0, 1) between two entries' errors on one slice.
        replicates : int
        seed : int

        Examples
        --------
        >>> d = NoiseDraws.normal([0.8, 0.7], [0.02, 0.03], 0.01, True, replicates=4000)
        >>> d.n_replicates, d.gap_sd().round(3).tolist()
        (4000, [0.022, 0.032])
        """
        truth = np.asarray(truth, dtype=float)
        sd_public = np.broadcast_to(np.asarray(sd_public, dtype=float), truth.shape)
        sd_private = np.broadcast_to(np.asarray(sd_private, dtype=float), truth.shape)
        if truth.ndim != 1 or not np.isfinite(truth).all():
            raise ValueError("truth must be a 1-D array of finite scores")
        if not (np.isfinite(sd_public).all() and np.isfinite(sd_private).all()
                and (sd_public >= 0).all() and (sd_private >= 0).all()):
            raise ValueError("standard deviations must be finite and non-negative")
        if not 0 <= correlation < 1:
            raise ValueError(f"correlation must be in [0, 1), got {correlation:g}")
        if int(replicates) < 2:
            raise ValueError(f"replicates must be at least 2, got {replicates}")
        sign = 1.0 if higher_is_better else -1.0
        # The errors are drawn on the oriented scale, so a board and its mirror image (negated
        # scores, other direction) get the very same simulated competitions.
        spec = _Normal(np.array(sd_public), np.array(sd_private), float(correlation),
                       int(replicates), int(seed))
        return cls(truth=sign * truth, sign=sign, normal=spec,
                   source=f"normal errors at the slice sizes, correlation {correlation:g} "
                          "between entries within a slice")

    @classmethod
    def from_bootstrap(cls, truth: np.ndarray, public_replicates: np.ndarray,
                       public_point: np.ndarray, private_replicates: np.ndarray,
                       private_point: np.ndarray, higher_is_better: bool) -> NoiseDraws:
        """Submissions: the errors are each slice's paired bootstrap deviations, replicate - point.

        Each slice is resampled on its own rows (run
        :func:`~leaderboard.noise.bootstrap.paired_bootstrap` once per slice, with DIFFERENT seeds:
        the same seed reuses the same random numbers for both slices and would tie their errors
        together). Pairing within a slice keeps the correlation between entries that the shared
        rows give them. Replicate columns on which the metric is undefined (NaN) for any entry on
        either slice are dropped from both (``dropped`` counts them).

        Parameters
        ----------
        truth : array_like, shape (E,)
            True scores on the metric's own scale.
        public_replicates, private_replicates : array_like, shape (E, R)
            Bootstrap replicates of each slice (same R).
        public_point, private_point : array_like, shape (E,)
            Each entry's score on the full slice.
        higher_is_better : bool

        Examples
        --------
        >>> reps = np.array([[0.9, 0.7, np.nan], [0.6, 0.5, 0.4]])
        >>> d = NoiseDraws.from_bootstrap([0.8, 0.5], reps, [0.8, 0.5], reps[::-1], [0.5, 0.8],
        ...                               False)
        >>> d.truth.tolist(), d.public_errors.round(2).tolist(), d.dropped
        ([-0.8, -0.5], [[-0.1, 0.1], [-0.1, -0.0]], 1)
        """
        truth = np.asarray(truth, dtype=float)
        sign = 1.0 if higher_is_better else -1.0
        parts = []
        for name, reps, point in (("public", public_replicates, public_point),
                                  ("private", private_replicates, private_point)):
            reps, point = np.asarray(reps, dtype=float), np.asarray(point, dtype=float)
            if reps.ndim != 2 or reps.shape[0] != truth.size or point.shape != truth.shape:
                raise ValueError(f"{name} replicates must have shape (E, R) and points shape (E,)"
                                 f" with E = {truth.size}, got {reps.shape} and {point.shape}")
            if not np.isfinite(point).all():
                raise ValueError(f"{name} point scores must be finite")
            parts.append((reps, point))
        (pub, pub_pt), (priv, priv_pt) = parts
        if truth.ndim != 1 or not np.isfinite(truth).all():
            raise ValueError("truth must be a 1-D array of finite scores")
        if pub.shape[1] != priv.shape[1]:
            raise ValueError(f"the slices need the same number of replicates, got {pub.shape[1]} "
                             f"and {priv.shape[1]}")
        keep = np.isfinite(pub).all(axis=0) & np.isfinite(priv).all(axis=0)
        if keep.sum() < 2:
            raise ValueError("fewer than 2 replicates have the metric defined on both slices")
        return cls(truth=sign * truth,
                   public_errors=sign * (pub[:, keep] - pub_pt[:, None]),
                   private_errors=sign * (priv[:, keep] - priv_pt[:, None]),
                   sign=sign, dropped=int((~keep).sum()),
                   source="paired bootstrap of the public and of the private rows")
