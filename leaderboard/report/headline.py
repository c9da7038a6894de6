"""The analysis page's first screen in words: the answer box, at most :data:`ANSWER_WORDS`
words a team lead can read aloud, and the sentences below it that say what the answer assumes
and reconcile d95 (one pair) with the tiers (the whole board).

The answer box says, in order: who could be the best (count and names); how far apart chance
alone spreads this many equally good entries on this test set
(:func:`~leaderboard.noise.spread.spread_of_equals`, at the correlation the tiers use); the
leader's interval and the size of tier 1; and the caveats the page itself finds (tier 1 reaching
entries with no skill, a noise model wilder than the real test sets, the warnings listed below
it). What the numbers assume (correlation, the simulated universe), d95 and definitions follow
the box and "How to read".
"""
from __future__ import annotations

from typing import TYPE_CHECKING, TypedDict

import numpy as np

from leaderboard.api_words import said
from leaderboard.noise.spread import TYPICAL_CORRELATION, spread_of_equals

if TYPE_CHECKING:
    from leaderboard.pipelines.scores import Analysis
    from leaderboard.report.numbers import Numbers

NAMES_SHOWN = 3
ANSWER_WORDS = 75   # the answer box's words at most (issue 43: a first screen in plain words)


def name_list(names, limit: int = NAMES_SHOWN, total: int | None = None) -> str:
    """Names for a sentence, unambiguous when a name holds a comma: quoted, joined by commas.

    Examples
    --------
    >>> name_list(["A", "Data, Drinks & Dreams", "C", "D"])
    '\u201cA\u201d, \u201cData, Drinks & Dreams\u201d, \u201cC\u201d and 1 more'
    >>> name_list(["A", "B"])
    'A and B'
    """
    names = [str(x) for x in names]
    total = len(names) if total is None else total
    quote = any("," in x or " and " in x for x in names[:limit])
    shown = [f"\u201c{x}\u201d" if quote else x for x in names[:limit]]
    rest = total - len(shown)
    if rest > 0:
        return f"{', '.join(shown)} and {rest:,} more"
    if len(shown) == 1:
        return shown[0]
    return f"{', '.join(shown[:-1])} and {shown[-1]}"


def compared_count(a: Analysis) -> int:
    """Entries with a noise model (tier > 0): the ones the tiers compare."""
    return int((a.table["tier"] > 0).sum())


def assumed_correlation(a: Analysis) -> float | None:
    """The correlation the comparisons used (scores only), None in submissions/items mode."""
    return None if a.correlation is None else float(a.correlation.used)


def measured_correlation(a: Analysis, top: int = 10) -> float | None:
    """Submissions/items mode: the median correlation between the bootstrap scores of the
    leading ``top`` entries (they share every replicate's rows), None when not measurable."""
    boot = a.bootstrap
    if boot is None or boot.replicates.shape[0] < 2:
        return None
    reps = boot.replicates[: min(top, boot.replicates.shape[0])]
    keep = np.isfinite(reps).all(axis=0)
    reps = reps[:, keep]
    if reps.shape[1] < 3:
        return None
    sd = reps.std(axis=1)
    reps = reps[sd > 0]
    if reps.shape[0] < 2:
        return None
    corr = np.corrcoef(reps)
    pairs = corr[np.triu_indices(corr.shape[0], 1)]
    return float(np.clip(np.median(pairs), 0.0, 0.99))


class Spread(TypedDict):
    """The spread of ``n`` equally good entries (:func:`spreads`)."""

    n: int                # entries compared
    independent: float    # best to worst, 19 times in 20, entries independent
    rho: float            # the correlation that matters
    kind: str             # where rho came from: "measured", "assumed" or "typical"
    correlated: float     # the spread at correlation rho
    d95: float            # the board's d95 (one pair), the spread's scale


def spreads(a: Analysis) -> Spread | None:
    """The spread of the compared entries if all were equally good: independent, and at the
    correlation that matters (measured, assumed, or the typical one). None without d95, and
    None when d95 is 0: the leader's score did not move under resampling (a perfect score on
    per-item results), so its noise is not measured and a spread of 0 would be a false claim."""
    n = compared_count(a)
    if a.d95 is None or not np.isfinite(a.d95) or a.d95 <= 0 or n < 2:
        return None
    measured = measured_correlation(a)
    assumed = assumed_correlation(a)
    if measured is not None:
        rho, kind = measured, "measured"
    elif assumed:
        rho, kind = assumed, "assumed"
    else:
        rho, kind = TYPICAL_CORRELATION, "typical"
    return {"n": n, "independent": spread_of_equals(a.d95, n),
            "rho": rho, "kind": kind, "correlated": spread_of_equals(a.d95, n, rho),
            "d95": a.d95}


def headline(a: Analysis, num: Numbers) -> list[str]:
    """Three short sentences: who could be the best, how far chance spreads this board, what
    that assumes (one sentence when there is no noise model to speak of)."""
    parts = [_who(a)]
    s = spreads(a)
    if s is not None:
        parts.append(_spread_sentence(a, num, s))
        parts.append(_assumption_sentence(a, num, s))
    return parts


def answer(a: Analysis, num: Numbers, conf: str
           ) -> tuple[list[str], list[str], list[bool]]:
    """The answer box's sentences (the first is set in bold) and its caveats, at most
    :data:`ANSWER_WORDS` words in all: who could be the best, how far chance spreads equals
    here, the leader and tier 1; then the caveats. A sentence that does not fit goes (the
    spread first, then the leader's), never the answer or a caveat. The third list marks the
    sentences whose numbers rest on assumptions said below the page's first table (the spread
    and the leader's interval: the page puts a note mark beside them).

    Examples
    --------
    >>> words(["Two words.", "And three more."])
    5
    """
    t = a.table
    lead = t.iloc[0]
    k = int((t["tier"] == 1).sum())
    spread = spreads(a)
    told = {"who": _who(a),
            "spread": None if spread is None else _plain_spread(a, num, spread),
            "leader": (f"The leader, {lead['team']}, scored {num.score(lead['score'])} ("
                       f"{leader_interval(lead, num, conf)}); "
                       f"tier 1, the entries none is shown to beat, holds {k:,}."),
            "checked": _checked(a, short=False)}
    cautions = caveats(a)
    for drop in ("spread", "checked", "leader"):
        if words([x for x in told.values() if x] + cautions) <= ANSWER_WORDS:
            break
        told[drop] = None
    kept = [(key, x) for key, x in told.items() if x]
    return ([x for _, x in kept], cautions,
            [key in ("spread", "leader") for key, _ in kept])


def fit_answer(head: str, said: list[str], limit: int = ANSWER_WORDS
               ) -> tuple[list[str], list[str]]:
    """Another page's answer box (battles, choose, plan, simulate): its sentences after the
    headline ``head``, in order, as many as fit in ``limit`` words with it; the rest, for the
    page to show right below the box.

    Examples
    --------
    >>> fit_answer("One two three.", ["Four five.", "Six seven eight.", "Nine."], limit=6)
    (['Four five.'], ['Six seven eight.', 'Nine.'])
    """
    room = limit - words([head])
    kept: list[str] = []
    for k, sentence in enumerate(said):
        if words([sentence]) > room:
            return kept, list(said[k:])
        kept.append(sentence)
        room -= words([sentence])
    return kept, []


def words(sentences: list[str]) -> int:
    """How many words ``sentences`` hold (as a reader counts them: separated by spaces)."""
    return sum(len(str(x).split()) for x in sentences)


def caveats(a: Analysis) -> list[str]:
    """What the page itself finds that weakens its answer, said in the answer box: tier 1
    holding entries that score worse than no skill (a flagged baseline, as on Data Science Bowl
    2017's 506 rows), the tiers' guarantee falling short at this board's own shape (where the
    ranking was checked on null boards), a noise model wilder than the real test sets (the
    post-mortem's boards agree more closely than it allows, as on ultrasound), and the warnings
    listed below."""
    from leaderboard.report.shakeup_text import noise_too_wild

    out = []
    tier1 = set(a.table.loc[a.table["tier"] == 1, "team"].astype(str))
    for flag in a.flags:
        if flag.kind == "worse_than_no_skill":
            m = len(tier1 & {str(x) for x in flag.teams})
            if m:
                out.append(f"Caution: tier 1 holds {m:,} entr{'y' if m == 1 else 'ies'} scoring "
                           "worse than predicting the class shares for every row: this test set "
                           "cannot tell the top from no skill.")
    short = _checked(a, short=True)
    if short:
        out.append(short)
    if noise_too_wild(a.shakeup, a.settings.alpha):
        out.append("Caution: the public and private boards agree more closely than the noise "
                   "model allows, so its ranges are likely too wide here.")
    if a.flags:
        n = len(a.flags)
        out.append(f"Read the {n} warning{'s' if n > 1 else ''} below first."
                   if n > 1 else "Read the warning below first.")
    return out


def _checked(a: Analysis, short: bool) -> str | None:
    """The tiers' guarantee checked at this board's own shape (null boards made from its own
    predictions, where the ranking carries such a check), in plain words: a caveat when the
    measured error falls short of the promise (``short``), else a fact (not ``short``)."""
    check = getattr(a.ranking, "guarantee_check", None)
    if check is None or not getattr(check, "ran", False) or check.falls_short != short:
        return None
    measured, promised = f"{100 * check.error:.1f}%", f"{100 * check.alpha:g}%"
    if short:
        return (f"Caution: checked on equal entries at this board's shape, the tiers wrongly "
                f"separated some on {measured} of boards, more than the {promised} promised.")
    return (f"Checked at this board's shape, the tiers wrongly separated equal entries on "
            f"{measured} of boards ({promised} promised).")


def _plain_spread(a: Analysis, num: Numbers, s: Spread) -> str:
    """How far chance alone spreads this many equals here, at the correlation the tiers use."""
    where = "these items" if _items(a) else "this test set"
    if s["n"] == 2:
        return (f"On {where}, two equally good entries can land {num.d95_short(s['d95'])} apart by "
                "chance alone.")
    used = s["independent"] if s["kind"] == "typical" else s["correlated"]
    return (f"On {where}, chance alone can spread {s['n']:,} equally good entries "
            f"{num.d95_short(used)} apart.")


def who(a: Analysis, names: bool = True) -> str:
    """Who could be the best, the answer box's first sentence; without ``names``, the count
    alone (the several-metrics page, where the table right below names them)."""
    return _who(a, names)


def _who(a: Analysis, names: bool = True) -> str:
    t = a.table
    n = compared_count(a)
    of = f"{n:,}" + ("" if n == len(t) else " compared")
    if "in_best_set" in t.columns:
        best = t["in_best_set"].to_numpy(dtype=bool)
        what = "could be the best"
    else:   # tiers without rank statistics: tier 1 is the answer
        best = (t["tier"] == 1).to_numpy()
        what = "are tied for first place (tier 1)"
    b = int(best.sum())
    listed = t["team"].astype(str)[best].tolist()
    named = f": {name_list(listed)}." if names else "."
    light = _light_count(a, b, what)
    if light is not None:   # regression, tails unknown: the count hinges on them
        low, high = sorted((light, b))
        count = f"{low:,} to {'all ' if high == n else ''}{high:,}"
        return (f"{count} of {of} entries {what}, depending on how heavy the errors' tails are "
                + said("(--kurtosis narrows it)") + named)
    if b == 1:
        return f"Only {listed[0]} can be the best."
    if b == n:
        return f"Any of the {of} entries could be the best."
    return f"{b:,} of {of} entries {what}{named}"


def _light_count(a: Analysis, heavy: int, what: str) -> int | None:
    """The best set under normal residuals when the tails are unknown and it differs from the
    page's own (:func:`leaderboard.pipelines.tails.with_bracket`), else None."""
    tails = getattr(a, "tails", None)
    if tails is None or tails.light is None or what != "could be the best":
        return None
    light = int(tails.light["best_set"])
    return None if light == heavy else light


def _spread_sentence(a: Analysis, num: Numbers, s: Spread) -> str:
    """The answer box's spread sentence, word for word, with how often (issue 43: the box and
    the paragraph below the table said the same number in different words)."""
    said = _plain_spread(a, num, s)[:-1]
    if s["n"] == 2:
        return f"{said} (19 times in 20)."
    one = "" if s["kind"] in ("measured", "assumed") else f"; one pair: {num.d95_short(s['d95'])}"
    return f"{said} (best to worst, 19 times in 20{one})."


def _assumption_sentence(a: Analysis, num: Numbers, s: Spread) -> str:
    """What the spread (and every interval on the page) assumes; where the box's spread is the
    one at a correlation, what independent entries and one pair would give."""
    spread = num.d95_short(s["correlated"])
    alone = (f"independent entries would spread up to {num.d95_short(s['independent'])} apart, "
             f"and one pair {num.d95_short(s['d95'])}")
    if s["kind"] == "measured":
        unit = "items" if _items(a) else "rows"
        same = (f"on the same {unit}" if a.items is None or a.items.complete
                or not a.items.ragged else "on the items they share")
        if s["n"] == 2:
            return (f"Entries were compared {same}, whose scores move together (correlation "
                    f"{s['rho']:.2f}), so the tiers allow less than that, about {spread}; this "
                    f"assumes the {unit} are a random sample.")
        return (f"That is at the correlation measured among the leaders ({s['rho']:.2f}): "
                f"entries were compared {same}, whose scores move together; {alone}. This "
                f"assumes the {unit} are a random sample.")
    c = a.correlation
    universe = a.noise.universe if a.noise is not None else "simulated"
    tails = getattr(a, "tails", None)
    noise = (f"noise simulated for test sets drawn at random ({universe} universe)"
             if tails is None or tails.how != "gaps" or tails.scale.floored else
             f"noise read from the public and private scores ({tails.scale.scale:.3g} times "
             "normal residuals')")
    if s["kind"] == "assumed":
        source = ("measured from the public and private scores, its low end"
                  if c is not None and c.estimated else "as stated")
        if s["n"] == 2:
            return (f"This assumes a correlation of {s['rho']:.3g} between entries ({source}), "
                    f"which narrows that to {spread}, and {noise}.")
        return (f"This assumes a correlation of {s['rho']:.3g} between entries ({source}) and "
                f"{noise}; {alone}.")
    if c is not None and c.estimated:   # measured, and no shared noise found
        return ("This assumes entries' errors are independent, as the board's public and private "
                f"scores suggest; at a correlation of {s['rho']:g} chance would spread them only "
                f"{spread} apart.")
    return ("This assumes each entry had its own test set; entries sharing one (typical "
            f"correlation {s['rho']:g}) would spread only {spread} apart, and fewer could be the "
            "best.")


def reach_sentence(a: Analysis, num: Numbers) -> str | None:
    """d95 against the tiers: why tier 1 can reach many d95s from the leader."""
    s = spreads(a)
    t = a.table
    if s is None or s["n"] <= 2:
        return None
    d95 = s["d95"]
    tier1 = t[t["tier"] == 1]
    if tier1.empty:
        return None
    lead = float(t["score"].iloc[0])
    gaps = np.abs(tier1["score"].to_numpy(dtype=float) - lead)
    far = int(np.nanargmax(gaps))
    reach = float(gaps[far])
    used = s["independent"] if s["kind"] == "typical" else s["correlated"]
    times = f" ({reach / d95:.1f} d95)" if d95 > 0 else ""
    why = ("Why tier 1 reaches further than d95" if reach > d95 else
           "Why tier 1 stays within d95" if s["kind"] == "measured" else "d95 and tier 1")
    own = "its own set of items" if _items(a) else "its own test set"
    text = (f"{why}: d95 ({num.d95_short(d95)}) is the gap one "
            f"pair of equally good models, each on {own}, exceeds one time in twenty; "
            "tier 1 compares all "
            f"{s['n']:,} entries at once, and chance spreads that many equals up to "
            f"{num.d95_short(used)}. Tier 1 reaches "
            f"{num.score(float(tier1['score'].iloc[far]))}, {num.d95_short(reach)} from the "
            f"leader{times}.")
    if s["kind"] == "measured":
        if reach <= d95:
            text += " Paired on the same rows, entries' differences are far less noisy than d95."
        elif reach > used:
            r = _with_leader(a, int(np.flatnonzero(t["tier"].to_numpy() == 1)[far]))
            if r is not None and r < s["rho"]:
                text += (f" That entry's scores move less with the leader's (correlation "
                         f"{r:.2f}), so its comparison with the leader is noisier.")
        return text
    own_d95 = float(tier1["d95"].iloc[far]) if "d95" in tier1.columns else float("nan")
    if reach > used and np.isfinite(own_d95) and own_d95 > d95:
        text += (f" That entry's score is noisier than the leader's (d95 {num.d95_short(own_d95)} "
                 "at its score), so its comparisons are weaker.")
    return text


def _with_leader(a: Analysis, row: int) -> float | None:
    """Correlation between the leader's and row ``row``'s bootstrap scores (paired replicates)."""
    if a.bootstrap is None:   # only submissions and items have paired replicates
        return None
    reps = a.bootstrap.replicates[[0, row]]
    reps = reps[:, np.isfinite(reps).all(axis=0)]
    if reps.shape[1] < 3 or (reps.std(axis=1) == 0).any():
        return None
    return float(np.corrcoef(reps)[0, 1])


def _items(a: Analysis) -> bool:
    return a.submissions is not None and a.submissions.layout == "items"


def leader_interval(lead, num, conf: str) -> str:
    """The leader's interval in words, or why it has none (a missing bound: a score no
    resample moved, or one the stated test set cannot give): never "— to —"."""
    if lead["ci_low"] == lead["ci_low"] and lead["ci_high"] == lead["ci_high"]:   # not NaN
        return f"{conf} interval {num.score(lead['ci_low'])} to {num.score(lead['ci_high'])}"
    return "no interval: the notes below say why"
