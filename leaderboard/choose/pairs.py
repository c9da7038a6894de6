"""Which two candidates to select, when the better of the two on the private rows is what counts.

The private scores are predicted by Monte Carlo from the corrected estimates
(:func:`candidate_posterior`): each draw takes true scores ``theta ~ N(mean, cov)`` (the estimates
and their error covariance; with ``tau`` averaged, a normal with the mixture's exact mean and
covariance) and adds private noise ``N(0, private_cov)``. A pair's value is its expected best-of-two
private score, ``E max(p_i, p_j) = (m_i + m_j) / 2 + E|p_i - p_j| / 2``: the means ``m`` are exact,
only the spread term is Monte Carlo, which removes most of the simulation noise. Two
near-identical candidates add nothing to each other (``p_i - p_j`` is near 0), so the best pair
trades a little expected score for candidates whose private scores do not move together.

The "top tier" of a draw is every candidate whose *true* score is within ``margin`` of that draw's
best true score. The default margin, ``1.96 * sqrt(2) * median private SD``, is the smallest true
gap that two independently scored entries of typical noise could show on the private rows at the
5% level: a candidate closer than that to the best is as good as the best for what the private
board can tell. (Paired private rows resolve somewhat smaller gaps, so this tier is generous.)

Draws come in blocks of :data:`~leaderboard.noise.rng.BLOCK` seeded by ``(seed, STREAM, block)``
and every sum is taken block by block in a fixed order, so results depend only on ``seed`` and
``draws``, never on how the work is chunked.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtri   # norm.ppf(q) is ndtri(q), bit for bit, without scipy.stats

from leaderboard._threads import one_blas_thread
from leaderboard.choose.posterior import Posterior, same_public_groups
from leaderboard.noise.rng import BLOCK, Stream, block_rng
from leaderboard.params import DEFAULT_SEED

STREAM = int(Stream.CHOOSE_PREDICTIVE)
CHUNK_ELEMENTS = 1 << 22  # floats held at once in a chunk of draws (bounds the working memory)


@dataclass(frozen=True)
class Choice:
    """The pair to select, the safest pair, and what each candidate is expected to score privately.

    Indices refer to the candidates' order in the posterior. Scores are in the metric's units;
    ``gain_over_top_two`` and ``gain_se`` are improvements (positive = better, also for
    lower-is-better metrics).

    Attributes
    ----------
    recommended : tuple of int
        ``(i, j)`` maximising the expected best-of-two private score, ``i`` the one with the higher
        posterior mean.
    recommended_expected : float
        Its expected best-of-two private score.
    safest : tuple of int
        ``(i, j)`` maximising P(at least one is in the top tier); ties go to the higher expected
        best-of-two.
    safest_p_top_tier : float
    top_two_public : tuple of int
        The two best public scores (of distinct candidates: one with the best's public scores is
        skipped), and
        ``top_two_expected`` their expected best-of-two.
    top_two_expected : float
    gain_over_top_two, gain_se : float
        Expected best-of-two of ``recommended`` minus that of ``top_two_public`` and its Monte Carlo
        standard error (same draws for both: common random numbers).
    expected : ndarray, shape (K,)
        Posterior-predictive mean private score of each candidate (its posterior mean).
    p_best : ndarray, shape (K,)
        Share of draws in which the candidate has the best private score (ties shared).
    p_true_best : ndarray, shape (K,)
        Share of draws in which the candidate has the best true score (ties shared).
    p_top_tier : ndarray, shape (K,)
        Share of draws in which the candidate is in the top tier.
    distinguishable : bool
        Whether the candidates can be told apart; ``reason`` says why in words (see
        :func:`choose_pair` for the rule).
    reason : str
    margin : float
        The top tier's margin, metric units (positive).
    searched : ndarray of int
        The candidates whose pairs were searched: the best ``max_candidates`` by posterior mean and
        the top two public, one per group with the same public scores (a second adds nothing).
    pair_expected, pair_p_top_tier : ndarray, shape (S, S)
        For the searched candidates, every pair's expected best-of-two and P(top tier); the
        diagonal holds single candidates.
    draws, seed : int
    """

    recommended: tuple[int, int]
    recommended_expected: float
    safest: tuple[int, int]
    safest_p_top_tier: float
    top_two_public: tuple[int, int]
    top_two_expected: float
    gain_over_top_two: float
    gain_se: float
    expected: np.ndarray
    p_best: np.ndarray
    p_true_best: np.ndarray
    p_top_tier: np.ndarray
    distinguishable: bool
    reason: str
    margin: float
    searched: np.ndarray
    pair_expected: np.ndarray
    pair_p_top_tier: np.ndarray
    draws: int
    seed: int


def _choose_iv(posterior, private_cov, higher_is_better, draws, margin, max_candidates):
    if not isinstance(posterior, Posterior):
        raise TypeError("posterior must be a Posterior (use candidate_posterior)")
    k = posterior.n_candidates
    if k < 2:
        raise ValueError("choosing a pair needs at least 2 candidates")
    if bool(higher_is_better) != posterior.higher_is_better:
        raise ValueError("higher_is_better disagrees with the posterior's")
    c = np.asarray(private_cov, dtype=float)
    if c.shape != (k, k) or not np.isfinite(c).all():
        raise ValueError(f"private_cov must be a finite ({k}, {k}) array, got shape {c.shape}")
    if int(draws) < BLOCK:
        raise ValueError(f"draws must be at least {BLOCK}, got {draws}")
    if margin is not None and not (np.isfinite(margin) and margin >= 0):
        raise ValueError(f"margin must be a finite number >= 0, got {margin!r}")
    if int(max_candidates) < 2:
        raise ValueError(f"max_candidates must be at least 2, got {max_candidates}")
    return (c + c.T) / 2, -(-int(draws) // BLOCK)


def _factor(cov: np.ndarray, name: str) -> np.ndarray:
    """``F`` with ``F F' = cov`` for a positive semi-definite (possibly singular) ``cov``."""
    lam, vecs = np.linalg.eigh(cov)
    scale = max(float(np.abs(lam).max()), np.finfo(float).tiny)
    if lam.min() < -1e-8 * scale:
        raise ValueError(f"{name} must be positive semi-definite (eigenvalue {lam.min():.3g})")
    # Eigenvalues at rounding level are zero: their square roots (~1e-8 of the scale) would
    # otherwise split candidates the model makes equal.
    lam = np.where(lam > 16 * cov.shape[0] * np.finfo(float).eps * scale, lam, 0.0)
    return vecs * np.sqrt(lam)


def _block_sums(x: np.ndarray) -> np.ndarray:
    """Sums over each block of BLOCK draws (rows), adding rows one by one in a fixed order."""
    x = x.reshape(-1, BLOCK, *x.shape[1:])
    total = x[:, 0].astype(float)
    for r in range(1, BLOCK):
        total = total + x[:, r]
    return total


def _ordered_total(parts: list[np.ndarray]) -> np.ndarray:
    """Sum of per-block sums in block order (each part is (blocks, ...))."""
    total: np.ndarray | None = None
    for part in parts:
        for row in part:
            total = row.copy() if total is None else total + row
    if total is None:
        raise ValueError("no blocks to total")   # draws >= BLOCK: never, by the callers' checks
    return total


def _first_place(x: np.ndarray, tol: float) -> np.ndarray:
    """Per draw, each candidate's share of the first place. Values within ``tol`` of the draw's
    best tie and share it equally: candidates the model makes equal (tau = 0, or the same public
    scores) differ only by rounding, which must not decide who is best."""
    top = x >= x.max(axis=1, keepdims=True) - tol
    return top / top.sum(axis=1, keepdims=True)


def _predictive_pass(mean, post_f, priv_f, position, n_blocks, seed, margin, searched):
    """Draw the predictive in chunks: per-candidate shares over all K, and the searched columns'
    private scores and top-tier flags (kept for the pair pass).

    Draws are made for the distinct candidates (``mean``, factors) and copied to every candidate
    through ``position``, so same-public groups tie exactly; ``searched`` are columns of the
    distinct ones.
    """
    k = position.size
    # Rounding scale of the draws: 1e-9 of the largest predictive SD (or of the scores' size).
    tol = 1e-9 * max(float(np.abs(post_f).sum(axis=1).max() + np.abs(priv_f).sum(axis=1).max()),
                     float(np.abs(mean).max()), np.finfo(float).tiny)
    per_chunk = max(1, CHUNK_ELEMENTS // (4 * BLOCK * k))
    best, true_best, tier = [], [], []
    kept_p, kept_t = [], []
    for first in range(0, n_blocks, per_chunk):
        z = []
        for b in range(first, min(first + per_chunk, n_blocks)):
            rng = block_rng(seed, STREAM, b)
            z.append(rng.standard_normal((2, BLOCK, mean.size)))
        z = np.concatenate(z, axis=1)
        theta_d = mean + z[0] @ post_f.T
        p_d = theta_d + z[1] @ priv_f.T
        theta, p = theta_d[:, position], p_d[:, position]
        in_tier = theta_d >= theta.max(axis=1, keepdims=True) - margin
        best.append(_block_sums(_first_place(p, tol)))
        true_best.append(_block_sums(_first_place(theta, tol)))
        tier.append(_block_sums(in_tier[:, position]))
        kept_p.append(p_d[:, searched])
        kept_t.append(in_tier[:, searched])
    n = n_blocks * BLOCK
    return (_ordered_total(best) / n, _ordered_total(true_best) / n, _ordered_total(tier) / n,
            np.vstack(kept_p), np.vstack(kept_t))


def _pair_spread(p: np.ndarray) -> np.ndarray:
    """``mean |p_i - p_j|`` over draws for every pair of columns, in chunks of whole blocks."""
    s = p.shape[1]
    per_chunk = max(1, CHUNK_ELEMENTS // (BLOCK * s * s)) * BLOCK
    parts = [_block_sums(np.abs(p[r:r + per_chunk, :, None] - p[r:r + per_chunk, None, :]))
             for r in range(0, p.shape[0], per_chunk)]
    return _ordered_total(parts) / p.shape[0]


def _distinguishable(posterior, oriented_mean, p_true_best, same, names):
    """The rule of :func:`choose_pair`, with the reason in words. A group with the same public
    scores counts as one candidate."""
    if posterior.prior_sd_estimate == 0:
        return False, ("the public scores are no more spread out than their noise alone would "
                       "make them, so no candidate can be shown to be better than another")
    reps = np.unique(same)
    first, second = reps[np.argsort(-oriented_mean[reps], kind="stable")[:2]]
    diff = oriented_mean[first] - oriented_mean[second]
    var = posterior.cov[first, first] + posterior.cov[second, second] \
        - 2 * posterior.cov[first, second]
    low = diff - ndtri(0.975) * np.sqrt(max(var, 0.0))
    share = float(p_true_best[same == first].sum())
    lead, runner_up = names[first], names[second]
    if share >= 0.5:
        return True, f"{lead} is more likely than not the truly best (P(truly best) {share:.0%})"
    if low > 0:
        return True, (f"{lead}'s lead over {runner_up} is beyond noise (the 95% posterior "
                      "interval of the difference excludes zero)")
    return False, (f"the leading {lead} is the truly best with probability only {share:.0%} "
                   f"(its P(truly best)), and its lead over {runner_up} is within noise (the 95% "
                   "posterior interval of the difference includes zero)")


@one_blas_thread()
def choose_pair(posterior: Posterior, private_cov: np.ndarray, higher_is_better: bool, *,
                draws: int = 20000, seed: int = DEFAULT_SEED, margin: float | None = None,
                max_candidates: int = 60, names: Sequence[str] | None = None) -> Choice:
    """The pair of candidates to select for the private leaderboard, and how sure that choice is.

    Monte Carlo from the posterior predictive of the private scores (module docstring). The
    recommended pair maximises the expected best-of-two private score; the safest pair maximises
    P(at least one of the two is in the top tier). Only the best ``max_candidates`` candidates by
    posterior mean (plus the top two public scores) enter the pair search: pairs grow as K^2, and a
    candidate far down the posterior ranking adds nothing to a pair's best-of-two. Per-candidate
    shares use all K.

    Distinguishable (the rule behind ``distinguishable`` and ``reason``): the candidates can be told
    apart when the public scores are more spread out than their noise (the likelihood's estimate of
    ``tau`` is above 0: ``prior_sd_estimate``) AND the candidate with
    the highest posterior mean is either more likely than not the truly best (``p_true_best >=
    0.5``) or ahead of the second by more than noise (the 95% posterior interval of the difference,
    which accounts for their correlation, excludes zero). Otherwise the pair still maximises the
    expected score, but any sensible pair is nearly as good.

    Guarantees and assumptions: the expectations are those of the normal posterior predictive up
    to Monte Carlo error (``gain_se`` reports it for the gain; the expected single scores are
    exact), and inherit the posterior's assumptions (see :func:`candidate_posterior`). Private
    rows are assumed drawn like the public ones, the private noise given at the private size (e.g.
    the public covariance times ``n_public / n_private``). Measured with known truth in
    ``benchmarks/bench_choose.py``: the recommended pair's best-of-two private score beats the two
    best public scores'.

    Parameters
    ----------
    posterior : Posterior
    private_cov : ndarray, shape (K, K)
        Noise covariance of the private scores.
    higher_is_better : bool
        Must agree with the posterior's.
    draws : int
        Predictive draws, rounded up to whole blocks of 32.
    seed : int
    margin : float, optional
        Top-tier margin in metric units (default ``1.96 * sqrt(2) * median private SD``).
    max_candidates : int
    names : sequence of str, optional
        Candidate names for ``reason`` (default ``"candidate i"``).

    Returns
    -------
    Choice

    Examples
    --------
    Two near-copies lead the public board; a third candidate from another model family is almost
    as good and its errors are its own. The pair spreads its bets:

    >>> from leaderboard.choose import candidate_posterior
    >>> s = np.array([0.850, 0.849, 0.845, 0.830])
    >>> cov = 25e-6 * np.array([[1, .95, .3, .3], [.95, 1, .3, .3],
    ...                         [.3, .3, 1, .3], [.3, .3, .3, 1]])
    >>> post = candidate_posterior(s, cov, True)
    >>> choice = choose_pair(post, cov / 10, True, draws=4000)
    >>> choice.recommended, choice.top_two_public, bool(choice.gain_over_top_two > 0)
    ((0, 2), (0, 1), True)
    """
    private_cov, n_blocks = _choose_iv(posterior, private_cov, higher_is_better, draws, margin,
                                       max_candidates)
    if names is None:
        names = [f"candidate {i}" for i in range(posterior.n_candidates)]
    elif len(names) != posterior.n_candidates:
        raise ValueError(f"names has {len(names)} entries for {posterior.n_candidates} candidates")
    sign = posterior.sign
    mean = sign * posterior.mean                      # oriented
    public = sign * posterior.observed
    if margin is None:
        private_sd = np.sqrt(np.clip(np.diag(private_cov), 0, None))
        margin = 1.96 * np.sqrt(2) * float(np.median(private_sd))
    # Same estimate, same posterior and private noise: one model, drawn once, never paired.
    same = same_public_groups(mean, posterior.cov, private_cov)
    distinct, position = np.unique(same, return_inverse=True)
    if distinct.size < 2:
        raise ValueError("choosing a pair needs at least 2 distinct candidates; all have the same "
                         "public scores")
    by_mean = distinct[np.argsort(-mean[distinct], kind="stable")]
    # The naive choice: the two best public scores among distinct candidates (a group's lowest
    # index comes first in a stable sort, so these are representatives).
    ranked = np.argsort(-public, kind="stable")
    second = next(int(i) for i in ranked if same[i] != same[ranked[0]])
    top_two = (int(ranked[0]), second)
    searched = np.unique(np.r_[by_mean[:int(max_candidates)], top_two])

    sub = np.ix_(distinct, distinct)
    p_best, p_true_best, p_tier, p, tier = _predictive_pass(
        mean[distinct], _factor(posterior.cov[sub], "the posterior covariance"),
        _factor(private_cov[sub], "private_cov"), position, n_blocks, seed, float(margin),
        position[searched])
    n = p.shape[0]
    m = mean[searched]
    pair_exp = (m[:, None] + m[None, :]) / 2 + _pair_spread(p) / 2
    counts = tier.sum(axis=0, dtype=float)
    pair_tier = (counts[:, None] + counts[None, :] - tier.T.astype(float) @ tier) / n

    # Search the upper triangle; np.argmax keeps the first of exact ties (lowest indices).
    iu, ju = np.triu_indices(searched.size, 1)
    k_rec = int(np.argmax(pair_exp[iu, ju]))
    order = np.lexsort((-pair_exp[iu, ju], -pair_tier[iu, ju]))
    k_safe = int(order[0])

    def named(i, j):   # candidate indices, the higher posterior mean first
        a, b = int(searched[i]), int(searched[j])
        return (a, b) if (mean[a], -a) >= (mean[b], -b) else (b, a)

    pos = {int(c): r for r, c in enumerate(searched)}
    t0, t1 = pos[top_two[0]], pos[top_two[1]]
    r0, r1 = iu[k_rec], ju[k_rec]
    # Gain with common random numbers: the exact means cancel into a constant, the spread terms
    # are paired draw by draw.
    diff = (np.abs(p[:, r0] - p[:, r1]) - np.abs(p[:, t0] - p[:, t1])) / 2
    gain = float(pair_exp[r0, r1] - pair_exp[t0, t1])
    ok, reason = _distinguishable(posterior, mean, p_true_best, same, names)
    return Choice(recommended=named(r0, r1), recommended_expected=float(sign * pair_exp[r0, r1]),
                  safest=named(iu[k_safe], ju[k_safe]),
                  safest_p_top_tier=float(pair_tier[iu[k_safe], ju[k_safe]]),
                  top_two_public=top_two, top_two_expected=float(sign * pair_exp[t0, t1]),
                  gain_over_top_two=gain, gain_se=float(diff.std(ddof=1) / np.sqrt(n)),
                  expected=posterior.mean.copy(), p_best=p_best, p_true_best=p_true_best,
                  p_top_tier=p_tier, distinguishable=ok, reason=reason, margin=float(margin),
                  searched=searched, pair_expected=sign * pair_exp, pair_p_top_tier=pair_tier,
                  draws=int(n), seed=int(seed))
