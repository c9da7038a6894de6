"""End to end through the command line: the README's commands, the issue's acceptance cases."""
from __future__ import annotations

import re

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

from leaderboard.cli import main
from leaderboard.noise.universes import SeedsAUCUniverse


def run(args, tmp_path, name="out"):
    html, out = tmp_path / f"{name}.html", tmp_path / f"{name}.json"
    status = main(["analyze", *args, "-o", str(html), "--json", str(out), "--quiet"])
    assert status == 0
    return json.loads(out.read_text()), html.read_text(encoding="utf-8")


# Determinism and the example's structure, not its noise: at 200 draws and replicates (the default
# is 2,000) every threaded kernel but the tiers' tile gather still runs split over the threads
# (counted on 2 threads), as at the default; tests/test_threads.py checks the split itself.
SMALL = ["--draws", "200", "--replicates", "200"]


@pytest.fixture(scope="module")
def example_runs(tmp_path_factory):
    """The example three times: seed 3, seed 3 again, seed 4 (JSON and page of each)."""
    tmp_path = tmp_path_factory.mktemp("example")
    return [run(["--example", "--seed", seed, *SMALL], tmp_path, name)
            for seed, name in (("3", "a"), ("3", "b"), ("4", "c"))]


def test_example_runs_and_reports(example_runs):
    from leaderboard import __version__

    result, html = example_runs[0]
    # every JSON says its version and command (the others: tests/test_docs_commands.py)
    assert result["version"] == __version__ and result["command"] == "analyze"
    assert result["metric"] == "auc" and result["higher_is_better"] is True
    entries = result["entries"]
    assert len(entries) == 40
    assert [e["rank"] for e in entries] == sorted(e["rank"] for e in entries)
    assert entries[0]["tier"] == 1 and all(e["tier"] >= 1 for e in entries)
    for e in entries:
        assert e["ci_low"] <= e["score"] <= e["ci_high"]
    assert 0 < result["d95"] < 0.1
    assert "R&amp;D &lt;lab&gt;" in html and "R&D <lab>" not in html


def test_same_seed_same_numbers_other_seed_other_numbers(example_runs):
    """Byte for byte but the card's provenance, which names the command: each run writes to
    other paths (-o a.html, b.html); everything else, its date included, is the same."""
    (first, html1), (second, html2), (third, _) = example_runs
    one, two = (first["card"].pop("provenance"), second["card"].pop("provenance"))
    assert first == second and one.pop("command") != two.pop("command") and one == two
    drop = re.compile(r"<dt>Provenance</dt><dd>.*?</dd>", re.S)
    assert drop.sub("", html1) == drop.sub("", html2) and drop.search(html1)
    assert first["d95"] != third["d95"]


def board(tmp_path, scores, name="board.csv"):
    path = tmp_path / name
    pd.DataFrame({"team": [f"t{i}" for i in range(len(scores))], "score": scores}).to_csv(
        path, index=False)
    return str(path)


@pytest.mark.parametrize("n_test,prevalence,seed_figure", [(1000, 0.01, 0.10), (10000, 0.2, 0.012)])
def test_seeds_d95_for_an_entry_at_080(tmp_path, n_test, prevalence, seed_figure):
    """The issue's acceptance figures, held to the universe's exact variance, not to a constant.

    At 2,000 draws the check allows 7.8% (4 Monte Carlo SEs and 1%): it fails on a d95 that is a
    single score's quantile instead of a difference's (29% low), one taken at the wrong
    prevalence or row count, or a universe whose SD is off by a tenth."""
    # two entries at 0.80: d95 is the leader's, the same number bit for bit as on a board with
    # entries at 0.78 and 0.75 too, whose spread only adds grid levels to simulate (59 -> 31)
    result, _ = run([board(tmp_path, [0.80, 0.80]), "--metric", "auc", "--n-test",
                     str(n_test), "--prevalence", str(prevalence), "--draws", "2000",
                     "--universe", "linspace"], tmp_path)
    exact = norm.ppf(0.975) * np.sqrt(2) * SeedsAUCUniverse().exact_sd(0.80, n_test, prevalence)
    # Relative Monte Carlo SE of d95: 0.85% and 1.14% for these two cases at 4000 draws, measured
    # over 20 seeds, so 1.20% and 1.61% at 2000 (x sqrt 2); allow 4 of 1.7%, plus 1% for the
    # difference's departure from normality. (Seen at seed 0: 1.6% and 1.0% off.)
    assert result["d95"] == pytest.approx(exact, rel=4 * 0.017 + 0.01)
    assert result["d95"] == pytest.approx(seed_figure, rel=0.15)


def test_accuracy_board_uses_the_binomial(tmp_path):
    result, html = run([board(tmp_path, [0.91, 0.90, 0.85]), "--metric", "accuracy",
                        "--n-test", "1000"], tmp_path)
    sd = np.sqrt(0.91 * 0.09 / 1000)
    assert result["entries"][0]["sd"] == pytest.approx(sd, rel=0.1)
    assert result["noise"]["universe"] == "binomial"


def test_metric_without_a_universe_is_ranked_and_says_so(tmp_path):
    result, html = run([board(tmp_path, [0.31, 0.29, 0.35]), "--metric", "ari", "--n-test",
                        "1000"], tmp_path)
    assert [e["team"] for e in result["entries"]] == ["t2", "t0", "t1"]
    assert result["d95"] is None and all(e["tier"] is None for e in result["entries"])
    assert "cannot be simulated from scores alone" in html


def test_hostile_team_names_are_escaped(tmp_path):
    path = tmp_path / "evil.csv"
    pd.DataFrame({"team": ["<script>alert(1)</script>", '"><img src=x onerror=alert(1)>', "ok"],
                  "score": [0.9, 0.8, 0.7]}).to_csv(path, index=False)
    _, html = run([str(path), "--metric", "auc", "--n-test", "500", "--prevalence", "0.2",
                   "--draws", "200", "--replicates", "200"], tmp_path)   # names, not noise
    assert "<script>alert(1)" not in html and "<img src=x" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html


@pytest.mark.parametrize("args,message", [
    (["missing.csv", "--metric", "auc"], "missing.csv: file not found"),
    (["{board}", "--metric", "nope"], "unknown metric 'nope'"),
    (["{board}"], "--metric is required"),
    (["{board}", "--metric", "auc", "--n-test", "100"], "--prevalence is needed"),
    (["{board}", "--metric", "auc", "--n-test", "1", "--prevalence", "0.5"], "--n-test must be"),
    (["{board}", "--metric", "auc", "--n-test", "100", "--prevalence", "0"], "--prevalence must"),
    (["{board}", "--metric", "auc", "--n-test", "x"], "invalid int value"),
    (["{board}", "--metric", "accuracy", "--score-col", "nope"], "'nope'"),
    (["{bad}", "--metric", "auc"], "outside the range"),
])
def test_bad_input_is_one_line_exit_2_no_traceback(tmp_path, monkeypatch, capsys, args, message):
    """Two cases (a missing file, an option argparse refuses) run `python -m leaderboard` in a
    fresh interpreter: its exit status and everything it prints. The others call the same main()
    in-process (a subprocess each cost ~2.5 s of imports)."""
    paths = {"board": board(tmp_path, [0.8, 0.7]), "bad": board(tmp_path, [0.8, 1.7], "bad.csv")}
    argv = ["analyze", *[a.format(**paths) for a in args], "--quiet", "-o", str(tmp_path / "r.html")]
    if message in ("missing.csv: file not found", "invalid int value"):
        proc = subprocess.run([sys.executable, "-m", "leaderboard", *argv], capture_output=True,
                              text=True, cwd=tmp_path)
        code, stderr = proc.returncode, proc.stderr
    else:
        monkeypatch.chdir(tmp_path)
        code, stderr = main(argv), capsys.readouterr().err
    assert code == 2
    assert message in stderr
    assert len(stderr.strip().splitlines()) == 1 and "Traceback" not in stderr


def test_mlsp_real_leaderboard(shared_data, tmp_path):
    path = shared_data / "kaggle_public_private" / "mlsp-2014-mri__public_private.csv"
    # the real board's 313 entries at 100 draws and replicates (the fewest allowed): its reading,
    # order and tiers are checked here, not the noise's Monte Carlo precision (three tiers at 100
    # as at 400; in-process, alternating: CPU 2.3-3.1 -> 1.2-1.5 s)
    result, html = run([str(path), "--metric", "auc", "--n-test", "120", "--prevalence", "0.5",
                        "--draws", "100", "--replicates", "100"], tmp_path)
    entries = result["entries"]
    assert len(entries) == 313 and entries[0]["team"] == "Solution Draft (mlsp)"
    assert entries[0]["score"] == pytest.approx(0.9282)
    assert all(e["ci_low"] <= e["score"] <= e["ci_high"] for e in entries)
    assert entries[0]["tier"] == 1 and entries[-1]["tier"] > 1
    assert result["source"]["split"] == "private"
    assert "public_score" in entries[0]


def test_sberbank_kaggle_download(shared_data, tmp_path):
    path = shared_data / "kaggle_lb_downloads" / "sberbank-russian-housing-market__publicleaderboard.csv"
    result, html = run([str(path), "--metric", "rmsle"], tmp_path)
    entries = result["entries"]
    assert result["higher_is_better"] is False and result["source"]["format"] == "kaggle-download"
    assert len(entries) == 3265 and entries[0]["score"] == pytest.approx(0.29755)
    assert all(a["score"] <= b["score"] for a, b in zip(entries, entries[1:]))
    assert "No test-set size was given" in html


# Every JSON says its version and command: tests/test_docs_commands.py checks it (and the schema)
# on the manual's simulate, plan, choose and analyze commands that write one.
