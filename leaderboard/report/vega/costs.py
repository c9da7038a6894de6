"""The cost-accuracy chart (``--cost-col``, issue 26): every model's mean cost per item against
its score, both with intervals from the same bootstrap replicates, coloured by tier, the
cost-accuracy frontier drawn through the models on it. The skeleton is cached by its
parameters; the numbers come as data."""
from __future__ import annotations


import altair as alt
import numpy as np
import pandas as pd

from leaderboard.report.vega.analyze import tone, tone_scale
from leaderboard.report.vega.common import (INK, WIDTH, Chart, Spec, data, finish, finite,
                                            number_format, with_data)
from leaderboard.report.vega.common import skeleton
from leaderboard.report.vega.layering import layered


def cost_rows(costs) -> pd.DataFrame:
    """The chart's rows from a :class:`~leaderboard.pipelines.item_costs.CostResult` (its
    scores' intervals from ``low``/``high`` columns added by the caller)."""
    return pd.DataFrame({"model": list(costs.models), "tier": costs.tiers.astype(int),
                         "cost": finite(costs.mean, 10), "cost_lo": finite(costs.mean_low, 10),
                         "cost_hi": finite(costs.mean_high, 10),
                         "score": finite(costs.scores, 10),
                         "frontier": costs.on_frontier.astype(bool)})


def cost_chart(rows: pd.DataFrame, *, decimals: int, x_title: str, y_title: str,
               interval: str) -> Spec:
    """Cost (x) against score (y): a dot per model, whiskers its two intervals, the frontier a
    dashed line through its models (labelled). The cost axis is logarithmic when every cost is
    positive and they span more than a factor of 20 (agent costs often span orders of
    magnitude), else linear.

    ``rows``: :func:`cost_rows` with ``lo``/``hi`` (the score's interval) added.

    Examples
    --------
    >>> rows = pd.DataFrame({"model": ["a", "b"], "tier": [1, 1], "cost": [1.0, 0.2],
    ...                      "cost_lo": [0.9, 0.1], "cost_hi": [1.1, 0.3], "score": [0.8, 0.7],
    ...                      "lo": [0.7, 0.6], "hi": [0.9, 0.8], "frontier": [True, True]})
    >>> spec = cost_chart(rows, decimals=2, x_title="cost", y_title="score",
    ...                   interval="95% interval").to_dict(validate=True)
    >>> len(spec["datasets"]["models"])
    2
    """
    costs = rows["cost"].to_numpy(float)
    log = bool(len(costs) and np.all(costs > 0) and costs.max() > 20 * costs.min())
    line = rows[rows["frontier"]].sort_values("cost")
    return with_data(_skeleton(decimals, x_title, y_title, interval, log), models=rows,
                     frontier=line)


@skeleton(maxsize=16)
def _skeleton(decimals: int, x_title: str, y_title: str, interval: str, log: bool) -> dict:
    fmt = number_format(decimals)
    x_scale = alt.Scale(type="log") if log else alt.Scale(zero=False, nice=True)
    y_scale = alt.Scale(zero=False, nice=True)
    x = alt.X("cost:Q", title=x_title, scale=x_scale)
    y = alt.Y("score:Q", title=y_title, scale=y_scale)
    tips = [alt.Tooltip("model:N", title="model"), alt.Tooltip("tier:Q", title="tier"),
            alt.Tooltip("score:Q", title="score", format=fmt),
            alt.Tooltip("lo:Q", title=f"score {interval} from", format=fmt),
            alt.Tooltip("hi:Q", title="to", format=fmt),
            alt.Tooltip("cost:Q", title="cost per item", format=".4g"),
            alt.Tooltip("cost_lo:Q", title=f"cost {interval} from", format=".4g"),
            alt.Tooltip("cost_hi:Q", title="to", format=".4g")]
    base = Chart(data("models")).transform_calculate(tone=tone())
    colour = alt.Color("tone:N", scale=tone_scale(), legend=None)
    layers = [
        Chart(data("frontier")).mark_line(color=INK, strokeDash=[5, 4], strokeWidth=1.2)
        .encode(x=x, y=y, order="cost:Q"),
        base.mark_rule(strokeWidth=1.6).encode(x=alt.X("cost_lo:Q", title=x_title,
                                                       scale=x_scale), x2="cost_hi:Q", y=y,
                                               color=colour, tooltip=tips),
        base.mark_rule(strokeWidth=1.6).encode(x=x, y=alt.Y("lo:Q", title=y_title,
                                                            scale=y_scale), y2="hi:Q",
                                               color=colour, tooltip=tips),
        base.mark_circle(size=70, stroke=INK, strokeWidth=0.7, opacity=1).encode(
            x=x, y=y, color=colour, tooltip=tips),
        # names of the frontier's models, cut to 140 px so a long one cannot run off the plot
        Chart(data("frontier")).mark_text(align="left", dx=7, dy=-7, fontSize=11, color=INK,
                                          limit=140)
        .encode(x=x, y=y, text="model:N"),
    ]
    chart = layered(*layers, width=WIDTH, height=360)
    return finish(chart, "costs")
