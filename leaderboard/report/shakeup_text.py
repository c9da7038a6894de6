"""Words, table rows, charts and JSON of the shake-up section (public vs private boards).

Everything the reader sees about a post-mortem is decided here from
:class:`~leaderboard.pipelines.shakeup.Shakeup`; ``templates/report.html.j2`` lays it out and
:mod:`leaderboard.report.json_out` embeds :func:`shakeup_json`.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from leaderboard.report.numbers import defined, json_number, number
from leaderboard.report.words import pct

if TYPE_CHECKING:
    from leaderboard.pipelines.scores import Analysis
    from leaderboard.pipelines.shakeup import Shakeup
    from leaderboard.shakeup.overfit import OverfitTest

CALM_SPEARMAN = 0.8  # below this, noise alone scrambles the public board (the "tiny slice" story)
# A detectable overfit beyond this many gap SDs per entry is no statement of power: so flagrant an
# overfit would show in the entries' own tests first (tiny boards: 7 entries, a top of 5, 74 SDs)
POWERLESS_SD = 4.0


def _p(p: float, name: str = "p") -> str:
    """``p = 0.03``, or ``p < 0.001``."""
    return f"{name} < 0.001" if p < 0.001 else f"{name} = {p:.3f}" if p < 0.01 else f"{name} = {p:.2f}"


def _place(rank: float) -> str:
    rank = int(rank)
    suffix = "th" if 10 <= rank % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(rank % 10, "th")
    return f"{rank:,}{suffix}"


def _rows(n: int | None) -> str:
    return f"{n:,} rows"


def _winner(s: Shakeup) -> int:
    """Table row of the private winner (the best public rank among tied private winners)."""
    rank = np.where(s.stats.keep, s.stats.private_rank, np.inf)
    first = np.flatnonzero(rank == np.nanmin(rank))
    return int(first[np.argmin(s.stats.public_rank[first])])


def noise_too_wild(s: Shakeup | None, alpha: float) -> bool:
    """Whether the public and private boards agree more closely than the noise model allows at
    their sizes (fewer than ``alpha / 2`` of its simulated competitions kept the order as well):
    the model is wilder than the real test sets, and its ranges too wide for them."""
    if s is None or s.baseline is None:
        return False
    return 1 - s.baseline.p_spearman < alpha / 2   # the share that kept the order as well


def sentences(s: Shakeup, teams: list[str], alpha: float) -> list[str]:
    """The section's plain-language findings, most important first."""
    st, b, o = s.stats, s.baseline, s.overfit
    tied = "" if defined(st.spearman) else (" (not defined: every public or every private "
                                               "score is the same, so there is no order)")
    said = [f"Public and private boards of the {st.n_entries:,} entries with both scores: "
            f"Spearman {number(st.spearman, '.2f')}, Kendall {number(st.kendall, '.2f')}{tied}; "
            f"entries moved {pct(st.mean_abs_rank_change)} of the board on average "
            f"({pct(st.mean_abs_rank_change_top10)} in the private top {st.top_size:,})."
            + (f" {s.left_out}." if s.left_out else "")]
    win = _winner(s)
    jump = (f"The private winner, {teams[win]}, "
            + ("also led the public board." if st.public_rank[win] == 1 else
               f"was ranked {_place(st.public_rank[win])} on the public board."))
    if b is None or o is None:   # the baseline and the overfitting test are made together
        said.append(jump)
        said.append(f"No noise baseline: {s.reason}.")
        return said
    sizes = f"{_rows(s.n_public)} public and {_rows(s.n_private)} private"
    lo, hi = np.quantile(b.spearman, [0.025, 0.975])
    verdict = ("more shake-up than noise alone explains" if b.p_shakeup < alpha else
               "no more shake-up than noise alone produces")
    cover = s.compared if s.compared is not None else st
    over = ("" if cover is st else
            f" Over the {cover.n_entries:,} entries whose noise is known (observed Spearman "
            f"{cover.spearman:.2f}, entries moved {pct(cover.mean_abs_rank_change)}),")
    said.append(f"Noise alone, at {sizes}, gives Spearman {number(b.noise_spearman, '.2f')} (95% "
                f"of simulated competitions between {number(lo, '.2f')} and "
                f"{number(hi, '.2f')}) and moves entries "
                f"{pct(b.noise_mean_abs_rank_change)} of the board on average:{over} the observed "
                f"board shows {verdict} ({_p(b.p_shakeup)}).")
    if st.public_rank[win] > 1:
        jump += (f" With {_rows(s.n_public)} on the public board, the private winner came from "
                 f"that far down or further in {pct(b.p_winner_jump)} of simulated competitions.")
    said.append(jump)
    if s.two_stage and b.p_shakeup < alpha:
        said.append("This was a two-stage competition: the private board is other data than the "
                    "public one, so the extra shake-up can come from models that do better on one "
                    "dataset than the other, not only from fitting the public board.")
    if b.noise_spearman < CALM_SPEARMAN and b.p_shakeup >= alpha:
        said.append(f"Why: with only {_rows(s.n_public)}, the public board is mostly noise. Even "
                    "with no overfitting at all its order agrees with the private one only at "
                    f"Spearman about {b.noise_spearman:.2f}; the shake-up is the small public "
                    "slice's doing, not the teams'.")
    elif b.p_shakeup >= alpha and o.p_overfit >= alpha:
        said.append(f"Why: {_rows(s.n_public)} on the public board rank entries nearly as the "
                    "private board does, and the teams did not fit the public board beyond what "
                    "that allows: the final order is the public order plus ordinary noise.")
    elif b.p_shakeup >= alpha:   # the order held, yet the leaders lost more than noise allows
        said.append(f"Why: {_rows(s.n_public)} on the public board rank entries nearly as the "
                    "private board does, so the order as a whole moved no more than noise moves "
                    "it; the public leaders' scores, though, fell by more than noise and "
                    "selection explain (below).")
    if noise_too_wild(s, alpha):
        calm = 1 - b.p_spearman
        said.append(f"The boards agree more closely than noise at these sizes allows (only "
                    f"{pct(max(calm, 1 / (1 + b.n_replicates)))} of simulated competitions kept the "
                    "order as well): the noise model is wilder than the real test sets. "
                    + ("The bounded universe is the worst case by design: real per-image scores "
                       "are less noisy than 0-or-1 rows." if "bounded" in s.noise else
                       "The slices may be larger than given, or the rows less noisy than the "
                       "universe assumes."))
    said.append(_overfit_sentence(s, o, teams, alpha))
    if s.public_top_tiers is not None:
        said.append(f"At {_rows(s.n_public)}, the public top {s.public_top} formed "
                    + ("a single statistical tier: none of their places could be told apart"
                       if s.public_top_tiers == 1 else
                       f"{s.public_top_tiers} statistical tiers") + f" (tier 1 of the public board "
                    f"held {s.public_tier1_size:,} entr{'y' if s.public_tier1_size == 1 else 'ies'}).")
    return said


def _overfit_sentence(s: Shakeup, o: OverfitTest, teams: list[str], alpha: float) -> str:
    drivers = [teams[i] for i in np.flatnonzero(s.flagged)]
    named = ", ".join(drivers[:8]) + (f" and {len(drivers) - 8} more" if len(drivers) > 8 else "")
    if o.p_overfit < alpha:
        text = (f"The public top {o.top_size:,} beat their private scores by more than noise and "
                f"selection luck explain ({_p(o.p_overfit, 'p_overfit')}): "
                + ("on a two-stage board, whose public board is other data, that can be the two "
                   "test sets' difference as much as fitting the public board." if s.two_stage
                   else "a sign of fitting the public board."))
    else:
        text = (f"The public top {o.top_size:,} lost no more from public to private than "
                f"regression to the mean predicts ({_p(o.p_overfit, 'p_overfit')}): no sign of "
                "adaptive overfitting. " + _power_words(o))
    if drivers:
        text += (f" {len(drivers)} entr{'y' if len(drivers) == 1 else 'ies'} individually beat "
                 f"their private score by more than noise allows (Holm, \u03b1 = {alpha:g}): "
                 f"{named}.")
    if s.two_stage:
        text += (" The public board was scored on other data (a two-stage competition), so a gap "
                 "beyond noise can be a difference between the two test sets as much as overfitting;"
                 " the common shift between them is removed before testing.")
    return text


def _power_words(o: OverfitTest) -> str:
    """What "no sign" can mean at these slice sizes: the overfit the test detects 80% of the time,
    and the kind of overfitting that statement is about (:mod:`leaderboard.shakeup.power`)."""
    if o.detectable_sd == np.inf:
        return ("No sign is not evidence of absence: here no overfit of the public top alone "
                "can be detected at any size, since the top holds the entries whose gaps set the "
                "common shift the test removes (raising them raises the shift with them).")
    if not np.isfinite(o.detectable_sd):
        return ("Too few simulated competitions to say how large an overfit the test could "
                "detect: no sign is not evidence of absence here.")
    if o.detectable_sd > POWERLESS_SD:
        return (f"No sign is not evidence of absence, and here it says little: with {o.gap.size:,} "
                f"entries the test would need the public top {o.top_size:,} each to gain "
                f"{o.detectable:.3g} in score ({o.detectable_sd:.2g} SDs of their "
                "public-minus-private gap) on the public board to detect it with about 80% "
                "probability; each entry's own test (Holm) is the better check.")
    return (f"No sign is not evidence of absence: at these slice sizes the test detects, with "
            f"about 80% probability, the public top {o.top_size:,} each gaining "
            f"{o.detectable:.3g} in score ({o.detectable_sd:.2g} SDs of their public-minus-private "
            "gap) on the public board only, the rest of the board honest (worked out on honest "
            "boards simulated like this one, the inflated board read as this analysis reads it). "
            "That is the overfitting it is built for: the public leaders pulling ahead of their "
            "private scores together. Overfitting by the whole board moves every gap alike and "
            "is not detected; by a few of the leaders, or by unequal amounts, it is caught less "
            "often; smaller overfits can pass unseen.")


def _moves(s: Shakeup, teams: list[str], which: np.ndarray, num) -> list[dict]:
    st = s.stats
    return [{"team": teams[i], "public_rank": f"{int(st.public_rank[i]):,}",
             "private_rank": f"{int(st.private_rank[i]):,}",
             "change": f"{int(st.rank_change[i]):+,}", "public": num(s.public[i]),
             "private": num(s.private[i])} for i in which]


def context(a: Analysis, num) -> dict | None:
    """The template's shake-up section, or None when the board has no public and private pair."""
    s = a.shakeup
    if s is None:
        return None
    teams = a.table["team"].astype(str).tolist()
    said = sentences(s, teams, a.settings.alpha)
    tails = getattr(a, "tails", None)
    if s.overfit is not None and tails is not None and tails.how == "gaps" \
            and not tails.scale.floored:
        said.append("The noise itself was read from these public-minus-private gaps (regression "
                    "residuals' tails): overfitting that widens every entry's gap counts as "
                    "noise here, and only the public top's pulling ahead of the rest is tested.")
    return {"said": said,
            "title": ("Public (stage 1) vs private (stage 2): luck or more?" if s.two_stage
                      else "Public vs private: luck or overfitting?"),
            "risers": _moves(s, teams, s.risers, num), "fallers": _moves(s, teams, s.fallers, num),
            "excluded": int((~np.isfinite(a.table["public_score"].to_numpy(float))
                             | ~np.isfinite(a.table["private_score"].to_numpy(float))).sum()),
            "noise": s.noise}


def labelled(s: Shakeup) -> dict[int, str]:
    """The entries the scatter names: the private winner, the biggest riser and faller."""
    out = {_winner(s): "private winner"}
    if len(s.risers):
        out.setdefault(int(s.risers[0]), "biggest riser")
    if len(s.fallers):
        out.setdefault(int(s.fallers[0]), "biggest faller")
    return out


def rank_caption(f: dict, panel: int) -> str:
    """The rank-change chart's caption, from the facts :func:`~leaderboard.report.vega.
    shakeup_ranks.rank_change_chart` returns and the number of places in the noise panel."""
    top = f["top"]
    s = [f"Each line joins an entry's public rank (left) to its private rank (right), for the "
         f"{f['shown']} of {f['total']:,} entries in the top {top} of either board; green lines "
         "rose, orange fell, grey kept their rank."]
    if f["broken"]:
        s.append(f"Ranks 1 to {top} get one row each; below the gap, ranks {top + 1:,} to "
                 f"{f['reach']:,} are on a log scale so that far moves still fit.")
    if panel:
        s.append(f"Below, for each of the public top {panel} place{'s' if panel > 1 else ''}: "
                 "the grey bar is the range of private ranks that noise alone gives the entry at "
                 "that place in 95% of simulated competitions, the tick its median, the dot the "
                 "private rank that entry actually got; a dot outside its bar moved further than "
                 "chance explains.")
    if f["missing"]:
        s.append(f"{f['missing']:,} {'entry' if f['missing'] == 1 else 'entries'} without both "
                 f"ranks {'is' if f['missing'] == 1 else 'are'} left out.")
    return " ".join(s)


def shakeup_json(s: Shakeup | None, teams: list[str]) -> dict | None:
    """The ``shakeup`` object of the JSON (see :mod:`leaderboard.report.json_out`)."""
    if s is None:
        return None
    st, b, o = s.stats, s.baseline, s.overfit
    win = _winner(s)

    def move(i: int) -> dict:
        return {"team": teams[i], "public_rank": int(st.public_rank[i]),
                "private_rank": int(st.private_rank[i]), "change": int(st.rank_change[i])}

    out = {"spearman": json_number(st.spearman), "kendall": json_number(st.kendall),
           "mean_abs_rank_change": json_number(st.mean_abs_rank_change),
           "mean_abs_rank_change_top10": json_number(st.mean_abs_rank_change_top10),
           "noise_mean_abs_rank_change": None if b is None else json_number(
               b.noise_mean_abs_rank_change),
           "p_overfit": None if o is None else json_number(o.p_overfit),
           "n_entries": int(st.n_entries), "n_excluded": int(st.n_excluded),
           "n_public": s.n_public, "n_private": s.n_private, "two_stage": bool(s.two_stage),
           "noise": s.noise, "reason": s.reason, "left_out": s.left_out,
           "left_out_entries": ([] if s.compared is None or s.compared is st else
                                [teams[i] for i in np.flatnonzero(st.keep & ~s.compared.keep)]),
           "n_compared": int((st if s.compared is None else s.compared).n_entries),
           "winner": {**move(win), "p_jump": None if b is None else json_number(b.p_winner_jump)},
           "risers": [move(int(i)) for i in s.risers], "fallers": [move(int(i)) for i in s.fallers]}
    if b is not None and o is not None:   # made together
        out.update({"noise_spearman": json_number(b.noise_spearman),
                    "noise_mean_abs_rank_change_top10":
                        json_number(np.median(b.mean_abs_rank_change_top10)),
                    "p_spearman": json_number(b.p_spearman),
                    "p_shakeup": json_number(b.p_shakeup),
                    "public_top": s.public_top, "public_top_tiers": s.public_top_tiers,
                    "public_tier1_size": s.public_tier1_size,
                    "overfit_shift": json_number(o.shift),
                    "overfit_statistic": json_number(o.statistic),
                    "overfit_detectable_sd": json_number(o.detectable_sd),
                    "overfit_detectable": json_number(o.detectable),
                    "drivers": [{"team": teams[i], "public_score": float(s.public[i]),
                                 "private_score": float(s.private[i])}
                                for i in np.flatnonzero(s.flagged)]})
    return out
