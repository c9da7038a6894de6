"""The "By category" chart: the leading models' score in every category, with each category's
tier 1 marked (where a model cannot be told apart from the best of that category).

Data in, :class:`~.common.Spec` out, like the other page modules.
"""
from __future__ import annotations


import altair as alt
import pandas as pd

from leaderboard.report.vega.common import (Chart, INK, Spec, data, dim_others, finish, finite,
                                            label, number_format, with_data)
from leaderboard.report.vega.common import skeleton
from leaderboard.report.vega.layering import layered

TOP_MODELS = 20


def category_chart(per_category: pd.DataFrame, macro: pd.DataFrame, *, decimals: int,
                   metric: str, conf: str, higher_is_better: bool,
                   top: int = TOP_MODELS) -> Spec:
    """A heat map: one row per model (the top ``top`` of the macro mean, best first), one column
    per category, the colour its score there (darker is better), a dot where the model is in
    the category's tier 1. ``per_category`` has ``category``, ``team``, ``score``, ``ci_low``,
    ``ci_high`` and ``tier``; ``macro`` ranks the models (``rank``, ``team``).

    Examples
    --------
    >>> per = pd.DataFrame({"category": ["x", "x", "y", "y"], "team": ["a", "b", "a", "b"],
    ...                     "score": [0.9, 0.8, 0.5, 0.7], "ci_low": [0.8] * 4,
    ...                     "ci_high": [1.0] * 4, "tier": [1, 2, 1, 1]})
    >>> macro = pd.DataFrame({"rank": [1, 2], "team": ["a", "b"]})
    >>> s = category_chart(per, macro, decimals=2, metric="accuracy", conf="95%",
    ...                    higher_is_better=True).to_dict(validate=True)
    >>> [(c["team"], c["category"], c["tier1"]) for c in s["datasets"]["cells"]]
    [('a', 'x', 1), ('a', 'y', 1), ('b', 'x', 0), ('b', 'y', 1)]
    """
    order = macro.sort_values("rank", kind="stable")["team"].head(top).tolist()
    place = {t: i + 1 for i, t in enumerate(order)}
    cats = list(dict.fromkeys(per_category["category"]))
    col = {c: j + 1 for j, c in enumerate(cats)}
    part = per_category[per_category["team"].isin(place)]
    cells = [{"team": label(r.team), "row": place[r.team], "category": label(r.category),
              "col": col[r.category], "score": finite([r.score], 8)[0],
              "lo": finite([r.ci_low], 8)[0], "hi": finite([r.ci_high], 8)[0],
              "tier": int(r.tier), "tier1": int(r.tier == 1)}
             for r in part.itertuples(index=False)]
    cells.sort(key=lambda c: (c["row"], c["col"]))
    return with_data(_chart(len(order), len(cats), decimals, metric, conf, higher_is_better),
                     cells=cells)


@skeleton(maxsize=16)
def _chart(rows: int, cols: int, decimals: int, metric: str, conf: str, higher: bool) -> dict:
    fmt = number_format(decimals)
    width = int(min(110, max(14, 760 // max(cols, 1))))   # a column; rows are 20 px
    base = Chart(data("cells"))
    x = alt.X("category:N", sort=alt.EncodingSortField("col", order="ascending"), title=None,
              axis=alt.Axis(orient="top", labelAngle=0 if width >= 80 else -45, labelLimit=160,
                            labelFontSize=11))
    y = alt.Y("team:N", sort=alt.EncodingSortField("row", order="ascending"), title=None,
              axis=alt.Axis(labelLimit=200, labelFontSize=11.5))
    tips = [alt.Tooltip("team:N", title="model"), alt.Tooltip("category:N", title="category"),
            alt.Tooltip("score:Q", title=metric, format=fmt),
            alt.Tooltip("lo:Q", title=f"{conf} interval from", format=fmt),
            alt.Tooltip("hi:Q", title="to", format=fmt), alt.Tooltip("tier:Q", title="tier")]
    layers = [
        base.mark_rect(stroke="white", strokeWidth=1).encode(
            x=x, y=y, opacity=dim_others(low=0.35), tooltip=tips,
            color=alt.Color("score:Q", title=f"{metric} in the category",
                            scale=alt.Scale(scheme="blues", reverse=not higher),
                            legend=alt.Legend(orient="bottom", direction="horizontal",
                                              gradientLength=240, format=".3~g",
                                              titleLimit=400))),
        base.transform_filter("datum.tier1 == 1").mark_circle(size=22, color=INK, opacity=0.8)
        .encode(x=x, y=y, tooltip=tips),
    ]
    chart = layered(*layers, width=width * cols, height=20 * rows)
    return finish(chart, "categories", fit=False)
