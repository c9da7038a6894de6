"""The analysis page's "How to read": what the score, the interval, d95, the spread of equals,
the ranks, tier 1, the p-value and the correlation assumption mean, and what is not covered, in
the words of the run's mode."""
from __future__ import annotations

from typing import TYPE_CHECKING

from leaderboard.report import ranks_text, submissions_text
from leaderboard.report.vocabulary import is_items, vocabulary
from leaderboard.report.words import Fact
from leaderboard.tiers.methods import TIER_METHODS

if TYPE_CHECKING:
    from leaderboard.pipelines.scores import Analysis


def how_to_read(a: Analysis, conf: str) -> list[Fact]:
    """"How to read": what each of the page's numbers means, in the words of the run's mode (a
    board's scores, a benchmark's items, a submissions run's paired bootstrap)."""
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
