"""Fast DeLong: the ROC AUCs of several entries scored on the same rows, and their covariance.

The empirical AUC of an entry is a two-sample U-statistic: the mean over (positive, negative)
pairs of ``psi = 1`` when the positive scores higher, ``1/2`` on a tie and ``0`` otherwise. Its
*structural components* (placement values) are, for each positive, the share of negatives it
outranks (``V10``) and, for each negative, the share of positives that outrank it (``V01``); both
average to the AUC. DeLong, DeLong & Clarke-Pearson (1988) estimate the covariance of the AUCs of
entries scored on the same rows as ``S10 / m + S01 / k``, where ``S10`` and ``S01`` are the sample
covariance matrices (divisor ``m - 1`` and ``k - 1``) of the components over the ``m`` positives
and the ``k`` negatives. Sun & Xu (2014) obtain every component from three midrank vectors (within
the positives, within the negatives, and over both), so the work is one sort per entry plus one
matrix product for all covariances.

What is guaranteed, and what is not:

* Exact arithmetic identities: :func:`delong` returns the same AUCs as scikit-learn's
  ``roc_auc_score`` and the same covariance as the O(m k) definition of the structural
  components, up to rounding (the tests hold both to 1e-12).
* Asymptotics: for independent rows, with the numbers of positives and negatives held fixed (a
  stratified sample), the vector of AUCs is asymptotically normal and the estimated covariance is
  consistent; the tests check by simulation that its average matches the spread of AUCs across
  simulated test sets. Tests built on it (:func:`delong_paired_test`) have their nominal level only
  asymptotically: with few positives or negatives, or AUCs near 0 or 1 (where the variance
  estimate nears 0), the p-values are approximate. Rows that are not independent (several rows
  per patient or session) break the guarantee.

Examples
--------
>>> import numpy as np
>>> y = np.array([0, 0, 0, 1, 1, 1])
>>> scores = np.array([[0.1, 0.3, 0.2, 0.8, 0.4, 0.9],
...                    [0.2, 0.6, 0.1, 0.7, 0.5, 0.3]])
>>> result = delong(y, scores)
>>> result.auc
array([1.        , 0.77777778])
>>> test = delong_paired_test(result, 0)   # is each entry at least as good as entry 0?
>>> test.p_value.round(3)
array([1.   , 0.186])
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr

# A difference's variance below this share of the two variances is rounding noise: the two
# entries order every pair of rows the same way.
_ZERO_VARIANCE = 1e-14

ALTERNATIVES = ("less", "greater", "two-sided")


@dataclass(frozen=True)
class DeLongResult:
    """AUCs of ``E`` entries scored on the same rows, and DeLong's covariance of them.

    Attributes
    ----------
    auc : ndarray of shape (E,)
        Each entry's ROC AUC (ties count half).
    cov : ndarray of shape (E, E)
        Estimated covariance matrix of the AUCs (symmetric, positive semi-definite).
    n_positive, n_negative : int
        Numbers of positive and negative rows.
    """

    auc: np.ndarray
    cov: np.ndarray
    n_positive: int
    n_negative: int

    @property
    def se(self) -> np.ndarray:
        """Standard error of each AUC, shape ``(E,)``."""
        return np.sqrt(np.clip(np.diag(self.cov), 0.0, None))


@dataclass(frozen=True)
class DeLongTest:
    """Paired z-tests of ``AUC_j - AUC_i`` for one reference entry ``i``.

    Attributes
    ----------
    difference : ndarray
        ``AUC_j - AUC_i``.
    se : ndarray
        Standard error of the difference, from the covariance of the two AUCs.
    z : ndarray
        ``difference / se`` (``+-inf`` for a non-zero difference with zero variance, 0 for none).
    p_value : ndarray
        p-value for the alternative the test was run with.
    """

    difference: np.ndarray
    se: np.ndarray
    z: np.ndarray
    p_value: np.ndarray


def _structural_components(positives: np.ndarray,
                           negatives: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``V10`` (E, m) and ``V01`` (E, k) from midranks (Sun & Xu 2014)."""
    from scipy.stats import rankdata   # lazily: scipy.stats takes ~1 s to import

    m, k = positives.shape[1], negatives.shape[1]
    within_pos = rankdata(positives, axis=1)
    within_neg = rankdata(negatives, axis=1)
    overall = rankdata(np.hstack([positives, negatives]), axis=1)
    # A positive's overall midrank minus its midrank among positives counts the negatives below
    # it, ties half; likewise for a negative and the positives below it.
    v10 = (overall[:, :m] - within_pos) / k
    v01 = 1.0 - (overall[:, m:] - within_neg) / m
    return v10, v01


def delong(y_true: np.ndarray, scores: np.ndarray) -> DeLongResult:
    """AUCs of every entry and their DeLong covariance matrix, in O(E n log n + E^2 n).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary target, 0 or 1.
    scores : array-like of shape (E, n) or (n,)
        One row of scores per entry (higher means more likely positive).

    Returns
    -------
    DeLongResult
        ``auc`` of shape ``(E,)`` and ``cov`` of shape ``(E, E)``.

    Raises
    ------
    ValueError
        If shapes disagree, the target is not 0/1, a score is not finite, or there are fewer
        than two positives or two negatives (the covariance needs two of each).

    Examples
    --------
    >>> r = delong([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8])
    >>> float(r.auc[0]), r.cov.shape
    (0.75, (1, 1))
    """
    y = np.asarray(y_true, dtype=float)
    s = np.atleast_2d(np.asarray(scores, dtype=float))
    if y.ndim != 1 or s.ndim != 2 or s.shape[1] != y.size:
        raise ValueError(f"y_true must have shape (n,) and scores (E, n); got {y.shape} and "
                         f"{np.shape(scores)}")
    if not np.all((y == 0) | (y == 1)):
        raise ValueError("y_true must be 0/1")
    if not np.all(np.isfinite(s)):
        raise ValueError("scores contain NaN or infinite values")
    positive = y == 1
    m, k = int(positive.sum()), int((~positive).sum())
    if m < 2 or k < 2:
        raise ValueError(f"DeLong's covariance needs at least two positives and two negatives; "
                         f"got {m} and {k}")
    v10, v01 = _structural_components(s[:, positive], s[:, ~positive])
    # np.cov centres and takes one matrix product per class: every pair of entries at once.
    cov = np.atleast_2d(np.cov(v10)) / m + np.atleast_2d(np.cov(v01)) / k
    return DeLongResult(v10.mean(axis=1), cov, m, k)


def delong_paired_test(result: DeLongResult, i: int, j: int | np.ndarray | None = None,
                       alternative: str = "less") -> DeLongTest:
    """Paired z-test of ``AUC_j - AUC_i`` using DeLong's covariance.

    Parameters
    ----------
    result : DeLongResult
        Output of :func:`delong`.
    i : int
        The reference entry (typically the leader).
    j : int, array of int, or None
        The entries compared with ``i``; all entries when None (``i`` itself gets p = 1).
    alternative : {"less", "greater", "two-sided"}
        ``"less"`` (default): the null hypothesis is "entry j is at least as good as entry i"
        and the alternative ``AUC_j < AUC_i``; a small p-value says ``j`` is worse.
        ``"greater"``: the mirror image. ``"two-sided"``: the null is ``AUC_j = AUC_i``.

    Returns
    -------
    DeLongTest
        Difference, its standard error, z and the p-value, each shaped like ``j``.

    Examples
    --------
    >>> r = DeLongResult(np.array([0.80, 0.75]), np.array([[4e-4, 3e-4], [3e-4, 4e-4]]), 50, 50)
    >>> t = delong_paired_test(r, 0, 1)
    >>> round(float(t.z), 3), round(float(t.p_value), 4)
    (-3.536, 0.0002)
    >>> round(float(delong_paired_test(r, 0, 1, "two-sided").p_value), 4)
    0.0004
    """
    if alternative not in ALTERNATIVES:
        raise ValueError(f"alternative must be one of {ALTERNATIVES}; got {alternative!r}")
    others = np.arange(result.auc.size) if j is None else np.asarray(j)
    cov = result.cov
    difference = result.auc[others] - result.auc[i]
    variance = cov[others, others] + cov[i, i] - 2.0 * cov[others, i]
    tied = variance <= _ZERO_VARIANCE * (cov[others, others] + cov[i, i])
    se = np.sqrt(np.where(tied, 0.0, variance))
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(tied, np.sign(difference) * np.inf, difference / se)
    z = np.where(tied & (difference == 0), 0.0, z)
    if alternative == "less":
        p = ndtr(z)
    elif alternative == "greater":
        p = ndtr(-z)
    else:
        p = 2.0 * ndtr(-np.abs(z))
    # Two entries that order every pair alike give no evidence either way.
    p = np.where(tied & (difference == 0), 1.0, p)
    return DeLongTest(difference, se, z, p)
