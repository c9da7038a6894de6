"""The report's ranks section: rank intervals, P(best), stability, the significance map and the
winner's curse, in words (the charts in :mod:`leaderboard.report.vega.ranks`)."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from leaderboard.confidence import confidence_label
from leaderboard.report.numbers import spread_of
from leaderboard.report.vega.common import share_text
from leaderboard.report.vocabulary import vocabulary
from leaderboard.report.words import Fact, pct
from leaderboard.tiers.methods import MAP_FAMILY, TIER_METHODS

if TYPE_CHECKING:  # annotations only
    from leaderboard.pipelines.scores import Analysis

def error_rate_fact(settings, ranking=None) -> Fact:
    """The "Error rate" line of "What was analysed" (the words of the family that ran, when
    ``ranking`` is given)."""
    method = (ranking.description if ranking is not None
              else TIER_METHODS[settings.tier_method])
    return Fact("Error rate", f"alpha = {settings.alpha:g}: {confidence_label(settings.alpha)} intervals "
                f"and rank sets; tiers by {method.label} ({method.test})"
                + (f". {method.other_family_note}" if method.other_family_note else ""))


def tier_text(method: str, alpha: float, family: str = "bootstrap") -> str:
    """The "How to read" paragraph for ``method`` (its tests reading ``family``'s draws) with the
    error rate filled in."""
    return TIER_METHODS[method].for_family(family).words(alpha)["explanation"]


def family_error(a: Analysis) -> str:
    """The family-wise error a caption may state: "at most 5%", or the measured figure when the
    self-check found the promise falls short at this board's shape."""
    r = a.ranking
    check = getattr(r, "guarantee_check", None) if r is not None else None
    if check is not None and check.falls_short:
        return (f"measured at {100 * check.error:.1f}% \u00b1 {100 * check.se:.1f}% at this "
                f"board\u2019s shape (promised: at most {pct(a.settings.alpha)})")
    return f"at most {pct(a.settings.alpha)}"


def guarantee_sentence(a: Analysis) -> str | None:
    """The self-check's sentence, said beside the guarantee (None without a check)."""
    r = a.ranking
    check = getattr(r, "guarantee_check", None) if r is not None else None
    if r is None or check is None or r.method != "rank-sets":
        return None
    return check.sentence()


def ranked_rows(a: Analysis) -> np.ndarray:
    """Table rows the ranking covers, in its order (entries without a noise model keep tier 0 and
    are left out of every comparison)."""
    if a.ranking is None:
        return np.zeros(0, dtype=int)
    return np.flatnonzero(a.table["tier"].to_numpy(dtype=int) > 0)


def context(a: Analysis, score) -> dict | None:
    """Everything the ranks section prints (None without a noise model)."""
    r = a.ranking
    if r is None:
        return None
    s = a.settings
    t = a.table.iloc[ranked_rows(a)]   # the ranking's entries, in its order
    teams = t["team"].astype(str).tolist()
    conf = confidence_label(s.alpha)
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
    tau = spread_of(taus)
    if n > 1 and tau is None:
        said.append("Kendall's tau between resampled and observed rankings is not defined here: "
                    "the scores are tied in every replicate, so there is no order to agree with.")
    elif n > 1 and tau is not None:
        left = (f"; {tau[3]:,} replicates whose scores were all tied have no tau and are left "
                "out" if tau[3] else "")
        said.append(f"Resampled rankings agree with the observed one with a median Kendall's tau of "
                    f"{tau[0]:.3f} (95% of replicates between {tau[1]:.3f} and {tau[2]:.3f}"
                    f"{left}).")
    sig = r.significance
    k = len(sig.significant)
    n_sig = int(np.asarray(sig.significant).sum())
    pairs = k * (k - 1) // 2
    map_caption = (f"A filled cell: the row's entry is shown to be better than the column's by "
                   f"{MAP_FAMILY} (family-wise error {family_error(a)} over every pair of "
                   f"the board, critical value {sig.critical_value:.2f}). "
                   + ("The tiers are the layers of these verdicts, so no cell joins two tier-1 "
                      "entries and every entry below tier 1 has a filled cell in its column. "
                      if r.description.same_family_as_rank_sets else
                      f"The tiers come from {r.description.label}, another procedure. ")
                   + f"{n_sig:,} of the {pairs:,} pairs {'is' if n_sig == 1 else 'are'} separated"
                   + ("; the rest could be in either order." if n_sig else
                      f": this {vocabulary(a).unit_set} cannot order any two of these entries "
                      "with confidence."))
    return {
        "said": said,
        "has_taus": n > 1 and tau is not None, "has_map": k > 1 and n_sig > 0,
        "map_size": k, "map_caption": map_caption, "blob_size": len(r.frequencies), "conf": conf,
        "top_k": list(r.top_k),
        "source": reps.source,
        "dropped": reps.dropped,
    }


def how_to_read(a: Analysis) -> list[Fact]:
    """The "How to read" entries of the ranks columns and charts."""
    s = a.settings
    conf, alpha = confidence_label(s.alpha), pct(s.alpha)
    method = a.ranking.method if a.ranking is not None else s.tier_method
    family = a.ranking.family if a.ranking is not None else "bootstrap"
    draws = "bootstrap replicate" if a.mode == "submissions" else "simulated draw"
    check = guarantee_sentence(a)
    return [
        Fact("Tier", tier_text(method, s.alpha, family) + (f" {check}" if check else "")),
        Fact("Rank interval", f"A {conf} confidence set for the entry's true rank (1 + the number "
             "of entries truly better), in the manner of Mogstad, Romano, Shaikh and Wilhelm "
             "(2023): it runs from 1 + the entries shown to be better to N \u2212 the entries "
             f"shown to be worse. It holds the entry's true rank with probability at least "
             f"{conf}. The simultaneous version (in brackets in the table, the thin line in the "
             f"chart) holds every entry's true rank at once with probability at least {conf}; "
             "it starts at 1 + the entries shown better by the tests of all pairs at once."),
        Fact("P(best) and P(top k)", f"The share of {draws}s on which the entry scores best "
             "(ties share the credit), or ranks in the top k. They measure how stable the order "
             f"is under the noise of this {vocabulary(a).unit_set}; they are not the probability "
             "that the entry is truly best, and near ties they favour the observed leader."),
        Fact("Best set", f"The {conf} confidence set for the best entry, the sharpest answer to "
             "\u201ccould another entry be the best?\u201d. Each entry is tested on its own: it is "
             "left out when its one-sided comparisons with every other entry (a max-t test of "
             "\u201cno entry is better than this one\u201d) show some entry better. The truly best "
             f"entry is in it with probability at least {conf}; an entry outside it is shown to "
             f"be worse than some other entry (error at most {alpha} for the best one). Because "
             "each entry needs only its own comparisons to hold, it is never larger than the "
             "rank-set tier 1, whose guarantee covers every comparison on the page at once."),
        Fact("Winner's curse", "The top observed score is the highest of many noisy scores, so "
             "it overstates the leader's true score. The correction subtracts the selection bias "
             f"measured on the {draws}s: how far the best resampled score lies above the true "
             "score of the entry that achieved it. It is an estimate, not a bound; the "
             "calibration study reports how much bias it leaves."),
        Fact("Stability", "Kendall's tau compares the observed ranking with each resampled "
             "ranking (1 = the same order). The rank-frequency plot shows, for the top entries, "
             "how often each rank came up."),
        Fact("Significance map", "The pairs among the top entries where the upper one is shown "
             f"to be better, by {MAP_FAMILY}: family-wise error {family_error(a)} over every pair "
             "of the board."
             + (" The tiers are the layers of these verdicts." if
                TIER_METHODS[method].same_family_as_rank_sets else
                f" The tiers on this page come from {TIER_METHODS[method].label} instead.")),
    ]
