"""Fast DeLong: exact against scikit-learn and the O(m k) definition; calibrated by simulation."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from oracles.delong import DeLongResult, delong, delong_paired_test


def _brute_force(y, scores):
    """AUCs and DeLong covariance straight from the definition: psi over all (pos, neg) pairs."""
    pos, neg = scores[:, y == 1], scores[:, y == 0]
    psi = ((pos[:, :, None] > neg[:, None, :]) + 0.5 * (pos[:, :, None] == neg[:, None, :]))
    v10 = psi.mean(axis=2)          # (E, m): share of negatives each positive outranks
    v01 = psi.mean(axis=1)          # (E, k): share of positives that outrank each negative
    m, k = v10.shape[1], v01.shape[1]

    def sample_cov(v):
        centred = v - v.mean(axis=1, keepdims=True)
        return centred @ centred.T / (v.shape[1] - 1)

    return v10.mean(axis=1), sample_cov(v10) / m + sample_cov(v01) / k


def _tied_scores(n=60, n_entries=4, seed=0):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(int)
    latent = y + rng.normal(size=n)
    scores = np.round(latent + rng.normal(scale=[[0.3], [0.6], [1.0], [2.0]][:n_entries],
                                          size=(n_entries, n)), 1)   # correlated, with ties
    return y, scores


def test_auc_equals_sklearn():
    y, scores = _tied_scores(n=500)
    result = delong(y, scores)
    expected = [roc_auc_score(y, s) for s in scores]
    np.testing.assert_allclose(result.auc, expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_covariance_equals_the_definition(seed):
    y, scores = _tied_scores(seed=seed)
    auc, cov = _brute_force(y, scores)
    result = delong(y, scores)
    np.testing.assert_allclose(result.auc, auc, rtol=0, atol=1e-12)
    np.testing.assert_allclose(result.cov, cov, rtol=0, atol=1e-12)


def test_covariance_is_symmetric_positive_semidefinite():
    y, scores = _tied_scores(n=200)
    cov = delong(y, np.vstack([scores, scores[:1]])).cov     # a repeated entry: singular
    np.testing.assert_allclose(cov, cov.T, rtol=0, atol=1e-15)
    assert np.linalg.eigvalsh(cov).min() > -1e-15
    np.testing.assert_allclose(delong(y, scores[0]).se ** 2, cov[0, 0], rtol=1e-12)


BATCH = 250   # test sets per delong call in the simulations below


def _per_test_set(y, scores):
    """Each test set's own :class:`DeLongResult` (its entries' AUCs and covariance block) for
    ``scores`` of shape ``(sets, E, n)`` on the shared labels ``y``: :data:`BATCH` sets' entries
    go through one :func:`delong` call (its covariance is pairwise: np.cov of the structural
    components, so a set's block does not depend on the other sets: the same bits as a call per
    set, measured on 600 sets), instead of thousands of small calls."""
    sets, e, _ = scores.shape
    for start in range(0, sets, BATCH):
        batch = scores[start:start + BATCH]
        result = delong(y, batch.reshape(-1, batch.shape[-1]))
        for d in range(batch.shape[0]):
            block = slice(d * e, (d + 1) * e)
            yield DeLongResult(result.auc[block], result.cov[block, block], result.n_positive,
                               result.n_negative)


def test_variance_matches_the_spread_of_auc_across_simulated_test_sets():
    """Binormal scores, two correlated entries, 2000 test sets of 150 positives + 150 negatives.

    The empirical variance over N datasets has standard error about var * sqrt(2 / (N - 1))
    (3.2% of var for N = 2000, treating the AUCs as near-normal); the mean of the DeLong estimates
    has standard error sd(estimates) / sqrt(N). The two must agree within 4 combined standard
    errors. DeLong's estimator's own bias is O(1 / m) of the variance here (under 1%), well inside
    that. Same for the covariance (standard error of a sample covariance:
    sqrt((var1 var2 + cov^2) / (N - 1))) and for the variance of the difference of the two AUCs,
    which is what the paired test uses.

    The test sets share their labels, so they are scored :data:`BATCH` at a time as entries of
    one :func:`delong` call (:func:`_per_test_set`): each test set's AUCs and 2 x 2 covariance
    block are its own DeLong estimates.
    """
    rng = np.random.default_rng(2024)
    n_sets, m, k = 2000, 150, 150
    y = np.r_[np.ones(m, int), np.zeros(k, int)]
    shift = np.array([[1.0], [0.8]])              # entries' separations (binormal, unit variance)
    rho = 0.6                                     # correlation of the two entries' scores
    scores = np.empty((n_sets, 2, m + k))
    for d in range(n_sets):
        common, own = rng.normal(size=(1, m + k)), rng.normal(size=(2, m + k))
        scores[d] = np.sqrt(rho) * common + np.sqrt(1 - rho) * own + shift * y
    aucs, covs = np.empty((n_sets, 2)), np.empty((n_sets, 2, 2))
    for d, result in enumerate(_per_test_set(y, scores)):
        aucs[d], covs[d] = result.auc, result.cov
    empirical = np.cov(aucs.T)
    contrast = np.array([1.0, -1.0])
    checks = [  # (estimates per dataset, empirical value, SE of the empirical value)
        (covs[:, 0, 0], empirical[0, 0], empirical[0, 0] * np.sqrt(2 / (n_sets - 1))),
        (covs[:, 1, 1], empirical[1, 1], empirical[1, 1] * np.sqrt(2 / (n_sets - 1))),
        (covs[:, 0, 1], empirical[0, 1],
         np.sqrt((empirical[0, 0] * empirical[1, 1] + empirical[0, 1] ** 2) / (n_sets - 1))),
    ]
    diff_var = np.var(aucs @ contrast, ddof=1)
    checks.append((covs @ contrast @ contrast, diff_var, diff_var * np.sqrt(2 / (n_sets - 1))))
    for estimates, truth, se_truth in checks:
        se = np.hypot(se_truth, estimates.std() / np.sqrt(n_sets))
        assert abs(estimates.mean() - truth) < 4 * se, (estimates.mean(), truth, se)


def test_paired_test_has_its_nominal_level_under_the_null():
    """Two different but equally good entries: the one-sided 5% test rejects about 5% of the time.

    The rejection rate over N = 2000 datasets has standard error sqrt(0.05 * 0.95 / N) = 0.49%.
    Each dataset's test runs on its own :class:`DeLongResult` (:func:`_per_test_set`).
    """
    rng = np.random.default_rng(7)
    n_sets, m, k = 2000, 100, 200
    y = np.r_[np.ones(m, int), np.zeros(k, int)]
    scores = np.empty((n_sets, 2, m + k))
    for d in range(n_sets):
        common, own = rng.normal(size=(1, m + k)), rng.normal(size=(2, m + k))
        scores[d] = np.sqrt(0.5) * common + np.sqrt(0.5) * own + 1.0 * y
    rejected = sum(delong_paired_test(result, 0, 1).p_value < 0.05
                   for result in _per_test_set(y, scores))
    assert abs(rejected / n_sets - 0.05) < 4 * np.sqrt(0.05 * 0.95 / n_sets)


def test_paired_test_directions_and_vectorised_form():
    result = DeLongResult(np.array([0.80, 0.75, 0.85]),
                          np.array([[4e-4, 3e-4, 2e-4], [3e-4, 4e-4, 1e-4], [2e-4, 1e-4, 5e-4]]),
                          100, 100)
    everyone = delong_paired_test(result, 0)
    for j in range(3):
        single = delong_paired_test(result, 0, j)
        assert single.p_value == pytest.approx(everyone.p_value[j])
    assert everyone.p_value[0] == 1.0 and everyone.z[0] == 0.0       # entry 0 against itself
    worse, better = delong_paired_test(result, 0, 1), delong_paired_test(result, 0, 2)
    assert worse.p_value < 0.5 < better.p_value                     # "at least as good" null
    se = np.sqrt(4e-4 + 4e-4 - 2 * 3e-4)
    assert worse.z == pytest.approx(-0.05 / se) and worse.se == pytest.approx(se)
    greater = delong_paired_test(result, 0, 1, alternative="greater").p_value
    two_sided = delong_paired_test(result, 0, 1, alternative="two-sided").p_value
    assert greater == pytest.approx(1 - worse.p_value)
    assert two_sided == pytest.approx(2 * min(worse.p_value, greater))


def test_identical_entries_are_not_different():
    y, scores = _tied_scores(n=100)
    test = delong_paired_test(delong(y, np.vstack([scores[0], scores[0]])), 0, 1, "two-sided")
    assert test.difference == 0.0 and test.p_value == 1.0


@pytest.mark.parametrize("y, scores, message", [
    ([0, 1, 1, 0], [[0.1, 0.2, 0.3]], "shape"),
    ([0, 1, 2, 0], [0.1, 0.2, 0.3, 0.4], "0/1"),
    ([0, 1, 1, 0], [0.1, np.inf, 0.3, 0.4], "infinite"),
    ([0, 1, 1, 1], [0.1, 0.2, 0.3, 0.4], "at least two"),
])
def test_invalid_input_raises(y, scores, message):
    with pytest.raises(ValueError, match=message):
        delong(np.asarray(y), np.asarray(scores))


def test_unknown_alternative_raises():
    result = DeLongResult(np.array([0.8, 0.7]), np.eye(2) * 1e-3, 10, 10)
    with pytest.raises(ValueError, match="alternative"):
        delong_paired_test(result, 0, 1, alternative="bigger")
