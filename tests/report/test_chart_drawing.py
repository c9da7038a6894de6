"""The static drawings' path (issue 27): each distinct specification drawn once per process,
drawings started while the page goes on and collected at the end (the same bytes as one after
another), the renderer started ahead, and the per-entry charts built from the rows they keep."""
from __future__ import annotations

import json
import time

import pytest

from leaderboard.report.vega import analyze, embed, ranks, renderer
from leaderboard.report.vega.common import TOP, Spec

SPEC = {"mark": "point", "data": {"values": [{"a": 1, "team": "x"}]},
        "encoding": {"x": {"field": "a", "type": "quantitative"},
                     "y": {"field": "team", "type": "nominal"}}}


@pytest.fixture
def asked(monkeypatch):
    """The requests that reached the child process, in order (drawings kept between runs off:
    these tests count what one process asks)."""
    monkeypatch.setenv("LEADERBOARD_CACHE_DIR", "")
    requests = []
    ask = renderer._RENDERER.ask

    def counted(request):
        requests.append(request)
        return ask(request)
    monkeypatch.setattr(renderer._RENDERER, "ask", counted)
    return requests


def test_a_specification_is_drawn_once_per_process(asked):
    renderer.forget_drawings()
    first = renderer.svg(SPEC, embed.VL_VERSION)
    # the same specification again, its keys in another order: the drawing kept, no request
    again = renderer.svg(dict(reversed(list(SPEC.items()))), embed.VL_VERSION)
    assert first.startswith("<svg") and again == first and len(asked) == 1
    other = renderer.svg({**SPEC, "mark": "square"}, embed.VL_VERSION)
    assert other != first and len(asked) == 2
    renderer.forget_drawings()
    assert renderer.svg(SPEC, embed.VL_VERSION) == first and len(asked) == 3


def test_a_drawing_is_kept_between_runs_and_a_damaged_one_is_not_taken(tmp_path, monkeypatch):
    """Issue 41: a drawing kept by an earlier run (a new process: the process's cache emptied)
    is taken from disk, not asked of the renderer; a kept file that was changed, or whose key is
    another request's, is drawn again."""
    monkeypatch.setenv("LEADERBOARD_CACHE_DIR", str(tmp_path))
    requests = []
    ask = renderer._RENDERER.ask
    monkeypatch.setattr(renderer._RENDERER, "ask", lambda r: requests.append(r) or ask(r))
    spec = {**SPEC, "mark": "circle"}
    renderer.forget_drawings()
    first = renderer.svg(spec, None)
    renderer.forget_drawings()
    assert renderer.svg(spec, None) == first and len(requests) == 1
    (kept,) = (tmp_path / "drawings").glob("*.json")
    kept.write_text(kept.read_text().replace("<svg", "<svg onload='x'"))   # digest now wrong
    renderer.forget_drawings()
    assert renderer.svg(spec, None) == first and len(requests) == 2
    key = renderer._disk_key(json.dumps({"op": "svg", "spec": spec, "vl_version": None},
                                        sort_keys=True))[1]
    assert key.startswith("vl-convert ") and json.loads(kept.read_text())["key"] == key
    from leaderboard.disk_cache import digest
    other = json.dumps({"key": key + " ", "svg": "<svg>planted</svg>"}).encode()
    kept.write_bytes(other)
    kept.with_name(kept.name + ".sha256").write_text(digest(other))
    renderer.forget_drawings()
    assert renderer.svg(spec, None) == first and len(requests) == 3


def test_a_refused_specification_is_asked_again_not_kept(asked):
    for _ in range(2):
        with pytest.raises(renderer.RenderError):
            renderer.svg({"mark": "no-such-mark"}, None)
    assert len(asked) == 2 and renderer.unavailable() is None


def test_the_cache_keeps_at_most_its_size(monkeypatch, asked):
    monkeypatch.setattr(renderer, "CACHE_ENTRIES", 2)
    renderer.forget_drawings()
    specs = [{**SPEC, "data": {"values": [{"a": k, "team": "x"}]}} for k in range(3)]
    for spec in specs:
        renderer.svg(spec, None)
    assert len(renderer._CACHE) == 2
    renderer.svg(specs[0], None)   # the oldest was let go: drawn again
    assert len(asked) == 4


def test_a_kept_drawing_gets_each_page_its_own_ids():
    """vl-convert numbers its clip paths per process; a drawing from the cache is renamed for
    the page that takes it, as a fresh one is."""
    chart = Spec({"mark": {"type": "point", "clip": True}, "data": {"name": "d"},
                  "encoding": {"x": {"field": "a", "type": "quantitative"}}}, {"d": [{"a": 1}]})
    renderer.forget_drawings()
    with embed.static_drawings():
        one = embed.block(chart, "chart-one", "t")
        two = embed.block(chart, "chart-two", "t")   # from the cache
    assert 'id="chart-one-1"' in str(one.svg) and 'url(#chart-one-1)' in str(one.svg)
    assert str(two.svg) == str(one.svg).replace("chart-one-", "chart-two-")


def test_pending_charts_give_the_blocks_drawn_one_after_another():
    chart = analyze.board_histogram([0.9, 0.8, 0.85, 0.7, 0.6], 0.9, 0.05, higher=True,
                                    x_title="AUC", decimals=2, d95_text="0.05")
    with embed.static_drawings():
        pending = [embed.pending_block(chart, f"c{k}", "t", caption="c") for k in range(3)]
        renderer.forget_drawings()
        direct = [embed.block(chart, f"c{k}", "t", caption="c") for k in range(3)]
    assert [p.result() for p in pending] == direct and direct[0].svg is not None


def test_warm_up_returns_at_once_and_the_renderer_then_draws():
    started = time.monotonic()
    renderer.warm_up()
    assert time.monotonic() - started < 0.5
    assert renderer.svg(SPEC, None).startswith("<svg")


def test_per_entry_charts_from_the_rows_they_keep_equal_those_from_every_row():
    """The page builds the scores and rank-interval charts from the top TOP + 1 rows: the same
    specifications as from every row of the board (here 400 entries, and one of TOP + 1)."""
    from big_board import big_analysis

    for n in (400, TOP + 1, TOP):
        t = big_analysis(n).table
        every, kept = analyze.entry_rows(t), analyze.entry_rows(t, limit=TOP + 1)
        assert len(kept) == min(n, TOP + 1)
        scores = [analyze.scores_chart(rows, decimals=4, x_title="AUC", interval="95% interval",
                                       leader=0.9).to_dict() for rows in (every, kept)]
        assert scores[0] == scores[1]
        intervals = [ranks.rank_interval_chart(rows, level="95%").to_dict()
                     for rows in (every, kept)]
        assert intervals[0] == intervals[1]


def test_notebook_charts_ask_for_no_drawing_and_pages_still_do(asked):
    """``Result.charts()`` hands specifications to Altair: no static drawing is asked for (the
    renderer's start and ~0.1-0.2 s a chart, for pictures a notebook never shows), nor by a
    page unless asked for (``static_charts=True``), which then draws its charts."""
    import pandas as pd

    import leaderboard
    board = pd.DataFrame({"team": list("abcd"), "score": [0.9, 0.85, 0.8, 0.7]})
    result = leaderboard.analyze(board, metric="auc", prevalence=0.3, n_test=500, draws=100,
                                 replicates=100, seed=1)
    renderer.forget_drawings()
    asked.clear()
    charts = result.charts()
    assert {"scores", "hist", "ecdf"} <= set(charts) and asked == []
    assert charts["scores"].to_dict()["datasets"]
    assert 'class="lb-static"' not in result.to_html() and asked == []
    assert 'class="lb-static"' in result.to_html(static_charts=True) and asked
