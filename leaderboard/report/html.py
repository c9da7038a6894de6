"""The self-contained HTML report: words and numbers here, charts in report/vega/, layout in the
template.

The page loads nothing (CSS, the table's script and the chart libraries inlined), so it works
offline; every chart is a Vega-Lite specification, the top ones also drawn as static SVG for print
and for readers without JavaScript. Team names and file names are untrusted: they reach the page
only through Jinja2 autoescaping or as escaped JSON string data (:func:`render.script_json`).
Nothing time-dependent is printed, so the same analysis always renders to the same bytes.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from leaderboard.confidence import confidence_label
from leaderboard.studies.noise import study_words
from leaderboard.report import (assumptions_text, categories_text, ranks_text, shakeup_text, submissions_text,
                                tier_table)
from leaderboard.report.chart_context import scores_legend
from leaderboard.report.headline import answer, caveats, headline, reach_sentence
from leaderboard.report.vega.common import NO_TIER, PALETTE, TOP
from leaderboard.report.vega.embed import page_scripts
from leaderboard.report.words import Fact, pct
from leaderboard.report.numbers import Numbers
from leaderboard.report.tier_marks import out_of_order_mask
from leaderboard.report.vocabulary import is_items, vocabulary
from leaderboard.report.benchmark_text import costs_context, published_context
from leaderboard.report.card_text import card_context
from leaderboard.report.render import render_page, script_json
from leaderboard.tiers.methods import TIER_METHODS
from leaderboard.safe_write import write_text

if TYPE_CHECKING:  # annotations only: keeps leaderboard.report importable from anywhere
    from leaderboard.pipelines.scores import Analysis

TEMPLATE = "report.html.j2"


def render_html(analysis: Analysis) -> str:
    """The report as one HTML string (deterministic for a given analysis)."""
    return render_page(TEMPLATE, build_context(analysis, charts=True))


def render_summary(analysis: Analysis, rows: int = 20) -> str:
    """A compact page for notebooks: the headline, the flags and the top ``rows`` of the table,
    with the scores chart as a static drawing (a notebook's sandboxed frame runs no script)."""
    context = build_context(analysis, static_rows=rows, interactive=False, charts="summary")
    return render_page("notebook.html.j2", context, rows=context["rows"])


def write_html(analysis: Analysis, path) -> None:
    """Write :func:`render_html` to ``path`` as UTF-8."""
    write_text(path, render_html(analysis))


# --- the page's parts ---------------------------------------------------------------------------

def _answer(a: Analysis, num: Numbers, conf: str) -> tuple[list[str], list[str], list[str]]:
    """The answer box (:func:`~leaderboard.report.headline.answer`: who could be the best, the
    spread of equals, the leader and tier 1), its caveats, and the sentences below it (what the
    numbers assume, the tiers)."""
    t = a.table
    n, lead = len(t), t.iloc[0]
    label = a.settings.metric.label
    if a.tiers is None:
        return (["Ranking only: intervals and tiers are not available for this leaderboard.",
                 f"{lead['team']} ranks first of {n:,} entries with {label} "
                 f"{num.score(lead['score'])}; the table ranks every entry by its observed "
                 "score."], caveats(a), list(a.notes[:1]))
    if n == 1:
        return (["There is only one entry, so there is no one to be tied with.",
                 f"It scored {num.score(lead['score'])} ({conf} interval "
                 f"{num.score(lead['ci_low'])} to {num.score(lead['ci_high'])})."], caveats(a), [])
    told, cautions = answer(a, num, conf)
    said = headline(a, num)[1:]   # the spread with d95 for one pair, and what it assumes
    k = int((t["tier"] == 1).sum())
    said.append(f"Tier 1 ({k:,} entr{'y' if k == 1 else 'ies'}) differs from the best set as "
                "\u201cHow to read\u201d says.")
    tier = t["tier"].to_numpy(dtype=int)
    if tier.max() > 1:
        said.append(f"The {n:,} entries form {int(tier.max()):,} tiers.")
    said.extend(_skip_sentence(t, tier))
    return told, cautions, said


def _skip_sentence(t, tier: np.ndarray) -> list[str]:
    """Why a tier skips a rank (issue 39): the first entry placed in a better tier than an entry
    ranked above it, named with that entry, and why (its comparisons are too noisy for it to be
    shown beaten), in one sentence; empty when the tiers follow the order."""
    moved = np.flatnonzero(out_of_order_mask(tier))
    if not moved.size:
        return []
    k = int(moved[0])
    above = int(np.flatnonzero(tier[:k] > tier[k])[-1])      # the nearest worse-tier entry above
    names = t["team"].astype(str).tolist()
    ranks = t["rank"].to_numpy(dtype=int)
    others = moved.size - 1
    beaten = ("no entry is shown to beat it" if tier[k] == 1 else
              f"only entries of tier{' 1' if tier[k] == 2 else f's 1 to {tier[k] - 1}'} are "
              "shown to beat it")
    more = (f" ({others:,} more entr{'y is' if others == 1 else 'ies are'} placed like this, "
            "\u2195 in the table and the chart)" if others else " (\u2195 in the table and the chart)")
    return [f"Tiers follow the evidence, not only the order: {names[k]} (rank {ranks[k]}) is in "
            f"tier {tier[k]} although {names[above]} (rank {ranks[above]}) is in tier "
            f"{tier[above]}: {names[above]}\u2019s comparisons are precise enough for an entry "
            f"above it to be shown better, while {names[k]}\u2019s interval is too wide for that, "
            f"so {beaten}{more}."]


def _moved_marks(tier: np.ndarray, shown: int) -> dict:
    """How many of the charted entries carry the chart's \u2195 (in a better tier than an entry
    above them), and whether one of them is in tier 1."""
    moved = out_of_order_mask(tier[:shown])
    return {"moved": int(moved.sum()), "moved_tier1": bool((tier[:shown][moved] == 1).any())}


def _tier_one_sentence(a: Analysis, conf: str) -> str:
    """How tier 1 differs from the best set, for "How to read" and the method that ran."""
    method = TIER_METHODS[a.ranking.method if a.ranking is not None else a.settings.tier_method]
    k = int((a.table["tier"] == 1).sum())
    size = f"{k:,} entr{'y' if k == 1 else 'ies'}"
    if method.same_family_as_rank_sets:
        return (f"Tier 1 ({size}) asks more than the confidence set of the best: it holds the "
                "entries no other entry is shown to beat "
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
    own = items and a.items is not None and a.items.policy == "pairwise" and a.items.ragged
    where = ("each model's own items" if own else
             f"{s.n_test:,} {'items' if items else 'rows'}"
             + (f", {pct(s.prevalence)} positives" if s.prevalence else ""))
    if a.d95 <= 0:   # the leader's score never moved (a perfect score): nothing measured
        return (f"On this {'set of items' if items else 'test set'} ({where}), d95 is not "
                "known: the leader's score is the same on every resample, as a perfect score "
                "is, so its noise cannot be measured there.")
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
        facts.append(ranks_text.error_rate_fact(s, a.ranking))
        if a.correlation is not None:
            facts.append(Fact("Correlation between entries", a.correlation.fact()))
        if a.tails is not None:
            facts.append(Fact("Residuals' tails", a.tails.fact()))
    return facts


def _dropped(d) -> str:
    lines = ", ".join(str(x) for x in d.lines[:10])
    if d.count > min(len(d.lines), 10):
        lines += ", \u2026"
    plural = "s" if d.count != 1 else ""
    return f"{d.reason}: {d.count:,} row{plural}" + (f" (line{plural} {lines})" if d.lines else "")


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
        Fact("Spread of equals", "d95 is about one pair. With many entries, the best and the "
             "worst of equally good ones land further apart: the headline's spread is the gap "
             "that the best and the worst of this many equally good entries exceed one time in "
             "twenty (the 95% quantile of their range; for two entries it is d95). It is the "
             "scale the tiers work on, since they compare every entry at once. It takes the "
             "noise's size from d95 and its tails from the normal distribution (the best of "
             "thousands lies further out than the simulation resolves); entries on one shared "
             f"{vocabulary(a).unit_set} with correlation \u03c1 spread \u221a(1 \u2212 \u03c1) as far."),
        *ranks_text.how_to_read(a),
        *([Fact("Tier 1 and the best set", _tier_one_sentence(a, conf))]
          if a.ranking is not None else []),
        Fact("p vs tier anchor", "The one-sided p-value of the test \u201cthis entry is at least as "
             "good as its tier's anchor\u201d (unadjusted; Holm adjusts the threshold). Small "
             "values are evidence the entry is worse than the anchor. The anchor itself has none."),
        Fact("Correlation assumption", corr),
        Fact("What is not covered", "Only the luck of which rows ended up in the test set. "
             + ("Overfitting to the public board is tested in the post-mortem below; leakage, "
                if a.shakeup is not None else "Overfitting to a public leaderboard, leakage, ")
             + "label noise and a test set unlike future data are outside this analysis."),
    ]
    if is_items(a):   # a benchmark: the score and what is not covered, in its words
        facts = [Fact(f.label, _BENCHMARK_READ.get(f.label, f.value)) for f in facts]
    if a.mode == "submissions":  # same labels, the paired bootstrap's meaning
        words = submissions_text.how_to_read(conf, items=is_items(a))
        replace = {f"{conf} interval": words["interval"], "d95": words["d95"],
                   "p vs tier anchor": words["p"], "Correlation assumption": words["correlation"]}
        facts = [Fact(f.label, replace.get(f.label, f.value)) for f in facts]
    if a.ranking is not None and a.ranking.method != "holm":  # the column is Holm's alone
        facts = [f for f in facts if f.label != "p vs tier anchor"]
    return facts


_BENCHMARK_READ = {
    "Score": ("The model's score on this benchmark's items (its mean per-item value, or the "
              "metric on them). Another set of items drawn the same way would give a somewhat "
              "different score."),
    "What is not covered": ("Only the luck of which items ended up in the benchmark. Items "
                            "seen in training (contamination), tuning to this benchmark, "
                            "grading errors and items unlike the tasks that matter are outside "
                            "this analysis."),
}


def _table_data(a: Analysis, num: Numbers, conf: str):
    """The table script's data: every row, and how to print it (see templates/table.js)."""
    data = tier_table.payload(a, num.decimals)
    data["meta"] = {"decimals": num.decimals, "higher": bool(a.settings.higher_is_better),
                    "conf": conf, "palette": len(PALETTE),
                    "top_k": list(a.ranking.top_k) if a.ranking is not None else [],
                    "csv": f"{a.settings.metric.name}-tiers.csv",
                    "pinned": vocabulary(a).pinned, "not_found": vocabulary(a).not_found}
    return script_json(data)


def build_context(a: Analysis, static_rows: int | None = tier_table.STATIC_ROWS,
                  interactive: bool = True, charts: bool | str = False) -> dict:
    """Everything the template prints, already formatted: the first ``static_rows`` rows of the
    table as plain HTML (all with ``None``), with ``interactive`` every row as the table
    script's JSON (``table_data``, see :mod:`leaderboard.report.tier_table`), and with ``charts``
    the page's charts (True: every chart, interactive; "summary": the scores chart alone,
    static)."""
    s, t = a.settings, a.table
    num = Numbers(s.metric, t["score"].to_numpy(dtype=float), a.d95)
    conf = confidence_label(s.alpha)
    pending = None
    if charts:   # first: the renderer draws the static charts while the rest is built
        from leaderboard.report.chart_context import pending_charts

        pending = pending_charts(a, num, conf, summary=charts == "summary")
    told, cautions, said = _answer(a, num, conf)
    shown = min(len(t), TOP)
    legend, legend_note = scores_legend(t["tier"].to_numpy(dtype=int), shown)
    context = {
        "title": f"Best model or luckiest? {s.metric.label} leaderboard",
        "source": str(a.leaderboard.source), "metric": s.metric.label, "conf": conf,
        # the answer box (the layout sets its first sentence apart), its caveats, and below it
        # what the numbers assume
        "answer": told, "caveats": cautions, "headline": " ".join(told),
        "said": said, "d95_sentence": _d95_sentence(a, num),
        "reach": reach_sentence(a, num) if a.tiers is not None else None,
        "flags": [f.message for f in a.flags],
        "has_noise": a.tiers is not None, "mode": a.mode,
        "has_p": a.tiers is not None and bool(np.isfinite(a.table["p_vs_anchor"]).any()),
        "facts": _facts(a, conf), "dots": {"shown": shown, "total": len(t),
                                           **_moved_marks(t["tier"].to_numpy(dtype=int), shown)},
        "legend": legend, "legend_note": legend_note,
        "more_notes": list(a.notes if a.tiers is not None else a.notes[1:]),
        "rows": tier_table.static_rows(a, num.score, static_rows), "n_entries": len(t),
        "table_caption": tier_table.caption(a),
        "table_data": _table_data(a, num, conf) if interactive else None,
        "tier_options": tier_table.tier_options(a),
        "has_public": "public_score" in t.columns, "has_private": "private_score" in t.columns,
        "palette": [(f"c{i}", colour) for i, colour in enumerate(PALETTE)],
        "no_tier": NO_TIER, "how": _how_to_read(a, conf),
        "universe": None,
        "ranks": ranks_text.context(a, num.score),
        "shakeup": shakeup_text.context(a, num.score),
        "categories": categories_text.context(a, num.score),
        "assumptions": assumptions_text.context(a),
        "seed": s.seed, "w": vocabulary(a),
        "files": submissions_text.file_rows(a) if a.mode == "submissions" else None,
        "curves": submissions_text.curve_words(a),
        "costs": costs_context(a, num.score), "published": published_context(a, num.score),
        "card": card_context(a.card, num.score, vocabulary(a).entity),
        "charts": None, "vega": page_scripts(),
    }
    if a.noise is not None:
        context["universe"] = {"name": a.noise.universe, "assumptions": a.noise.assumptions,
                               "method": a.noise.method,
                               "study": study_words(s.metric.name, a.noise.universe,
                                                    s.universe.spread,
                                                    getattr(a.tails, "how", None))}
    elif a.bootstrap is not None:
        context["universe"] = submissions_text.resampling_box(a)
    lead = a.leader_distribution
    if lead is not None:
        q_low, q_mid, q_high = np.quantile(lead.draws, [0.025, 0.5, 0.975])
        context["leader"] = {"score": num.score(lead.true_score), "sd": num.score(lead.sd),
                             "median": num.score(q_mid), "q_low": num.score(q_low),
                             "q_high": num.score(q_high), "d95": num.d95(lead.d95),
                             "draws": f"{len(lead.draws):,}"}
    if pending is not None:
        from leaderboard.report.chart_context import finished

        context["charts"] = finished(pending)
        if charts is True:   # the selected team's row comes from the table's data (LB.row)
            context["vega"] = page_scripts(context["charts"])
    from leaderboard import __version__  # here, not at the top: leaderboard/__init__ may import us

    context["version"] = __version__
    return context
