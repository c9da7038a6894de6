"""The self-contained HTML report: words and numbers here, charts in report/vega/, layout in the
template.

The page loads nothing (CSS and the chart libraries inlined), so it works offline; every chart is a
Vega-Lite specification with a static SVG drawing of it for print and for readers without
JavaScript. Team names and file names are untrusted: they reach the page only through Jinja2
autoescaping or as JSON string data of a chart (:func:`~leaderboard.report.vega.embed.script_json`).
Nothing time-dependent is printed, so the same analysis always renders to the same bytes.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from leaderboard.metrics import Metric
from leaderboard.studies.noise import study_words
from leaderboard.report import (categories_text, ranks_text, shakeup_text, submissions_text)
from leaderboard.report.vega import analyze as charts_analyze
from leaderboard.report.vega.common import NO_TIER, PALETTE, TOP, share_text, tier_class
from leaderboard.report.chart_context import scores_legend
from leaderboard.report.vega.embed import page_scripts, rows_json
from leaderboard.report.words import Fact, pct
from leaderboard.report.tier_marks import anchor_mask, highest_above, out_of_order_mask
from leaderboard.report.render import render_page
from leaderboard.tiers.methods import TIER_METHODS

if TYPE_CHECKING:  # annotations only: keeps leaderboard.report importable from anywhere
    from leaderboard.pipelines.scores import Analysis

TEMPLATE = "report.html.j2"
SCROLL_ABOVE = 100  # entries; longer tables scroll inside their own box


def render_html(analysis: Analysis) -> str:
    """The report as one HTML string (deterministic for a given analysis)."""
    return render_page(TEMPLATE, build_context(analysis, charts=True))


def render_summary(analysis: Analysis, rows: int = 20) -> str:
    """A compact page for notebooks: the headline, the flags and the top ``rows`` of the table,
    with the scores chart as a static drawing (a notebook's sandboxed frame runs no script)."""
    context = build_context(analysis, charts="summary")
    return render_page("notebook.html.j2", context, rows=context["rows"][:rows])


def write_html(analysis: Analysis, path) -> None:
    """Write :func:`render_html` to ``path`` as UTF-8."""
    Path(path).write_text(render_html(analysis), encoding="utf-8")


# --- numbers in words ---------------------------------------------------------------------------

class Numbers:
    """Formats scores with a precision that suits the metric, the data and the noise.

    Scores are shown with as many decimals as the leaderboard gave them (Kaggle rounds to 5), at
    least 4 for metrics bounded within [-1, 1] or about 4 significant figures of the median score
    otherwise, and at most 6. d95 keeps at least 2 significant figures.
    """

    def __init__(self, metric: Metric, scores: np.ndarray, d95: float | None):
        finite = scores[np.isfinite(scores)]
        if metric.lower_bound >= -1 and metric.upper_bound <= 1:
            decimals = 4
        else:
            # the median, not the maximum: one junk submission (RMSLE 35) must not cost precision
            typical = float(np.median(np.abs(finite))) if finite.size else 1.0
            decimals = min(max(3 - math.floor(math.log10(typical)), 0), 6) if typical > 0 else 4
        if d95 is not None and d95 > 0:
            decimals = max(decimals, min(1 - math.floor(math.log10(d95)), 6))
        self.noise_decimals = decimals
        while decimals < 6 and not np.allclose(finite, np.round(finite, decimals), rtol=0,
                                               atol=1e-12):
            decimals += 1
        self.decimals = decimals
        self.percent_points = metric.lower_bound == 0 and metric.upper_bound == 1

    def score(self, value) -> str:
        if value is None or not np.isfinite(value):
            return "\u2014"
        text = f"{float(value):.{self.decimals}f}"
        return text.lstrip("-") if float(text) == 0 else text

    def d95(self, value: float) -> str:
        text = f"{float(value):.{self.noise_decimals}f}"
        if self.percent_points:
            return f"{text} ({100 * value:.{max(self.noise_decimals - 2, 1)}f} percentage points)"
        return text


def _p_value(p: float, anchor: bool) -> str:
    if anchor:
        return "anchor"
    if not np.isfinite(p):
        return "\u2014"
    return "<0.001" if p < 0.001 else f"{p:.3f}"


# --- the page's parts ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Row:
    rank: int
    team: str
    score: str
    interval: str
    tier: str
    chip: str
    p: str
    public: str
    private: str
    starts_tier: bool
    rank_interval: str = "\u2014"
    rank_sim: str = "\u2014"
    moved: str = ""   # tooltip of the out-of-order mark: a better tier than an entry above it
    p_best: str = "\u2014"
    p_top: tuple[str, ...] = ()
    in_best_set: bool = False


def _answer(a: Analysis, num: Numbers, conf: str) -> tuple[str, list[str]]:
    """The headline: who could be the best (the confidence set of the best), then tier 1."""
    t = a.table
    n, lead = len(t), t.iloc[0]
    label = a.settings.metric.label
    if a.tiers is None:
        return ("Ranking only: intervals and tiers are not available for this leaderboard.",
                [*a.notes[:1], f"{lead['team']} ranks first of {n:,} entries with {label} "
                 f"{num.score(lead['score'])}; the table ranks every entry by its observed score."])
    said = [f"The leader, {lead['team']}, scored {num.score(lead['score'])}; its {conf} interval "
            f"for the true score runs from {num.score(lead['ci_low'])} to "
            f"{num.score(lead['ci_high'])}."]
    if n == 1:
        return "There is only one entry, so there is no one to be tied with.", said
    head = _best_set_headline(t, conf)
    said.append(_tier_one_sentence(a, conf))
    tier = t["tier"].to_numpy(dtype=int)
    if tier.max() > 1:
        said.append(f"The {n:,} entries form {int(tier.max()):,} tiers.")
    moved = t["team"].astype(str)[out_of_order_mask(tier)].tolist()
    if moved:
        who = (", ".join(moved) if len(moved) <= 3 else f"{len(moved):,} entries")
        one = len(moved) == 1
        said.append(f"Tiers follow the evidence, not only the order: {who} "
                    f"{'is' if one else 'are'} in a better tier than an entry ranked above "
                    f"{'it' if one else 'them'}, because {'its' if one else 'their'} comparisons "
                    "are noisier (\u2195 in the table).")
    return head, said


def _best_set_headline(t, conf: str) -> str:
    """The sharpest valid answer to "could someone else be the best?"."""
    compared = int((t["tier"] > 0).sum())   # entries without a noise model are not compared
    n = f"{compared:,}" + ("" if compared == len(t) else " compared")
    best = t["in_best_set"].to_numpy(dtype=bool) if "in_best_set" in t.columns else None
    if best is None:   # tiers without rank statistics: only tier 1 can answer
        k = int((t["tier"] == 1).sum())
        return f"{k:,} of {n} entries are in tier 1, statistically tied for first place."
    b = int(best.sum())
    what = f"({conf} confidence set of the best)"
    if b == 1:
        lead = t["team"].iloc[int(np.argmax(best))]
        return (f"Only {lead} can be the best: every other entry is shown to be worse than some "
                f"entry {what}.")
    if b == compared:
        return f"Any of the {n} entries could be the best: none is ruled out {what}."
    return f"{b:,} of {n} entries could be the best {what}."


def _tier_one_sentence(a: Analysis, conf: str) -> str:
    """How tier 1 differs from the best set, in one sentence, for the method that ran."""
    method = TIER_METHODS[a.ranking.method if a.ranking is not None else a.settings.tier_method]
    k = int((a.table["tier"] == 1).sum())
    size = f"{k:,} entr{'y' if k == 1 else 'ies'}"
    if method.same_family_as_rank_sets:
        return (f"Tier 1 ({size}) asks more: it holds the entries no other entry is shown to beat "
                f"when every rank set must hold at once, the simultaneous {conf} guarantee that "
                "the tiers, the rank sets and the significance map share, while the best set "
                "tests each entry only on whether it could be the best.")
    return (f"Tier 1 holds {size} by {method.label}, another procedure than the best set, the "
            f"rank sets and the significance map; its guarantee: "
            f"{method.words(a.settings.alpha)['guarantee']}.")


def _d95_sentence(a: Analysis, num: Numbers) -> str | None:
    s = a.settings
    if a.d95 is None or s.n_test is None:
        return None
    items = a.submissions is not None and a.submissions.layout == "items"
    where = f"{s.n_test:,} {'items' if items else 'rows'}" + (
        f", {pct(s.prevalence)} positives" if s.prevalence else "")
    at = ("" if a.noise is None or not a.noise.leader_at_middle else
          f" at a true score of {num.score(a.noise.leader.true_score)}, the middle of the leader's "
          "interval (at its score itself the noise vanishes)")
    return (f"On this {'set of items' if items else 'test set'} ({where}), two equally good "
            f"models differ by more than "
            f"{num.d95(a.d95)} one time in twenty (d95){at}.")


def _facts(a: Analysis, conf: str) -> list[Fact]:
    if a.mode == "submissions":
        return submissions_text.facts(a, conf)
    lb, s, m = a.leaderboard, a.settings, a.settings.metric
    kaggle = lb.format == "kaggle-download"
    facts = [Fact("File", str(lb.source)),
             Fact("Format", "Kaggle leaderboard download: the best submission of each team is kept"
                  if kaggle else "table of teams and scores"),
             Fact("Score column", lb.score_column + (
                 f" ({lb.split} leaderboard: the file has public and private scores, the {lb.split}"
                 " one ranks)" if lb.split else "")),
             Fact("Metric", f"{m.label} ({'higher' if s.higher_is_better else 'lower'} is better)"),
             Fact("Test set", (f"{s.n_test:,} rows" if s.n_test else "size not given") + (
                 f", {pct(s.prevalence)} positives" if s.prevalence else "")),
             Fact("Entries", f"{len(lb.entries):,} analysed, from {lb.rows_read:,} rows read")]
    dropped = sum(d.count for d in lb.dropped)
    items = tuple(_dropped(d) for d in lb.dropped)
    facts.append(Fact("Rows dropped", f"{dropped:,}" if dropped else "none", items))
    if a.noise is not None:
        facts.append(Fact("Simulation", f"{s.draws:,} simulated test sets per true score, seed "
                          f"{s.seed}"))
        facts.append(ranks_text.error_rate_fact(s))
        if a.correlation is not None:
            facts.append(Fact("Correlation between entries", a.correlation.fact()))
    return facts


def _dropped(d) -> str:
    lines = ", ".join(str(x) for x in d.lines[:10])
    if d.count > min(len(d.lines), 10):
        lines += ", \u2026"
    plural = "s" if d.count != 1 else ""
    return f"{d.reason}: {d.count:,} row{plural}" + (f" (line{plural} {lines})" if d.lines else "")


def _rows(a: Analysis, num: Numbers) -> list[Row]:
    t = a.table
    has_tiers = a.tiers is not None
    anchors = anchor_mask(t["tier"].to_numpy()) if has_tiers else np.zeros(len(t), bool)
    public = t["public_score"] if "public_score" in t.columns else [math.nan] * len(t)
    private = t["private_score"] if "private_score" in t.columns else [math.nan] * len(t)
    above = highest_above(t["tier"].to_numpy(dtype=int))
    rows = []
    for i, (rank, team, score, lo, hi, tier, p, pub, prv) in enumerate(zip(
            t["rank"], t["team"], t["score"], t["ci_low"], t["ci_high"], t["tier"],
            t["p_vs_anchor"], public, private)):
        interval = (f"{num.score(lo)} \u2013 {num.score(hi)}" if np.isfinite(lo) and np.isfinite(hi)
                    else "\u2014")
        rows.append(Row(int(rank), str(team), num.score(score), interval,
                        str(int(tier)) if has_tiers and tier > 0 else "\u2014",
                        tier_class(int(tier)),
                        _p_value(float(p), bool(anchors[i])) if has_tiers else "\u2014",
                        num.score(pub), num.score(prv), bool(anchors[i]) and i > 0,
                        moved=_moved(int(tier), int(above[i])) if has_tiers and tier > 0 else "",
                        **_rank_cells(a, i)))
    return rows


def _moved(tier: int, above: int) -> str:
    """The out-of-order mark's tooltip ("" when the entry's tier is not above one seen higher)."""
    if tier >= above:
        return ""
    beaten = ("no entry is shown to beat it" if tier == 1 else
              f"only entries of tier{' 1' if tier == 2 else f's 1 to {tier - 1}'} are shown to "
              "beat it")
    return (f"In tier {tier} although ranked below an entry of tier {above}: {beaten} (its "
            "comparisons with the entries above are noisier).")


def _table_caption(a: Analysis) -> str:
    """How to read the tier column, for the method that ran."""
    method = a.ranking.method if a.ranking is not None else a.settings.tier_method
    if method == "holm":
        return ("A line above a row marks the start of a new tier; the first entry of each tier is "
                "its anchor.")
    if method != "rank-sets":
        return "A line above a row marks the start of a new tier."
    moved = int(out_of_order_mask(a.table["tier"].to_numpy(dtype=int)).sum())
    return ("A line above a row marks where a new tier begins. Tier 1 is exactly the entries "
            "whose rank interval all at once (in brackets) starts at 1, and an entry's tier is one more "
            "than the highest tier of the entries shown to beat it"
            + (f", so tiers can interleave: \u2195 marks {moved:,} "
               f"entr{'y' if moved == 1 else 'ies'} in a better tier than an entry above "
               f"{'it' if moved == 1 else 'them'}." if moved else "."))


def _rank_cells(a: Analysis, i: int) -> dict:
    """Row ``i``'s rank columns, from the table (rows left out of the ranking show dashes)."""
    r, row = a.ranking, a.table.iloc[i]
    if r is None:
        return {}
    if int(row["tier"]) == 0:
        return {"p_top": ("\u2014",) * len(r.top_k)}
    low, high = int(row["rank_ci_low"]), int(row["rank_ci_high"])
    s_low, s_high = int(row["rank_sim_low"]), int(row["rank_sim_high"])
    return {"rank_interval": f"{low}" if low == high else f"{low}\u2013{high}",
            "rank_sim": f"{s_low}" if s_low == s_high else f"{s_low}\u2013{s_high}",
            "p_best": share_text(row["p_best"]),
            "p_top": tuple(share_text(row[f"p_top_{k}"]) for k in r.top_k),
            "in_best_set": bool(row["in_best_set"])}


def _how_to_read(a: Analysis, conf: str) -> list[Fact]:
    corr = a.correlation.how_to_read() if a.correlation is not None else ""
    facts = [
        Fact("Score", "The entry's score on this one test set, as the leaderboard shows it. A "
             "different test set drawn the same way would give a somewhat different score."),
        Fact(f"{conf} interval", f"A {conf} confidence interval for the entry's true score (its "
             "score on the whole population the test set was drawn from), found by inverting the "
             "simulated sampling distribution: the interval holds every true score that could "
             f"plausibly have produced the observed one. If the simulated universe describes how the "
             f"test set was drawn, such intervals cover the true score {conf} of the time (up to "
             "simulation error)."),
        Fact("d95", "How far apart two equally good models land by chance: each scored on its own "
             "test set of this size, they differ by more than d95 only one time in twenty. Gaps "
             "smaller than d95 between two entries are weak evidence that one is better."),
        *ranks_text.how_to_read(a),
        Fact("p vs tier anchor", "The one-sided p-value of the test \u201cthis entry is at least as "
             "good as its tier's anchor\u201d (unadjusted; Holm adjusts the threshold). Small "
             "values are evidence the entry is worse than the anchor. The anchor itself has none."),
        Fact("Correlation assumption", corr),
        Fact("What is not covered", "Only the luck of which rows ended up in the test set. "
             + ("Overfitting to the public board is tested in the post-mortem below; leakage, "
                if a.shakeup is not None else "Overfitting to a public leaderboard, leakage, ")
             + "label noise and a test set unlike future data are outside this analysis."),
    ]
    if a.mode == "submissions":  # same labels, the paired bootstrap's meaning
        words = submissions_text.how_to_read(conf)
        replace = {f"{conf} interval": words["interval"], "d95": words["d95"],
                   "p vs tier anchor": words["p"], "Correlation assumption": words["correlation"]}
        facts = [Fact(f.label, replace.get(f.label, f.value)) for f in facts]
    if a.ranking is not None and a.ranking.method != "holm":  # the column is Holm's alone
        facts = [f for f in facts if f.label != "p vs tier anchor"]
    return facts


def build_context(a: Analysis, charts: bool | str = False) -> dict:
    """Everything the template prints, already formatted; ``charts`` adds the page's charts
    (True: every chart, interactive; "summary": the scores chart alone, static)."""
    s, t = a.settings, a.table
    num = Numbers(s.metric, t["score"].to_numpy(dtype=float), a.d95)
    conf = pct(1 - s.alpha)
    head, said = _answer(a, num, conf)
    shown = min(len(t), TOP)
    legend, legend_note = scores_legend(t["tier"].to_numpy(dtype=int), shown)
    context = {
        "title": f"Best model or luckiest? {s.metric.label} leaderboard",
        "source": str(a.leaderboard.source), "metric": s.metric.label, "conf": conf,
        "headline": head, "said": said, "d95_sentence": _d95_sentence(a, num),
        "flags": [f.message for f in a.flags],
        "has_noise": a.tiers is not None, "mode": a.mode,
        "has_p": a.tiers is not None and bool(np.isfinite(a.table["p_vs_anchor"]).any()),
        "facts": _facts(a, conf), "dots": {"shown": shown, "total": len(t)},
        "legend": legend, "legend_note": legend_note,
        "more_notes": list(a.notes if a.tiers is not None else a.notes[1:]),
        "rows": _rows(a, num), "scroll": len(t) > SCROLL_ABOVE,
        "table_caption": _table_caption(a),
        "has_public": "public_score" in t.columns, "has_private": "private_score" in t.columns,
        "palette": [(f"c{i}", colour) for i, colour in enumerate(PALETTE)],
        "no_tier": NO_TIER, "how": _how_to_read(a, conf),
        "universe": None,
        "ranks": ranks_text.context(a, num.score),
        "shakeup": shakeup_text.context(a, num.score),
        "categories": categories_text.context(a, num.score),
        "seed": s.seed,
        "files": submissions_text.file_rows(a) if a.mode == "submissions" else None,
        "curves": submissions_text.curve_words(a),
        "charts": None, "vega": page_scripts(),
    }
    if a.noise is not None:
        context["universe"] = {"name": a.noise.universe, "assumptions": a.noise.assumptions,
                               "method": a.noise.method,
                               "study": study_words(s.metric.name, a.noise.universe,
                                                    s.universe.spread)}
    elif a.bootstrap is not None:
        context["universe"] = submissions_text.resampling_box(a)
    lead = a.leader_distribution
    if lead is not None:
        q_low, q_mid, q_high = np.quantile(lead.draws, [0.025, 0.5, 0.975])
        context["leader"] = {"score": num.score(lead.true_score), "sd": num.score(lead.sd),
                             "median": num.score(q_mid), "q_low": num.score(q_low),
                             "q_high": num.score(q_high), "d95": num.d95(lead.d95),
                             "draws": f"{len(lead.draws):,}"}
    if charts:
        from leaderboard.report.chart_context import analysis_charts

        context["charts"] = analysis_charts(a, num, conf, summary=charts == "summary")
        if charts is True:
            context["vega"] = page_scripts(context["charts"])
            if len(t) > TOP:   # the selected team's row, wherever it ranks
                context["vega"]["rows"] = rows_json(charts_analyze.selection_rows(
                    t, num.decimals))
    from leaderboard import __version__  # here, not at the top: leaderboard/__init__ may import us

    context["version"] = __version__
    return context
