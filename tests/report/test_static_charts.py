"""Static drawings of the charts only when asked for (issue 41): ``--static-charts`` /
``static_charts=True``. Without it no page starts the chart renderer's child process (vl-convert's
V8, 0.70 s of CPU a run whose drawings are not kept); with it the page is the one every page was
before (the drawings in place of the note for readers without JavaScript); where no page with
Vega charts is written, the option is refused in one line."""
from __future__ import annotations

import subprocess

import pandas as pd
import pytest

import leaderboard
from chart_helpers import page_charts, without_static
from leaderboard.api_battles import BattlesResult
from leaderboard.api_plan import BoardPlan
from leaderboard.cli import main
from leaderboard.errors import InputError
from leaderboard.report.vega import renderer

BOARD = "team,score\n" + "".join(f"t{i},{0.9 - i / 50}\n" for i in range(8))
FEW = ["--draws", "100", "--replicates", "100"]


@pytest.fixture
def no_renderer(monkeypatch):
    """Fails the test if any drawing is asked for or the renderer's child is spawned (a drawing
    kept on disk would spare the spawn, so the requests themselves are refused too)."""
    def refused(*args, **kwargs):
        raise AssertionError("the chart renderer was asked for a drawing")

    def spawned(*args, **kwargs):
        raise AssertionError("the chart renderer's child process was started")
    for name in ("svg_later", "svg", "warm_up", "png"):
        monkeypatch.setattr(renderer, name, refused)
    monkeypatch.setattr(subprocess, "Popen", spawned)


def test_pages_never_start_the_renderer_unless_asked(tmp_path, no_renderer):
    """Fails on the code before: ``analyze`` started the renderer (``warm_up``) on every run and
    every page asked for the top charts' drawings."""
    board = tmp_path / "b.csv"
    board.write_text(BOARD)
    out = tmp_path / "r.html"
    assert main(["analyze", str(board), "--metric", "auc", "--n-test", "2000", "--prevalence",
                 "0.3", *FEW, "--quiet", "-o", str(out)]) == 0
    charts = page_charts(out.read_text(encoding="utf-8"))
    assert len(charts) >= 4 and all(c["svg"] is None and c["spec"] for c in charts.values())
    assert main(["plan", "--metric", "auc", "--score", "0.8", "--n-test", "2000", "--prevalence",
                 "0.3", "--draws", "100", "--quiet", "-o", str(tmp_path / "p.html")]) == 0
    assert main(["simulate", "--score", "0.8", "--n-test", "500", "--prevalence", "0.3",
                 "--draws", "100", "--quiet", "-o", str(tmp_path / "s.html")]) == 0
    result = leaderboard.analyze(pd.read_csv(board), metric="auc", n_test=2000, prevalence=0.3,
                                 draws=100, replicates=100)
    result.save(tmp_path / "api.html")
    for page in ("p.html", "s.html", "api.html"):
        html = (tmp_path / page).read_text(encoding="utf-8")
        assert "lb-spec" in html and 'class="lb-static"' not in html, page


def test_the_option_adds_the_drawings_and_nothing_else(tmp_path):
    """The plan's page with ``--static-charts`` is the page without it plus its drawing."""
    pages = []
    for extra in ([], ["--static-charts"]):
        out = tmp_path / f"p{len(pages)}.html"
        assert main(["plan", "--metric", "auc", "--score", "0.8", "--n-test", "2000",
                     "--prevalence", "0.3", "--draws", "100", "--quiet", "-o", str(out),
                     *extra]) == 0
        pages.append(out.read_text(encoding="utf-8"))
    assert page_charts(pages[1])["chart-plan-mdd"]["svg"] is not None
    assert page_charts(pages[0])["chart-plan-mdd"]["svg"] is None
    assert without_static(pages[1]) == pages[0]


@pytest.mark.parametrize("argv, words", [
    (["analyze", "--example", "battles"], "--static-charts does not apply to --battles"),
    (["analyze", "--example", "submissions", "--metric", "auc,accuracy"],
     "the page of several metrics has none"),
    (["plan", "--metric", "auc", "--score", "0.8", "--n-test", "1000"], "give -o FILE"),
    (["plan", "--from", "b.csv", "--metric", "auc", "-o", "p.html"], "without --from"),
    (["compare", "--baseline", "a.csv", "--candidate", "b.csv"], "unrecognized arguments"),
    (["calibrate"], "unrecognized arguments"),
])
def test_refused_where_no_page_has_charts(tmp_path, monkeypatch, capsys, argv, words):
    monkeypatch.chdir(tmp_path)
    try:
        code = main([*argv, "--static-charts"])
    except SystemExit as stop:   # argparse's own refusal
        code = stop.code
    err = capsys.readouterr().err
    assert code == 2 and words in err and len(err.strip().splitlines()) == 1, err
    assert list(tmp_path.iterdir()) == []   # nothing written


def test_python_refuses_it_where_no_page_has_charts(tmp_path):
    result = leaderboard.analyze(pd.DataFrame({"team": list("abc"), "score": [0.9, 0.8, 0.7]}),
                                 metric="auc", n_test=500, prevalence=0.3, draws=100,
                                 replicates=100)
    for path, words in (("t.json", "not 't.json'"), ("t.csv", "not 't.csv'")):
        with pytest.raises(InputError, match=words):
            result.save(tmp_path / path, static_charts=True)
    with pytest.raises(InputError, match="static_charts"):
        result.to_html(static_charts="yes")
    for page in (BattlesResult(analysis=None), object.__new__(BoardPlan)):
        with pytest.raises(InputError, match="a page with charts, which a"):
            page.save(tmp_path / "x.html", static_charts=True)
    assert list(tmp_path.iterdir()) == []


def test_simulates_page_names_the_option_in_its_command():
    """The command a simulate page prints to rerun it keeps --static-charts when the page has
    its drawings (it dropped the option)."""
    from leaderboard.cli import build_parser
    from leaderboard.cli.simulate import command_line

    argv = ["simulate", "--score", "0.8", "--n-test", "500", "-o", "s.html"]
    parser = build_parser(only="simulate")
    assert command_line(parser.parse_args([*argv, "--static-charts"])).endswith(
        "-o s.html --static-charts")
    assert "--static-charts" not in command_line(parser.parse_args(argv))
