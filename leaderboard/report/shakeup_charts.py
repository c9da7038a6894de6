"""The post-mortem's charts (public against private scores): the scatter with the range noise
alone allows, the rank changes and the panel of how far noise alone moves the top places, with
the page's words for their titles and captions (:mod:`leaderboard.report.shakeup_text`; the
specifications are built in :mod:`leaderboard.report.vega.shakeup` and
:mod:`leaderboard.report.vega.shakeup_ranks`)."""
from __future__ import annotations

from typing import TYPE_CHECKING

from leaderboard.report import shakeup_text
from leaderboard.report.vega import shakeup, shakeup_ranks
from leaderboard.report.vega.embed import PendingChart
from leaderboard.report.vega.embed import pending_block as chart   # drawn while the page goes on

if TYPE_CHECKING:
    from leaderboard.pipelines.scores import Analysis
    from leaderboard.report.numbers import Numbers


def shakeup_charts(a: Analysis, num: Numbers) -> dict[str, PendingChart | None]:
    """The post-mortem's scatter, rank changes and noise panel (None without one)."""
    out: dict[str, PendingChart | None] = dict.fromkeys(("scatter", "rank_changes", "noise_ranks"))
    s = a.shakeup
    if s is None:
        return out
    teams = a.table["team"].astype(str).tolist()
    band = s.overfit.band() if s.overfit is not None else None
    spec, caption = shakeup.scatter_chart(
        s.public, s.private, teams, band=None if band is None else (band.x, band.low, band.high),
        flagged=s.flagged if s.overfit is not None else None,
        labelled=shakeup_text.labelled(s), higher_is_better=a.settings.higher_is_better,
        fmt=num.score, decimals=num.decimals, two_stage=bool(s.two_stage))
    out["scatter"] = chart(spec, "chart-shakeup-scatter", "Public versus private score of every "
                           "entry, with the range noise alone allows", static=False,
                           caption=caption)
    st = s.stats
    spec, facts = shakeup_ranks.rank_change_chart(st.public_rank, st.private_rank, teams)
    panel = 0
    if s.baseline is not None:
        quantiles = s.baseline.private_rank_given_public_place
        out["noise_ranks"] = chart(
            shakeup_ranks.noise_panel_chart(st.public_rank, st.private_rank, teams, quantiles),
            "chart-shakeup-noise", "How far noise alone moves each of the public top places",
            static=False)
        panel = min(facts["top"], facts["total"], quantiles.shape[1])
    out["rank_changes"] = chart(spec, "chart-shakeup-ranks", f"Public to private rank of the "
                                f"{facts['shown']} entries in the top {facts['top']} of either "
                                "board", static=False,
                                caption=shakeup_text.rank_caption(facts, panel))
    return out
