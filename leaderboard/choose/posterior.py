"""How good is each candidate really, given its public score and knowing the best one gets picked?

A team's candidate submissions were all scored on the same public rows. The public scores are the
true scores plus noise, so the highest public score is partly luck (the winner's curse). This
module fits a normal-normal model to the public scores and returns every candidate's posterior: its
true score given everything seen.

Model (on oriented scores, higher is better)::

    theta  ~  N(mu 1, tau^2 G)        true scores; G = I ("exchangeable") or the noise
                                      correlation matrix ("similar", see below)
    s | theta ~  N(theta, Sigma)      public scores, Sigma = the noise covariance

so that ``s ~ N(mu 1, tau^2 G + Sigma)``. ``mu`` has a flat prior: its estimate is the generalised
least squares mean and its uncertainty is carried into the posterior, so one candidate alone gets
back its own score and noise. ``tau``, the spread of the true scores, is handled by ``method``:

- ``"reml"`` / ``"ml"`` (empirical Bayes): the maximiser of the restricted (``mu`` integrated out)
  or plain marginal likelihood, by a bounded 1-D search that allows ``tau = 0``, plugged in.
- ``"bayes"`` (default): averaged over its restricted likelihood with a uniform prior on
  ``0 <= tau <= sqrt(10 (largest noise variance + range(s)^2))`` (numerically, on a grid). The
  plug-in estimate is often 0 when there are few candidates or few model families (a fifth to a
  third of the simulated teams of ``benchmarks/bench_choose.py``); every candidate then looks
  equal and the public scores are thrown away. Averaging keeps the spreads the data allow. The
  posterior is then a mixture of normals; ``mean`` and ``cov`` are its exact moments.

``prior="similar"`` (default) makes two candidates' true scores as correlated as their noise is:
candidates that make the same errors are variants of one model, so they are alike in truth too, and
a lift shared by a whole family can be real rather than shared luck. (The exchangeable prior
attributes a family-wide lift to shared noise and over-shrinks the best family.) With one assumed
correlation between all candidates (scores only) the two priors coincide, since the common part
goes into ``mu``. Its cost: two unrelated models whose errors correlate only because both miss the
hard rows are taken to be a little alike in truth too.

The defaults were chosen on the benchmark's simulated teams (300 per size, known truth): the pair
chosen with them beats the two best public scores by +0.15, +0.07 and +0.06 accuracy points
(SE 0.02) at 100, 300 and 1000 public rows, where the exchangeable prior with REML's ``tau``
plugged in gains +0.11 but then loses 0.04 and 0.08 (SE 0.03).

Why the posterior mean corrects the winner's curse: selection acts on the data, and the posterior
given the data is the same whether or not one then picks the largest (Dawid 1994). So the
posterior mean of the candidate with the highest public score is unbiased for its true score when
the model holds with the stated ``tau``, and approximately so with ``tau`` estimated or averaged.
The raw public maximum is biased upward. Measured by simulation from the model (exchangeable
truth, noise SDs 0.8-1.2 with correlation 0.3, 1000 teams per row; mean of estimate minus the
selected candidate's true score, in noise SDs, Monte Carlo SE 0.02-0.03; coverage of the 95%
interval)::

    K   tau   raw max   true tau   "reml"          "bayes"
    5   0     +0.99     -0.01      +0.17 (0.96)    +0.41 (0.98)
    5   1     +0.64     +0.00      -0.09 (0.89)    +0.09 (0.95)
    5   2     +0.38     -0.01      -0.13 (0.92)    -0.02 (0.95)
    20  0     +1.60     -0.00      +0.16 (0.94)    +0.30 (0.97)
    20  1     +1.05     +0.01      -0.03 (0.91)    -0.01 (0.95)
    20  2     +0.63     +0.01      -0.01 (0.94)    +0.01 (0.95)

Averaging over ``tau`` keeps the intervals' coverage and the bias small when the true scores do
differ, but leaves more of the bias when they are all truly tied (the uniform prior keeps some
weight on a spread that is not there); plugging in REML's estimate does the opposite.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.stats import norm

METHODS = ("bayes", "reml", "ml")
PRIORS = ("similar", "exchangeable")
RIDGE = 1e-9          # relative jitter added to the noise covariance's eigenvalues
SIMILAR_FLOOR = 1e-3  # "similar" prior: least prior variance of any direction, relative to tau^2
_GRID = 160           # tau grid: coarse search for the estimate, nodes of the "bayes" average
_TINY_WEIGHT = 1e-12  # grid nodes below this share of the largest weight are left out


@dataclass(frozen=True)
class Posterior:
    """Each candidate's true score given the public scores, corrected for selection.

    Attributes
    ----------
    mean : ndarray, shape (K,)
        Posterior mean true score, in the metric's own units.
    cov : ndarray, shape (K, K)
        Posterior covariance of the true scores (the same in oriented and raw units).
    sd : ndarray, shape (K,)
        Posterior standard deviations, ``sqrt(diag(cov))``.
    prior_mean : float
        Estimated common mean ``mu`` of the true scores, raw units.
    prior_sd : float
        ``tau`` as used: the plug-in value, or its posterior mean for ``method="bayes"``.
    prior_sd_estimate : float
        The maximum (restricted) likelihood estimate of ``tau``; 0 means the public scores are no
        more spread out than their noise.
    shrinkage : float
        ``1 - slope`` of the posterior means regressed on the observed scores: the share of the
        observed differences attributed to noise. With independent equal noise ``sigma^2`` and an
        exchangeable prior it is the classical ``sigma^2 / (sigma^2 + tau^2)``; 0 when nothing was
        shrunk.
    observed : ndarray, shape (K,)
        The public scores, raw units.
    higher_is_better : bool
    prior : str
        ``"similar"`` or ``"exchangeable"``.
    method : str
        ``"bayes"``, ``"reml"``, ``"ml"`` or ``"fixed"`` (``tau`` given by the caller).
    copy_of : ndarray of int, shape (K,)
        The first candidate each one is a copy of (same public score, identical noise), itself if
        none. Copies are fitted as one candidate and share its posterior exactly.
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
    prior: str
    method: str
    copy_of: np.ndarray

    @property
    def sign(self) -> float:
        """+1 if higher scores are better, -1 otherwise."""
        return 1.0 if self.higher_is_better else -1.0

    @property
    def n_candidates(self) -> int:
        return self.mean.size

    def interval(self, alpha: float = 0.05) -> tuple[np.ndarray, np.ndarray]:
        """Equal-tailed ``1 - alpha`` posterior intervals of the true scores, raw units (normal;
        for ``method="bayes"`` a normal with the mixture's mean and SD)."""
        z = norm.ppf(1 - alpha / 2)
        return self.mean - z * self.sd, self.mean + z * self.sd

    @property
    def shrinkage_text(self) -> str:
        """The shrinkage in words, for the report."""
        center = f"{self.prior_mean:.4g}"
        if np.unique(self.copy_of).size == 1:
            return "one candidate: its estimate is its own public score, with its noise"
        pulled = (f"about {self.shrinkage:.0%} of the observed differences between candidates "
                  f"is attributed to noise and removed, pulling estimates toward {center}")
        if self.prior_sd == 0:
            pulled = f"every candidate's estimate is the common mean {center}"
        if self.prior_sd_estimate == 0:
            return ("the public scores are no more spread out than their noise alone would make "
                    f"them; {pulled}")
        return pulled


def _posterior_iv(scores, cov, prior, method, prior_sd):
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
    if prior not in PRIORS:
        raise ValueError(f"prior must be one of {', '.join(PRIORS)}, got {prior!r}")
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}")
    if prior_sd is not None and not (np.isfinite(prior_sd) and prior_sd >= 0):
        raise ValueError(f"prior_sd must be a finite number >= 0, got {prior_sd!r}")
    return s, c


def copy_groups(values: np.ndarray, *covs: np.ndarray, rtol: float = 1e-10) -> np.ndarray:
    """For each candidate, the first candidate it is a copy of (itself if none).

    Two candidates are copies when their ``values`` are equal and, in every covariance given, their
    difference has zero variance (to ``rtol`` times the largest variance, for rounding): the same
    score and the same noise on every row, as byte-identical submissions have.

    Examples
    --------
    >>> cov = np.array([[1.0, 1.0, 0.2], [1.0, 1.0, 0.2], [0.2, 0.2, 1.0]])
    >>> copy_groups(np.array([0.8, 0.8, 0.8]), cov).tolist()
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


def _prior_root(cov: np.ndarray, prior: str) -> tuple[np.ndarray, np.ndarray] | None:
    """``L`` with ``L L'`` = the prior correlation ``G`` of the true scores, and ``L^-1``; None for
    the identity. "similar": the noise correlation matrix, floored at ``SIMILAR_FLOOR`` in every
    direction (near-copies keep a little room to differ in truth), rescaled to trace K."""
    if prior == "exchangeable":
        return None
    sd = np.sqrt(np.clip(np.diag(cov), 0, None))
    safe = np.where(sd > 0, sd, 1.0)
    corr = cov / np.outer(safe, safe)
    corr[sd == 0] = 0.0                   # a candidate without noise is correlated with nobody
    corr[:, sd == 0] = 0.0
    np.fill_diagonal(corr, 1.0)
    rho, q = np.linalg.eigh((corr + corr.T) / 2)
    rho = np.clip(rho, 0, None) + SIMILAR_FLOOR
    rho = rho / rho.mean()
    return q * np.sqrt(rho), (q / np.sqrt(rho)).T


def _profile(lam, a, b, t, method):
    """Log marginal likelihood (up to a constant) and GLS ``mu`` at each ``tau^2`` in ``t``.

    In the whitened noise covariance's eigenbasis ``V = U diag(lam + t) U'``; ``a`` is the prior
    mean's direction and ``b`` the centred scores there, so all is sums over K eigen-directions.
    """
    t = np.atleast_1d(t)[:, None]
    w = 1.0 / (lam[None, :] + t)                               # eigenvalues of V^-1
    waa, wab = (w * a * a).sum(axis=1), (w * a * b).sum(axis=1)
    mu = wab / waa
    quad = (w * (b[None, :] - mu[:, None] * a) ** 2).sum(axis=1)
    ll = -0.5 * (np.log(lam[None, :] + t).sum(axis=1) + quad)
    if method != "ml":
        ll = ll - 0.5 * np.log(waa)   # restricted: mu integrated out with a flat prior
    return ll, mu


def _estimate_tau2(lam, a, b, method, taus):
    """Maximiser of the (restricted) likelihood over tau: the grid ``taus`` (0 first), then Brent
    between the best node's neighbours. The grid guards against a second local maximum."""
    ll, _ = _profile(lam, a, b, taus ** 2, method)
    k = int(np.argmax(ll))
    lo, hi = taus[max(k - 1, 0)], taus[min(k + 1, taus.size - 1)]
    res = minimize_scalar(lambda x: -_profile(lam, a, b, x * x, method)[0][0],
                          bounds=(lo, hi), method="bounded", options={"xatol": 1e-10 * hi})
    best = float(res.x) if -res.fun > ll[k] else float(taus[k])
    return best * best


def _bayes_weights(lam, a, b, taus):
    """Posterior weights of the grid nodes under a uniform prior on tau (trapezoid rule)."""
    ll, _ = _profile(lam, a, b, taus ** 2, "reml")
    width = np.diff(taus)
    step = np.r_[width, 0.0] / 2 + np.r_[0.0, width] / 2
    weights = np.exp(ll - ll.max()) * step
    return weights / weights.sum()


def _moments(lam, vecs, a, b, tau2s, weights):
    """Posterior mean and covariance (whitened, centred units) of the mixture over ``tau2s``.

    One node with weight 1 is the plug-in posterior. Per node: mean ``mu a + t W (b - mu a)`` and
    covariance ``diag(t lam / (lam + t)) + c c' / (a' W a)`` in the eigenbasis, where the second
    term, ``c = lam W a``, carries mu's uncertainty. The mixture adds the spread of the means.
    """
    keep = weights >= _TINY_WEIGHT * weights.max()
    t, wt = tau2s[keep][:, None], weights[keep] / weights[keep].sum()
    w = 1.0 / (lam[None, :] + t)
    waa = (w * a * a).sum(axis=1)
    mu = (w * a * b).sum(axis=1) / waa
    coef = mu[:, None] * a + t * w * (b - mu[:, None] * a)      # node means, eigen coordinates
    mean = wt @ coef
    c = lam * w * a * np.sqrt(wt / waa)[:, None]
    spread = (coef - mean) * np.sqrt(wt)[:, None]
    cov_e = np.diag(wt @ (t * lam * w)) + c.T @ c + spread.T @ spread
    cov = vecs @ cov_e @ vecs.T
    return vecs @ mean, (cov + cov.T) / 2, float(wt @ mu), float(wt @ np.sqrt(t[:, 0]))


def candidate_posterior(scores: np.ndarray, cov: np.ndarray, higher_is_better: bool, *,
                        prior: str = "similar", method: str = "bayes",
                        prior_sd: float | None = None) -> Posterior:
    """Winner's-curse-corrected true scores of K candidates scored on the same public rows.

    Normal-normal model on oriented scores (module docstring): true scores ``N(mu 1, tau^2 G)``,
    public scores ``N(theta, cov)``, ``mu`` flat, ``tau`` averaged over its restricted likelihood
    (``"bayes"``) or estimated and plugged in (``"reml"``, ``"ml"``); posterior in closed form.

    Guarantees and assumptions. With the true ``tau`` (``prior_sd``) and the model right, the
    posterior mean of whichever candidate is selected for its public score is unbiased for its true
    score and the intervals have their coverage, selection notwithstanding; with ``tau`` estimated
    or averaged this holds approximately (the tests measure it with known truth). Assumed: normal
    errors with known covariance ``cov`` (a bootstrap covariance is taken as exact); no candidate
    known in advance to be better (the prior is symmetric in the candidates, and under "similar"
    only the noise correlation tells them apart).

    Copies (equal public score and identical noise, e.g. byte-identical submissions, see
    :func:`copy_groups`) are one model: it is fitted to the distinct candidates and every copy
    gets its original's posterior. Other singular ``cov`` (e.g. fewer bootstrap replicates than
    candidates): eigenvalues are clipped at 0 and ``RIDGE`` times the largest is added to all.

    Parameters
    ----------
    scores : ndarray, shape (K,)
        Public scores in the metric's units.
    cov : ndarray, shape (K, K)
        Noise covariance of the public scores (at the public size).
    higher_is_better : bool
    prior : {"similar", "exchangeable"}
        Prior correlation of the true scores: the noise correlation, or none.
    method : {"bayes", "reml", "ml"}
        How ``tau`` is handled. REML integrates ``mu`` out first, which removes ML's downward
        bias of ``tau^2`` with few candidates.
    prior_sd : float, optional
        Use this ``tau`` instead (``method`` is then ``"fixed"``).

    Returns
    -------
    Posterior

    Examples
    --------
    Five candidates with public SE 0.01 and independent noise: the apparent leader is pulled back.

    >>> s = np.array([0.842, 0.835, 0.826, 0.821, 0.810])
    >>> post = candidate_posterior(s, 1e-4 * np.eye(5), True)
    >>> post.mean.round(4).tolist(), round(post.prior_mean, 4), round(post.shrinkage, 2)
    ([0.8344, 0.8309, 0.8264, 0.8239, 0.8184], 0.8268, 0.5)

    With ``tau`` estimated and plugged in (empirical Bayes) the shrinkage is stronger:

    >>> round(candidate_posterior(s, 1e-4 * np.eye(5), True, method="reml").shrinkage, 2)
    0.65
    """
    s_all, cov_all = _posterior_iv(scores, cov, prior, method, prior_sd)
    sign = 1.0 if higher_is_better else -1.0
    copy_of = copy_groups(s_all, cov_all)
    # Copies are one model: fit the distinct candidates, then give every copy its original's
    # posterior (exactly, so they tie in every later draw).
    distinct, position = np.unique(copy_of, return_inverse=True)
    s = sign * s_all[distinct]
    cov_d = cov_all[np.ix_(distinct, distinct)]
    center = float(s.mean())          # centred scores keep the eigen-projections exact
    root = _prior_root(cov_d, prior)
    if root is None:
        ones, dev_w, cov_w = np.ones(s.size), s - center, cov_d
    else:                             # whiten the prior: theta = L phi, phi exchangeable
        ones, dev_w, cov_w = root[1].sum(axis=1), root[1] @ (s - center), \
            root[1] @ cov_d @ root[1].T
    lam, vecs = np.linalg.eigh((cov_w + cov_w.T) / 2)
    # The ridge is relative to the largest noise variance (to the scores' spread, or 1, if the
    # scores carry no noise at all), so it never moves a result beyond ~1e-9 of its scale.
    base = next(v for v in (float(lam.max()), float(np.var(s)), 1.0) if v > 0)
    lam = np.maximum(lam, 0.0) + RIDGE * base
    a, b = vecs.T @ ones, vecs.T @ dev_w
    upper = np.sqrt(10.0 * (float(lam.max()) + float(np.ptp(s)) ** 2))
    taus = np.r_[0.0, np.geomspace(upper * 1e-4, upper, _GRID - 1)]
    estimate = 0.0 if s.size == 1 else _estimate_tau2(lam, a, b, method, taus)
    if prior_sd is not None:
        nodes, weights, used = np.array([float(prior_sd) ** 2]), np.ones(1), "fixed"
    elif method == "bayes" and s.size > 1:
        nodes, weights, used = taus ** 2, _bayes_weights(lam, a, b, taus), method
    else:                             # one distinct candidate: tau does not matter
        nodes, weights, used = np.array([estimate]), np.ones(1), method
    mean, post_cov, mu, tau = _moments(lam, vecs, a, b, nodes, weights)
    if root is not None:
        mean, post_cov = root[0] @ mean, root[0] @ post_cov @ root[0].T
    mean, mu = mean + center, mu + center
    dev = s - s.mean()
    denom = float(dev @ dev)
    shrinkage = 0.0 if denom == 0 else float(np.clip(1 - (mean - mean.mean()) @ dev / denom, 0, 1))
    mean, post_cov = mean[position], post_cov[np.ix_(position, position)]
    sd = np.sqrt(np.clip(np.diag(post_cov), 0, None))
    return Posterior(mean=sign * mean, cov=post_cov, sd=sd,
                     prior_mean=sign * mu, prior_sd=tau, prior_sd_estimate=float(np.sqrt(estimate)),
                     shrinkage=shrinkage, observed=s_all.copy(),
                     higher_is_better=bool(higher_is_better), prior=prior, method=used,
                     copy_of=copy_of)
