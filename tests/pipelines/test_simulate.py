"""`leaderboard simulate`: the seeds' grid reproduced, checked against exact and independent values.

Monte Carlo tolerances, measured once and stated here (none is a guess):

* Relative SE of d95 from B draws: 0.9 / sqrt(B). Measured on all 27 grid cases with 32 independent
  replicates of 1000 draws each: the relative SD ranged 1.8%-2.8% (median 2.2%), so 0.9/sqrt(1000)
  = 2.8% is the largest seen (about 1.4% at 4000 draws).
* Non-normality of d95: for a normal score d95 = 1.96 * sqrt(2) * SD exactly. Measured at 32,000
  draws per case on the grid, |d95 / (1.96 sqrt(2) SD) - 1| <= 0.2%; the allowance is 1%.
* Normal approximation of the ahead probability, Phi(delta / sqrt(sd1^2 + sd2^2)): measured at
  40,000 draws on 12 pairs (n 1000-10000, prevalence 1%-20%), it is within 0.0015 of the
  simulation; the allowance is 0.01.
"""
from __future__ import annotations

import json
import math

import numpy as np
import pytest
from scipy.stats import binom, norm

from leaderboard.cli import main
from chart_helpers import assert_offline, page_charts, validate, without_scripts
from leaderboard.pipelines.simulate import (ahead_probability, grid_lists, needs_prevalence,
                                    partial_correlations, run_experiment)
from leaderboard.metrics import get_metric
from leaderboard.noise.universes import UniverseOptions, get_universe, not_simulable_reason
from leaderboard.report.simulate_report import render_html, to_json_dict

AUC = get_metric("auc")
GRID_DRAWS = 2000
REL_SE_D95 = 0.9          # relative SE of d95 is REL_SE_D95 / sqrt(draws), measured (see above)
NON_NORMAL = 0.01         # allowance for d95 vs 1.96 sqrt(2) SD
NORMAL_APPROX = 0.01      # allowance for the normal approximation of the ahead probability


@pytest.fixture(scope="module")
def grid():
    """The seeds' 27 cases (ROC .7/.8/.9 x n 1000/5000/10000 x prevalence 1%/5%/20%)."""
    return run_experiment(AUC, *grid_lists(None, None, None), draws=GRID_DRAWS, seed=1,
                          options=UniverseOptions(name="linspace"))


def _case(experiment, score, n, p):
    return next(c for c in experiment.cases if (c.score, c.n_test, c.prevalence) == (score, n, p))


# --- (a) the seeds' figures ---------------------------------------------------------------------

@pytest.mark.parametrize("n, p, seeds_value, half_digit", [(1000, 0.01, 0.10, 0.005),
                                                           (10000, 0.2, 0.012, 0.0005)])
def test_grid_reproduces_the_seeds_figures(grid, n, p, seeds_value, half_digit):
    # The seeds print d to two digits ("10%", "1.2%") from 1000 draws of their own. Allow the
    # rounding of their figure plus 3 SE of the difference between their estimate and ours.
    d95 = _case(grid, 0.8, n, p).d95
    se_ours = REL_SE_D95 / math.sqrt(GRID_DRAWS) * d95
    se_seeds = REL_SE_D95 / math.sqrt(1000) * d95
    assert abs(d95 - seeds_value) <= half_digit + 3 * math.hypot(se_ours, se_seeds)


def test_grid_has_27_cases_in_the_seeds_order(grid):
    assert len(grid.cases) == 27 and len(grid.settings) == 9 and grid.grid
    assert [(c.score, c.n_test, c.prevalence) for c in grid.cases[:2]] == [(0.7, 1000, 0.01),
                                                                           (0.7, 1000, 0.05)]


# --- (b) partial correlations --------------------------------------------------------------------

def test_all_partial_correlations_are_negative(grid):
    # About -0.57 (score), -0.68 (n), -0.60 (prevalence); their spread over seeds at 200 draws was
    # 0.02, so a sign error, not noise, would make one non-negative.
    assert set(grid.partial) == {"score", "n_test", "prevalence"}
    assert all(r < -0.3 for r in grid.partial.values())


def test_partial_correlation_matches_the_precision_matrix():
    # Independent formula: r_{xy.z} = -P_xy / sqrt(P_xx P_yy), P the inverse correlation matrix.
    rng = np.random.default_rng(3)
    table = rng.normal(size=(30, 4))
    table[:, 3] += table[:, :3] @ [0.5, -1.0, 0.3]
    cases = [type("C", (), dict(zip(("score", "n_test", "prevalence", "d95"), row)))
             for row in table]
    precision = np.linalg.inv(np.corrcoef(table.T))
    got = partial_correlations(cases)
    for i, name in enumerate(("score", "n_test", "prevalence")):
        want = -precision[i, 3] / math.sqrt(precision[i, i] * precision[3, 3])
        assert got[name] == pytest.approx(want, abs=1e-10)


# --- (c) agreement with the exact variance --------------------------------------------------------

def test_simulated_sd_matches_the_exact_sd(grid):
    # SE of a sample SD from B draws with kurtosis k: sd / 2 * sqrt((k - (B-3)/(B-1)) / B),
    # from the draws' own kurtosis; 4 SE over 27 cases has a family false-alarm rate near 0.2%.
    for c in grid.cases:
        b = c.draws.size
        kurtosis = np.mean((c.draws - c.mean) ** 4) / np.var(c.draws) ** 2
        se = c.sd / 2 * math.sqrt((kurtosis - (b - 3) / (b - 1)) / b)
        assert abs(c.sd - c.exact_sd) <= 4 * se, (c.score, c.n_test, c.prevalence)


def test_d95_matches_the_normal_value_of_the_exact_sd(grid):
    rel_se = REL_SE_D95 / math.sqrt(GRID_DRAWS)
    ratios = np.array([c.d95 / (1.96 * math.sqrt(2) * c.exact_sd) for c in grid.cases])
    assert np.all(np.abs(ratios - 1) <= NON_NORMAL + 4 * rel_se)
    # The 9 test-set kinds are simulated independently; 3 cases of one kind share test sets, so
    # count 9 independent errors for the mean.
    assert abs(ratios.mean() - 1) <= NON_NORMAL + 4 * rel_se / 3


def test_a_case_gives_the_same_numbers_alone_as_in_the_grid(grid):
    alone = run_experiment(AUC, [0.8], [1000], [0.01], draws=GRID_DRAWS, seed=1,
                           options=UniverseOptions(name="linspace"))
    assert np.array_equal(alone.cases[0].draws, _case(grid, 0.8, 1000, 0.01).draws)


# --- (d) the truly-better-ahead probability --------------------------------------------------------

def _brute(x, y, higher=True, shared=True):
    wins = pairs = 0.0
    for r in range(x.size):
        for s in range(y.size):
            if (shared and r == s) or not (np.isfinite(x[r]) and np.isfinite(y[s])):
                continue
            d = x[r] - y[s] if higher else y[s] - x[r]
            wins += 1.0 if d > 0 else 0.5 if d == 0 else 0.0
            pairs += 1
    return wins / pairs


@pytest.mark.parametrize("higher", [True, False])
@pytest.mark.parametrize("shared", [True, False])
def test_ahead_probability_equals_brute_force(higher, shared):
    rng = np.random.default_rng(7)
    x = np.round(rng.normal(0.5, 0.1, 60), 2)     # rounded: plenty of ties
    y = np.round(rng.normal(0.48, 0.1, 60), 2)
    x[[3, 9]] = np.nan                             # undefined draws are left out
    y[[9, 20]] = np.nan
    assert ahead_probability(x, y, higher, shared) == pytest.approx(_brute(x, y, higher, shared),
                                                                    abs=1e-12)


def test_experiment_ahead_equals_a_full_pair_matrix():
    scores = [0.75, 0.80, 0.81]
    e = run_experiment(AUC, scores, [1000], [0.01], draws=100, seed=4)
    rows = get_universe(AUC, 1000, 0.01).simulate(np.array(scores), 1000, 0.01, 100, 4)
    for a in e.ahead:
        x, y = rows[scores.index(a.better)], rows[scores.index(a.worse)]
        diff = x[:, None] - y[None, :]                  # B x B, every test-set pair
        score = (diff > 0) + 0.5 * (diff == 0)
        np.fill_diagonal(score, np.nan)                 # same test set: not independent
        assert a.probability == pytest.approx(np.nanmean(score), abs=1e-12)


def _placement_se(x, y):
    """SE of the all-pairs estimate from its placement values (Hoeffding); it ignores the
    negative covariance that shared test sets add, so it errs on the large side."""
    ys, xs = np.sort(y), np.sort(x)
    fx = (np.searchsorted(ys, x, "left") + np.searchsorted(ys, x, "right")) / (2 * y.size)
    fy = (np.searchsorted(xs, y, "left") + np.searchsorted(xs, y, "right")) / (2 * x.size)
    return math.sqrt(fx.var(ddof=1) / x.size + fy.var(ddof=1) / y.size)


def test_ahead_probability_matches_the_normal_approximation():
    scores, draws = [0.75, 0.80, 0.81], 3000
    universe = get_universe(AUC, 1000, 0.01)
    rows = universe.simulate(np.array(scores), 1000, 0.01, draws, 5)
    e = run_experiment(AUC, scores, [1000], [0.01], draws=draws, seed=5)
    for a in e.ahead:
        x, y = rows[scores.index(a.better)], rows[scores.index(a.worse)]
        sd = math.hypot(universe.exact_sd(a.better, 1000, 0.01),
                        universe.exact_sd(a.worse, 1000, 0.01))
        expected = norm.cdf((a.better - a.worse) / sd)
        assert abs(a.probability - expected) <= NORMAL_APPROX + 4 * _placement_se(x, y)
    closest = next(a for a in e.ahead if (a.better, a.worse) == (0.81, 0.80))
    assert 0.5 < closest.probability < 0.65         # the seeds' picture: barely better than a toss


def test_ahead_probability_matches_two_exact_binomials():
    # Accuracy's universe is binomial, so P(X > Y) + P(X = Y)/2 is exact for independent counts.
    n, better, worse, draws = 400, 0.82, 0.80, 4000
    e = run_experiment(get_metric("accuracy"), [worse, better], [n], [None], draws=draws, seed=2)
    k = np.arange(n + 1)
    px, py = binom.pmf(k, n, better), binom.pmf(k, n, worse)
    joint = np.outer(px, py)
    exact = np.tril(joint, -1).sum() + 0.5 * np.trace(joint)
    rows = get_universe(get_metric("accuracy"), n, None).simulate(np.array([better, worse]), n,
                                                                  None, draws, 2)
    (a,) = e.ahead
    assert (a.better, a.worse) == (better, worse)
    assert abs(a.probability - exact) <= 4 * _placement_se(rows[0], rows[1])


# --- (e) JSON, errors, determinism ---------------------------------------------------------------

def _run(tmp_path, *args, name="sim"):
    out = tmp_path / f"{name}.json"
    status = main(["simulate", *args, "-o", str(tmp_path / f"{name}.html"), "--json", str(out),
                   "--quiet"])
    return status, out


def test_json_schema(tmp_path):
    status, out = _run(tmp_path, "--score", "0.75,0.80,0.81", "--n-test", "1000",
                       "--prevalence", "0.01", "--draws", "300")
    assert status == 0
    data = json.loads(out.read_text(encoding="utf-8"))
    assert {"seed", "universe", "assumptions", "cases", "ahead", "d95_table",
            "partial_correlations"} <= set(data)
    assert data["universe"] == "binormal" and "positives" in data["assumptions"][0]["text"]
    assert len(data["cases"]) == 3 and len(data["ahead"]) == 3 and data["d95_table"] is None
    for case in data["cases"]:
        assert {"metric", "score", "n_test", "prevalence", "draws", "d95", "quantiles", "sd",
                "exact_sd", "universe", "mean"} <= set(case)
        assert set(case["quantiles"]) == {"2.5", "50", "97.5"}
        q = case["quantiles"]
        assert q["2.5"] < q["50"] < q["97.5"] and case["draws"] == 300 and case["d95"] > 0
    assert {(a["better"], a["worse"]) for a in data["ahead"]} == {(0.81, 0.8), (0.81, 0.75),
                                                                   (0.8, 0.75)}


def test_grid_json_has_table_and_partial_correlations(grid):
    data = to_json_dict(grid)
    assert len(data["d95_table"]["rows"]) == 9 and data["d95_table"]["scores"] == [0.7, 0.8, 0.9]
    assert set(data["partial_correlations"]) == {"score", "n_test", "prevalence"}
    json.dumps(data, allow_nan=False)


def test_same_seed_same_json_and_another_seed_differs(tmp_path):
    args = ("--metric", "auc", "--score", "0.8,0.9", "--n-test", "1000", "--prevalence", "0.05",
            "--draws", "200")
    _, first = _run(tmp_path, *args, "--seed", "3", name="a")
    _, second = _run(tmp_path, *args, "--seed", "3", name="b")
    _, third = _run(tmp_path, *args, "--seed", "4", name="c")
    assert first.read_bytes() == second.read_bytes()
    assert first.read_bytes() != third.read_bytes()


@pytest.mark.parametrize("args, words", [
    (["--score", "0.8", "--n-test", "1000"], "--prevalence is needed"),
    (["--score", "abc", "--n-test", "1000", "--prevalence", "0.1"], "not a number"),
    (["--score", "0.8", "--n-test", "-5", "--prevalence", "0.1"], "at least 2"),
    (["--score", "0.8", "--n-test", "10.5", "--prevalence", "0.1"], "whole number"),
    (["--score", "0.8", "--n-test", "1000", "--prevalence", "1.5"], "strictly between 0 and 1"),
    (["--score", "1.2", "--n-test", "1000", "--prevalence", "0.1"], "outside the range"),
    (["--score", "0.8,0.8", "--n-test", "1000", "--prevalence", "0.1"], "more than once"),
    (["--score", "0.8", "--n-test", "1000", "--prevalence", "0.1", "--draws", "10"], "--draws"),
    (["--score", "0.8", "--n-test", "1000", "--prevalence", "0.1", "--seed", "-1"], "--seed"),
    (["--n-test", "1000", "--prevalence", "0.1"], "--score is required"),
    (["--metric", "nonsense", "--score", "0.8", "--n-test", "100"], "unknown metric"),
    (["--metric", "accuracy", "--score", "0.8", "--n-test", "100", "--prevalence", "0.1"],
     "does not apply"),
    (["--score", "0.8", "--n-test", "100", "--prevalence", "0.001"], "0 positives"),
])
def test_cli_errors_are_one_line_with_exit_2(tmp_path, capsys, args, words):
    status = main(["simulate", *args, "-o", str(tmp_path / "x.html"), "--quiet"])
    err = capsys.readouterr().err
    assert status == 2
    assert err.count("\n") == 1 and err.startswith("leaderboard: error:") and words in err
    assert not (tmp_path / "x.html").exists()


def test_unwritable_output_is_a_one_line_error(tmp_path, capsys):
    status = main(["simulate", "--score", "0.8", "--n-test", "1000", "--prevalence", "0.1",
                   "--draws", "100", "-o", str(tmp_path / "missing" / "x.html"), "--quiet"])
    assert status == 2 and "cannot write" in capsys.readouterr().err


def test_metrics_without_prevalence_and_their_grid():
    accuracy = get_metric("accuracy")
    assert not needs_prevalence(accuracy) and needs_prevalence(AUC)
    e = run_experiment(accuracy, *grid_lists([0.8, 0.9], [200, 800], None, False), draws=100)
    assert len(e.cases) == 4 and set(e.partial) == {"score", "n_test"}


@pytest.mark.parametrize("name, args", [
    ("rmse", ["--score", "1.0", "--n-test", "500"]),
    ("mae", ["--score", "0.8,0.82", "--n-test", "500"]),
    ("log_loss", ["--score", "0.3", "--n-test", "1000", "--prevalence", "0.2"]),
    ("f1", ["--score", "0.7", "--n-test", "1000", "--prevalence", "0.2"]),
])
def test_other_metrics_simulate_with_their_universe(tmp_path, name, args):
    assert not_simulable_reason(get_metric(name)) is None
    status, out = _run(tmp_path, "--metric", name, *args, "--draws", "400")
    data = json.loads(out.read_text(encoding="utf-8"))
    assert status == 0 and all(c["d95"] > 0 for c in data["cases"])
    for c in data["cases"]:  # log loss and MAE have exact SDs: 4 relative SEs of an SD from 400
        if c["exact_sd"] is not None:
            assert c["sd"] == pytest.approx(c["exact_sd"], rel=4 / np.sqrt(2 * 399))
    assert (name in ("log_loss", "mae")) == all(c["exact_sd"] is not None for c in data["cases"])
    for a in data["ahead"]:  # the lower score is the better one for an error metric
        assert (a["better"] < a["worse"]) == (not data["higher_is_better"])


# --- (f) the HTML page -----------------------------------------------------------------------------

def test_html_escapes_user_text_and_loads_nothing(tmp_path):
    folder = tmp_path / "<script>alert('x')&"  # a file name cannot hold "/"
    folder.mkdir()
    status = main(["simulate", "--score", "0.75,0.8", "--n-test", "1000", "--prevalence", "0.01",
                   "--draws", "100", "-o", str(folder / "r.html"), "--quiet"])
    page = (folder / "r.html").read_text(encoding="utf-8")
    assert status == 0
    assert_offline(page)
    markup = without_scripts(page)
    assert "<script>alert" not in page and "&lt;script&gt;" in markup and "&amp;" in markup
    assert "http://" not in markup and "https://" not in markup
    charts = page_charts(page)
    assert set(charts) == {"chart-sim-overlay", "chart-sim-ecdfs"}
    for chart in charts.values():
        validate(chart["spec"])


def test_grid_page_shows_facets_table_and_assumptions(grid):
    page = render_html(grid, command="leaderboard simulate --grid <b>")
    rows = page_charts(page)["chart-sim-grid"]["spec"]["datasets"]["rows"]
    assert len({r["panel"] for r in rows}) == 9 and "Partial correlation" in page
    assert sum(r["kind"] == "d95" for r in rows) == len(grid.cases)   # each case's d95 written
    assert all(r["text"].startswith("true ") for r in rows if r["kind"] == "d95")
    assert "&lt;b&gt;" in page and "<b>" not in page
    assert grid.settings[0].assumptions.split(",")[0] in page
    assert "d95" in page and "truly better" in page.lower()
