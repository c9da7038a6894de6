"""The context of the analysis page's sections below the tier table, each from its own words
module: published scores and costs, the assumptions, the categories, the noise at the leader's
score (which universe or resampling, and the leader's distribution), the ranks, the
post-mortem, the submissions' files and curves, and the model card."""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from leaderboard.report import (assumptions_text, categories_text, ranks_text, shakeup_text,
                                submissions_text)
from leaderboard.report.benchmark_text import costs_context, published_context
from leaderboard.report.card_text import card_context
from leaderboard.report.vocabulary import vocabulary
from leaderboard.studies.noise import study_words

if TYPE_CHECKING:
    from leaderboard.pipelines.scores import Analysis
    from leaderboard.report.numbers import Numbers


def sections_context(a: Analysis, num: Numbers) -> dict:
    """Every section's context by the template's name for it (None where the analysis has no
    such section); ``leader`` only when the analysis has the leader's distribution."""
    context = {
        "universe": _universe_box(a),
        "ranks": ranks_text.context(a, num.score),
        "shakeup": shakeup_text.context(a, num.score),
        "categories": categories_text.context(a, num.score),
        "assumptions": assumptions_text.context(a),
        "files": submissions_text.file_rows(a) if a.mode == "submissions" else None,
        "curves": submissions_text.curve_words(a),
        "costs": costs_context(a, num.score), "published": published_context(a, num.score),
        "card": card_context(a.card, num.score, vocabulary(a).entity),
    }
    leader = _leader_numbers(a, num)
    if leader is not None:
        context["leader"] = leader
    return context


def _universe_box(a: Analysis) -> dict | None:
    """What gave the intervals: the simulated universe, its assumptions and what its study
    measured, or the submissions' resampling; None for a ranking without noise."""
    s = a.settings
    if a.noise is not None:
        return {"name": a.noise.universe, "assumptions": a.noise.assumptions,
                "method": a.noise.method,
                "study": study_words(s.metric.name, a.noise.universe, s.universe.spread,
                                     getattr(a.tails, "how", None))}
    if a.bootstrap is not None:
        return submissions_text.resampling_box(a)
    return None


def _leader_numbers(a: Analysis, num: Numbers) -> dict[str, str] | None:
    """The leader's distribution as the noise section prints it: its score, standard deviation,
    median and middle 95%, d95 and the number of draws; None without it."""
    lead = a.leader_distribution
    if lead is None:
        return None
    q_low, q_mid, q_high = np.quantile(lead.draws, [0.025, 0.5, 0.975])
    # a score no draw moved (a perfect one): its pairs all land together, which says nothing
    # about its noise; "within d95 = 0.0000" would contradict the answer box's "not known"
    pairs = (f"95% of pairs are within d95 = {num.d95(lead.d95)}" if lead.d95 > 0 else
             "every pair lands at the same score, since no draw moved it, so d95 is 0 here "
             "and the noise of this score cannot be measured")
    return {"score": num.score(lead.true_score), "sd": num.score(lead.sd),
            "median": num.score(q_mid), "q_low": num.score(q_low),
            "q_high": num.score(q_high), "d95": num.d95(lead.d95), "pairs": pairs,
            "draws": f"{len(lead.draws):,}"}
