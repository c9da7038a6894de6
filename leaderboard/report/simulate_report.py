"""The ``simulate`` report: an HTML page (words and numbers here, layout in the template) and JSON.

The page is self-contained like the analysis report (inline CSS and SVG, no scripts, nothing
loaded). The only user-typed text it shows is the command line, which reaches the page through
Jinja2 autoescaping. The JSON is strict (no NaN tokens) and the same experiment always gives the
same bytes.
"""
from __future__ import annotations

import json
import math

import numpy as np

from leaderboard.pipelines.simulate import PARAMETERS, Case, Experiment
from leaderboard.report.vega import analyze as vega_analyze
from leaderboard.report.vega import simulate as vega_simulate
from leaderboard.report.vega.embed import block, page_scripts, static_drawings
from leaderboard.report.render import render_page
from leaderboard.report.headline import fit_answer
from leaderboard.report.words import Fact, pct
from leaderboard.safe_write import write_text

TEMPLATE = "simulate.html.j2"
PARAMETER_WORDS = {"score": "true score", "n_test": "test-set size (rows)",
                   "prevalence": "prevalence (share of positives)"}


# --- JSON ---------------------------------------------------------------------------------------

def _num(value) -> float | None:
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _case_json(c: Case, draws: int) -> dict:
    return {"metric": c.metric, "score": c.score, "n_test": c.n_test,
            "prevalence": _num(c.prevalence), "draws": int(draws), "undefined": c.undefined,
            "universe": c.universe, "mean": _num(c.mean), "sd": _num(c.sd),
            "exact_sd": _num(c.exact_sd), "d95": _num(c.d95),
            "quantiles": {"2.5": _num(c.quantiles[0]), "50": _num(c.quantiles[1]),
                          "97.5": _num(c.quantiles[2])}}


def d95_table(e: Experiment) -> dict:
    """d95 with one row per test-set kind and one column per true score."""
    scores = list(dict.fromkeys(c.score for c in e.cases))
    lookup = {(c.score, c.n_test, c.prevalence): c.d95 for c in e.cases}
    return {"scores": scores,
            "rows": [{"n_test": s.n_test, "prevalence": _num(s.prevalence),
                      "d95": [_num(lookup[(x, s.n_test, s.prevalence)]) for x in scores]}
                     for s in e.settings]}


def method(e: Experiment) -> str:
    return (f"Monte Carlo: {e.draws:,} simulated test sets per true score. True scores that share a "
            "test-set size and prevalence are scored on the same simulated test sets. d95 is the "
            "95th percentile of |difference| over all pairs of draws, found by sorting (no pairwise "
            "matrix). The ahead probability compares every draw of one score with every draw of "
            "the other taken from a different test set, so the two models are scored on "
            "independent test sets.")


def to_json_dict(e: Experiment) -> dict:
    """Everything the report says, as a JSON-ready dict.

    Top level: ``version, command, metric, metric_label, higher_is_better, seed, draws, grid,
    universe, assumptions, method, cases, ahead, d95_table, partial_correlations``. ``ahead`` lists
    every pair of true scores at one test-set kind with the probability that the truly better is
    observed strictly ahead (ties one half) on independent test sets. ``d95_table`` and
    ``partial_correlations`` (raw parameters, see :func:`leaderboard.pipelines.simulate.partial_correlations`)
    are null outside a grid.
    """
    from leaderboard import __version__

    return {
        "version": __version__, "command": "simulate",
        "metric": e.metric, "metric_label": e.metric_label,
        "higher_is_better": bool(e.higher_is_better), "seed": e.seed, "draws": e.draws,
        "grid": bool(e.grid), "universe": e.universe,
        "assumptions": [{"n_test": s.n_test, "prevalence": _num(s.prevalence),
                         "universe": s.universe, "text": s.assumptions} for s in e.settings],
        "method": method(e),
        "cases": [_case_json(c, e.draws) for c in e.cases],
        "ahead": [{"n_test": a.n_test, "prevalence": _num(a.prevalence), "better": a.better,
                   "worse": a.worse, "probability": _num(a.probability)} for a in e.ahead],
        "d95_table": d95_table(e) if e.grid else None,
        "partial_correlations": None if e.partial is None else {
            k: _num(v) for k, v in e.partial.items()},
    }


def json_text(e: Experiment) -> str:
    """The JSON ``leaderboard simulate --json`` writes."""
    return json.dumps(to_json_dict(e), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def write_json(e: Experiment, path) -> None:
    write_text(path, json_text(e))


# --- words --------------------------------------------------------------------------------------

class Fmt:
    """Observed scores with enough decimals that the smallest d95 keeps two significant figures
    (at least three decimals for scores within [-1, 1], at most six); SDs get one more."""

    def __init__(self, e: Experiment):
        positive = [c.d95 for c in e.cases if c.d95 > 0]
        decimals = 1 - math.floor(math.log10(min(positive))) if positive else 4
        if all(abs(c.mean) <= 1 for c in e.cases):
            decimals = max(decimals, 3)
        self.decimals = min(max(decimals, 0), 6)

    def __call__(self, value, extra: int = 0) -> str:
        if value is None or not np.isfinite(value):
            return "\u2014"
        text = f"{float(value):.{self.decimals + extra}f}"
        return text.lstrip("-") if float(text) == 0 else text

    def sd(self, value) -> str:
        return self(value, 1)


def setting_words(n_test: int, prevalence: float | None) -> str:
    return f"{n_test:,} rows" + (f", {pct(prevalence)} positives" if prevalence is not None else "")


def _prob(p: float) -> str:
    """A probability in percent, one decimal; never rounded to a certain 0% or 100%."""
    if not np.isfinite(p):
        return "\u2014"
    if p >= 0.9995:
        return "> 99.9%"
    return "< 0.1%" if p < 0.0005 else f"{100 * p:.1f}%"


def _answer(e: Experiment, f: Fmt, mode: str) -> tuple[str, list[str]]:
    label = e.metric_label
    if mode == "grid":
        lo = min(e.cases, key=lambda c: c.d95)
        hi = max(e.cases, key=lambda c: c.d95)
        head = (f"d95, the gap that two equally good models exceed one time in twenty, runs from "
                f"{f(hi.d95)} (true {label} {hi.score:g}, {setting_words(hi.n_test, hi.prevalence)})"
                f" down to {f(lo.d95)} (true {lo.score:g}, "
                f"{setting_words(lo.n_test, lo.prevalence)}).")
        said = []
        r = {k: v for k, v in (e.partial or {}).items() if v is not None}
        if r:
            said.append("Partial correlations with d95, each holding the other parameters fixed: "
                        + "; ".join(f"{PARAMETER_WORDS[k]} {v:+.2f}" for k, v in r.items()) + ".")
            if all(v < 0 for v in r.values()):
                said.append("All are negative: raising any one of them lowers the noise.")
        return head, said
    c = e.cases[0]
    where = setting_words(c.n_test, c.prevalence)
    if mode == "single":
        head = (f"A model whose true {label} is {c.score:g} scores anywhere from "
                f"{f(c.quantiles[0])} to {f(c.quantiles[2])} on 95% of test sets of {where}.")
        return head, [f"Two equally good models, each scored on its own such test set, differ by "
                      f"more than {f(c.d95)} one time in twenty (d95). A smaller gap between two "
                      "entries is weak evidence that one of them is better."]
    # several true scores at one kind of test set: the closest pair is the seeds' picture
    closest = min(e.ahead, key=lambda a: abs(a.better - a.worse))
    head = (f"The truly better model (true {label} {closest.better:g}) is observed ahead of one "
            f"at {closest.worse:g} only {_prob(closest.probability)} of the time; a coin toss "
            "would give 50%.")
    said = [f"Each is scored on its own test set of {where}."]
    said += [f"{a.better:g} ahead of {a.worse:g}: {_prob(a.probability)}." for a in e.ahead
             if a is not closest]
    said.append("d95: " + ", ".join(f"{f(c.d95)} at {c.score:g}" for c in e.cases) + ".")
    return head, said


def _facts(e: Experiment, command: str | None) -> list[Fact]:
    scores = ", ".join(dict.fromkeys(f"{c.score:g}" for c in e.cases))
    sizes = list(dict.fromkeys(s.n_test for s in e.settings))
    shares = [p for p in dict.fromkeys(s.prevalence for s in e.settings) if p is not None]
    kinds = ", ".join(f"{n:,}" for n in sizes) + " rows" + (
        " \u00d7 " + ", ".join(pct(p) for p in shares) + " positives" if shares else "")
    facts = [Fact("Metric", f"{e.metric_label} ({'higher' if e.higher_is_better else 'lower'} "
                  "is better)"),
             Fact("True scores", scores),
             Fact("Test sets", kinds),
             Fact("Simulation", f"{e.draws:,} test sets per true score, seed {e.seed}"),
             Fact("Cases", f"{len(e.cases)}" + (" (grid)" if e.grid else ""))]
    if command:
        facts.append(Fact("Command", command))
    return facts


def _how(e: Experiment) -> list[Fact]:
    how = [
        Fact("True score", "The metric computed on the whole simulated universe, which the "
             "simulation is calibrated to: it is known exactly, unlike in a real competition."),
        Fact("Observed score", "The metric on one test set drawn from the universe: what a "
             "leaderboard would show for a model whose true score is known."),
        Fact("95% range", "The 2.5% and 97.5% quantiles of the observed scores: 95% of test sets "
             "give a score between them (up to simulation error)."),
        Fact("d95", "Take two models with the same true score, each scored on its own test set: "
             "their observed scores differ by more than d95 only one time in twenty. It is the "
             "95th percentile of |difference| over all pairs of simulated scores. A gap smaller "
             "than d95 between two leaderboard entries is weak evidence that one is better."),
        Fact("SD and exact SD", "The standard deviation of the simulated scores, and the exact one "
             "of the universe where it is known (for AUC from the U-statistic variance, for "
             "accuracy the binomial's); they agree up to simulation error. For a normal shape d95 "
             "is about 1.96 \u00d7 \u221a2 \u00d7 SD."),
        Fact("Truly better ahead", "For two true scores on the same kind of test set: the "
             "probability that the truly better model gets the better observed score when each "
             "is scored on its own test set (ties count one half). 50% would be a coin toss; "
             "the seeds' point is that with small or rare-positive test sets it is not far "
             "above that, so the winner of a close race is often the luckiest, not the best."),
        Fact("What is not covered", "Only the luck of which rows end up in the test set, in a "
             "universe of this shape. Real models whose scores are distributed differently, rows "
             "that are not independent, leakage and overfitting to a public board are outside."),
    ]
    if not e.ahead:
        how = [f for f in how if f.label != "Truly better ahead"]
    if e.grid:
        how.append(Fact("Partial correlation", "How d95 moves with one parameter when the others "
                        "are held fixed: the correlation of the residuals of d95 and of the "
                        "parameter after both are regressed (least squares) on the others, "
                        "using the parameters' raw values (not logarithms). Negative: raising the "
                        "parameter lowers the noise."))
    return how


# --- the page -----------------------------------------------------------------------------------

def _mode(e: Experiment) -> str:
    if e.grid:
        return "grid"
    return "overlay" if len(e.cases) > 1 else "single"


def build_context(e: Experiment, command: str | None = None) -> dict:
    """Everything the template prints, already formatted."""
    from leaderboard import __version__

    f = Fmt(e)
    mode = _mode(e)
    head, said = _answer(e, f, mode)
    said, more = fit_answer(head, said)   # the answer box's words at most; the rest below it
    label = e.metric_label
    direction = "higher is better" if e.higher_is_better else "lower is better"
    observed = f"observed {label} ({direction})"
    first = e.settings[0]
    ctx = {
        "title": f"How far chance moves {label}: simulated test sets", "metric": label,
        "mode": mode, "headline": head, "said": said, "more": more,
        "facts": _facts(e, command),
        "universe": {"name": e.universe, "assumptions": first.assumptions,
                     "more": len(e.settings) > 1, "method": method(e)},
        "cases": [{"score": f"{c.score:g}", "setting": setting_words(c.n_test, c.prevalence),
                   "mean": f(c.mean), "sd": f.sd(c.sd), "exact_sd": f.sd(c.exact_sd),
                   "low": f(c.quantiles[0]), "median": f(c.quantiles[1]),
                   "high": f(c.quantiles[2]), "d95": f(c.d95),
                   "undefined": f"{c.undefined:,}"} for c in e.cases],
        "any_undefined": any(c.undefined for c in e.cases),
        "ahead": [{"setting": setting_words(a.n_test, a.prevalence), "better": f"{a.better:g}",
                   "worse": f"{a.worse:g}", "p": _prob(a.probability)} for a in e.ahead],
        "how": _how(e), "seed": e.seed, "draws": f"{e.draws:,}", "version": __version__,
        "single": None, "overlay": None, "facets": None, "grid_table": None, "partial": None,
        "ahead_matrix": None, "by_prevalence": False, "vega": page_scripts(),
    }
    if mode == "single":
        c = e.cases[0]
        ctx["single"] = {
            "hist": block(vega_analyze.distribution_chart(
                c.draws, c.score, c.quantiles[0], c.quantiles[2],
                x_title=f"{observed} on a simulated test set", y_title="share of test sets",
                centre_name="true score", fmt_text=f, decimals=f.decimals),
                "chart-sim-hist", "Histogram of the simulated observed scores"),
            "ecdf": block(vega_analyze.ecdf_chart(
                c.pair_ecdf[0], c.pair_ecdf[1], c.d95,
                x_title=f"|difference| in {label} between two test sets", d95_text=f(c.d95)),
                "chart-sim-ecdf", "Share of pairs of simulated scores at most a given distance "
                "apart"),
            "score": f"{c.score:g}", "setting": setting_words(c.n_test, c.prevalence),
            "low": f(c.quantiles[0]), "high": f(c.quantiles[2]), "sd": f.sd(c.sd), "d95": f(c.d95)}
        ctx["vega"] = page_scripts(ctx["single"])
    elif mode == "overlay":
        ctx["overlay"] = {
            "hist": block(vega_simulate.overlay_chart(
                [(f"{c.score:g}", c.score, c.draws) for c in e.cases],
                f"{observed} on a simulated test set"), "chart-sim-overlay",
                "Overlaid distributions of observed scores, one per true score"),
            "ecdf": block(vega_simulate.ecdfs_chart(
                [(f"{c.score:g}", *c.pair_ecdf, c.d95) for c in e.cases],
                f"|difference| in {label} between two test sets"), "chart-sim-ecdfs",
                "Share of pairs of simulated scores at most a given distance apart, per true "
                "score"),
            "legend": [(vega_simulate.score_colour(i), f"true {c.score:g}: d95 {f(c.d95)}")
                       for i, c in enumerate(e.cases)]}
        ctx["vega"] = page_scripts(ctx["overlay"])
    else:
        ctx.update(_grid_parts(e, f, observed))
        ctx["vega"] = page_scripts([ctx["facets"]])
    return ctx


def _grid_parts(e: Experiment, f: Fmt, observed: str) -> dict:
    table = d95_table(e)
    scores = table["scores"]
    by_kind: dict[tuple[int, float | None], list[tuple[float, np.ndarray, str]]] = {}
    for c in e.cases:
        by_kind.setdefault(c.setting, []).append((c.score, c.draws, f(c.d95)))
    prevalences = list(dict.fromkeys(s.prevalence for s in e.settings))
    ordered = sorted(e.settings, key=lambda s: (s.n_test, prevalences.index(s.prevalence)))
    panels = [(setting_words(s.n_test, s.prevalence), by_kind[(s.n_test, s.prevalence)])
              for s in ordered]
    partial = [{"parameter": PARAMETER_WORDS[k], "r": "\u2014" if v is None else f"{v:+.2f}",
                "sign": "" if v is None else ("lowers" if v < 0 else "raises")}
               for k, v in (e.partial or {}).items() if k in PARAMETERS]
    pairs = list(dict.fromkeys((a.better, a.worse) for a in e.ahead))
    p_of = {(a.n_test, a.prevalence, a.better, a.worse): a.probability for a in e.ahead}
    matrix = {"pairs": [f"{b:g} vs {w:g}" for b, w in pairs],
              "rows": [{"setting": setting_words(s.n_test, s.prevalence),
                        "p": [_prob(p_of[(s.n_test, s.prevalence, b, w)]) for b, w in pairs]}
                       for s in e.settings]}
    return {
        "by_prevalence": len(prevalences) > 1,
        "ahead_matrix": matrix if pairs else None,
        # columns are the prevalences; without any, the test-set sizes side by side
        "facets": block(vega_simulate.facets_chart(
            panels, len(prevalences) if len(prevalences) > 1 else min(len(panels), 3), observed),
            "chart-sim-grid", "Distributions of observed scores for every test-set size and "
            "prevalence"),
        "legend": [(vega_simulate.score_colour(i), f"true {s:g}") for i, s in enumerate(scores)],
        "grid_table": {"scores": [f"{s:g}" for s in scores],
                       "rows": [{"setting": setting_words(r["n_test"], r["prevalence"]),
                                 "d95": [f(v) for v in r["d95"]]} for r in table["rows"]]},
        "partial": partial,
    }


def render_html(e: Experiment, command: str | None = None, static_charts: bool = False) -> str:
    """The page (deterministic for a given experiment); with ``static_charts`` its charts also
    drawn as static SVG (:func:`~leaderboard.report.vega.embed.static_drawings`)."""
    with static_drawings(static_charts):
        return render_page(TEMPLATE, build_context(e, command))


def write_html(e: Experiment, path, command: str | None = None,
               static_charts: bool = False) -> None:
    write_text(path, render_html(e, command, static_charts))
