"""The ``choose`` page's chart: each candidate's public score and its winner's-curse-corrected
estimate with the 95% interval, one row per candidate, the recommended pair marked.

Data in, :class:`~.common.Spec` out. Candidates play the part of teams (``team`` field), so the
page's selection highlights one here too.
"""
from __future__ import annotations


import altair as alt
import numpy as np
import pandas as pd

from leaderboard.report.vega.common import (Chart, HIGHLIGHT, INK, MUTED, PALETTE, Spec, data,
                                            dim_others, finish, finite, is_selected, label,
                                            label_limit, number_format, share_text, with_data)
from leaderboard.report.vega.common import skeleton
from leaderboard.report.vega.layering import layered

PICK, OTHER = PALETTE[3], PALETTE[0]
MAX_ROWS = 40


def estimate_chart(table: pd.DataFrame, *, decimals: int, higher_is_better: bool,
                   metric: str) -> Spec:
    """Rows in the order of the corrected estimate, best first (at most :data:`MAX_ROWS`): a ring
    at the public score, a dashed line to the corrected estimate (a dot) and its 95% interval,
    the two picks in their own colour and named. ``table`` is
    :attr:`~leaderboard.pipelines.choose.ChooseResult.table`.

    Examples
    --------
    >>> t = pd.DataFrame({"candidate": ["a", "b"], "public_score": [0.9, 0.8],
    ...     "expected": [0.85, 0.82], "ci_low": [0.8, 0.78], "ci_high": [0.9, 0.86],
    ...     "p_best": [0.6, 0.4], "pick": [1, 0]})
    >>> s = estimate_chart(t, decimals=2, higher_is_better=True, metric="AUC").to_dict()
    >>> [(r["team"], r["badge"]) for r in s["datasets"]["rows"]]
    [('a', '1st pick'), ('b', '')]
    """
    expected = table["expected"].to_numpy(float)
    order = np.argsort(-expected if higher_is_better else expected, kind="stable")[:MAX_ROWS]
    rows = []
    for place, i in enumerate(order, start=1):
        r = table.iloc[int(i)]
        rows.append({"team": label(r["candidate"]), "place": place,
                     "public": finite([r["public_score"]], 8)[0],
                     "expected": finite([r["expected"]], 8)[0],
                     "lo": finite([r["ci_low"]], 8)[0], "hi": finite([r["ci_high"]], 8)[0],
                     "pbest": share_text(r["p_best"]),
                     "badge": {1: "1st pick", 2: "2nd pick"}.get(int(r["pick"]), "")})
    better = "higher is better \u2192" if higher_is_better else "\u2190 lower is better"
    return with_data(_estimates(decimals, f"{metric} ({better})", len(rows)), rows=rows)


@skeleton(maxsize=16)
def _estimates(decimals: int, x_title: str, n: int) -> dict:
    fmt = number_format(decimals)
    base = Chart(data("rows")).transform_calculate(
        who="datum.badge ? datum.team + '  \u2014 ' + datum.badge : datum.team")
    y = alt.Y("who:N", sort=alt.EncodingSortField("place", order="ascending"), title=None,
              axis=alt.Axis(labelLimit=label_limit(300), labelFontSize=12, domain=False,
                            ticks=False))
    x = alt.X("expected:Q", title=x_title, scale=alt.Scale(zero=False, nice=False, padding=12))
    colour = alt.condition("datum.badge != ''", alt.value(PICK), alt.value(OTHER))
    tips = [alt.Tooltip("team:N", title="candidate"),
            alt.Tooltip("public:Q", title="public", format=fmt),
            alt.Tooltip("expected:Q", title="corrected", format=fmt),
            alt.Tooltip("lo:Q", title="95% from", format=fmt),
            alt.Tooltip("hi:Q", title="to", format=fmt), alt.Tooltip("pbest:N", title="P(best)")]
    layers = [
        base.mark_rect(color=HIGHLIGHT).transform_filter(is_selected()).encode(
            y=y, x=alt.value(0), x2=alt.value("width")),
        base.mark_rule(color="#9ca3af", strokeDash=[3, 3]).encode(y=y, x="public:Q",
                                                                    x2="expected:Q"),
        base.mark_rule(strokeWidth=2.4, strokeCap="round").encode(
            y=y, x="lo:Q", x2="hi:Q", color=colour, opacity=dim_others(), tooltip=tips),
        base.mark_point(size=60, stroke=MUTED, strokeWidth=1.6, fill="white", filled=True,
                        opacity=1).encode(y=y, x="public:Q", tooltip=tips),
        base.mark_circle(size=70, stroke=INK, strokeWidth=0.7, opacity=1).encode(
            y=y, x=x, color=colour, opacity=dim_others(), tooltip=tips),
    ]
    return finish(layered(*layers, width=700, height=22 * n), "choose-estimates")
