"""Scores worse than no skill: the universes' miscalibrated and reversed models.

Independent references: scikit-learn computes the universe's truth at the calibrated path point,
the row-mean variance formula gives the noise (tests/noise/test_universes.py), and brute-force scans
check the path's defining properties (monotone, least over-confident, the metric's whole range).
"""
from __future__ import annotations

import numpy as np
import pytest
from sklearn import metrics as skm

from leaderboard.metrics import get_metric
from leaderboard.noise.universes import UniverseOptions, get_universe
from leaderboard.noise.universes.miscalibrated import TEMPERATURES

EPS_LOSS = -np.log(np.finfo(float).eps)   # every row confidently wrong: the worst clipped log loss


def _universe(metric, prevalence=0.26, **options):
    return get_universe(get_metric(metric), 1000, prevalence, UniverseOptions(**options))


@pytest.mark.parametrize("name, prevalence, options", [
    ("logloss", 0.26, {}), ("logloss", 0.02, {}), ("brier", 0.5, {}), ("auc", 0.1,
     dict(name="binormal")), ("mcc", 0.5, {}), ("balanced_accuracy", 0.3, {}),
    ("logloss", None, dict(class_shares=(0.5, 0.3, 0.2))), ("qwk", None,
     dict(class_shares=(0.2,) * 5))])
def test_the_score_moves_monotonically_along_the_whole_path(name, prevalence, options):
    u = _universe(name, prevalence, **options)
    scan, _ = u._scan()
    path = np.linspace(scan[0], scan[-1], 121)
    truth = u.truth(path)
    steps = np.diff(truth) * np.sign(truth[-1] - truth[0])
    assert steps.min() >= -1e-9 * np.abs(truth).max()


@pytest.mark.parametrize("name, prevalence, low, high", [
    ("logloss", 0.26, 0.0, EPS_LOSS), ("brier", 0.1, 0.0, 1.0), ("auc", 0.1, 0.0, 1.0),
    ("mcc", 0.5, -1.0, 1.0), ("cohen_kappa", 0.5, -1.0, 1.0)])
def test_every_score_of_the_metric_is_reached(name, prevalence, low, high):
    options = dict(name="binormal") if name == "auc" else {}
    reach = _universe(name, prevalence, **options).reachable()
    assert reach[0] == pytest.approx(low, abs=1e-6) and reach[1] == pytest.approx(high, abs=1e-6)


@pytest.mark.parametrize("target", [0.6, 0.9, 3.0])
def test_worse_than_base_rate_log_loss_is_an_over_confident_skilled_model(target):
    """Data Science Bowl 2017's board: most log losses exceed predicting the prevalence (0.573 at
    26% positives). The universe's truth there equals scikit-learn's log loss of its predictions,
    the model is over-confident (temperature above 1) with real skill (AUC above 0.5), and no less
    over-confident model scores that badly."""
    u = _universe("logloss")
    u_star = float(u.calibrate([target])[0])
    mu, temperature = u.path_point(u_star)
    assert u.branch_of(u_star) == "over-confident" and temperature > 1
    prediction = u.predictions([u_star])[0]
    weights = u._truth_weights()
    assert skm.log_loss(u.y, prediction, sample_weight=weights) == pytest.approx(target, rel=1e-6)
    assert skm.roc_auc_score(u.y, prediction, sample_weight=weights) > 0.55
    # the least over-confident: at a temperature 5% lower, no separation scores that badly
    cooler = temperature / 1.05
    worst = u._worst_separation(np.array([cooler]))
    assert u._badness(worst, np.array([cooler]))[0] < target


def test_beyond_hard_random_labels_the_path_is_mostly_wrong_hard_labels():
    u = _universe("logloss")
    u_star = float(u.calibrate([25.0])[0])
    assert u.branch_of(u_star) == "hard"
    prediction = u.predictions([u_star])[0]
    assert set(np.unique(prediction)) <= {0.0, 1.0}
    error = np.average(prediction != u.y, weights=u._truth_weights())
    assert error * EPS_LOSS == pytest.approx(25.0, rel=1e-3)   # each wrong row costs -log eps


def test_auc_below_half_is_the_mirror_of_above_half():
    u = _universe("auc", 0.1, name="binormal")
    assert u.exact_sd(0.3, 1000, 0.1) == pytest.approx(u.exact_sd(0.7, 1000, 0.1), rel=1e-6)
    below = u.predictions(u.calibrate([0.3]))[0]
    assert skm.roc_auc_score(u.y, below, sample_weight=u._truth_weights()) == pytest.approx(0.3,
                                                                                          abs=1e-6)


def test_temperature_nodes_are_cached_per_universe_and_metric():
    from leaderboard.noise.universes import miscalibrated
    u = _universe("brier", 0.37)
    u.calibrate([0.3])
    key = u._path_key()
    assert key in miscalibrated._NODES
    v, mu = miscalibrated._NODES[key]
    assert v.size == TEMPERATURES.size + 1 and v[-1] == 1.0 and np.all(np.diff(v) > 0)


@pytest.mark.parametrize("name, prevalence, options", [
    ("logloss", 0.26, {}), ("brier", 0.5, {}),
    ("logloss", None, dict(class_shares=(0.5, 0.3, 0.2)))])
def test_a_truth_is_the_same_alone_or_among_other_models(name, prevalence, options):
    """The over-confident path reuses the truth it computed to compare two nodes (issue 27): that
    is only the truth :meth:`truth` would compute if a model's truth does not depend on which
    models are scored with it (BLAS's ``(1, n) @ (n, c)`` adds in an order that depends on ``c``).
    Checked bit for bit, alone, together, and by scoring every model's predictions afresh."""
    from leaderboard.noise.universes.finite import CalibratedUniverse
    u = _universe(name, prevalence, **options)
    path = np.linspace(-1.2, 1.0, 23)     # hard labels, over-confident, calibrated
    together = u.truth(path)
    assert np.array_equal(together, [u.truth([p])[0] for p in path])
    assert np.array_equal(together, CalibratedUniverse.truth(u, path))
    assert np.array_equal(together, u._truth_of(u.predictions(path)[::-1])[::-1])


def test_over_confident_targets_start_within_one_node_interval():
    """A target worse than no skill is bracketed between neighbouring temperature nodes (issue
    27: about half the solve's rounds), the bracketing scan stays monotone, and the solve still
    lands on the target to its 1e-10 tolerance."""
    u = _universe("logloss", 0.26)
    scan, values = u._scan()
    targets = np.array([0.7, 1.5, 4.0])      # between no skill (0.57) and hard labels
    points, truths = u._brackets(targets, scan, values)
    inner = -u._overconfident_nodes()[0][1:-1]
    assert np.all(np.isin(inner, points)) and np.all(np.diff(points) > 0)
    assert np.all(np.diff(truths) * np.sign(truths[-1] - truths[0]) >= 0)
    params = u.calibrate(targets)
    assert np.all((params > -1) & (params < 0))
    np.testing.assert_allclose(u.truth(params), targets, rtol=1e-10)
