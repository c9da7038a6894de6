"""Bradley-Terry (logistic) ratings from pairwise battles, their sandwich covariance and a bootstrap
of battles, all computed from the sufficient statistics: per pair of models, the wins of each and
the ties.

**Model.** Model i beats model j with probability ``sigmoid(theta_i - theta_j)``. A tie counts as
half a win for each side, the convention of the arenas (LMArena's notebook gives a win weight 2
and a tie weight 1 to each side, which is the same fit): the estimate maximises
``sum over pairs of s_ij log p_ij + (n_ij - s_ij) log(1 - p_ij)`` with ``s_ij`` = wins of i +
ties / 2. With ties this is a pseudo-likelihood, so the model-based variance is not trusted;
the sandwich and the bootstrap below are.

**Scale.** Ratings are reported as arenas publish them: ``SCALE = 400 / ln 10`` rating points per
logit (a 400-point gap is 10:1 odds), anchored so that the models' mean is the anchor rating
(1000 by default, as a fit started at zero and never penalised lands) or so that a named model
has it. Only differences are identified; the anchor moves every rating together.

**Fit.** Newton's method on the pair counts: the Hessian is a weighted graph Laplacian, solved
with the all-ones direction pinned (ratings sum to zero in logits). The fit exists only when the
"beat or tied" graph of the models is strongly connected (Ford, 1957): a set of models that never
lost or tied to the others has no finite rating; :func:`unbounded_models` names them.

**Bootstrap.** Each battle gets an independent Poisson(1) weight (the Poisson bootstrap, which
redraws the battles with replacement up to a random total, asymptotically the same as the
multinomial redraw and twenty times cheaper to draw here); aggregated to the cells (pair,
outcome), a cell's weight is one Poisson draw with the cell's count as mean, so one count matrix
(replicates x cells) replaces the battles x replicates weight matrix. Every replicate refits all
models together, so replicates are paired across models. Replicates are refitted from the point
estimate by the chord method (the point estimate's Hessian, one matrix product per iteration for
all replicates); the few that do not settle get full Newton steps; a replicate on which some
rating is unbounded (a model drew no loss) is NaN, and its count is reported.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse
from scipy.special import expit

from leaderboard._threads import one_blas_thread
from leaderboard.noise.rng import BLOCK, Stream, block_rng

SCALE = 400.0 / np.log(10.0)   # rating points per logit, the arenas' Elo-like scale
STREAM = Stream.BATTLES_BOOTSTRAP
TOLERANCE = 1e-10              # largest Newton step (logits) at convergence
SPREAD_LIMIT = 40.0            # logits (6,950 points): beyond, a replicate's fit is unbounded
_CHORD_STEPS = 60
_NEWTON_STEPS = 40
_MAX_STEP = 4.0                # logits per step: a damped start for far-off replicates


@dataclass(frozen=True)
class PairCounts:
    """Battles aggregated per unordered pair of models ``i < j``.

    Attributes
    ----------
    pairs : ndarray of int, shape (P, 2)
        The two models of each pair that met at least once, ``pairs[:, 0] < pairs[:, 1]``.
    counts : ndarray of float, shape (P, 3)
        Wins of the first model, wins of the second, ties.
    n_models : int
    """

    pairs: np.ndarray
    counts: np.ndarray
    n_models: int

    @property
    def battles(self) -> np.ndarray:
        return self.counts.sum(axis=1)

    @classmethod
    def from_battles(cls, a: np.ndarray, b: np.ndarray, outcome: np.ndarray,
                     n_models: int) -> PairCounts:
        """Count battles by pair; ``outcome`` is 0 (a won), 1 (b won) or 2 (tie), ``a != b``.

        Examples
        --------
        >>> pc = PairCounts.from_battles(np.array([0, 1, 0]), np.array([1, 0, 2]),
        ...                              np.array([0, 0, 2]), 3)
        >>> pc.pairs.tolist(), pc.counts.tolist()
        ([[0, 1], [0, 2]], [[1.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
        """
        a, b, outcome = (np.asarray(x, dtype=np.int64) for x in (a, b, outcome))
        low, high = np.minimum(a, b), np.maximum(a, b)
        swapped = a > b
        oriented = np.where((outcome < 2) & swapped, 1 - outcome, outcome)
        key = (low * n_models + high) * 3 + oriented
        cells = np.bincount(key, minlength=n_models * n_models * 3).reshape(-1, 3)
        met = np.flatnonzero(cells.sum(axis=1))
        return cls(pairs=np.column_stack([met // n_models, met % n_models]),
                   counts=cells[met].astype(float), n_models=int(n_models))

    def incidence(self) -> sparse.csr_matrix:
        """Signed pair-by-model incidence: +1 for the pair's first model, -1 for its second."""
        p = len(self.pairs)
        rows = np.repeat(np.arange(p), 2)
        return sparse.csr_matrix((np.tile([1.0, -1.0], p), (rows, self.pairs.ravel())),
                                 shape=(p, self.n_models))


def _laplacian(pc: PairCounts, weights: np.ndarray) -> np.ndarray:
    """``sum over pairs of w (e_i - e_j)(e_i - e_j)^T`` for one weight per pair."""
    m = pc.n_models
    out = np.zeros((m, m))
    i, j = pc.pairs[:, 0], pc.pairs[:, 1]
    out[i, j] = -weights
    out[j, i] = -weights
    out[np.diag_indices(m)] = np.bincount(i, weights, m) + np.bincount(j, weights, m)
    return out




def _pinned_inverse(laplacian: np.ndarray) -> np.ndarray:
    """The Moore-Penrose inverse of a connected graph's Laplacian: ``inv(L + J/m) - J/m``."""
    m = laplacian.shape[0]
    pin = np.full((m, m), 1.0 / m)
    return np.linalg.inv(laplacian + pin) - pin


def fit(pc: PairCounts) -> np.ndarray:
    """Maximum (pseudo-)likelihood log-strengths in logits, summing to zero.

    The comparison graph must be connected and the fit bounded (:func:`unbounded_models` empty).

    Examples
    --------
    >>> pc = PairCounts(pairs=np.array([[0, 1]]), counts=np.array([[3.0, 1.0, 0.0]]), n_models=2)
    >>> np.round(fit(pc), 6).tolist()         # 3 wins in 4: theta_0 - theta_1 = log 3
    [0.549306, -0.549306]
    """
    with one_blas_thread():
        return _newton(pc)


def _newton(pc: PairCounts) -> np.ndarray:
    theta = np.zeros(pc.n_models)
    n = pc.battles
    s = pc.counts[:, 0] + 0.5 * pc.counts[:, 2]
    inc = pc.incidence()
    for _ in range(200):
        d = theta[pc.pairs[:, 0]] - theta[pc.pairs[:, 1]]
        p = expit(d)
        gradient = inc.T @ (s - n * p)
        hessian = _laplacian(pc, n * p * expit(-d))
        step = np.linalg.solve(hessian + 1.0 / pc.n_models, gradient)
        biggest = np.abs(step).max()
        if biggest > _MAX_STEP:
            step *= _MAX_STEP / biggest
        theta = theta + step
        theta -= theta.mean()
        if biggest < TOLERANCE:
            return theta
    raise ArithmeticError("the Bradley-Terry fit did not converge in 200 Newton steps")


def unbounded_models(pc: PairCounts) -> list[tuple[np.ndarray, str]]:
    """Groups of models whose ratings would be infinite, each with ``"never lost"`` (it never
    lost or tied against the models outside it: a source of the "beat or tied" graph) or
    ``"never won"`` (a sink), among models the comparison graph connects. Empty when the fit
    exists.

    Examples
    --------
    >>> pc = PairCounts(pairs=np.array([[0, 1], [1, 2]]),
    ...                 counts=np.array([[2.0, 0.0, 0.0], [1.0, 1.0, 0.0]]), n_models=3)
    >>> [(g.tolist(), kind) for g, kind in unbounded_models(pc)]      # 0 never lost
    [([0], 'never lost'), ([1, 2], 'never won')]
    """
    from scipy.sparse.csgraph import connected_components

    m = pc.n_models
    i, j = pc.pairs[:, 0], pc.pairs[:, 1]
    i_scored = (pc.counts[:, 0] + pc.counts[:, 2]) > 0     # i beat or tied j: edge i -> j
    j_scored = (pc.counts[:, 1] + pc.counts[:, 2]) > 0
    src = np.concatenate([i[i_scored], j[j_scored]])
    dst = np.concatenate([j[i_scored], i[j_scored]])
    graph = sparse.csr_matrix((np.ones(src.size), (src, dst)), shape=(m, m))
    count, label = connected_components(graph, directed=True, connection="strong")
    if count == 1:
        return []
    crossing = label[src] != label[dst]
    has_out = np.zeros(count, bool)
    has_in = np.zeros(count, bool)
    has_out[label[src[crossing]]] = True
    has_in[label[dst[crossing]]] = True
    groups = [(np.flatnonzero(label == c), "never lost" if has_out[c] else "never won")
              for c in range(count) if has_out[c] != has_in[c]]
    return sorted(groups, key=lambda g: (g[1], int(g[0][0])))


def sandwich_covariance(pc: PairCounts, theta: np.ndarray) -> np.ndarray:
    """Robust (sandwich) covariance of the log-strengths, ``H^+ J H^+``.

    ``H`` is the Hessian of the pseudo-likelihood and ``J`` the sum over battles of the outer
    product of each battle's score, ``(y - p_ij)(e_i - e_j)`` with y = 1, 1/2 or 0. Assumes
    independent battles; right with the ties-as-half convention, where ``H^+`` alone is not.
    The ratings are pinned to sum zero, so ``x^T C x`` is the variance of any contrast ``x``.
    """
    d = theta[pc.pairs[:, 0]] - theta[pc.pairs[:, 1]]
    p = expit(d)
    wins, losses, ties = pc.counts.T
    meat = wins * (1 - p) ** 2 + losses * p ** 2 + ties * (0.5 - p) ** 2
    with one_blas_thread():
        bread = _pinned_inverse(_laplacian(pc, pc.battles * p * expit(-d)))
        return bread @ _laplacian(pc, meat) @ bread


def bootstrap_counts(pc: PairCounts, block: int, seed: int) -> np.ndarray:
    """Block ``block`` of resampled cell counts, shape (BLOCK, P, 3): every battle weighted by an
    independent Poisson(1) count (the Poisson bootstrap), aggregated per (pair, outcome) cell,
    where a sum of c Poisson(1) weights is one Poisson(c) draw."""
    rng = block_rng(seed, STREAM, block)
    return rng.poisson(np.broadcast_to(pc.counts, (BLOCK, *pc.counts.shape))).astype(float)


def bootstrap_fits(pc: PairCounts, theta: np.ndarray, replicates: int,
                   seed: int) -> np.ndarray:
    """Log-strengths refitted on ``replicates`` bootstrap redraws of the battles, shape
    (n_models, replicates), each column summing to zero; NaN columns where the redraw's fit is
    unbounded. Block ``b`` of the redraws depends only on (seed, b): fewer replicates are a prefix.
    """
    inc = pc.incidence()
    out = np.empty((pc.n_models, replicates))
    n0 = pc.battles
    d0 = theta[pc.pairs[:, 0]] - theta[pc.pairs[:, 1]]
    with one_blas_thread():
        chord = _pinned_inverse(_laplacian(pc, n0 * expit(d0) * expit(-d0)))
    for b in range(-(-replicates // BLOCK)):
        counts = bootstrap_counts(pc, b, seed)[:min(BLOCK, replicates - b * BLOCK)]
        out[:, b * BLOCK:b * BLOCK + len(counts)] = _refit(pc, inc, counts, theta, chord).T
    return out


def _refit(pc: PairCounts, inc: sparse.csr_matrix, counts: np.ndarray, theta: np.ndarray,
           chord: np.ndarray) -> np.ndarray:
    """Fits of several count sets at once (rows), warm-started at ``theta``."""
    n = counts.sum(axis=2)
    s = counts[:, :, 0] + 0.5 * counts[:, :, 2]
    th = np.tile(theta, (len(counts), 1))
    active = np.ones(len(counts), bool)
    for _ in range(_CHORD_STEPS):      # all replicates at once: one (R, M) x (M, M) product
        d = (inc @ th[active].T).T
        step = (inc.T @ (s[active] - n[active] * expit(d)).T).T @ chord
        th[active] += step
        done = np.abs(step).max(axis=1) < TOLERANCE
        active[np.flatnonzero(active)[done]] = False
        if not active.any():
            break
    if active.any():
        with one_blas_thread():
            for r in np.flatnonzero(active):   # the few that did not settle: full Newton steps
                th[r] = _newton_one(pc, inc, counts[r], theta)
    return th - th.mean(axis=1, keepdims=True)


def _newton_one(pc: PairCounts, inc: sparse.csr_matrix, counts: np.ndarray,
                theta: np.ndarray) -> np.ndarray:
    n = counts.sum(axis=1)
    s = counts[:, 0] + 0.5 * counts[:, 2]
    th = theta.copy()
    for _ in range(_NEWTON_STEPS):
        d = inc @ th
        p = expit(d)
        weights = n * p * expit(-d)
        try:
            step = np.linalg.solve(_laplacian(pc, weights) + 1.0 / pc.n_models,
                                   inc.T @ (s - n * p))
        except np.linalg.LinAlgError:
            break
        biggest = np.abs(step).max()
        if not np.isfinite(biggest):
            break
        if biggest > _MAX_STEP:
            step *= _MAX_STEP / biggest
        th += step
        if np.ptp(th) > SPREAD_LIMIT:
            break
        if biggest < TOLERANCE:
            return th
    return np.full_like(th, np.nan)
