"""How good is each candidate really, given its public score and knowing the best one gets picked?

A team's candidate submissions were all scored on the same public rows. The public scores are the
true scores plus noise, so the highest public score is partly luck (the winner's curse). This
module shrinks the public scores toward their mean and returns every candidate's corrected
estimate with its uncertainty.

The noise of scores computed on shared rows has two parts. The *common mode* moves every candidate
together (the public rows happened to be easy or hard); on one board it cannot be told apart from
the level of the true scores, and the private rows will not repeat it. The *differences* between
candidates are where luck picks the winner. So the level and the differences are estimated
separately (``s`` the public scores, ``Sigma`` their noise covariance, ``C = I - 11'/K`` takes the
differences from the mean)::

    level:        the mean public score s_bar, kept as it is
    differences:  C theta ~ N(0, k C Sigma C)        true differences shaped like the noise's
                  C s | theta ~ N(C theta, C Sigma C)
    estimate:     m = s_bar 1 + beta C s,   beta = k / (1 + k)

The prior says the candidates' true differences look like their noise differences, ``k`` times
larger: near-copies differ little in truth as in noise, families differ as families. Its one
parameter, the signal-to-noise ratio ``k``, comes from the differences' likelihood ``C s ~ N(0,
(1 + k) C Sigma C)``: with ``Q = s' C (C Sigma C)^+ C s`` on ``r = K - 1`` degrees of freedom,
REML gives ``1 + k = Q / r`` (``k = 0`` when ``Q <= r``: the scores are no more spread out than
noise). ``tau = sqrt(k d)``, with ``d = trace(C Sigma C) / r`` the typical noise variance of a
difference from the mean, is the true scores' SD around their mean (exactly so with equal noise
variances and correlations). ``method="bayes"`` (default) averages ``beta`` over the likelihood
with a uniform prior on ``tau`` in ``[0, sqrt(10 (largest eigenvalue of C Sigma C + range(s)^2))]``:
the plug-in estimate (``"reml"``) is 0 for 28-40% of ``benchmarks/bench_choose.py``'s close teams,
which would throw their public scores away.

Guarantees, by construction, on every board:

- every estimate moves toward ``s_bar`` by the same share ``1 - beta`` of its distance, never past
  it: those above the mean move down, those below move up, the order is kept, and the mean of the
  estimates is the mean of the public scores. So the public leader's estimate is at most its
  public score for higher-is-better metrics (at least, for lower-is-better);
- averaged over the candidates, the estimates' error is the common-mode noise
  ``mean(s) - mean(theta)``, which has mean zero whatever the true scores are.

Why the level is not shrunk: the Bayesian answer with a flat prior on the level puts it at the
generalised least squares mean, which weights the candidates by ``Sigma^-1 1``. With correlated,
unequal noise (weak candidates are noisier on a bounded metric such as AUC or accuracy) some of
those weights turn negative: the model reads "the weak, noisy candidates are low" as "the rows
were hard" and lifts every candidate. That inference needs the true scores to be unrelated to the
noise, which is false for bounded metrics; on the bundled example it raised every estimate, the
leader's 0.017 above its public score. The differences' posterior mean, ``beta C s``, does not
depend on the level's weights, so it is the model's exact answer either way.

``cov`` is the estimates' error covariance ``beta Sigma + (1 - beta) P Sigma P``, ``P = 11'/K``
(``k`` known; averaged over ``k``, plus the spread of ``beta``): ``Sigma`` when nothing is shrunk,
the common mode alone when all candidates are taken to be equally good. It is exact for the
differences; for the level it is the common-mode noise's variance, not conditioned on the scores.
With equal noise variances and equal correlations ``m`` is the exact posterior mean, so the
selected candidate's estimate is unbiased for its true score (Dawid 1994: the posterior does not
change when one then picks the largest).

Measured by simulation (1000 boards per row, 20 candidates, true scores ``N(0, tau^2)``, noise
correlation 0.3 with SD 1 ("equal"), 0.8-1.2 ("unequal") or ``exp(-0.12 theta / tau)``, 0.79-1.27
over the middle 95% of the truth ("noisier when worse", like AUC); mean of estimate minus the
public leader's true score, in its noise SDs, Monte Carlo SE 0.02-0.03; coverage of its 95%
interval in brackets)::

    truth and noise                  raw max   "reml"          "bayes"
    tau 0, equal                     +1.51     +0.14 (0.94)    +0.27 (0.97)
    tau 1, equal                     +0.98     -0.07 (0.93)    -0.06 (0.95)
    tau 1, unequal                   +0.99     -0.05 (0.92)    -0.04 (0.94)
    tau 2, unequal                   +0.58     -0.04 (0.95)    -0.02 (0.95)
    tau 1, noisier when worse        +0.96     -0.30 (0.89)    -0.29 (0.92)
    tau 2, noisier when worse        +0.53     -0.30 (0.94)    -0.27 (0.95)

Averaging over ``tau`` leaves some of the bias when all candidates are truly tied (the uniform
prior keeps weight on a spread that is not there). When the best are also the most precisely
scored, one common share over-shrinks them: the leader is under-estimated by about 0.3 of its
noise SD, the cautious direction. (Shrinking precise candidates less would lift the mean again.)
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtri

from leaderboard._threads import one_blas_thread
from leaderboard.params import DEFAULT_ALPHA

METHODS = ("bayes", "reml")
RIDGE = 1e-9          # relative jitter added to the differences' noise eigenvalues (singular cov)
_GRID = 160           # tau grid: nodes of the "bayes" average


@dataclass(frozen=True)
class Posterior:
    """Each candidate's corrected estimate, shrunk toward the mean public score.

    Attributes
    ----------
    mean : ndarray, shape (K,)
        Corrected estimates, in the metric's own units.
    cov : ndarray, shape (K, K)
        Error covariance of the estimates (module docstring).
    sd : ndarray, shape (K,)
        ``sqrt(diag(cov))``.
    prior_mean : float
        The center every estimate is pulled toward: the mean public score of the distinct
        candidates (raw units).
    prior_sd : float
        ``tau`` as used: the SD of the true scores around their mean, ``sqrt(k d)`` (module
        docstring; the plug-in value, or its posterior mean for ``method="bayes"``).
    prior_sd_estimate : float
        The REML estimate of ``tau``; 0 means the public scores are no more spread out than their
        noise.
    shrinkage : float
        ``1 - beta``: the share of every candidate's distance from ``prior_mean`` attributed to
        noise and removed.
    observed : ndarray, shape (K,)
        The public scores, raw units.
    higher_is_better : bool
    method : str
        ``"bayes"``, ``"reml"`` or ``"fixed"`` (``tau`` given by the caller).
    same_public_as : ndarray of int, shape (K,)
        The first candidate with the same public score and the same noise (see
        :func:`same_public_groups`), itself if none. Such candidates are fitted as one and share
        its estimate exactly. This is not "identical predictions": files that differ only where
        it does not change the public score (or only on private rows) are grouped too.
    """

    mean: np.ndarray
    cov: np.ndarray
    sd: np.ndarray
    prior_mean: float
    prior_sd: float
    prior_sd_estimate: float
    shrinkage: float
    observed: np.ndarray
    higher_is_better: bool
    method: str
    same_public_as: np.ndarray

    @property
    def sign(self) -> float:
        """+1 if higher scores are better, -1 otherwise."""
        return 1.0 if self.higher_is_better else -1.0

    @property
    def n_candidates(self) -> int:
        return self.mean.size

    def interval(self, alpha: float = DEFAULT_ALPHA) -> tuple[np.ndarray, np.ndarray]:
        """Equal-tailed ``1 - alpha`` normal intervals of the true scores, raw units."""
        z = ndtri(1 - alpha / 2)   # norm.ppf's own function, the same z without its 0.14 ms checks
        return self.mean - z * self.sd, self.mean + z * self.sd

    @property
    def shrinkage_text(self) -> str:
        """The shrinkage in words, for the report (true of every board, by construction)."""
        distinct = np.unique(self.same_public_as).size
        if distinct == 1:
            return "one candidate: its estimate is its own public score, with its noise"
        center = f"the candidates' mean public score, {self.prior_mean:.4g}"
        if distinct < self.same_public_as.size:
            center += " (candidates with the same public scores counted once)"
        share = f"{100 * self.shrinkage:.2g}%" if self.shrinkage >= 1e-3 else "less than 0.1%"
        pulled = (f"every estimate is moved {share} of the way from its "
                  f"public score toward {center}: those above it move down, those below move "
                  "up, none crosses it, and the order is kept")
        if self.shrinkage >= 1 - 1e-9:
            pulled = f"every candidate's estimate is {center}"
        elif self.shrinkage <= 1e-9:
            pulled = "the estimates are the public scores (nothing is attributed to noise)"
        if self.prior_sd_estimate == 0:
            return ("the public scores are no more spread out than their noise alone would make "
                    f"them; {pulled}")
        return pulled


def _posterior_iv(scores, cov, method, prior_sd):
    s = np.asarray(scores, dtype=float)
    if s.ndim != 1 or s.size < 1:
        raise ValueError(f"scores must be a non-empty 1-D array, got shape {s.shape}")
    if not np.isfinite(s).all():
        raise ValueError("scores must be finite")
    c = np.asarray(cov, dtype=float)
    if c.shape != (s.size, s.size):
        raise ValueError(f"cov must have shape ({s.size}, {s.size}), got {c.shape}")
    if not np.isfinite(c).all():
        raise ValueError("cov must be finite")
    scale = max(float(np.abs(c).max()), np.finfo(float).tiny)
    if np.abs(c - c.T).max() > 1e-8 * scale:
        raise ValueError("cov must be symmetric")
    c = (c + c.T) / 2
    lam = np.linalg.eigvalsh(c)
    if lam.min() < -1e-8 * scale:
        raise ValueError(f"cov must be positive semi-definite (eigenvalue {lam.min():.3g})")
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if prior_sd is not None and not (np.isfinite(prior_sd) and prior_sd >= 0):
        raise ValueError(f"prior_sd must be a finite number >= 0, got {prior_sd!r}")
    return s, c


def same_public_groups(values: np.ndarray, *covs: np.ndarray, rtol: float = 1e-10) -> np.ndarray:
    """For each candidate, the first candidate with the same value and the same noise (itself if
    none).

    Two candidates are grouped when their ``values`` are equal and, in every covariance given,
    their difference has zero variance (to ``rtol`` times the largest variance, for rounding): the
    same public score on the board and on every resample of its rows. Byte-identical predictions
    always are; files that differ only in rows or digits that do not move the score are too, so
    this is *not* the "identical predictions" of
    :func:`leaderboard.ingest.submissions.identical.identical_groups`.

    Examples
    --------
    >>> cov = np.array([[1.0, 1.0, 0.2], [1.0, 1.0, 0.2], [0.2, 0.2, 1.0]])
    >>> same_public_groups(np.array([0.8, 0.8, 0.8]), cov).tolist()
    [0, 0, 2]
    """
    values = np.asarray(values, dtype=float)
    same = values[:, None] == values[None, :]
    for c in covs:
        d = np.diag(c)
        var = d[:, None] + d[None, :] - 2 * c
        same &= var <= rtol * max(float(d.max()), np.finfo(float).tiny)
    first = np.argmax(same, axis=1)       # the lowest index each one matches (itself at worst)
    while True:                           # rounding can break transitivity: follow to the root
        root = first[first]
        if np.array_equal(root, first):
            return first
        first = root


def _contrasts(s: np.ndarray, cov: np.ndarray) -> tuple[float, int, np.ndarray, np.ndarray]:
    """``Q = s' C (C cov C)^+ C s``, its degrees of freedom ``r = K - 1``, the eigenvalues of
    ``C cov C`` on the differences (their mean is ``d``) and ``C s``.

    The differences' noise eigenvalues get ``RIDGE`` times the largest added (fewer bootstrap
    replicates than candidates leave ``cov`` singular): a difference the noise cannot explain then
    counts as real, never as an error.
    """
    k = s.size
    centred = s - s.mean()
    # An orthonormal basis of the differences (orthogonal to 1), then the noise's eigenvalues in it.
    basis = np.linalg.svd(np.eye(k) - 1.0 / k)[0][:, :k - 1]
    lam, small = np.linalg.eigh(basis.T @ cov @ basis)
    vecs = basis @ small
    base = next(v for v in (float(lam.max()), float(centred @ centred), 1.0) if v > 0)
    lam = np.maximum(lam, 0.0) + RIDGE * base
    proj = vecs.T @ centred
    return float(proj @ (proj / lam)), k - 1, lam, centred


def _beta_weights(q: float, r: int, lam: np.ndarray, spread: float
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Grid of ``tau``, the posterior weights of its nodes (uniform prior, trapezoid rule) and
    ``beta = k / (1 + k)`` at each node."""
    upper = np.sqrt(10.0 * (float(lam.max()) + spread ** 2))
    noise_var = float(lam.mean())
    taus = np.r_[0.0, np.geomspace(upper * 1e-4, upper, _GRID - 1)]
    k = taus ** 2 / noise_var
    ll = -0.5 * r * np.log1p(k) - 0.5 * q / (1.0 + k)
    width = np.diff(taus)
    step = np.r_[width, 0.0] / 2 + np.r_[0.0, width] / 2
    weights = np.exp(ll - ll.max()) * step
    return taus, weights / weights.sum(), k / (1.0 + k)


@one_blas_thread()
def candidate_posterior(scores: np.ndarray, cov: np.ndarray, higher_is_better: bool, *,
                        method: str = "bayes", prior_sd: float | None = None) -> Posterior:
    """Winner's-curse-corrected estimates of K candidates scored on the same public rows.

    The level (mean public score) is kept; the differences from it are shrunk by the share their
    noise explains, estimated from the candidates (module docstring).

    Guarantees. By construction, on every board: each estimate lies between its public score and
    the mean public score, moved the same share of the way; the order is kept; the mean is kept.
    Hence the public leader's estimate is at most its public score for higher-is-better metrics
    (at least, for lower-is-better), and the average error over the candidates is the common-mode
    noise, mean zero whatever the truth. Under the model (normal noise with known covariance
    ``cov``, true differences shaped like the noise's), the differences' estimates are their exact
    posterior means given ``tau``; with equal noise variances and correlations the selected
    candidate's estimate is unbiased for its true score. With ``tau`` estimated or averaged these
    hold approximately (measured in the module docstring and the tests).

    Candidates with the same public score and the same noise (:func:`same_public_groups`) are
    fitted as one and share its estimate exactly.

    Parameters
    ----------
    scores : ndarray, shape (K,)
        Public scores in the metric's units.
    cov : ndarray, shape (K, K)
        Noise covariance of the public scores (at the public size).
    higher_is_better : bool
        Orientation; the estimates themselves do not depend on it (shrinking toward the mean is
        symmetric), only the words and the later choice do.
    method : {"bayes", "reml"}
        How ``tau`` is handled: averaged over its likelihood, or estimated and plugged in.
    prior_sd : float, optional
        Use this ``tau`` instead (``method`` is then ``"fixed"``).

    Returns
    -------
    Posterior

    Examples
    --------
    Five candidates with public SE 0.01 and independent noise: the apparent leader is pulled back,
    the last is pulled up, the mean 0.8268 stays.

    >>> s = np.array([0.842, 0.835, 0.826, 0.821, 0.810])
    >>> post = candidate_posterior(s, 1e-4 * np.eye(5), True)
    >>> post.mean.round(4).tolist(), round(post.prior_mean, 4), round(post.shrinkage, 2)
    ([0.8344, 0.8309, 0.8264, 0.8239, 0.8184], 0.8268, 0.5)

    With ``tau`` estimated and plugged in the shrinkage is stronger:

    >>> round(candidate_posterior(s, 1e-4 * np.eye(5), True, method="reml").shrinkage, 2)
    0.65
    """
    s_all, cov_all = _posterior_iv(scores, cov, method, prior_sd)
    same = same_public_groups(s_all, cov_all)
    # Candidates the public rows cannot tell apart are one model: fit the distinct ones, then give
    # every member its representative's estimate (exactly, so they tie in every later draw).
    distinct, position = np.unique(same, return_inverse=True)
    s, sigma = s_all[distinct], cov_all[np.ix_(distinct, distinct)]
    n = s.size
    center = float(s.mean())
    if n == 1:                            # nothing to compare: its own score and noise
        beta, beta_var, tau, estimate, used = 1.0, 0.0, 0.0, 0.0, method
        centred = s - center
    else:
        q, r, lam, centred = _contrasts(s, sigma)
        noise_var = float(lam.mean())                     # d: tau^2 = k d
        k_hat = max(0.0, q / r - 1.0)
        estimate = float(np.sqrt(k_hat * noise_var))
        if prior_sd is not None:
            k = float(prior_sd) ** 2 / noise_var
            beta, beta_var, tau, used = k / (1 + k), 0.0, float(prior_sd), "fixed"
        elif method == "reml":
            beta, beta_var, tau, used = k_hat / (1 + k_hat), 0.0, estimate, method
        else:
            taus, weights, betas = _beta_weights(q, r, lam, float(np.ptp(s)))
            beta = float(weights @ betas)
            beta_var = float(weights @ (betas - beta) ** 2)
            tau, used = float(weights @ taus), method
    mean = center + beta * centred
    common = np.full((n, n), float(sigma.mean()))         # P Sigma P: the common mode's variance
    post_cov = beta * sigma + (1 - beta) * common + beta_var * np.outer(centred, centred)
    mean, post_cov = mean[position], post_cov[np.ix_(position, position)]
    post_cov = (post_cov + post_cov.T) / 2
    sd = np.sqrt(np.clip(np.diag(post_cov), 0, None))
    return Posterior(mean=mean, cov=post_cov, sd=sd, prior_mean=center, prior_sd=tau,
                     prior_sd_estimate=estimate, shrinkage=float(1 - beta) if n > 1 else 0.0,
                     observed=s_all.copy(), higher_is_better=bool(higher_is_better), method=used,
                     same_public_as=same)
