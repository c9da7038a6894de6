"""The answer box at the top of the analysis page and the sentences below it: who could be the
best and its caveats (:func:`~leaderboard.report.headline.answer`), the spread of equals, how
tier 1 differs from the best set, why a tier skips a rank, and the d95 sentence."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from leaderboard.report.headline import (answer, caveats, headline, leader_interval,
                                         reach_sentence)
from leaderboard.report.tier_marks import out_of_order_mask
from leaderboard.report.words import pct

if TYPE_CHECKING:
    from leaderboard.pipelines.scores import Analysis
    from leaderboard.report.numbers import Numbers


def answer_context(a: Analysis, num: Numbers, conf: str) -> dict:
    """The page's top: the answer box (the layout sets its first sentence apart), its caveats,
    the same answer in one line (``headline``), what the numbers assume (``said``), the d95
    sentence and how far the tiers reach (None without noise)."""
    told, cautions, said, marks = _answer(a, num, conf)
    return {"answer": told, "caveats": cautions, "headline": " ".join(told), "said": said,
            "marks": marks,
            "d95_sentence": _d95_sentence(a, num),
            "reach": reach_sentence(a, num) if a.tiers is not None else None}


def _answer(a: Analysis, num: Numbers, conf: str
            ) -> tuple[list[str], list[str], list[str], list[bool]]:
    """The answer box (:func:`~leaderboard.report.headline.answer`: who could be the best, the
    spread of equals, the leader and tier 1), its caveats, the sentences below the page's first
    table (what the numbers assume, the tiers), and which of the box's sentences point to them."""
    t = a.table
    n, lead = len(t), t.iloc[0]
    label = a.settings.metric.label
    if a.tiers is None:
        return (["Ranking only: intervals and tiers are not available for this leaderboard.",
                 f"{lead['team']} ranks first of {n:,} entries with {label} "
                 f"{num.score(lead['score'])}; the table ranks every entry by its observed "
                 "score."], caveats(a), list(a.notes[:1]), [False, False])
    if n == 1:
        return (["There is only one entry, so there is no one to be tied with.",
                 f"It scored {num.score(lead['score'])} ({leader_interval(lead, num, conf)})."],
                caveats(a), [], [False, False])
    told, cautions, marks = answer(a, num, conf)
    said = headline(a, num)[1:]   # the spread with d95 for one pair, and what it assumes
    k = int((t["tier"] == 1).sum())
    said.append(_tier_one_and_best_set(t, k))
    tier = t["tier"].to_numpy(dtype=int)
    if tier.max() > 1:
        said.append(f"The {n:,} entries form {int(tier.max()):,} tiers.")
    said.extend(_skip_sentence(t, tier))
    return told, cautions, said, marks


def _tier_one_and_best_set(t, k: int) -> str:
    """Tier 1 beside the best set: the same entries or not, said as they are (the sentence had
    said they differ on boards where both held the one leader)."""
    entries = f"{k:,} entr{'y' if k == 1 else 'ies'}"
    if "in_best_set" not in t:
        return f"Tier 1 holds {entries}; \u201cHow to read\u201d says how it differs from the best set."
    best = t["in_best_set"].fillna(False).to_numpy(dtype=bool)
    if np.array_equal(best, t["tier"].to_numpy() == 1):
        return (f"Tier 1 and the best set hold the same {entries} here; they answer different "
                "questions (\u201cHow to read\u201d).")
    return (f"Tier 1 holds {entries}, the best set {int(best.sum()):,}: they answer different "
            "questions (\u201cHow to read\u201d).")


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


def _d95_sentence(a: Analysis, num: Numbers) -> str | None:
    """How far apart two equally good models land on this test set or set of items (d95), and
    where the noise was measured; None without d95 or a test-set size."""
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
