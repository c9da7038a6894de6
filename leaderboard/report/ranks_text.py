"""The report's ranks section: rank intervals, P(best), stability, the significance map and the
winner's curse, in words (geometry in :mod:`leaderboard.report.rank_charts`)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from leaderboard.report import rank_charts, rank_maps
from leaderboard.report.rank_charts import share_text
from leaderboard.report.words import Fact, pct
from leaderboard.tiers.ranking import TIER_METHODS

if TYPE_CHECKING:  # annotations only
    from leaderboard.analysis import Analysis

# What each tier method controls, assumes and costs: shown in "How to read" and the README.
TIER_TEXT = {
    "holm": (
        "Leader-anchored tests with Holm's correction. The best remaining entry anchors a tier; "
        "every entry below it is tested against it (one-sided paired test), and Holm's procedure "
        "decides which are shown to be worse with family-wise error at most {alpha}. A tier runs "
        "from its anchor down to the lowest-ranked entry not shown to be worse. Guarantee: the "
        "truly best entry is left out of tier 1 at most about {alpha} of the time (checked by the "
        "calibration study); when several entries tie for best, each of them is, but not "
        "necessarily all at once. Tiers after the first depend on the earlier cuts and carry no "
        "separate guarantee. Cost: one test per entry and tier, so thousands of entries take "
        "well under a second."),
    "rank-sets": (
        "Simultaneous rank confidence sets (Mogstad, Romano, Shaikh and Wilhelm, 2023). Every "
        "ordered pair of entries is tested with a studentised paired difference; the critical "
        "value is the bootstrap quantile of the largest centred difference, stepped down. An "
        "entry's rank set runs from 1 + (entries surely better) to N \u2212 (entries surely "
        "worse), and all sets hold the true ranks at once with probability at least {conf}. The "
        "first unplaced entry anchors a tier that runs down to the last entry whose set still "
        "reaches the anchor's rank, so tier 1 is every entry no other entry is shown to beat and "
        "holds the truly best entry with probability at least {conf}; being simultaneous, it is "
        "usually wider than Holm's. Cost: every pair is visited once; a Bonferroni screen and "
        "bounds on the critical value skip most of the work without changing the answer."),
    "scott-knott": (
        "Scott-Knott ESD, a heuristic. The sorted scores are split recursively where the "
        "between-group sum of squares is largest while Scott and Knott's test finds the split "
        "real, and adjacent groups whose difference is negligible (effect size below 0.2 standard "
        "errors) are merged. It uses each entry's score and standard error, not the replicates "
        "as if they were data, so the verdict does not depend on how many replicates were drawn. "
        "It carries no error-rate guarantee; the calibration study shows how often it still puts "
        "the best entry in tier 1."),
}


def error_rate_fact(settings) -> Fact:
    """The "Error rate" line of "What was analysed"."""
    return Fact("Error rate", f"alpha = {settings.alpha:g}: {pct(1 - settings.alpha)} intervals "
                f"and rank sets; tiers by {TIER_METHODS[settings.tier_method]}")


def tier_text(method: str, alpha: float) -> str:
    """The paragraph for ``method`` with the error rate filled in."""
    return TIER_TEXT[method].format(alpha=pct(alpha), conf=pct(1 - alpha))


def context(a: Analysis, score) -> dict | None:
    """Everything the ranks section prints (None without a noise model)."""
    r = a.ranking
    if r is None:
        return None
    t, s = a.table, a.settings
    teams = t["team"].astype(str).tolist()
    ranks = t["rank"].to_numpy(dtype=int)
    conf = pct(1 - s.alpha)
    n = len(t)
    reps = r.replicates
    p_best = r.probabilities.p_best
    best = int(r.in_best_set.sum())
    taus = np.asarray(r.taus, dtype=float)
    lead = teams[0]
    said = [
        f"{lead} scored best on {share_text(p_best[0])} of the {reps.n_replicates:,} "
        f"{'bootstrap replicates' if a.mode == 'submissions' else 'simulated draws'}; "
        f"its {conf} rank interval is {r.marginal.low[0]} to {r.marginal.high[0]} "
        f"(all entries at once: {r.simultaneous.low[0]} to {r.simultaneous.high[0]}).",
        f"The {conf} confidence set for the best entry holds {best:,} of {n:,} entries.",
        f"Winner's curse: the leader was picked because it scored highest, which flatters its "
        f"score. Corrected for that selection, its true score is estimated at "
        f"{score(r.corrected_leader_score)} (observed {score(t['score'].iloc[0])}); with "
        f"{conf} confidence it is {'at least' if reps.sign > 0 else 'at most'} "
        f"{score(reps.sign * r.curse.lower_bound)}.",
    ]
    if n > 1:
        said.append(f"Resampled rankings agree with the observed one with a median Kendall's tau of "
                    f"{np.median(taus):.3f} (95% of replicates between "
                    f"{np.quantile(taus, 0.025):.3f} and {np.quantile(taus, 0.975):.3f}).")
    k = len(r.significance.significant)
    n_sig = int(np.asarray(r.significance.significant).sum())
    pairs = k * (k - 1) // 2
    map_caption = (f"A filled cell: the row's entry is shown to be better than the column's (paired "
                   f"test, Holm over all {pairs:,} pairs of the map, family-wise error at most "
                   f"{pct(s.alpha)}). {n_sig:,} of the {pairs:,} pairs "
                   f"{'is' if n_sig == 1 else 'are'} separated"
                   + ("; the rest could be in either order." if n_sig else
                      ": this test set cannot order any two of these entries with confidence."))
    sig_teams = teams[:k]
    return {
        "said": said,
        "intervals": rank_charts.rank_interval_chart(
            teams, ranks, r.marginal.low, r.marginal.high, r.simultaneous.low,
            r.simultaneous.high, t["tier"].to_numpy(dtype=int), p_best, level=conf),
        "taus": rank_charts.tau_histogram(taus) if n > 1 else None,
        "blob": rank_maps.blob_plot(teams[:len(r.frequencies)], np.asarray(r.frequencies),
                                    ranks[:len(r.frequencies)],
                                    tiers=t["tier"].to_numpy(dtype=int)[:len(r.frequencies)]),
        "significance": rank_maps.significance_chart(
            sig_teams, np.asarray(r.significance.significant, dtype=bool),
            np.asarray(r.significance.p_values, dtype=float)) if k > 1 else None,
        "map_size": k, "map_caption": map_caption, "blob_size": len(r.frequencies), "conf": conf,
        "top_k": list(r.top_k),
        "source": reps.source,
        "dropped": reps.dropped,
    }


def how_to_read(a: Analysis) -> list[Fact]:
    """The "How to read" entries of the ranks columns and charts."""
    s = a.settings
    conf, alpha = pct(1 - s.alpha), pct(s.alpha)
    method = a.ranking.method if a.ranking is not None else s.tier_method
    draws = "bootstrap replicate" if a.mode == "submissions" else "simulated draw"
    return [
        Fact("Tier", tier_text(method, s.alpha)),
        Fact("Rank interval", f"A {conf} confidence set for the entry's true rank (1 + the number "
             "of entries truly better), in the manner of Mogstad, Romano, Shaikh and Wilhelm "
             "(2023): it runs from 1 + the entries shown to be better to N \u2212 the entries "
             f"shown to be worse. It holds the entry's true rank with probability at least "
             f"{conf}. The chart's thin line is the simultaneous version, which holds every "
             f"entry's true rank at once with probability at least {conf}."),
        Fact("P(best) and P(top k)", f"The share of {draws}s on which the entry scores best "
             "(ties share the credit), or ranks in the top k. They measure how stable the order "
             "is under the noise of this test set; they are not the probability that the entry "
             "is truly best, and near ties they favour the observed leader."),
        Fact("Best set", f"The {conf} confidence set for the best entry: entries that no other "
             f"entry is shown to beat. The truly best entry is in it with probability at least "
             f"{conf}; an entry outside it is shown to be worse than some other entry (error at "
             f"most {alpha})."),
        Fact("Winner's curse", "The top observed score is the highest of many noisy scores, so "
             "it overstates the leader's true score. The correction subtracts the selection bias "
             f"measured on the {draws}s: how far the best resampled score lies above the true "
             "score of the entry that achieved it. It is an estimate, not a bound; the "
             "calibration study reports how much bias it leaves."),
        Fact("Stability", "Kendall's tau compares the observed ranking with each resampled "
             "ranking (1 = the same order). The rank-frequency plot shows, for the top entries, "
             "how often each rank came up; the significance map marks the pairs among the top "
             f"entries where the upper one is shown to be better (paired one-sided tests, Holm "
             f"over all pairs of the map, family-wise error at most {alpha})."),
    ]
