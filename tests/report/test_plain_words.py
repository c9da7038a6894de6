"""A newcomer's words (issue 43): what the terminal and the page say is true of the input in
hand, agrees in number, names no file that is gone, and speaks the caller's language (options on
the command line, keyword arguments in Python)."""
from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pytest

import leaderboard
from leaderboard.cli import main
from leaderboard.flags import board_flags
from leaderboard.metrics import get_metric


@pytest.fixture(scope="module")
def no_usage_run(tmp_path_factory):
    """A solution without a Usage column (as Titanic's) and three submissions, one of them
    perfect: the terminal's text, the page and the JSON."""
    folder = tmp_path_factory.mktemp("no-usage")
    rng = np.random.default_rng(0)
    y = (rng.random(200) < 0.3).astype(int)
    (folder / "subs").mkdir()
    pd.DataFrame({"id": range(200), "target": y}).to_csv(folder / "sol.csv", index=False)
    pd.DataFrame({"id": range(200), "target": 0.05 + 0.9 * y}).to_csv(   # AUC 1
        folder / "subs" / "perfect.csv", index=False)
    for k in range(2):
        guess = np.clip(0.5 * y + rng.random(200) * 0.6, 0, 1).round(4)
        pd.DataFrame({"id": range(200), "target": guess}).to_csv(
            folder / "subs" / f"model{k}.csv", index=False)
    return folder


def test_a_solution_without_usage_is_ranked_by_every_row(no_usage_run, capsys):
    folder = no_usage_run
    assert main(["analyze", "--solution", str(folder / "sol.csv"), "--submissions",
                 str(folder / "subs"), "--metric", "auc", "--replicates", "100",
                 "-o", str(folder / "r.html"), "--json", str(folder / "r.json")]) == 0
    out = capsys.readouterr().out
    assert "ranked by every row of the solution, none of them public" in out
    page = (folder / "r.html").read_text(encoding="utf-8")
    assert "every row of the solution (it has no public rows)" in page
    assert "other split" not in page and "200 private rows" not in page
    # a perfect leader's d95 is 0, said as such, not rounding dust (6.223e-61): in the terminal,
    # the JSON's two d95s, the noise section's words and the pairwise-difference chart's pin
    document = json.loads((folder / "r.json").read_text(encoding="utf-8"))
    assert document["d95"] == 0 and document["noise"]["leader_d95"] == 0
    d95 = next(line for line in out.splitlines() if line.startswith("d95"))
    assert "e-" not in d95 and "cannot be measured" in d95
    assert "95% of pairs are within d95" not in page and "every pair lands at the same score, " \
        "since no draw moved it, so d95 is 0 here and the noise of this score cannot be " \
        "measured" in page
    pin = json.loads(re.search(r'"pin":(\[[^]]*\])', page).group(1))[0]
    assert (pin["x"], pin["text"]) == (0, "d95 = 0 (no draw moved the score)")


def test_flags_agree_in_number():
    scores = list(np.linspace(0.80, 0.82, 12)) + [0.30]
    far, worse = board_flags([f"t{i}" for i in range(13)], scores, get_metric("auc"), True,
                             prevalence=0.2)
    assert far.message.startswith("1 entry scores far worse than the rest")
    assert far.message.endswith("(exclude_flagged='junk' sets it aside).")
    assert worse.message.startswith("1 entry scores worse than predicting")
    two = board_flags([f"t{i}" for i in range(14)], scores + [0.31], get_metric("auc"), True)
    assert two[0].message.startswith("2 entries score far worse") and "sets them aside" in \
        two[0].message
    perfect = board_flags(["a", "b", "c"], [1.0, 0.8, 0.7], get_metric("auc"), True)[0]
    assert perfect.message.startswith("1 entry has a perfect") and "sets it aside" in \
        perfect.message


def test_the_submissions_example_names_no_temporary_folder(example_outputs):
    files = example_outputs("submissions")
    for kind in ("html", "json"):
        text = files[kind].read_text(encoding="utf-8")
        assert "leaderboard-example-" not in text
    assert "example_solution.csv (the bundled example, made by " \
           "data/make_submissions_example.py)" in files["html"].read_text(encoding="utf-8")


def test_compare_says_what_it_wrote(tmp_path, capsys):
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"model": np.repeat(["a", "b"], 100), "item": np.tile(range(100), 2),
                          "value": (rng.random(200) < 0.7).astype(int)})
    frame.to_csv(tmp_path / "r.csv", index=False)
    status = main(["compare", "--items", str(tmp_path / "r.csv"), "--baseline", "a",
                   "--candidate", "b", "--replicates", "100",
                   "--markdown", str(tmp_path / "comment.md")])
    assert status in (0, 1) and (tmp_path / "comment.md").exists()
    assert capsys.readouterr().out.splitlines()[-1] == f"wrote {tmp_path / 'comment.md'}"


def test_a_rank_score_board_is_told_which_column_names_the_entries(tmp_path, capsys):
    path = tmp_path / "board.csv"
    pd.DataFrame({"rank": [1, 2, 3], "score": [0.9, 0.8, 0.7]}).to_csv(path, index=False)
    assert main(["analyze", str(path), "--metric", "auc", "--n-test", "1000",
                 "--prevalence", "0.2"]) == 2
    assert capsys.readouterr().err.rstrip().endswith(
        "(to name the entries by 'rank': --team-col 'rank')")
    with pytest.raises(leaderboard.InputError) as error:   # in Python, the keyword to give
        leaderboard.analyze(pd.read_csv(path), metric="auc", n_test=1000, prevalence=0.2)
    assert "give team_col=;" in str(error.value) and str(error.value).endswith(
        "(to name the entries by 'rank': team_col='rank')")


@pytest.mark.parametrize("kwargs,words", [
    (dict(score_col="nope"), "column 'nope' (score_col=) not found"),
    (dict(metric="aucc"), "(leaderboard.metrics.metric_names() lists every metric)"),
    (dict(n_test="2100"), "n_test= must be a whole number, got the text '2100' (write the number "
                          "without quotes: 2100)"),
])
def test_the_python_api_speaks_of_keywords_not_options(kwargs, words):
    board = pd.DataFrame({"team": ["a", "b", "c"], "score": [0.9, 0.8, 0.7]})
    with pytest.raises(leaderboard.InputError) as error:
        leaderboard.analyze(board, **{"metric": "auc", "n_test": 1000, "prevalence": 0.2,
                                      **kwargs})
    assert words in str(error.value) and "--" not in str(error.value)
    assert "file" not in str(error.value)   # "columns in the DataFrame: team, score"


def _analysis(tiers, flags=(), p_spearman=None):
    """The few parts of an analysis the answer box's caveats read."""
    from types import SimpleNamespace

    from leaderboard.flags import Flag

    teams = [f"t{i}" for i in range(len(tiers))]
    shakeup = None if p_spearman is None else SimpleNamespace(
        baseline=SimpleNamespace(p_spearman=p_spearman))
    return SimpleNamespace(table=pd.DataFrame({"team": teams, "tier": tiers}),
                           flags=[Flag(kind, "", tuple(names)) for kind, names in flags],
                           shakeup=shakeup, settings=SimpleNamespace(alpha=0.05), ranking=None)


def test_the_answer_box_states_the_caveats_the_page_finds():
    """Tier 1 holding entries flagged as worse than no skill (Data Science Bowl 2017's 506
    rows), and boards that agree more closely than the noise model allows (ultrasound), are
    said in the answer box; a flag outside tier 1 and a boards' agreement noise allows are not
    caveats, and the warnings below are counted."""
    from leaderboard.report.headline import caveats

    assert caveats(_analysis([1, 1, 2])) == []
    said = caveats(_analysis([1, 1, 2], [("worse_than_no_skill", ["t1", "t2"])]))
    assert said[0].startswith("Caution: tier 1 holds 1 entry scoring worse than predicting the "
                              "class shares") and said[-1] == "Read the warning below first."
    assert len(caveats(_analysis([1, 2, 2], [("worse_than_no_skill", ["t1", "t2"])]))) == 1
    wild = caveats(_analysis([1, 1, 2], p_spearman=0.99))   # 1% kept the order as well
    assert wild == ["Caution: the public and private boards agree more closely than the noise "
                    "model allows, so its ranges are likely too wide here."]
    assert caveats(_analysis([1, 1, 2], p_spearman=0.9)) == []


def test_a_guarantee_checked_at_the_boards_shape_is_said_in_plain_words():
    """Where the ranking carries a check of its guarantee on null boards of this board's shape,
    the box says what it measured: a caveat when it falls short of the promise, else a fact."""
    from types import SimpleNamespace

    from leaderboard.report.headline import _checked, caveats

    a = _analysis([1, 1, 2])
    a.ranking = SimpleNamespace(guarantee_check=SimpleNamespace(
        ran=True, error=0.12, alpha=0.05, falls_short=True))
    assert caveats(a) == ["Caution: checked on equal entries at this board's shape, the tiers "
                          "wrongly separated some on 12.0% of boards, more than the 5% promised."]
    assert _checked(a, short=False) is None
    a.ranking.guarantee_check = SimpleNamespace(ran=True, error=0.03, alpha=0.05,
                                                falls_short=False)
    assert caveats(a) == [] and _checked(a, short=False) == (
        "Checked at this board's shape, the tiers wrongly separated equal entries on 3.0% of "
        "boards (5% promised).")


@pytest.mark.parametrize("function", ["analyze_items", "analyze_submissions"])
def test_one_kind_of_flag_given_as_a_string_is_read_as_one_word(function):
    """exclude_flagged="nope" is refused as 'nope' (as analyze does), not letter by letter
    ("got 'n'"), and "junk" is accepted, not refused as 'j'."""
    frame = pd.DataFrame({"model": np.repeat(["a", "b"], 20), "item": np.tile(range(20), 2),
                          "value": np.tile([0, 1], 20)})
    solution = pd.DataFrame({"id": range(20), "target": np.tile([0, 1], 10)})
    call = {"analyze_items": lambda **kw: leaderboard.analyze_items(frame, **kw),
            "analyze_submissions": lambda **kw: leaderboard.analyze_submissions(
                solution, {"a": np.linspace(0, 1, 20)}, metric="auc", **kw)}[function]
    with pytest.raises(leaderboard.InputError) as error:
        call(exclude_flagged="nope")
    assert str(error.value) == "exclude_flagged= must be one of 'perfect', 'junk', 'shared', " \
                               "got 'nope'"
    with pytest.raises(leaderboard.InputError) as error:   # "junk" passes the check: the next
        call(exclude_flagged="junk", replicates=99)         # error is the replicates'
    assert str(error.value).startswith("replicates= must be")


def test_clustered_pairs_differ_on_items_counted_among_items(tmp_path, capsys):
    """Items resampled in clusters: the pair differs on so many of the *items* ("they differ on
    49 of 240 items" on the README's per-item example), never "49 of 40 clusters"; the card's
    JSON counts them among the items too, while the units needed stay clusters."""
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"model": np.repeat(["a", "b", "c"], 60), "item": np.tile(range(60), 3),
                          "passage": np.tile(np.arange(60) // 6, 3),
                          "value": (rng.random(180) < np.repeat([0.8, 0.6, 0.5], 60)).astype(int)})
    path = tmp_path / "r.csv"
    frame.to_csv(path, index=False)
    main(["compare", "--items", str(path), "--baseline", "b", "--candidate", "a",
          "--cluster-col", "passage", "--replicates", "100"])
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("resolution"))
    differ = int(np.sum(frame["value"][:60].to_numpy() != frame["value"][60:120].to_numpy()))
    assert f"they differ on {differ} of 60 items" in line and "clusters would separate" in line
    card = leaderboard.analyze_items(frame, cluster_col="passage", replicates=100).card
    assert (card["n_eff"]["value"], card["n_eff"]["of"], card["n_eff"]["unit"]) == (
        differ, 60, "item")


def test_a_battles_column_not_found_is_named_in_the_callers_words(tmp_path, capsys):
    """The command line's error names its option (--winner-col, --cluster-col), the Python API's
    its keyword (winner_col=): the battles reader had named "(winner_col)" to both."""
    path = tmp_path / "b.csv"
    path.write_text("model_a,model_b,w\na,b,model_a\nb,a,model_b\n", encoding="utf-8")
    assert main(["analyze", "--battles", str(path)]) == 2
    assert "column 'winner' (--winner-col) not found" in capsys.readouterr().err
    frame = pd.DataFrame({"model_a": ["a", "b"], "model_b": ["b", "a"],
                          "winner": ["model_a", "model_b"]})
    with pytest.raises(leaderboard.InputError) as error:
        leaderboard.analyze_battles(frame, cluster_col="prompt")
    assert "column 'prompt' (cluster_col=) not found" in str(error.value)
