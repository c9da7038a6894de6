"""Benchmark pages speak a benchmark's words (issue 26 item 5): the items-mode and battles pages
and their JSON name models, items and benchmarks, never teams, test rows, submission files or
the leader's predictions; competition pages keep their own words."""
from __future__ import annotations

import json
import re
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

import leaderboard

# Words a competition's page uses and a benchmark's page must not (lower case, matched anywhere
# in the visible text: "teams" and "test rows" are caught by "team" and "test row").
COMPETITION_WORDS = ("team", "test row", "test set", "test-set", "test item", "submission",
                     "competition",
                     "leader's predictions", "kaggle", "prize", "public board",
                     "public leaderboard", "solution")


class _Visible(HTMLParser):
    """The text a reader sees: every text node outside script and style (SVG text included),
    and the placeholders and titles of controls."""

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self._hidden = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self._hidden += 1
        self.parts += [value for name, value in attrs
                       if name in ("placeholder", "title", "aria-label") and value]

    def handle_endtag(self, tag):
        if tag in ("script", "style"):
            self._hidden -= 1

    def handle_data(self, data):
        if not self._hidden and data.strip():
            self.parts.append(data.strip())


def visible_text(page: str) -> str:
    parser = _Visible()
    parser.feed(page)
    return "\n".join(parser.parts)


def competition_words_in(text: str) -> list[str]:
    """Each line of ``text`` holding a competition word, with the word."""
    return [f"{word!r}: {line[:160]}" for line in text.lower().splitlines()
            for word in COMPETITION_WORDS if word in line]


def _items_frame(n_items: int = 80, costs: bool = False) -> pd.DataFrame:
    rng = np.random.default_rng(3)
    names = ["alpha-7b", "beta-13b", "gamma-70b"]
    frame = pd.DataFrame({"model": np.repeat(names, n_items),
                          "item": np.tile([f"q{i}" for i in range(n_items)], 3),
                          "value": (rng.random(3 * n_items)
                                    < np.repeat([0.8, 0.6, 0.5], n_items)).astype(int)})
    if costs:
        frame["cost"] = np.round(rng.uniform(0.01, 0.1, len(frame)), 4)
    return frame


@pytest.fixture(scope="module")
def items_result():
    return leaderboard.analyze_items(_items_frame(), replicates=200)


def test_items_page_has_no_competition_words(items_result):
    page = items_result.to_html()
    text = visible_text(page)
    assert competition_words_in(text) == []
    assert "Find a model" in text and "Model" in text.splitlines()
    meta = json.loads(re.search(r'"meta":\s*(\{[^}]*\})', page).group(1))
    assert "team" not in (meta["pinned"] + meta["not_found"]).lower()


def test_items_json_says_items_and_models(items_result):
    data = json.loads(items_result.to_json())
    assert data["mode"] == "items" and data["source"]["format"] == "items"
    assert [e["model"] for e in data["entries"]] == [e["team"] for e in data["entries"]]
    assert {f["model"] for f in data["files"]} == {"alpha-7b", "beta-13b", "gamma-70b"}


def test_items_markdown_table_says_model(items_result):
    from leaderboard.report.exports import to_markdown

    assert to_markdown(items_result.analysis).splitlines()[2].startswith("| rank | model |")


def test_items_notebook_summary_says_model(items_result):
    from leaderboard.report import render_summary

    text = visible_text(render_summary(items_result.analysis))
    assert competition_words_in(text) == []
    assert "Model" in text.splitlines()


def test_battles_page_has_no_competition_words():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 4, 400)
    b = (a + rng.integers(1, 4, 400)) % 4
    names = np.array(["m-a", "m-b", "m-c", "m-d"])
    battles = pd.DataFrame({"model_a": names[a], "model_b": names[b],
                            "winner": np.where(a < b, "model_a", "model_b")})
    battles.loc[::7, "winner"] = "tie"
    result = leaderboard.analyze_battles(battles, replicates=100)
    assert competition_words_in(visible_text(result.to_html())) == []
    data = json.loads(result.to_json())
    assert data["command"] == "analyze" and data["mode"] == "battles" and data["format"] == "battles"


def test_competition_pages_keep_their_words():
    rng = np.random.default_rng(1)
    y = rng.normal(size=200)
    solution = pd.DataFrame({"id": range(200), "target": y})
    teams = {name: y + rng.normal(scale=noise, size=200)
             for name, noise in [("good", 0.5), ("fair", 0.8), ("weak", 1.2)]}
    result = leaderboard.analyze_submissions(solution, teams, metric="rmse", replicates=200)
    text = visible_text(result.to_html())
    assert "Find my team" in text and "Team" in text.splitlines()
    assert "test rows" in text and "Every submission file" in text
    assert json.loads(result.to_json())["mode"] == "submissions"


def test_real_titanic_submissions_as_items_speak_a_benchmarks_words(shared_data):
    """True at the edges: 46 real Titanic submissions turned into per-passenger correctness
    (junk entries, shared scores and identical results among them raise the flags whose words
    are shared with competitions); nothing on the page speaks of submissions or test sets."""
    folder = shared_data / "kaggle_titanic"
    truth = pd.read_csv(folder / "solution.csv")
    frames = []
    for path in sorted((folder / "submissions").glob("*.csv")):
        sub = pd.read_csv(path)
        sub.columns = [c.lower() for c in sub.columns]
        if "survived" not in sub.columns:
            continue                       # two copies of test.csv, no prediction column
        both = truth.merge(sub, left_on="PassengerId", right_on="passengerid")
        frames.append(pd.DataFrame({"model": f"m{len(frames)}", "item": both["PassengerId"],
                                    "value": (both["Survived"] == both["survived"]) * 1}))
    result = leaderboard.analyze_items(pd.concat(frames), replicates=100)
    kinds = {f.kind for f in result.analysis.flags}
    assert {"far_out", "shared_score"} <= kinds
    assert competition_words_in(visible_text(result.to_html())) == []
    assert not any("submission" in note or "prediction" in note
                   for note in result.analysis.notes)

