"""``--csv`` and ``--markdown``: the tier table as the analysis holds it, hostile names inert."""
from __future__ import annotations

import io
import re

import numpy as np
import pandas as pd
import pytest

import leaderboard
from leaderboard.cli import main
from leaderboard.resources import data_dir

HOSTILE = ['=HYPERLINK("http://x","y")', "+1|2", "@SUM(A1)", "[click](http://evil)",
           "<script>alert(1)</script>", "a\x1b[31mred\u202eevil", "-5 *bold* _it_ `code`"]


@pytest.fixture(scope="module")
def result():
    board = pd.read_csv(data_dir() / "example_leaderboard.csv")
    board.loc[: len(HOSTILE) - 1, "team"] = HOSTILE
    # 100 draws: the tests round-trip the table's names and numbers, they read no noise
    return leaderboard.analyze(board, metric="auc", n_public=900, n_private=2100,
                               prevalence=0.1, draws=100, replicates=100)


def test_csv_holds_the_tables_numbers_with_formulas_neutralised(result):
    back = pd.read_csv(io.StringIO(result.to_csv()), keep_default_na=False, na_values=[""])
    table = result.table
    assert len(back) == len(table)
    np.testing.assert_array_equal(back["rank"], table["rank"])
    np.testing.assert_array_equal(back["tier"], table["tier"])
    for ours, theirs in (("ci_low", "ci_low"), ("rank_sim_high", "rank_sim_high"),
                         ("p_best", "p_best")):
        np.testing.assert_allclose(back[theirs], table[ours], rtol=1e-9)
    names = back["team"].tolist()
    for name in names:   # no cell a spreadsheet would evaluate
        assert not name.startswith(("=", "+", "-", "@"))
    assert "'=HYPERLINK(\"http://x\",\"y\")" in names and "'-5 *bold* _it_ `code`" in names


def test_markdown_rows_keep_their_columns_and_names_stay_text(result):
    text = result.to_markdown()
    rows = [line for line in text.splitlines() if line.startswith("|")]
    assert len(rows) == len(result.table) + 2
    # an unescaped | is a column break: every row has as many as the header
    breaks = {len(re.findall(r"(?<!\\)\|", row)) for row in rows}
    assert breaks == {9}
    assert "\x1b" not in text and "\u202e" not in text
    assert "<script>" not in text and "\\<script\\>" in text
    assert "[click](http" not in text and "\\[click\\]\\(http" in text   # tests/pipelines/test_hostile_outputs.py renders it
    # the leader's row carries the table's numbers in the report's precision
    first = rows[2].split(" | ")
    assert first[0] == "| 1" and float(first[2]) == pytest.approx(result.table["score"].iloc[0])


def test_cli_writes_both_and_refuses_one_path_for_two_outputs(tmp_path, capsys, example_outputs):
    base = ["analyze", "--example", "--draws", "200", "--replicates", "200", "--quiet",
            "-o", str(tmp_path / "r.html")]
    # the session's run of base with --csv and --markdown (tests/conftest.py: example_outputs)
    files = example_outputs("scores")
    table = pd.read_csv(files["csv"])
    assert table["tier"].min() == 1 and files["md"].read_text().count("\n|") == 42   # header, rule, 40 rows
    assert main([*base, "--csv", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "-o and --csv name the same file" in err
