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

**Two fits.** :func:`fit` is the plain maximum-likelihood fit the arenas publish; it exists only
when the "beat or tied" graph of the models is strongly connected (Ford, 1957): a set of models
that never lost or tied to the others has no finite rating (:func:`unbounded_models` names them).
:func:`firth_fit` is Firth's (1993) bias-reduced fit, the penalised likelihood
``l(theta) + 1/2 log det I(theta)`` (``BradleyTerry2``'s ``br = TRUE``): its score is the plain
score with each pair given ``h_ij`` *virtual ties*, ``h_ij`` the pair's leverage (they sum to the
number of models less one), so it is finite on every connected arena and its O(1/n) bias is
removed. Where the plain fit is finite they differ by about ``h / n`` in each pair's score share:
nothing on thousands of battles, tens of points for a model with fifteen. Both are fitted by
Newton's method from a weighted least-squares start on the pairs' empirical log-odds, with the
step halved until the (penalised) likelihood rises, so long chains of lopsided pairs converge.

**Bootstrap.** Each battle gets an independent Poisson(1) weight (the Poisson bootstrap, which
redraws the battles with replacement up to a random total, asymptotically the same as the
multinomial redraw and twenty times cheaper to draw here); aggregated to the cells (pair,
outcome), a cell's weight is one Poisson draw with the cell's count as mean, so one count matrix
(replicates x cells) replaces the battles x replicates weight matrix. With clusters (battles on
one prompt, by one voter), each cluster gets one Poisson(1) weight and its battles move together.
Each redraw is refitted with the point estimate's virtual ties, which keep every redraw finite
(none is left out for a model that drew no loss); the redraw of a pair's wins and losses is
smoothed by the same virtual ties (a cell's Poisson mean is its count plus half the pair's
virtual ties), so a model with no win among few battles still has redraws in which it wins:
without it, the redraws of a thinly measured model cannot move past what it happened to score,
and its interval covered 80-87% on the known-truth arenas of docs/battles.md. Every replicate
refits all models together, so replicates are paired across models. Replicates are refitted
from the point estimate by the chord method (the point estimate's Hessian, one matrix product per
iteration for all replicates); those that do not settle get Newton steps, each solved for all of
them at once by conjugate gradients preconditioned with the same inverse.
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
REFIT_TOLERANCE = 1e-8         # the same for a redraw (1e-8 logits is 2e-6 rating points)
SPARSE_PAIRS = 4               # pairs per model at most: a sparse arena (see _newton_batch)
_DENSE_STACK = 64              # models: up to this many, redraws' Hessians are solved stacked
_DIRECT_MODELS = 300           # models: up to this many, Newton steps are direct solves
_CHORD_STEPS = 60
_NEWTON_STEPS = 100
_FIT_STEPS = 500
_HALVINGS = 60


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

    @staticmethod
    def cell_keys(a: np.ndarray, b: np.ndarray, outcome: np.ndarray,
                  n_models: int) -> np.ndarray:
        """One key per battle, ``(pair key) * 3 + outcome`` oriented to the pair's first model."""
        a, b, outcome = (np.asarray(x, dtype=np.int64) for x in (a, b, outcome))
        low, high = np.minimum(a, b), np.maximum(a, b)
        oriented = np.where((outcome < 2) & (a > b), 1 - outcome, outcome)
        return (low * n_models + high) * 3 + oriented

    @classmethod
    def from_battles(cls, a: np.ndarray, b: np.ndarray, outcome: np.ndarray,
                     n_models: int) -> PairCounts:
        """Count battles by pair; ``outcome`` is 0 (a won), 1 (b won) or 2 (tie), ``a != b``.
        Memory grows with the pairs that met, never with the square of the models.

        Examples
        --------
        >>> pc = PairCounts.from_battles(np.array([0, 1, 0]), np.array([1, 0, 2]),
        ...                              np.array([0, 0, 2]), 3)
        >>> pc.pairs.tolist(), pc.counts.tolist()
        ([[0, 1], [0, 2]], [[1.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
        """
        key = cls.cell_keys(a, b, outcome, n_models)
        cells, count = np.unique(key, return_counts=True)
        pair_keys, where = np.unique(cells // 3, return_inverse=True)
        counts = np.zeros((pair_keys.size, 3))
        counts[where, cells % 3] = count
        return cls(pairs=np.column_stack([pair_keys // n_models, pair_keys % n_models]),
                   counts=counts, n_models=int(n_models))

    def pair_index(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """The row of ``pairs`` of each battle's two models (they must have met)."""
        key = np.minimum(a, b) * self.n_models + np.maximum(a, b)
        return np.searchsorted(self.pairs[:, 0] * self.n_models + self.pairs[:, 1], key)

    def with_counts(self, counts: np.ndarray) -> PairCounts:
        return PairCounts(pairs=self.pairs, counts=counts, n_models=self.n_models)

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


def _leverages(pc: PairCounts, weights: np.ndarray, inverse: np.ndarray) -> np.ndarray:
    """Each pair's leverage ``w_ij (e_i - e_j)^T L^+ (e_i - e_j)``; they sum to ``m - 1``."""
    i, j = pc.pairs[:, 0], pc.pairs[:, 1]
    return weights * (inverse[i, i] + inverse[j, j] - 2 * inverse[i, j])


def _start(pc: PairCounts, extra: np.ndarray) -> np.ndarray:
    """Weighted least squares on each pair's empirical log-odds (half a battle added to each
    side): one linear solve that lands near the fit even along a chain of lopsided pairs."""
    n = pc.battles + extra
    s = pc.counts[:, 0] + 0.5 * (pc.counts[:, 2] + extra)
    share = (s + 0.5) / (n + 1.0)
    weights = n * share * (1 - share)
    theta = np.linalg.solve(_laplacian(pc, weights) + 1.0 / pc.n_models,
                            pc.incidence().T @ (weights * np.log(share / (1 - share))))
    return theta - theta.mean()


def _log_likelihood(s: np.ndarray, n: np.ndarray, d: np.ndarray) -> float:
    """``sum s log p + (n - s) log (1 - p)`` with ``p = sigmoid(d)``, stable for large ``|d|``."""
    return float(-(s * np.logaddexp(0.0, -d) + (n - s) * np.logaddexp(0.0, d)).sum())


def _objective(pc: PairCounts, theta: np.ndarray, inc, firth: bool):
    """The (penalised) log-likelihood at ``theta``, with what a Newton step needs there: the
    pairs' virtual ties (zero for the plain fit), the score and the Hessian."""
    d = inc @ theta
    p = expit(d)
    n = pc.battles
    s = pc.counts[:, 0] + 0.5 * pc.counts[:, 2]
    weights = n * p * expit(-d)
    value = _log_likelihood(s, n, d)
    virtual = np.zeros_like(n)
    if firth:
        info = _laplacian(pc, weights) + 1.0 / pc.n_models
        sign, logdet = np.linalg.slogdet(info)
        value += 0.5 * logdet if sign > 0 else -np.inf
        virtual = _leverages(pc, weights, np.linalg.inv(info) - 1.0 / pc.n_models)
    gradient = inc.T @ (s + 0.5 * virtual - (n + virtual) * p)
    return value, virtual, gradient, _laplacian(pc, (n + virtual) * p * expit(-d))


def _fit(pc: PairCounts, firth: bool) -> tuple[np.ndarray, np.ndarray]:
    inc = pc.incidence()
    with one_blas_thread():
        theta = _start(pc, np.full(len(pc.pairs), 1.0 if firth else 0.0))
        value, virtual, gradient, hessian = _objective(pc, theta, inc, firth)
        for _ in range(_FIT_STEPS):
            step = np.linalg.solve(hessian + 1.0 / pc.n_models, gradient)
            biggest = float(np.abs(step).max())
            if not np.isfinite(biggest):
                break
            decrement = float(gradient @ step)   # what the full step would add
            # converged: a step below TOLERANCE, or one whose gain is at the likelihood's
            # rounding (the score of a cell of 450,000 wins is rounded at 1e-10)
            if biggest < TOLERANCE or decrement < 1e-18 * (1.0 + abs(value)):
                return theta, virtual
            for _ in range(_HALVINGS):    # halve the step until the likelihood does not fall
                trial = theta + step
                trial -= trial.mean()
                new = _objective(pc, trial, inc, firth)
                if new[0] >= value - 1e-12 * abs(value):
                    break
                step = step / 2
            else:
                # no step raises the likelihood: if the Newton decrement (what the full step
                # would add) is below its rounding, the top is reached whatever the step's size
                # (a cell of 450,000 wins and no loss); otherwise the fit has failed
                if decrement < 1e-9 * (1.0 + abs(value)):
                    return theta, virtual
                break
            theta = trial
            value, virtual, gradient, hessian = new
    raise ArithmeticError("the Bradley-Terry fit did not converge")


def fit(pc: PairCounts) -> np.ndarray:
    """Maximum (pseudo-)likelihood log-strengths in logits, summing to zero: the plain fit the
    arenas publish.

    The comparison graph must be connected and the fit bounded (:func:`unbounded_models` empty).

    Examples
    --------
    >>> pc = PairCounts(pairs=np.array([[0, 1]]), counts=np.array([[3.0, 1.0, 0.0]]), n_models=2)
    >>> np.round(fit(pc), 6).tolist()         # 3 wins in 4: theta_0 - theta_1 = log 3
    [0.549306, -0.549306]
    """
    return _fit(pc, firth=False)[0]


def firth_fit(pc: PairCounts) -> tuple[np.ndarray, np.ndarray]:
    """Firth's bias-reduced log-strengths (summing to zero) and each pair's virtual ties.

    Finite whenever the comparison graph is connected, even where :func:`fit` is not (a model
    that never lost). The virtual ties are the pairs' leverages at the estimate: the estimate is
    the plain fit of the counts with those ties added.

    Examples
    --------
    >>> pc = PairCounts(pairs=np.array([[0, 1]]), counts=np.array([[3.0, 0.0, 0.0]]), n_models=2)
    >>> theta, virtual = firth_fit(pc)        # 3 wins in 3: plain fit infinite
    >>> np.round(theta, 6).tolist(), np.round(virtual, 6).tolist()    # log(3.5 / 0.5) / 2
    ([0.972955, -0.972955], [1.0])
    """
    return _fit(pc, firth=True)


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


def sandwich_covariance(pc: PairCounts, theta: np.ndarray, virtual: np.ndarray | None = None,
                        cluster_scores: np.ndarray | None = None) -> np.ndarray:
    """Robust (sandwich) covariance of the log-strengths, ``H^+ J H^+``.

    ``H`` is the Hessian of the (penalised) pseudo-likelihood (``virtual``: the pairs' virtual
    ties of :func:`firth_fit`) and ``J`` the sum over battles of the outer product of each
    battle's score, ``(y - p_ij)(e_i - e_j)`` with y = 1, 1/2 or 0, or, with
    ``cluster_scores`` (clusters x models, each cluster's summed scores from
    :func:`cluster_scores`), over clusters. Assumes independent battles (clusters); right with
    the ties-as-half convention, where ``H^+`` alone is not. The ratings are pinned to sum zero,
    so ``x^T C x`` is the variance of any contrast ``x``.
    """
    d = theta[pc.pairs[:, 0]] - theta[pc.pairs[:, 1]]
    p = expit(d)
    extra = np.zeros(len(pc.pairs)) if virtual is None else virtual
    with one_blas_thread():
        bread = _pinned_inverse(_laplacian(pc, (pc.battles + extra) * p * expit(-d)))
        if cluster_scores is not None:
            meat = cluster_scores.T @ cluster_scores
        else:
            wins, losses, ties = pc.counts.T
            meat = _laplacian(pc, wins * (1 - p) ** 2 + losses * p ** 2 + ties * (0.5 - p) ** 2)
        return bread @ meat @ bread


def cluster_scores(pc: PairCounts, theta: np.ndarray, cells: ClusterCells) -> np.ndarray:
    """Each cluster's summed score vector (clusters x models): ``sum (y - p)(e_i - e_j)`` over its
    battles, for the cluster-robust sandwich."""
    p = expit(theta[pc.pairs[:, 0]] - theta[pc.pairs[:, 1]])
    residual = np.column_stack([1 - p, -p, 0.5 - p]).ravel()    # per cell: y - p
    per_pair = cells.matrix.multiply(residual[None, :]).tocsr()  # clusters x cells
    pair_of_cell = np.repeat(np.arange(len(pc.pairs)), 3)
    collapse = sparse.csr_matrix((np.ones(pair_of_cell.size), (np.arange(pair_of_cell.size),
                                                               pair_of_cell)),
                                 shape=(pair_of_cell.size, len(pc.pairs)))
    return np.asarray((per_pair @ collapse @ pc.incidence()).todense())


@dataclass(frozen=True)
class ClusterCells:
    """Battles grouped in clusters (a prompt, a voter): ``matrix[c, 3 * pair + outcome]`` counts
    cluster ``c``'s battles in that cell of :class:`PairCounts` (the same pairs and order)."""

    matrix: sparse.csr_matrix

    @property
    def n_clusters(self) -> int:
        return self.matrix.shape[0]

    @classmethod
    def from_battles(cls, pc: PairCounts, a: np.ndarray, b: np.ndarray, outcome: np.ndarray,
                     cluster: np.ndarray) -> ClusterCells:
        """``cluster``: each battle's cluster code, 0..C-1."""
        key = PairCounts.cell_keys(a, b, outcome, pc.n_models)
        cell = pc.pair_index(a, b) * 3 + key % 3
        c = int(cluster.max()) + 1 if cluster.size else 0
        matrix = sparse.csr_matrix((np.ones(cell.size), (cluster, cell)),
                                   shape=(c, 3 * len(pc.pairs)))
        matrix.sum_duplicates()
        return cls(matrix=matrix)


def _smoothed_means(pc: PairCounts, virtual: np.ndarray) -> np.ndarray:
    """The cells' redraw means: each count plus half the pair's virtual ties on each side."""
    return pc.counts + np.column_stack([virtual / 2, virtual / 2, np.zeros_like(virtual)])


def bootstrap_counts(pc: PairCounts, block: int, seed: int, virtual: np.ndarray | None = None,
                     clusters: ClusterCells | None = None, group: int = 0) -> np.ndarray:
    """Block ``block`` of resampled cell counts, shape (BLOCK, P, 3).

    Without clusters, every battle is weighted by an independent Poisson(1) count (the Poisson
    bootstrap), aggregated per (pair, outcome) cell, where a sum of c Poisson(1) weights is one
    Poisson(c) draw; with ``virtual``, each pair's wins and losses are redrawn around their
    counts plus half its virtual ties (the smoothing of the module's docstring). With
    ``clusters``, every cluster gets one Poisson(1) weight and its battles move together; the
    smoothing's half ties are then redrawn as their own Poisson cells. ``group``: the arena's
    connected group (each draws its own numbers; group 0 as a one-group arena).
    """
    rng = block_rng(seed, STREAM, block, *((group,) if group else ()))
    if clusters is None:
        means = pc.counts if virtual is None else _smoothed_means(pc, virtual)
        return rng.poisson(np.broadcast_to(means, (BLOCK, *pc.counts.shape))).astype(float)
    weights = rng.poisson(1.0, (BLOCK, clusters.n_clusters)).astype(float)
    counts = np.asarray((clusters.matrix.T @ weights.T).T).reshape(BLOCK, -1, 3)
    if virtual is not None:
        extra = np.column_stack([virtual / 2, virtual / 2, np.zeros_like(virtual)])
        counts = counts + rng.poisson(np.broadcast_to(extra, counts.shape))
    return counts


def bootstrap_fits(pc: PairCounts, theta: np.ndarray, replicates: int, seed: int,
                   virtual: np.ndarray | None = None,
                   clusters: ClusterCells | None = None, group: int = 0) -> np.ndarray:
    """Log-strengths refitted on ``replicates`` bootstrap redraws of the battles, shape
    (n_models, replicates), each column summing to zero.

    With ``virtual`` (the virtual ties of :func:`firth_fit`, ``theta`` its estimate), each
    redraw is smoothed and refitted with those ties added, so every column is finite. Without,
    the plain fit is refitted and a column is NaN where the redraw's fit is unbounded. Block
    ``b`` of the redraws depends only on (seed, b): fewer replicates are a prefix.
    """
    inc = pc.incidence()
    out = np.empty((pc.n_models, replicates))
    extra = np.zeros(len(pc.pairs)) if virtual is None else virtual
    n0 = pc.battles + extra
    d0 = theta[pc.pairs[:, 0]] - theta[pc.pairs[:, 1]]
    with one_blas_thread():
        chord = _pinned_inverse(_laplacian(pc, n0 * expit(d0) * expit(-d0)))
    for b in range(-(-replicates // BLOCK)):
        counts = bootstrap_counts(pc, b, seed, virtual, clusters, group)
        counts = counts[:min(BLOCK, replicates - b * BLOCK)]
        counts[:, :, 2] += extra
        out[:, b * BLOCK:b * BLOCK + len(counts)] = _refit(pc, inc, counts, theta, chord).T
    return out


def _refit(pc: PairCounts, inc: sparse.csr_matrix, counts: np.ndarray, theta: np.ndarray,
           chord: np.ndarray) -> np.ndarray:
    """Fits of several count sets at once (rows), warm-started at ``theta``."""
    n = counts.sum(axis=2)
    s = counts[:, :, 0] + 0.5 * counts[:, :, 2]
    th = np.tile(theta, (len(counts), 1))
    active = np.ones(len(counts), bool)
    inc_t = inc.T.tocsr()
    # on a sparse arena a redraw's Hessian can be far from the point estimate's, so the chord
    # crawls; sparse Newton steps are cheap there
    chord_steps = 0 if len(pc.pairs) <= SPARSE_PAIRS * pc.n_models else _CHORD_STEPS
    for _ in range(chord_steps):      # all replicates at once: one (R, M) x (M, M) product
        d = (inc @ th[active].T).T
        step = (inc_t @ (s[active] - n[active] * expit(d)).T).T @ chord
        th[active] += step
        done = np.abs(step).max(axis=1) < REFIT_TOLERANCE
        active[np.flatnonzero(active)[done]] = False
        if not active.any():
            break
    if active.any():
        th[active] = _newton_batch(pc, inc, counts[active], th[active])
    return th - th.mean(axis=1, keepdims=True)


def _newton_batch(pc: PairCounts, inc: sparse.csr_matrix, counts: np.ndarray,
                  start: np.ndarray, direct: bool | None = None) -> np.ndarray:
    """Newton's method for the redraws the chord did not settle, all at once. Each step solves
    the redraw's own Hessian (a weighted graph Laplacian) exactly (:func:`_sparse_steps`: stacked
    dense solves, or one sparse factorisation of the block-diagonal of every redraw's Hessian) up
    to :data:`_DIRECT_MODELS` models, and on a sparse arena (a chain, a ring: at most
    :data:`SPARSE_PAIRS` pairs a model) of any size. Above, on an arena where most pairs met, by
    conjugate gradients (applied through the sparse incidence in O(pairs) per redraw)
    preconditioned by the mean Hessian's pinned inverse; the redraws those leave unsettled are
    solved again directly. Why direct: a redraw in which a model with few battles wins them all
    has a Hessian far from the mean one, where conjugate gradients crawl and, before, left 1% to
    18% of such an arena's redraws unfitted (NaN, dropped) in 50-100x the time, and those were
    exactly the redraws that put the thin model high: its interval was too short at the top.
    Steps are capped at 4 logits (a damped start for far-off redraws); NaN where a fit runs off
    (a spread over 10,000 logits)."""
    if direct is None:
        direct = len(pc.pairs) <= SPARSE_PAIRS * pc.n_models or pc.n_models <= _DIRECT_MODELS
    inc_t = inc.T.tocsr()
    n = counts.sum(axis=2)
    s = counts[:, :, 0] + 0.5 * counts[:, :, 2]
    th = start.copy()
    out = np.full_like(start, np.nan)
    live = np.ones(len(counts), bool)
    chord = None
    for _ in range(_NEWTON_STEPS):
        d = (inc @ th[live].T).T
        p = expit(d)
        w = n[live] * p * expit(-d)
        gradient = (inc_t @ (s[live] - n[live] * p).T).T
        if direct:
            step = _sparse_steps(inc, w, gradient)
        else:
            if chord is None:   # the preconditioner: the mean Hessian of the first pass, inverted
                chord = _pinned_inverse(_laplacian(pc, w.mean(axis=0) + 1e-12))
            step = _pcg(inc, inc_t, w, gradient, chord)
        biggest = np.abs(step).max(axis=1)
        scale = np.where(biggest > 4.0, 4.0 / np.maximum(biggest, 1e-300), 1.0)
        index = np.flatnonzero(live)
        th[index] += step * scale[:, None]
        th[index] -= th[index].mean(axis=1, keepdims=True)
        done = biggest < REFIT_TOLERANCE
        bad = ~np.isfinite(biggest) | (np.ptp(th[index], axis=1) > 1e4)
        out[index[done & ~bad]] = th[index[done & ~bad]]
        live[index[done | bad]] = False
        if not live.any():
            break
    unsettled = np.flatnonzero(np.isnan(out).any(axis=1))
    if not direct and unsettled.size:   # conjugate gradients gave up: solve those exactly
        out[unsettled] = _newton_batch(pc, inc, counts[unsettled], start[unsettled], direct=True)
    return out


def _sparse_steps(inc: sparse.csr_matrix, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Solve ``L(w_r) x_r = b_r`` for every row at once: the Laplacians, the first model's
    rating held (its row and column dropped), as the blocks of one block-diagonal sparse matrix,
    factorised once (no loop over redraws); then centred."""
    from scipy.sparse.linalg import spsolve

    m = inc.shape[1]
    pairs = inc.indices.reshape(-1, 2)           # each row of the incidence: its two models
    i, j = pairs[:, 0], pairs[:, 1]
    if m <= _DENSE_STACK:                        # small: every redraw's Hessian at once
        lap = np.zeros((len(b), m, m))
        rows_ = np.arange(len(b))[:, None]
        lap[rows_, i, j] = -w
        lap[rows_, j, i] = -w
        diag = np.zeros((len(b), m))
        np.add.at(diag, (rows_, i), w)
        np.add.at(diag, (rows_, j), w)
        lap[:, np.arange(m), np.arange(m)] = diag
        return np.linalg.solve(lap + 1.0 / m, b[:, :, None])[:, :, 0]
    rows = np.concatenate([i, j, i, j]) - 1
    cols = np.concatenate([i, j, j, i]) - 1
    keep = (rows >= 0) & (cols >= 0)             # the first model's rating is held
    count = len(b)
    offset = (np.arange(count) * (m - 1))[:, None]     # one block per redraw: one factorisation
    values = np.concatenate([w, w, -w, -w], axis=1)[:, keep]
    lap = sparse.csc_matrix((values.ravel(), ((rows[keep] + offset).ravel(),
                                              (cols[keep] + offset).ravel())),
                            shape=(count * (m - 1), count * (m - 1)))
    x = spsolve(lap, b[:, 1:].ravel()).reshape(count, m - 1)
    x = np.column_stack([np.zeros(count), x])
    return x - x.mean(axis=1, keepdims=True)


def _pcg(inc: sparse.csr_matrix, inc_t: sparse.csr_matrix, w: np.ndarray, b: np.ndarray,
         precondition: np.ndarray, steps: int = 200) -> np.ndarray:
    """Solve ``L(w_r) x_r = b_r`` for every row ``r`` at once (``b_r`` summing to zero) by
    preconditioned conjugate gradients, to a residual of 1e-12 of ``b_r``."""

    def apply(v: np.ndarray) -> np.ndarray:
        return (inc_t @ (w * (inc @ v.T).T).T).T

    x = np.zeros_like(b)
    r = b.copy()
    z = r @ precondition
    direction = z.copy()
    rz = (r * z).sum(axis=1)
    target = 1e-24 * np.maximum((b * b).sum(axis=1), 1e-300)
    live = (r * r).sum(axis=1) > target
    for _ in range(steps):
        if not live.any():
            break
        ad = apply(direction)
        curvature = (direction * ad).sum(axis=1)
        alpha = np.where(live & (curvature > 0), rz / np.where(curvature > 0, curvature, 1), 0.0)
        x += alpha[:, None] * direction
        r -= alpha[:, None] * ad
        live &= (r * r).sum(axis=1) > target
        z = r @ precondition
        rz_new = (r * z).sum(axis=1)
        beta = np.where(live, rz_new / np.where(rz > 0, rz, 1), 0.0)
        direction = z + beta[:, None] * direction
        rz = rz_new
    return x
