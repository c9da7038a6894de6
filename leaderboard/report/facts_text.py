"""The facts of the analysis page's "What was analysed": what was read (file, format, score
column, metric, test set, entries, rows dropped) and how the noise was found (the simulation, the
error rate, correlation and tails); a submissions run takes its own facts
(:func:`leaderboard.report.submissions_text.facts`)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from leaderboard.report import ranks_text, submissions_text
from leaderboard.report.words import Fact, pct

if TYPE_CHECKING:
    from leaderboard.ingest.records import DroppedRows
    from leaderboard.pipelines.scores import Analysis


def facts(a: Analysis, conf: str) -> list[Fact]:
    """The facts of "What was analysed": the file, its format and score column, the metric, the
    test set, the entries and the rows dropped (with why and where), and the simulation."""
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


def _dropped(d: DroppedRows) -> str:
    """One kind of dropped rows: the reason, the count and the first ten lines."""
    lines = ", ".join(str(x) for x in d.lines[:10])
    if d.count > min(len(d.lines), 10):
        lines += ", \u2026"
    plural = "s" if d.count != 1 else ""
    return f"{d.reason}: {d.count:,} row{plural}" + (f" (line{plural} {lines})" if d.lines else "")
