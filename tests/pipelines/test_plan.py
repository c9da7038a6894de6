"""`leaderboard plan`: minimum test-set size and minimum detectable difference, against independent
references (the two-proportion formula, the seeds' exact AUC variance, the delta method for RMSE,
the half-normal for MAE) and against simulation."""
from __future__ import annotations

import dataclasses
import json
import math
import re

import numpy as np
import pytest
from scipy.stats import norm

from leaderboard.cli import main
from chart_helpers import assert_offline, page_charts, validate, without_scripts
from leaderboard.errors import InputError
from leaderboard.metrics import get_metric
from leaderboard.noise.universes import SeedsAUCUniverse, UniverseOptions, get_universe
from leaderboard.options import NoiseOptions, RankOptions, SliceOptions
from leaderboard.pipelines.plan import PlanSettings, plan
from leaderboard.report.plan_report import render_html, terminal_text, to_json_dict

Z80 = norm.ppf(0.975) + norm.ppf(0.8)
# Normal-approximation allowance for simulated power. Measured at 20,000-40,000 draws (Monte Carlo
# SE 0.002-0.003) on 10 AUC settings from 7 to 660 positives (AUC .7-.95, prevalence 1-50%):
# |simulated - normal| was at most 0.0042, each within 1.5 SE of 0, so the approximation's own
# error is below ~0.005; 0.01 leaves a factor 2.
NORMAL_ALLOWANCE = 0.01


NORMAL = UniverseOptions(residuals="normal")   # the closed forms below are for normal residuals


def settings(metric, score, *, alpha=0.05, **kw):
    """The question, the noise options (prevalence, draws, seed, correlation, universe) taken
    from ``kw`` into their object."""
    noise = {k: kw.pop(k) for k in ("prevalence", "draws", "seed", "correlation", "universe")
             if k in kw}
    noise.setdefault("draws", 100)
    slices = {k: kw.pop(k) for k in ("n_test", "public_fraction") if k in kw}
    return PlanSettings(get_metric(metric), score, NoiseOptions(**noise),
                        RankOptions(alpha=alpha), SliceOptions(**slices), **kw)


def power_tolerance(p, draws):
    """3 Monte Carlo SEs of a share from ``draws`` pairs (an upper bound: the pairs are negatively
    correlated), plus the measured normal-approximation allowance, plus the power that rounding n
    up adds (normal_power - power)."""
    c = p.check
    return (3 * math.sqrt(p.settings.power * (1 - p.settings.power) / draws) + NORMAL_ALLOWANCE
            + abs(c.normal_power - p.settings.power))


class HiddenExactSD:
    """A universe whose exact SD is withheld, to force the simulated path."""

    def __init__(self, inner):
        self.inner = inner
        self.name = inner.name

    def __getattr__(self, attr):
        return getattr(self.inner, attr)

    def exact_sd(self, *args):
        return None


# --- answers against independent references --------------------------------------------------

@pytest.mark.parametrize("acc,delta,alpha,power", [(0.80, 0.02, 0.05, 0.8), (0.95, 0.01, 0.01, 0.9),
                                                   (0.5, 0.05, 0.1, 0.5), (0.3, 0.1, 0.05, 0.8)])
def test_accuracy_min_n_is_the_two_proportion_formula(acc, delta, alpha, power):
    z = norm.ppf(1 - alpha / 2) + norm.ppf(power)
    p1, p2 = acc, acc + delta
    formula = z ** 2 * (p1 * (1 - p1) + p2 * (1 - p2)) / delta ** 2
    result = plan(settings("accuracy", acc, delta=delta, alpha=alpha, power=power), table=False)
    assert result.sd_method == "exact"
    assert abs(result.min_n - math.ceil(formula)) <= 1  # the formula's n, rounded up


@pytest.mark.parametrize("acc,n", [(0.8, 5000), (0.3, 777)])
def test_accuracy_mdd_is_the_root_of_the_quadratic(acc, n):
    # n d^2 = z^2 (p(1-p) + (p+d)(1-p-d))  <=>  (n + z^2) d^2 - z^2 (1-2p) d - 2 z^2 p(1-p) = 0
    a, b, c = n + Z80 ** 2, -Z80 ** 2 * (1 - 2 * acc), -2 * Z80 ** 2 * acc * (1 - acc)
    root = (-b + math.sqrt(b * b - 4 * a * c)) / (2 * a)
    result = plan(settings("accuracy", acc, n_test=n), table=False)
    assert result.mdd == pytest.approx(root, rel=1e-9)


def test_auc_min_n_from_the_exact_sd_and_simulated_power():
    u, draws = get_universe(get_metric("auc"), 1000, 0.05), 2000   # the default universe
    result = plan(settings("auc", 0.80, prevalence=0.05, delta=0.04, draws=draws, seed=1),
                  table=False)
    n = result.min_n

    def resolves(k):  # the criterion, recomputed from the universe's exact SD
        return Z80 * math.hypot(u.exact_sd(0.80, k, 0.05), u.exact_sd(0.84, k, 0.05)) <= 0.04

    assert resolves(n) and not resolves(n - 1)
    # The AUC's variance is root-n up to (m-1)/(mk)-type terms: scaling the exact SD from 1000 or
    # 100,000 rows lands within 0.5% of the answer (the class counts' rounding moves it a little
    # outside the bracket: 16,051 against 16,055-16,065 in the default universe).
    scaled = [k * Z80 ** 2 * (u.exact_sd(0.80, k, 0.05) ** 2 + u.exact_sd(0.84, k, 0.05) ** 2)
              / 0.04 ** 2 for k in (1000, 100_000)]
    assert 0.995 * min(scaled) <= n <= 1.005 * max(scaled)
    c = result.check
    assert c.n == n and c.pairs == draws
    assert abs(c.simulated_power - 0.8) <= power_tolerance(result, draws)


def test_simulated_sd_agrees_with_the_exact_one():
    """Forcing the simulated path on the seeds' universe gives the exact path's n within Monte Carlo
    error: n is proportional to a simulated variance, relative SE sqrt(2 / (B - 1)); allow 4."""
    draws = 2000
    base = settings("auc", 0.80, prevalence=0.05, delta=0.04, draws=draws, seed=2)
    exact = plan(base, universe=SeedsAUCUniverse(), table=False)
    simulated = plan(base, universe=HiddenExactSD(SeedsAUCUniverse()), table=False)
    assert simulated.sd_method == "simulated" and len(simulated.simulated_at) >= 2
    # the answer rests on a simulation at (nearly) its own size, not on root-n scaling from the pilot
    last = simulated.simulated_at[-1]
    assert abs(simulated.min_n - last) <= max(0.01, 2 * math.sqrt(2 / (draws - 1))) * last
    assert simulated.min_n == pytest.approx(exact.min_n, rel=4 * math.sqrt(2 / (draws - 1)))
    assert abs(simulated.check.simulated_power - 0.8) <= power_tolerance(simulated, draws)


@pytest.mark.parametrize("metric,score,prevalence,delta", [
    ("auc", 0.8, 0.05, 0.03), ("accuracy", 0.9, None, 0.02), ("log_loss", 0.3, 0.2, 0.02),
    ("auc", 0.95, 0.01, 0.02)])
def test_mdd_and_min_n_are_inverses(metric, score, prevalence, delta):
    n = plan(settings(metric, score, prevalence=prevalence, delta=delta), table=False).min_n
    at = plan(settings(metric, score, prevalence=prevalence, n_test=n), table=False).mdd
    below = plan(settings(metric, score, prevalence=prevalence, n_test=n - 1), table=False).mdd
    assert at <= delta * (1 + 1e-9) and below > delta  # the MDD is pinned to 1e-9 relative


def test_lower_is_better_moves_the_better_entry_down():
    result = plan(settings("log_loss", 0.30, prevalence=0.2, delta=0.02), table=False)
    u = get_universe(get_metric("log_loss"), 1000, 0.2)
    sd = [u.exact_sd(x, result.min_n, 0.2) for x in (0.30, 0.28)]
    assert Z80 * math.hypot(*sd) <= 0.02
    assert to_json_dict(result)["better_score"] == pytest.approx(0.28)
    with pytest.raises(InputError, match="out of reach"):
        plan(settings("log_loss", 0.30, prevalence=0.2, delta=0.31), table=False)


@pytest.mark.parametrize("metric,rho", [("accuracy", 0.5), ("auc", 0.3)])
def test_correlation_shrinks_n_by_one_minus_rho(metric, rho):
    kw = dict(prevalence=0.05 if metric == "auc" else None, delta=0.02)
    independent = plan(settings(metric, 0.8, **kw), table=False)
    paired = plan(settings(metric, 0.8, correlation=rho, **kw), table=False)
    assert paired.min_n_independent == independent.min_n
    # with sd1 close to sd2 the variance of the difference is 2 sd^2 (1 - rho): n shrinks alike
    assert paired.min_n / independent.min_n == pytest.approx(1 - rho, abs=0.01)
    # the check is made for independent entries, at their answer
    assert paired.check.n == independent.min_n


@pytest.mark.parametrize("fraction", [0.3, 0.25, 0.9])
def test_public_fraction_needs_n_over_f(fraction):
    result = plan(settings("accuracy", 0.8, delta=0.02, n_test=4000, public_fraction=fraction),
                  table=False)
    full = result.min_n_public
    # the slice is n F rounded half up: n / F less half a row of the slice, up to one row more
    assert (result.min_n - 0.5) / fraction <= full <= (result.min_n - 0.5) / fraction + 1
    assert math.floor(full * fraction + 0.5) >= result.min_n  # its public slice has the rows
    assert result.public_n == round(4000 * fraction)
    slice_only = plan(settings("accuracy", 0.8, n_test=result.public_n), table=False)
    assert result.mdd_public == pytest.approx(slice_only.mdd, rel=1e-12)


# --- every metric the issue names ------------------------------------------------------------

def test_rmse_min_n_matches_the_delta_method():
    """Normal residuals: SD(RMSE) ~ RMSE / sqrt(2 n), so n = z^2 (R1^2 + R2^2) / (2 delta^2).
    Simulated SD: n is proportional to a simulated variance (relative SE sqrt(2/(B-1))); allow 4."""
    draws = 2000
    result = plan(settings("rmse", 1.0, delta=0.1, draws=draws, seed=4, universe=NORMAL),
                  table=False)
    analytic = Z80 ** 2 * (1.0 ** 2 + 0.9 ** 2) / (2 * 0.1 ** 2)
    assert result.sd_method == "simulated"
    assert result.min_n == pytest.approx(analytic, rel=4 * math.sqrt(2 / (draws - 1)))
    assert abs(result.check.simulated_power - 0.8) <= power_tolerance(result, draws)


def test_mae_min_n_matches_the_half_normal():
    """Normal residuals: SD(MAE) = MAE sqrt(pi/2 - 1) / sqrt(n) exactly; the universe's 16,384
    normal quantiles match it to ~1e-4, well inside one row at these sizes."""
    result = plan(settings("mae", 1.0, delta=0.05, n_test=2000, universe=NORMAL), table=False)
    analytic = Z80 ** 2 * (math.pi / 2 - 1) * (1.0 + 0.95 ** 2) / 0.05 ** 2
    assert abs(result.min_n - analytic) <= 1 + 1e-3 * analytic
    sd = math.sqrt(math.pi / 2 - 1) / math.sqrt(2000)
    assert result.mdd == pytest.approx(Z80 * sd * math.sqrt(2), rel=0.05)  # sd(s + d) ~ sd(s)


@pytest.mark.parametrize("metric,score,prevalence,delta", [("log_loss", 0.4, 0.2, 0.03),
                                                           ("f1", 0.6, 0.2, 0.06)])
def test_log_loss_and_f1_give_checked_answers(metric, score, prevalence, delta):
    draws = 1000
    result = plan(settings(metric, score, prevalence=prevalence, delta=delta, n_test=3000,
                           draws=draws), table=False)
    assert result.min_n > 2 and 0 < result.mdd < 1
    assert abs(result.check.simulated_power - 0.8) <= power_tolerance(result, draws)


# --- command line, JSON, page ----------------------------------------------------------------

def run_cli(tmp_path, *args, name="p"):
    html, out = tmp_path / f"{name}.html", tmp_path / f"{name}.json"
    status = main(["plan", *args, "-o", str(html), "--json", str(out), "--quiet"])
    assert status == 0
    return json.loads(out.read_text()), html.read_text(encoding="utf-8")


def test_cli_json_has_the_asked_answers_and_is_deterministic(tmp_path):
    args = ["--metric", "accuracy", "--score", "0.8", "--prevalence", "0.1", "--delta", "0.05",
            "--n-test", "1500", "--public-fraction", "0.3", "--correlation", "0", "--draws",
            "200", "--seed", "7"]
    first, html1 = run_cli(tmp_path, *args, name="a")
    second, html2 = run_cli(tmp_path, *args, name="b")
    other, _ = run_cli(tmp_path, *args[:-1], "8", name="c")
    assert first == second and html1 == html2
    assert other["simulated_power"] != first["simulated_power"]
    for key in ("min_n", "min_n_public", "mdd", "mdd_public", "sd_method", "simulated_power"):
        assert first[key] is not None
    assert first["sd_method"] == "exact" and "min_n_independent" not in first
    marked = {row["n"]: row["marks"] for row in first["table"] if row["marks"]}
    assert marked == {1500: ["your n"], first["min_n"]: ["minimum n"]}
    sizes = {r["n"] for r in first["table"]}
    assert {500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000} <= sizes
    only_n, _ = run_cli(tmp_path, *args[:6], "--n-test", "1500", "--correlation", "0", name="d")
    assert "min_n" not in only_n and only_n["mdd"] == pytest.approx(first["mdd"])
    assert "<svg" in html1 and "http" not in without_scripts(html1).split("<body>")[1]
    assert_offline(html1)
    chart = page_charts(html1)["chart-plan-mdd"]
    validate(chart["spec"])
    curve = chart["spec"]["datasets"]["curve"]
    full = [(r["n"], r["mdd"]) for r in curve if r["series"] == "whole test set"]
    sizes = sorted(r["n"] for r in first["table"])
    assert [n for n, _ in full] == sorted(n for n, _ in full) and len(full) >= len(sizes)
    assert full[0][0] <= sizes[0] and full[-1][0] >= sizes[-1]             # spans the table
    assert all(a[1] > b[1] for a, b in zip(full, full[1:]))                # falls with n
    pins = chart["spec"]["datasets"]["pins"]
    assert [p["text"].split(":")[0] for p in pins][:2] == ["your n", "minimum n"]


def test_cli_prints_the_answer_and_the_table(capsys):
    assert main(["plan", "--metric", "accuracy", "--score", "0.9", "--delta", "0.01",
                 "--correlation", "0"]) == 0
    out = capsys.readouterr().out
    # two-proportion formula: 7.849 * (0.09 + 0.0819) / 0.01^2 = 13,492.3
    assert "the test set needs at least 13,493 rows" in out
    assert "100,000" in out and "<- minimum n" in out


@pytest.mark.parametrize("args,message", [
    (["--alpha", "0"], "--alpha"), (["--alpha", "1.5"], "--alpha"), (["--power", "1"], "--power"),
    (["--delta", "0"], "--delta must be positive"), (["--delta", "-0.1"], "--delta"),
    (["--public-fraction", "0"], "--public-fraction"),
    (["--public-fraction", "1.2"], "--public-fraction"), (["--n-test", "1"], "--n-test"),
    (["--correlation", "1"], "--correlation"), (["--delta", "0.3"], "out of reach"),
    (["--score", "1.2"], "out of reach"), (["--metric", "ari"], "cannot be simulated"),
    (["--metric", "nope"], "unknown metric"), (["--draws", "5"], "--draws"),
])
def test_bad_values_are_one_line_errors(capsys, args, message):
    base = {"--metric": "auc", "--score": "0.8", "--prevalence": "0.1", "--delta": "0.05"}
    for flag, value in zip(args[::2], args[1::2]):
        base[flag] = value
    argv = ["plan"] + [x for pair in base.items() for x in pair]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.parametrize("given,message", [
    (dict(delta=0.05, public_fraction=1.0), "public_fraction= must be strictly between 0 and 1"),
    (dict(delta=0.05, power=1), "power= must be strictly between 0 and 1"),
    (dict(n_test=1), "n_test= must be at least 2"), ({}, "give --delta"),
    (dict(delta=float("nan")), "delta= must be positive")])
def test_the_settings_check_themselves_as_the_table_does(given, message):
    """Issue 42: PlanSettings checks its own values through the parameter table when it is made
    (it had its own bounds, and took a public fraction of 1 the API and command line refuse)."""
    with pytest.raises(InputError, match=re.escape(message)):
        settings("accuracy", 0.8, **given)


def test_neither_delta_nor_n_is_an_error(capsys):
    assert main(["plan", "--metric", "auc", "--score", "0.8", "--prevalence", "0.1"]) == 2
    assert "give --delta" in capsys.readouterr().err


def test_page_escapes_what_it_shows():
    metric = dataclasses.replace(get_metric("accuracy"), label="<b>R&D</b>")
    result = plan(PlanSettings(metric, 0.8, NoiseOptions(draws=100), slices=SliceOptions(n_test=1000),
                               delta=0.05))
    html = render_html(result)
    assert "&lt;b&gt;R&amp;D&lt;/b&gt;" in html and "<b>R&D</b>" not in html
    assert "<b>R&D</b>" in terminal_text(result)  # plain text where plain text is printed
    assert html == render_html(result)


def test_table_and_curve_for_a_simulated_metric():
    # 1,600 draws: t(3) squared errors make the simulated SD's own Monte Carlo error large (at
    # 400 draws the curve and the table's row differed by 6.5%, at 1,600 by 4.1%)
    result = plan(settings("rmse", 1.0, delta=0.1, n_test=1000, public_fraction=0.5, draws=1600))
    mdd = {r.n: r.mdd for r in result.table}
    ns = sorted(mdd)
    assert all(mdd[a] > mdd[b] for a, b in zip(ns, ns[1:]))  # falls with n
    assert mdd[1000] == result.mdd and mdd[result.min_n] <= 0.1
    curve = np.array(result.curve)
    assert np.all(np.diff(curve[:, 1]) < 0)
    # the curve is root-n scaled from one simulation: it agrees with the table's rows to a few %
    assert np.interp(np.log(1000), np.log(curve[:, 0]), curve[:, 1]) == pytest.approx(
        result.mdd, rel=0.05)
