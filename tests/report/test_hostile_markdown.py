"""Issue 29, item 1: Markdown written for pull-request comments is inert, and the CSV is neutral.

Every Markdown writer (``analyze --markdown`` / ``Result.to_markdown``, ``compare --markdown``)
is rendered with markdown-it-py in its GitHub-like preset (tables, strikethrough, linkify: bare
URLs and ``www.`` addresses autolinked) plus task lists and footnotes, and the tokens are checked:
nothing but text and the tool's own table and bold heading comes out (no link, image, emphasis,
code, HTML or footnote; exactly the rows and cells the tool wrote), each name cell's text is the
name itself, and the text GitHub's filters see after rendering holds no mention, issue reference,
emoji code, URL, ``www.`` address or e-mail address. Hypothesis then tries arbitrary names.
"""
from __future__ import annotations

import csv
import dataclasses
import io
import re
import unicodedata

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import leaderboard
from leaderboard.inert_text import CSV_FORMULA, WORD_JOINER, csv_text, markdown_text
from leaderboard.pipelines.compare import Comparison
from leaderboard.report import compare_report, exports
from leaderboard.resources import data_dir

markdown_it = pytest.importorskip("markdown_it")
pytest.importorskip("linkify_it")
from mdit_py_plugins.footnote import footnote_plugin  # noqa: E402
from mdit_py_plugins.tasklists import tasklists_plugin  # noqa: E402

RENDERER = markdown_it.MarkdownIt("gfm-like").use(tasklists_plugin).use(footnote_plugin)
HOSTILE = [
    "**bold**", "__under__", "*it* _it_", "`code`", "```fence```", "~~strike~~",
    "<strong>x</strong>", "<img src=x onerror=alert(1)>", "<!-- c -->", "&lt;b&gt; &#60;",
    "[text](https://evil.example/x)", "[ref][1]\n\n[1]: https://evil.example",
    "![img](https://evil.example/p.png)", "<https://evil.example>", "https://evil.example/a",
    "http://x.io", "www.evil.example", "evil.example", "mail me@evil.example", "@user",
    "@org/team", "thanks @octocat!", "fix #12", "org/repo#3", ":+1: :smile:",
    "a | b | c", "a \\| b", "|", "two\nlines", "row\n| x | y |", "cr\rhere", "\u2028sep\u0085",
    "# heading", "- item", "1. item", "> quote", "    indented", "[ ] task", "[^1] note",
    "-5 =SUM(A1)", "+1", "\x1b[31mred\u202eevil", "\\", "trailing \\", "$x$", "{{tmpl}}",
]
# What GitHub's filters look for in the rendered text (backslashes already gone).
GITHUB_TEXT_LINKS = {
    "mention": re.compile(r"(?<![A-Za-z0-9_`])@[A-Za-z0-9]"),
    "issue": re.compile(r"(?:^|[\s(])(?:[\w.-]+/[\w.-]+)?#\d"),
    "emoji": re.compile(r":[a-z0-9_+-]+:"),
    "url": re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:/{1,3}[A-Za-z0-9]"),
    "www": re.compile(r"www\.[A-Za-z0-9]", re.IGNORECASE),
    "email": re.compile(r"[\w.+-]+@[A-Za-z0-9-]+\.[A-Za-z]"),
    "domain": re.compile(r"[A-Za-z0-9-]+\.(?:com|org|net|io|example)\b"),
}
ALLOWED_INLINE = {"text", "text_special"}


def _expected(name: str) -> str:
    """The text a name should render as: line breaks as spaces, control characters gone,
    invisible (format) characters such as zero-width spaces and bidi overrides spelled as their
    code points, as the page shows them (two names differing by one stay apart)."""
    text = re.sub(r"[\t\n\v\f\r\x85\u2028\u2029]", " ", name)
    text = re.sub(r"[\x00-\x1f\x7f-\x9f]", "", text)
    return "".join(f"[U+{ord(ch):04X}]" if unicodedata.category(ch) == "Cf"
                   or ch in "\u034f\u180e" else ch for ch in text)


def _inline_text(token) -> str:
    kinds = {child.type for child in token.children}
    assert kinds <= ALLOWED_INLINE, f"markup from a name: {kinds - ALLOWED_INLINE}"
    return "".join(child.content for child in token.children)


def _assert_text_only(text: str) -> None:
    for what, pattern in GITHUB_TEXT_LINKS.items():
        assert not pattern.search(text), f"GitHub would turn {text!r} into a {what}"


def _table(markdown: str) -> tuple[list[str], list[list[str]], list]:
    """The rendered document's one table (header, rows of cell texts) and the other tokens."""
    tokens = RENDERER.parse(markdown)
    forbidden = {"html_block", "html_inline", "code_block", "fence", "footnote_block_open",
                 "blockquote_open", "heading_open", "bullet_list_open", "ordered_list_open",
                 "hr"}
    assert not forbidden & {t.type for t in tokens}
    assert [t.type for t in tokens].count("table_open") == 1
    header, rows, row, others = [], [], None, []
    in_head = False
    for t in tokens:
        if t.type == "thead_open":
            in_head = True
        elif t.type == "thead_close":
            in_head = False
        elif t.type == "tr_open":
            row = []
        elif t.type == "tr_close":
            (header.extend if in_head else rows.append)(row)
        elif t.type == "inline" and row is not None:
            row.append(_inline_text(t))
        elif t.type == "inline":
            others.append(t)
        if t.type == "table_close":
            row = None
    return header, rows, others


def _assert_cell(cell: str, name: str) -> None:
    assert cell.replace(WORD_JOINER, "").strip() == _expected(name).strip()
    _assert_text_only(cell)


class _Example:
    """The 40-entry example's analysis (a short repr for Hypothesis' reports); 100 draws: the tests
    read its table's names and columns, not its noise."""

    def __init__(self):
        board = pd.read_csv(data_dir() / "example_leaderboard.csv")
        self.analysis = leaderboard.analyze(board, metric="auc", n_public=900, n_private=2100,
                                            prevalence=0.1, draws=100, replicates=100).analysis

    def __repr__(self) -> str:
        return "<the example's analysis>"


@pytest.fixture(scope="module")
def analysis():
    return _Example()


def _with_names(example, names: list[str]):
    """The analysis with these names, its leaderboard card (issue 40) rebuilt from them: the
    card names models (top pair, largest group) and the command, all untrusted."""
    from leaderboard.provenance import Provenance
    from leaderboard.pipelines.card_modes import analysis_card

    table = example.analysis.table.head(len(names)).copy()
    table["team"] = names
    renamed = dataclasses.replace(example.analysis, table=table)
    command = "leaderboard analyze " + " ".join(names[:3])
    return dataclasses.replace(renamed, card=analysis_card(renamed, Provenance(
        "0", "2026-01-01", "clock", command, (), 0)))


def _check_tier_table(analysis, names: list[str]) -> None:
    text = exports.to_markdown(_with_names(analysis, names))
    header, rows, others = _table(text)
    assert header[:3] == ["rank", "team", "score"]
    assert len(rows) == len(names)                      # no row added or lost
    for cells, name in zip(rows, names):
        assert len(cells) == len(header)                # no cell added
        _assert_cell(cells[1], name)
    heading, *card = others    # the tool's own bold line, then the card's lines
    kinds = [c.type for c in heading.children if c.content or c.type != "text"]
    assert kinds.count("strong_open") == 1 and kinds[0] == "strong_open"
    assert set(kinds) <= ALLOWED_INLINE | {"strong_open", "strong_close"}
    _check_card(card, pair=len(names) > 1)


def _check_card(lines, pair: bool) -> None:
    """The leaderboard card's lines (issue 40) after a table: its title, then one paragraph
    per field, a label in italics and then text only: no name becomes markup."""
    title, *card = lines
    assert title.content == "**Leaderboard card**"
    labels = ["*Shape*", "*Established*", "*Resolved*", "*Top pair*", "*Provenance*"]
    assert [line.content.split(":")[0] for line in card] == [
        label for label in labels if pair or label != "*Top pair*"]
    for line in card:
        kinds = [c.type for c in line.children if c.content or c.type != "text"]
        assert kinds[:3] == ["em_open", "text", "em_close"]
        assert set(kinds[3:]) <= ALLOWED_INLINE
        _assert_text_only("".join(c.content for c in line.children))


def test_tier_table_markdown_renders_hostile_names_as_text(analysis):
    _check_tier_table(analysis, HOSTILE[:40])
    _check_tier_table(analysis, HOSTILE[40:] + HOSTILE[:5])


def _comparison_markdown(candidate: str, baseline: str) -> str:
    r = Comparison(0.7, 0.8, 0.1, 0.05, 0.04, 0.16, 0.03, 0.001, True, 0.05, 1000, False)
    return compare_report.markdown(r, candidate=candidate, baseline=baseline, label="AUC",
                                   items=False, clustered=False, seed=0)


def _check_compare(candidate: str, baseline: str) -> None:
    text = _comparison_markdown(candidate, baseline)
    header, rows, others = _table(text)
    assert header == ["", "score"] and len(rows) >= 5 and {len(r) for r in rows} == {2}
    first = others[0]
    kinds = [c.type for c in first.children]
    assert kinds.count("strong_open") == 1 and set(kinds) <= ALLOWED_INLINE | {
        "strong_open", "strong_close"}
    line = "".join(c.content for c in first.children if c.type in ALLOWED_INLINE)
    assert line.replace(WORD_JOINER, "") == (
        f"✅ Shown better: {_expected(candidate)} vs {_expected(baseline)} (AUC)")
    _assert_text_only(line)


@pytest.mark.parametrize("name", HOSTILE)
def test_compare_markdown_renders_hostile_names_as_text(name):
    _check_compare(name, "main.csv")
    _check_compare("pr.csv", name)


NAME_TEXT = st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=40)
NAMES = st.lists(st.one_of(NAME_TEXT, st.sampled_from(HOSTILE),
                           st.lists(st.sampled_from(HOSTILE + list("*_`[]()!<>|@#:./\\&~ \n")),
                                    max_size=8).map("".join)),
                 min_size=1, max_size=40)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(names=NAMES)
def test_any_names_render_as_text_in_the_tier_table(analysis, names):
    _check_tier_table(analysis, names)


@settings(max_examples=200, deadline=None)
@given(name=st.one_of(NAME_TEXT, st.sampled_from(HOSTILE)))
def test_any_name_renders_as_text_in_markdown(name):
    text = markdown_text(name)
    tokens = RENDERER.parse(f"| name |\n|---|\n| {text} |\n")
    cells = [t for t in tokens if t.type == "inline"]
    assert len(cells) == 2 and [t.type for t in tokens].count("tr_open") == 2
    _assert_cell(_inline_text(cells[1]), name)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(names=NAMES)
def test_csv_neutralises_formulas_and_round_trips_the_text(analysis, names):
    text = exports.to_csv(_with_names(analysis, names))
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert len(rows) == len(names) + 1 and len({len(r) for r in rows}) == 1
    team = rows[0].index("team")
    for row, name in zip(rows[1:], names):
        cell = row[team]
        assert not cell.startswith(CSV_FORMULA)                 # no formula a spreadsheet runs
        assert cell == csv_text(name)
        assert (cell[1:] if name.startswith(CSV_FORMULA) else cell) == name   # text kept


def test_names_differing_by_an_invisible_character_stay_apart_in_markdown():
    """Issue 29 item 5 in the exports: 'team' and 'te<U+200B>am' render differently."""
    from leaderboard.inert_text import markdown_text

    plain, hidden = (markdown_text(n) for n in ("team", "te\u200bam"))
    assert plain == "team" and "U\\+200B" in hidden and plain != hidden   # [ + ] escaped


@pytest.fixture(scope="module")
def battles():
    """A 12-model arena's analysis, its names then replaced by hostile ones (issue 26)."""
    import numpy as np

    rng = np.random.default_rng(0)
    names = np.array([f"m{k}" for k in range(12)])
    a = rng.integers(0, 12, 3000)
    b = (a + rng.integers(1, 12, 3000)) % 12
    winner = np.where(rng.random(3000) < 0.5, "model_a", "model_b")
    frame = pd.DataFrame({"model_a": names[a], "model_b": names[b], "winner": winner})
    return leaderboard.analyze_battles(frame, replicates=100).analysis


def test_battles_markdown_renders_hostile_names_as_text(battles):
    """Battles mode's --markdown: hostile model names in the table and in the sentence naming
    the models that could not be rated come out as their text, nothing else."""
    from leaderboard.provenance import Provenance
    from leaderboard.pipelines.card_modes import battles_card
    from leaderboard.report.battles_json import battles_markdown

    for start in range(0, len(HOSTILE), 12):
        names = HOSTILE[start:start + 12]
        table = battles.table.head(len(names)).copy()
        table["model"] = names
        group = dataclasses.replace(battles.groups[0], table=table)
        renamed = dataclasses.replace(battles, groups=(group,), not_comparable=(tuple(names),))
        renamed = dataclasses.replace(renamed, card=battles_card(renamed, Provenance(
            "0", "2026-01-01", "clock", " ".join(names), (), 0)))
        text = battles_markdown(renamed)
        header, rows, others = _table(text)
        assert header[:3] == ["rank", "model", "rating"] and len(rows) == len(names)
        for cells, name in zip(rows, names):
            assert len(cells) == len(header)
            _assert_cell(cells[1], name)
        heading, not_rated, *card = others
        _check_card(card, pair=len(names) > 1)
        kinds = [c.type for c in heading.children if c.content or c.type != "text"]
        assert kinds[0] == "strong_open" and kinds.count("strong_open") == 1
        said = _inline_text(not_rated)
        _assert_text_only(said)
        for name in names:
            assert _expected(name).strip() in said.replace(WORD_JOINER, "")
