"""Words, page and JSON of `leaderboard choose`.

Every sentence is decided here from :class:`~leaderboard.pipelines.choose.ChooseResult`;
``templates/choose.html.j2`` lays it out through Jinja2 autoescaping (candidate names are
untrusted). The same inputs and seed always render the same bytes.
"""
from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING

import numpy as np

from leaderboard.confidence import confidence_label
from leaderboard.report.numbers import Numbers
from leaderboard.report.vega.choose import estimate_chart
from leaderboard.report.vega.common import share_text
from leaderboard.report.vega.embed import block, page_scripts, static_drawings
from leaderboard.report.render import render_page
from leaderboard.report.headline import fit_answer
from leaderboard.report.words import Fact, pct
from leaderboard.safe_write import write_text

if TYPE_CHECKING:
    from leaderboard.pipelines.choose import ChooseResult

TEMPLATE = "choose.html.j2"


def _fmt(x: float) -> str:
    return "\u2013" if x is None or not math.isfinite(x) else f"{x:.5g}"


def _gap(x: float) -> str:
    return f"{x:.2g}" if abs(x) < 1e-3 else f"{x:.4f}".rstrip("0").rstrip(".")


def answer(r: ChooseResult) -> tuple[str, list[str]]:
    """The headline and the sentences that say how sure it is."""
    c, t, names = r.choice, r.table, r.candidates.names
    first, second = (names[i] for i in c.recommended)
    head = f"Select {first} and {second}."
    within_noise = (set(c.top_two_public) != set(c.recommended)
                    and c.gain_over_top_two <= 2 * c.gain_se)
    if within_noise:   # no pair is shown to beat the obvious one: say so, and name it
        top_a, top_b = (names[i] for i in c.top_two_public)
        head = (f"Select the top two, {top_a} and {top_b}: they are as good as any pair (the best "
                f"pair, {first} and {second}, gains only {_gap(c.gain_over_top_two)}, within "
                f"Monte Carlo error, SE {_gap(c.gain_se)}).")
    said = [f"Together they have the highest expected best-of-two private score, "
            f"{_fmt(c.recommended_expected)}, after correcting every public score for the luck "
            "that put it on top (the winner's curse)."]
    said.append(("The candidates can be told apart: " if c.distinguishable else
                 "The candidates cannot be told apart: ") + c.reason.rstrip(".") + ".")
    if not c.distinguishable:
        said.append("Any sensible pair is nearly as good; this one hedges best against the "
                    "noise of the private board.")
    top2 = tuple(names[i] for i in c.top_two_public)
    if set(c.top_two_public) == set(c.recommended):
        said.append("It is also the pair with the two best public scores.")
    else:
        gain = (f"this pair gains {_gap(c.gain_over_top_two)} (Monte Carlo SE {_gap(c.gain_se)})"
                if c.gain_over_top_two > 2 * c.gain_se else
                f"this pair's gain, {_gap(c.gain_over_top_two)}, is within Monte Carlo error "
                f"(SE {_gap(c.gain_se)}): either pair will do")
        said.append(f"The two best public scores ({top2[0]} and {top2[1]}) would be expected to "
                    f"give {_fmt(c.top_two_expected)}; {gain}.")
    safest = tuple(names[i] for i in c.safest)
    if set(c.safest) != set(c.recommended):
        said.append(f"The pair most likely to hold a top-tier candidate is {safest[0]} and "
                    f"{safest[1]} ({pct(c.safest_p_top_tier)}).")
    else:
        said.append(f"It is also the pair most likely to hold a top-tier candidate "
                    f"({pct(c.safest_p_top_tier)}).")
    if "private_hindsight" in t:
        said.append(_hindsight(r))
    return head, said


def _hindsight(r: ChooseResult) -> str:
    """What the private labels, never used for the choice, say afterwards."""
    c, private, higher = r.choice, r.table["private_hindsight"].to_numpy(float), \
        r.settings.higher_is_better
    best = np.nanmax if higher else np.nanmin

    def best_of(pair) -> float:
        return float(best(private[list(pair)]))

    return (f"In hindsight (the solution's private labels, not used for the choice): this pair's "
            f"best private score is {_fmt(best_of(c.recommended))}, the two best public scores' "
            f"{_fmt(best_of(c.top_two_public))}, the best candidate's {_fmt(float(best(private)))}.")


def ladder_sentence(r: ChooseResult) -> str:
    """How much of the public climb was real, by the Ladder's margin rule."""
    lad = r.ladder
    if lad.climb <= 0:
        return "The public scores never improved on the first submission."
    return (f"In {_order_words(r)}, the public score climbed {_gap(lad.climb)} from the first "
            f"candidate to the best. Counting only steps that beat the best so far by more than "
            f"the noise margin (Blum and Hardt's Ladder, one-sided {confidence_label(lad.alpha)}), "
            f"{_gap(lad.climb_beyond_noise)} of it is real: {pct(lad.share_within_noise)} of the "
            f"climb is within noise ({lad.n_steps} real step{'s' if lad.n_steps != 1 else ''}).")


def _order_words(r: ChooseResult) -> str:
    """The submission order the ladder walked, as it was actually taken."""
    c = r.candidates
    shown = ", ".join(c.names[:3]) + (", \u2026" if len(c.names) > 3 else "")
    if all(source == "table" for source in c.source):
        return f"the order of the table's rows ({shown})"
    if any(source == "table" for source in c.source):
        return (f"the prediction files' alphabetical order, then the table's other rows ({shown})")
    return (f"the alphabetical order of the prediction files' names ({shown}; name them by "
            "submission time for the real order)")


def _facts(r: ChooseResult) -> list[Fact]:
    s, c, p = r.settings, r.candidates, r.posterior
    return [Fact("Candidates", f"{len(c.names):,} ({', '.join(_inputs(r))})"),
            Fact("Metric", f"{s.metric.label}, {'higher' if s.higher_is_better else 'lower'} is "
                           "better"),
            Fact("Rows", f"{c.n_public:,} public (seen) and {c.n_private:,} private (deciding)"),
            Fact("Noise of the public scores", c.noise),
            Fact("Winner's-curse correction", p.shrinkage_text),
            Fact("Top tier", f"candidates whose true score is within {_gap(r.choice.margin)} of the "
                             "best candidate's (the smallest gap the private board can show)"),
            Fact("Draws", f"{r.choice.draws:,} from the predictive distribution, seed "
                          f"{r.choice.seed}")]


def _inputs(r: ChooseResult) -> list[str]:
    return [str(x) for x in r.inputs] or ["given directly"]


def _numbers(r: ChooseResult):
    """Scores with the analyze page's rounding (one rule): the same decimals everywhere."""
    return Numbers(r.settings.metric, r.table["public_score"].to_numpy(float), None)


def _score_format(r: ChooseResult):
    return _numbers(r).score


def _decimals(r: ChooseResult) -> int:
    return _numbers(r).decimals


def _rows(r: ChooseResult) -> list[dict]:
    t = r.table
    fmt = _score_format(r)
    order = np.argsort(-t["expected"].to_numpy(float) if r.settings.higher_is_better
                       else t["expected"].to_numpy(float), kind="stable")
    rows = []
    for i in order:
        row = t.iloc[i]
        roles = [{1: "1st pick", 2: "2nd pick"}.get(int(row["pick"]), ""),
                 "safest pair" if row["safest"] else "", "top two public" if row["top_two_public"]
                 else "", _sameness(row), "ladder step" if row["ladder_step"] else ""]
        rows.append({"name": row["candidate"], "public": fmt(row["public_score"]),
                     "expected": fmt(row["expected"]),
                     "interval": f"{fmt(row['ci_low'])} \u2013 {fmt(row['ci_high'])}",
                     # shares of posterior draws: never 0% or 100% from a finite sample
                     "p_best": share_text(row["p_best"]),
                     "p_true_best": share_text(row["p_true_best"]),
                     "p_top_tier": share_text(row["p_top_tier"]),
                     "private": fmt(row["private_hindsight"]) if "private_hindsight" in t else None,
                     "roles": ", ".join(x for x in roles if x), "pick": bool(row["pick"])})
    return rows


def _sameness(row) -> str:
    """The role words for candidates that count as one: byte-identical files, or files whose
    public scores cannot differ (never called identical)."""
    if row["identical_to"]:
        return f"identical to {row['identical_to']}"
    if row["same_public_scores_as"]:
        return f"same public scores as {row['same_public_scores_as']}"
    return ""


def _how() -> list[Fact]:
    return [Fact("Corrected estimate", "What the candidate is expected to score on unseen rows. A "
                 "public score is partly skill, partly luck, and the best public scores are the "
                 "luckiest. Luck shared by every candidate (the public rows were easy or hard) "
                 "cannot be told apart from their level and will not repeat on the private rows, "
                 "so the mean public score is kept; each candidate's distance from it is shrunk by "
                 "the share that noise explains, judged by how spread out the candidates are "
                 "compared with their noise. Estimates above the mean move down, those below move "
                 "up, never past it."),
            Fact("95% interval", "Where the candidate's true score lies, with 95% probability "
                 "under that model; it includes the uncertainty of the level shared by all "
                 "candidates."),
            Fact("P(truly best)", "The probability, under that model, that the candidate's true "
                 "score is the best of all candidates' (the one the verdict above quotes)."),
            Fact("P(best on private)", "The share of simulated private boards on which the "
                 "candidate scores best of all candidates. The private rows add their own luck, so "
                 "these shares are flatter than P(truly best): a leader can be truly best with "
                 "probability 40% and still top the private board only 30% of the time."),
            Fact("P(top tier)", "The share on which its true score is within the top-tier margin "
                 "of the best candidate's: in the group the private board cannot split."),
            Fact("Expected best-of-two", "Only the better of the two selected submissions counts, "
                 "so a pair is judged by the expected maximum of their private scores. Two "
                 "near-identical candidates rise and fall together: their maximum gains little "
                 "over one of them, so the recommended pair often spreads its bets."),
            Fact("Ladder", "A submission is a real improvement only if it beats the best so far by "
                 "more than the noise of their difference; the rest of the climb could be luck.")]


def build_context(r: ChooseResult) -> dict:
    """Everything the template prints, already formatted."""
    from leaderboard import __version__

    head, said = answer(r)
    said, more = fit_answer(head, said)   # the answer box's words at most; the rest below it
    chart = block(estimate_chart(r.table, decimals=_decimals(r),
                                 higher_is_better=r.settings.higher_is_better,
                                 metric=r.settings.metric.label),
                  "chart-choose", "Each candidate's public score (ring) and winner's-curse-"
                  "corrected estimate (dot) with its 95% interval")
    shown = min(len(r.table), 40)
    return {"title": f"Which two to select? {r.settings.metric.label}", "headline": head,
            "said": said, "more": more, "facts": _facts(r), "rows": _rows(r),
            "has_private": "private_hindsight" in r.table,
            "chart": chart, "shown": shown, "total": len(r.table), "vega": page_scripts([chart]),
            "ladder": ladder_sentence(r), "notes": list(r.notes), "how": _how(),
            "seed": r.settings.seed, "version": __version__}


def render_html(r: ChooseResult, static_charts: bool = False) -> str:
    """The self-contained HTML page; with ``static_charts`` its chart also drawn as static SVG
    (for readers without JavaScript: :func:`~leaderboard.report.vega.embed.static_drawings`)."""
    with static_drawings(static_charts):
        return render_page(TEMPLATE, build_context(r))


def write_html(r: ChooseResult, path, static_charts: bool = False) -> None:
    write_text(path, render_html(r, static_charts))


def _f(x) -> float | None:
    x = float(x)
    return x if math.isfinite(x) else None


def to_json_dict(r: ChooseResult) -> dict:
    """``recommended`` (two names), the safest and top-two-public pairs, the gain, whether the
    candidates can be told apart, the ``correction`` (its center, shrinkage and ``tau``), and per
    candidate its public score, corrected expected score, interval, P(best), P(top tier),
    ``identical_to`` (byte-identical predictions, as ``analyze``), ``same_public_scores_as``
    (counted as one by the choice) and the hindsight private score when known."""
    from leaderboard import __version__

    c, names, t = r.choice, r.candidates.names, r.table
    lad = r.ladder
    return {
        "version": __version__, "command": "choose",
        "metric": r.settings.metric.name, "higher_is_better": r.settings.higher_is_better,
        "n_public": r.candidates.n_public, "n_private": r.candidates.n_private,
        "recommended": [names[i] for i in c.recommended],
        "recommended_expected": _f(c.recommended_expected),
        "safest": [names[i] for i in c.safest], "safest_p_top_tier": _f(c.safest_p_top_tier),
        "top_two_public": [names[i] for i in c.top_two_public],
        "top_two_expected": _f(c.top_two_expected),
        "gain_over_top_two": _f(c.gain_over_top_two), "gain_se": _f(c.gain_se),
        "distinguishable": bool(c.distinguishable), "reason": c.reason,
        "top_tier_margin": _f(c.margin), "noise": r.candidates.noise,
        "correction": {"center": _f(r.posterior.prior_mean),
                       "shrinkage": _f(r.posterior.shrinkage), "tau": _f(r.posterior.prior_sd),
                       "tau_estimate": _f(r.posterior.prior_sd_estimate)},
        "ladder": {"climb": _f(lad.climb), "climb_beyond_noise": _f(lad.climb_beyond_noise),
                   "share_within_noise": _f(lad.share_within_noise), "steps": int(lad.n_steps)},
        "candidates": [{"name": row["candidate"], "public_score": _f(row["public_score"]),
                        "expected": _f(row["expected"]), "ci_low": _f(row["ci_low"]),
                        "ci_high": _f(row["ci_high"]), "p_best": _f(row["p_best"]),
                        "p_true_best": _f(row["p_true_best"]),
                        "p_top_tier": _f(row["p_top_tier"]), "source": row["source"],
                        "identical_to": row["identical_to"],
                        "same_public_scores_as": row["same_public_scores_as"],
                        "ladder_step": bool(row["ladder_step"]),
                        "private_score_hindsight": _f(row["private_hindsight"])
                        if "private_hindsight" in t else None}
                       for _, row in t.iterrows()],
        "notes": list(r.notes), "seed": r.settings.seed,
        "correlation": r.correlation}


def json_text(r: ChooseResult) -> str:
    """The JSON ``leaderboard choose --json`` writes."""
    return json.dumps(to_json_dict(r), indent=2, allow_nan=False) + "\n"


def write_json(r: ChooseResult, path) -> None:
    write_text(path, json_text(r))


def terminal_text(r: ChooseResult, written: list[str]) -> str:
    """A few plain lines for the terminal."""
    head, said = answer(r)
    lines = [head, said[1], ladder_sentence(r)]
    if written:
        lines.append("wrote " + " and ".join(written))
    return "\n".join(lines)
