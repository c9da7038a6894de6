"""Layer charts assembled as dictionaries (leaderboard/report/vega/layering.py) are what Altair's
own ``alt.layer(...).properties(...).to_dict()`` gives, key order included (issue 27): a layer's
selection lifted to the top (the scores, rank-interval and shake-up charts' zoom), data all
layers share moved to the top (the shake-up noise panel), layers over different datasets. An
Altair that layers otherwise fails here rather than changing the pages silently."""
from __future__ import annotations

import importlib
import json
import pkgutil

import altair as alt
import numpy as np
import pandas as pd
import pytest

import leaderboard.report.vega as vega
from leaderboard.report.vega import layering
from leaderboard.report.vega.analyze import scores_chart
from leaderboard.report.vega.ranks import rank_interval_chart
from leaderboard.report.vega.shakeup import scatter_chart
from leaderboard.report.vega.shakeup_ranks import noise_panel_chart

MODULES = [importlib.import_module(f"leaderboard.report.vega.{m.name}")
           for m in pkgutil.iter_modules(vega.__path__)]


@pytest.fixture
def checked(monkeypatch):
    """Every ``layered`` call of the chart builders compared with Altair's layering; the list of
    whether each call was assembled as dictionaries (not left to Altair)."""
    calls = []

    def check(*layers, **properties):
        got = layering.layered(*layers, **properties)
        want = alt.layer(*layers).properties(**properties).to_dict(validate=False)
        assert json.dumps(got) == json.dumps(want)
        calls.append(layering._plain_layers(layers))
        return got

    for module in MODULES:
        if hasattr(module, "layered") and module is not layering:
            monkeypatch.setattr(module, "layered", check)
    for module in MODULES:   # skeletons built anew, through check
        for name, fn in vars(module).items():
            if name != "bundle" and callable(getattr(fn, "cache_clear", None)):
                fn.cache_clear()
    return calls


def test_layered_is_altairs_layer_chart(checked):
    rows = pd.DataFrame({"rank": [1, 2], "team": ["a", "b"], "score": [0.9, 0.8],
                         "lo": [0.85, 0.7], "hi": [0.95, 0.85], "tier": [1, 1], "starts": [1, 0]})
    scores = scores_chart(rows, decimals=2, x_title="AUC", interval="95% interval",
                          leader=0.9).to_dict()
    ranks = pd.DataFrame({"rank": [1, 2], "team": ["a", "b"], "tier": [1, 1], "score": [2, 1],
                          "rlo": [1, 1], "rhi": [2, 2], "slo": [1, 1], "shi": [2, 2],
                          "pbest": [0.6, 0.4], "ptext": ["60%", "40%"]})
    rank_interval_chart(ranks, level="95%")
    scatter_chart(np.array([0.9, 0.8, 0.85]), np.array([0.88, 0.83, 0.8]), ["a", "b", "c"],
                  band=None, flagged=np.array([False, False, True]), labelled={},
                  higher_is_better=True, fmt="{:.2f}".format, decimals=2)
    panel = noise_panel_chart(np.array([1, 2, 3]), np.array([3, 1, 2]), list("abc"),
                              np.array([[1, 1, 2], [1, 2, 3], [2, 3, 3]])).to_dict()
    assert checked == [True] * 4   # all four assembled here, none left to Altair
    zoom = scores["params"][0]
    assert zoom["name"] == "zoom" and zoom["views"] == [scores["layer"][3]["name"]]
    assert "data" in panel and all("data" not in part for part in panel["layer"])


def test_layers_altair_would_treat_otherwise_are_left_to_it():
    base = alt.Chart(alt.Data(name="d")).mark_point().encode(x="a:Q")
    sized = base.properties(width=100)
    zoom = alt.selection_interval(name="zoom")
    two = [base.add_params(zoom), base.mark_line().add_params(alt.selection_point(name="pick"))]
    for layers in ([sized, base], two):
        assert not layering._plain_layers(layers)
        assert layering.layered(*layers, height=50) == alt.layer(*layers).properties(
            height=50).to_dict(validate=False)
