"""`leaderboard plan` in words: the terminal text, a small self-contained HTML page, and JSON.

The page has no scripts and loads nothing; the metric's label and every other string reach it only
through Jinja2 autoescaping. Nothing time-dependent is printed, so a plan always renders the same.

JSON keys: the settings (``metric``, ``metric_label``, ``higher_is_better``, ``score``,
``better_score``, ``prevalence``, ``delta``, ``n_test``, ``alpha``, ``power``, ``public_fraction``,
``correlation``, ``draws``, ``seed``, ``universe_options``), the universe (``universe``,
``assumptions``, ``reachable``), ``sd_method`` ("exact" or "simulated"), ``simulated_at``,
``z_alpha``, ``z_power``; with ``--delta``: ``min_n`` and ``min_n_public`` (null without a public
fraction); with ``--n-test``: ``mdd``, ``public_n`` and ``mdd_public``; with a correlation other
than 0: ``min_n_independent`` / ``mdd_independent``; ``simulated_power`` and ``check`` (the
simulation check), ``table`` (rows ``n, sd, mdd, public_n, mdd_public, marks``) and ``notes``.
"""
from __future__ import annotations

import json
import math
from dataclasses import asdict

from leaderboard.pipelines.plan import Plan, bound
from leaderboard.report.vega import plan as vega_plan
from leaderboard.report.vega.embed import ChartBlock, block, page_scripts, static_drawings
from leaderboard.report.render import render_page
from leaderboard.report.headline import fit_answer
from leaderboard.report.words import Fact, pct
from leaderboard.safe_write import write_text

TEMPLATE = "plan.html.j2"


def num(x: float | None) -> str:
    """Three significant figures in plain decimals (no exponent): 0.031754 -> '0.0318'."""
    if x is None or not math.isfinite(x):
        return "\u2014"
    if x == 0:
        return "0"
    rounded = float(f"{x:.3g}")  # 0.0099999 -> 0.01, so that it shows as 0.0100, not 0.01000
    decimals = max(0, 2 - math.floor(math.log10(abs(rounded))))
    return f"{rounded:.{decimals}f}"


def rows(n: int | None) -> str:
    return "\u2014" if n is None else f"{n:,}"


# --- words -------------------------------------------------------------------------------------

def _test_words(p: Plan) -> str:
    s = p.settings
    return (f"power {pct(s.power)} at alpha = {s.alpha:g} (two-sided)"
            + ("" if s.correlation == 0 else
               f", for entries scored on one shared test set (correlation {s.correlation:g} "
               "assumed between their scores)"))


def answer(p: Plan) -> tuple[str, list[str]]:
    """The answer in one plain sentence, then the sentences that qualify it."""
    s, label = p.settings, p.settings.metric.label
    better = s.score + (1 if p.higher_is_better else -1) * (s.delta or 0)
    where = f" at {pct(s.prevalence)} positives" if s.prevalence is not None else ""
    said = []
    if s.delta is not None:
        head = (f"To tell a true {label} of {s.score:g} from {better:g}{where} with "
                f"{_test_words(p)}, the test set needs at least {rows(p.min_n)} rows.")
        if s.public_fraction is not None:
            said.append(f"For the public board ({pct(s.public_fraction)} of the rows) to resolve "
                        "the same difference, the whole test set needs "
                        f"{rows(p.min_n_public)} rows.")
        if p.min_n_independent is not None:
            said.append(f"Independent entries (correlation 0, the conservative choice) would need "
                        f"{rows(p.min_n_independent)} rows.")
    if s.n_test is not None and p.mdd is not None:   # with n_test, the plan has an mdd
        sign = 1 if p.higher_is_better else -1
        mdd = (f"With {rows(s.n_test)} rows, the smallest difference the test set resolves with "
               f"{_test_words(p)} is {num(p.mdd)}: a true {label} of {s.score:g}{where} is told "
               f"apart from {s.score + sign * p.mdd:.4g}")
        if s.public_fraction is not None:
            mdd += (f"; its public slice of {rows(p.public_n)} rows resolves {num(p.mdd_public)}"
                    if p.mdd_public is not None else
                    f"; its public slice of {rows(p.public_n)} rows resolves no difference within "
                    "reach")
        mdd += "."
        if s.delta is None:
            head = mdd
        else:
            said.append(mdd)
        if p.mdd_independent is not None:
            said.append(f"For independent entries it is {num(p.mdd_independent)}.")
    return head, said + list(p.notes)


def check_sentence(p: Plan) -> str | None:
    c = p.check
    if c is None:
        return None
    who = ("" if p.settings.correlation == 0 else " (for independent entries, at their answer: an "
           "assumed correlation cannot be simulated)")
    return (f"Checked by simulation{who}: on {c.pairs:,} pairs of independent simulated test sets "
            f"of {rows(c.n)} rows, with true scores {num(abs(c.delta))} apart, the better entry's "
            f"observed lead exceeded the critical value {num(c.critical)} in "
            f"{100 * c.simulated_power:.1f}% of pairs (the normal approximation predicts "
            f"{100 * c.normal_power:.1f}%; Monte Carlo standard error at most "
            f"{100 * c.mc_se:.1f} points).")


def method_text(p: Plan) -> str:
    s = p.settings
    z = f"z(1 \u2212 alpha/2) + z(power) = {p.z_alpha:.3f} + {p.z_power:.3f}"
    head = (f"Normal approximation to the observed difference between the two entries: a true "
            f"difference delta is resolved when delta \u2265 ({z}) \u00d7 sd_diff(n), with "
            "sd_diff = \u221a(sd\u2081\u00b2 + sd\u2082\u00b2 \u2212 2 \u03c1 sd\u2081 sd\u2082), "
            "sd\u2081 and sd\u2082 the standard deviations of each entry's observed score on n "
            f"rows and \u03c1 = {s.correlation:g} the assumed correlation between them. ")
    if p.sd_method == "exact":
        sd = ("Each standard deviation is the universe's exact value at that n (the chart's curve "
              "interpolates the exact values over six score levels).")
    else:
        steps = " \u2192 ".join(f"{n:,}" for n in p.simulated_at)
        sd = (f"The universe has no exact standard deviation for {s.metric.label}, so it was "
              f"simulated ({s.draws:,} test sets per score level, seed {s.seed}) at a pilot size "
              "and scaled as 1/\u221an (every metric here is asymptotically root-n), then refined "
              "by simulating again at the size found until the answer moved by less than 1% or by "
              f"less than its Monte Carlo noise. Simulations, in order, at n = {steps}. Table rows "
              "other than the answers scale one simulation at the answer's size.")
    return head + sd


def _how(p: Plan) -> list[Fact]:
    s = p.settings
    return [
        Fact("Minimum detectable difference", f"The smallest gap between two entries' true scores "
             f"that a test set of n rows reveals with probability {pct(s.power)} (the power), "
             f"in a two-sided test at level alpha = {s.alpha:g}. Smaller true gaps are detected "
             "less often than that, so a test set of n rows cannot be relied on to order entries "
             "that are closer than its MDD."),
        Fact("Minimum test-set size", "The smallest n whose minimum detectable difference is at "
             "most delta. The better entry is the one ahead in the metric's direction "
             f"({'higher' if p.higher_is_better else 'lower'} is better)."),
        Fact("Public slice", "The public leaderboard scores each entry on a fraction F of the "
             "rows, so it resolves only what a test set of n \u00d7 F rows resolves; the full size "
             "that makes the public slice resolve delta is about n / F."),
        Fact("Correlation", "Independent entries (correlation 0) is the conservative default. "
             "Entries scored on one shared test set are positively correlated, which shrinks the "
             "noise of their difference by about a factor \u221a(1 \u2212 \u03c1) and the rows "
             "needed by about (1 \u2212 \u03c1). Assume a correlation only if you have measured "
             "it."),
        Fact("Simulated power", "The share of pairs of independent simulated test sets on which "
             "the truly better entry is observed ahead by more than the critical value. It checks "
             "the normal approximation and the standard deviation for correlation 0; an assumed "
             "correlation cannot be checked this way, so the check is made at the correlation-0 "
             "answer."),
        Fact("What is not covered", "Only the luck of which rows land in the test set. "
             "Comparing one entry with many others needs a smaller alpha (e.g. alpha divided by "
             "the number of comparisons); overfitting to a public board, leakage, label noise and "
             "rows that are not independent (several per patient or user) are outside this plan."),
    ]


def _facts(p: Plan) -> list[Fact]:
    s = p.settings
    lo, hi = p.reachable
    facts = [Fact("Metric", f"{s.metric.label} ({'higher' if p.higher_is_better else 'lower'} is "
                  f"better)"),
             Fact("True score", f"{s.score:g}" + (f", {pct(s.prevalence)} positives"
                                                  if s.prevalence is not None else ""))]
    if s.delta is not None:
        facts.append(Fact("Difference to detect", f"delta = {s.delta:g}"))
    if s.n_test is not None:
        facts.append(Fact("Test-set size", f"{rows(s.n_test)} rows"))
    facts += [Fact("Test", f"two-sided, alpha = {s.alpha:g}, power {pct(s.power)}"),
              Fact("Correlation between entries", f"{s.correlation:g}" + (
                  " (independent: the conservative choice)" if s.correlation == 0
                  else " (assumed)"))]
    if s.public_fraction is not None:
        facts.append(Fact("Public fraction", pct(s.public_fraction)))
    facts += [Fact("Universe", f"{p.universe}; true scores reachable from {bound(lo)} to "
                   f"{bound(hi)}"),
              Fact("Standard deviation", p.sd_method),
              Fact("Simulation", f"{s.draws:,} simulated test sets per score level, seed {s.seed}")]
    return facts


def _table_rows(p: Plan) -> list[dict]:
    return [{"n": rows(r.n), "sd": num(r.sd), "mdd": num(r.mdd) if r.sd is not None else "\u2014",
             "public_n": rows(r.public_n), "mdd_public": num(r.mdd_public),
             "marks": ", ".join(r.marks), "marked": bool(r.marks)} for r in p.table]


def terminal_text(p: Plan) -> str:
    """The answer and the table, for the terminal."""
    head, said = answer(p)
    lines = [head, *said]
    check = check_sentence(p)
    if check:
        lines.append(check)
    if p.table:
        public = p.settings.public_fraction is not None
        header = ["n", "sd", "MDD"] + (["public n", "public MDD"] if public else []) + [""]
        body = [[r["n"], r["sd"], r["mdd"]] + ([r["public_n"], r["mdd_public"]] if public else [])
                + [f"<- {r['marks']}" if r["marks"] else ""] for r in _table_rows(p)]
        widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]
        lines.append("")
        lines.append(f"Minimum detectable difference (MDD) in {p.settings.metric.label} by "
                     "test-set size:")
        for row in [header, *body]:
            lines.append("  ".join(cell.rjust(w) for cell, w in zip(row[:-1], widths))
                         + ("  " + row[-1] if row[-1] else ""))
    return "\n".join(lines)


# --- the chart: MDD against n on a log axis ----------------------------------------------------

def mdd_chart(p: Plan) -> ChartBlock | None:
    """The chart of MDD against n (None when the plan has no curve)."""
    if not p.curve:
        return None
    s = p.settings
    ns = [n for n, _ in p.curve]
    public = s.public_fraction is not None and s.public_fraction < 1
    # Both curves fall and the public one lies above the full one: below-left of a point on the
    # full curve and above-right of one on the public curve are clear of both.
    asked = [(s.n_test, p.mdd, "your n", not public), (p.min_n, s.delta, "minimum n", False)]
    if public:
        asked.append((p.min_n_public, s.delta, "public", True))
    pins = [(n, d, f"{text}: {rows(n)}" + (f", MDD {num(d)}" if text == "your n" else ""), above)
            for n, d, text, above in asked
            if n is not None and d is not None and ns[0] <= n <= ns[-1]]
    spec = vega_plan.mdd_chart(p.curve, public_fraction=s.public_fraction if public else None,
                               delta=s.delta, pins=vega_plan.pin_sides(
                                   pins, ns[0], ns[-1], top=max(d for _, d in p.curve)),
                               metric=s.metric.label)
    return block(spec, "chart-plan-mdd", "Minimum detectable difference against the number of "
                 "rows, log scale")


# --- page and JSON -----------------------------------------------------------------------------

def build_context(p: Plan) -> dict:
    """Everything the template prints, already formatted."""
    from leaderboard import __version__

    head, said = answer(p)
    # the answer box's words at most: the simulation's check, and what does not fit, below it
    said, more = fit_answer(head, said + [s for s in [check_sentence(p)] if s])
    chart = mdd_chart(p)
    return {"title": f"Test-set planning: {p.settings.metric.label}",
            "metric": p.settings.metric.label, "headline": head, "said": said, "more": more,
            "facts": _facts(p), "rows": _table_rows(p),
            "has_public": p.settings.public_fraction is not None, "chart": chart,
            "vega": page_scripts([chart]), "has_delta": p.settings.delta is not None,
            "universe": p.universe, "assumptions": p.assumptions, "method": method_text(p),
            "how": _how(p), "seed": p.settings.seed, "version": __version__}


def render_html(p: Plan, static_charts: bool = False) -> str:
    """The plan as one HTML string (deterministic for a given plan); with ``static_charts`` its
    chart also drawn as static SVG (:func:`~leaderboard.report.vega.embed.static_drawings`)."""
    with static_drawings(static_charts):
        return render_page(TEMPLATE, build_context(p))


def write_html(p: Plan, path, static_charts: bool = False) -> None:
    write_text(path, render_html(p, static_charts))


def _f(x) -> float | None:
    return None if x is None or not math.isfinite(float(x)) else float(x)


def to_json_dict(p: Plan) -> dict:
    """The plan as strict JSON-ready data (see the module docstring)."""
    from leaderboard import __version__

    s = p.settings
    sign = 1 if p.higher_is_better else -1
    out = {"version": __version__, "command": "plan", "metric": s.metric.name,
           "metric_label": s.metric.label, "higher_is_better": p.higher_is_better,
           "score": float(s.score),
           "better_score": _f(s.score + sign * s.delta) if s.delta is not None else None,
           "prevalence": _f(s.prevalence), "delta": _f(s.delta), "n_test": s.n_test,
           "alpha": float(s.alpha), "power": float(s.power),
           "public_fraction": _f(s.public_fraction), "correlation": float(s.correlation),
           "draws": int(s.draws), "seed": int(s.seed),
           "universe_options": {k: (list(v) if isinstance(v, tuple) else v)
                                for k, v in asdict(s.universe).items()},
           "universe": p.universe, "assumptions": p.assumptions,
           "reachable": [_f(x) for x in p.reachable], "sd_method": p.sd_method,
           "simulated_at": list(p.simulated_at), "z_alpha": p.z_alpha, "z_power": p.z_power}
    if s.delta is not None:
        out.update(min_n=p.min_n, min_n_public=p.min_n_public)
    if s.n_test is not None:
        out.update(mdd=_f(p.mdd), public_n=p.public_n, mdd_public=_f(p.mdd_public))
    if s.correlation != 0:
        out.update(min_n_independent=p.min_n_independent, mdd_independent=_f(p.mdd_independent))
    c = p.check
    out["simulated_power"] = _f(c.simulated_power) if c is not None else None
    out["check"] = None if c is None else {  # always for independent entries: correlation 0
        "correlation": 0.0,
        **{k: _f(v) if isinstance(v, float) else v for k, v in asdict(c).items()}}
    out["table"] = [{"n": r.n, "sd": _f(r.sd), "mdd": _f(r.mdd), "public_n": r.public_n,
                     "mdd_public": _f(r.mdd_public), "marks": list(r.marks)} for r in p.table]
    out["notes"] = list(p.notes)
    return out


def json_text(p: Plan) -> str:
    """The JSON ``leaderboard plan --json`` writes."""
    return json.dumps(to_json_dict(p), indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def write_json(p: Plan, path) -> None:
    write_text(path, json_text(p))
