"""``--metric a,b``: several metrics on the same predictions, one page and one JSON, each metric's
numbers those of its own single-metric run."""
from __future__ import annotations

import json

from leaderboard.cli import main


def test_each_metric_equals_its_own_run_and_one_page_holds_them(tmp_path):
    common = ["analyze", "--example", "submissions", "--replicates", "300", "--quiet"]
    assert main([*common, "--metric", "auc,logloss", "-o", str(tmp_path / "both.html"),
                 "--json", str(tmp_path / "both.json")]) == 0
    both = json.loads((tmp_path / "both.json").read_text(encoding="utf-8"))
    assert both["metrics"] == ["auc", "logloss"]
    for name in both["metrics"]:
        assert main([*common, "--metric", name, "-o", str(tmp_path / f"{name}.html"),
                     "--json", str(tmp_path / f"{name}.json")]) == 0
        alone = json.loads((tmp_path / f"{name}.json").read_text(encoding="utf-8"))
        assert both["analyses"][name]["entries"] == alone["entries"]
        assert both["analyses"][name]["ranks"] == alone["ranks"]
    page = (tmp_path / "both.html").read_text(encoding="utf-8")
    # one box for both metrics before the side-by-side table, each metric's own box after it
    assert page.count('class="answer"') == 3 and "Every entry under every metric" in page
    assert page.index('class="answer"') < page.index("<table") < page.index('id="answer-1"')


def test_several_metrics_need_predictions_and_known_names(tmp_path, capsys):
    out = ["-o", str(tmp_path / "r.html"), "--quiet"]
    assert main(["analyze", "--example", "--metric", "auc,logloss", *out]) == 2
    assert "needs predictions" in capsys.readouterr().err
    assert main(["analyze", "--example", "submissions", "--metric", "auc,nonsense", *out]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nonsense" in err and not (tmp_path / "r.html").exists()
