"""Tests for leaderboard.ingest.read_leaderboard and the bundled example data."""
from __future__ import annotations

import importlib.util
import json
import zipfile
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from leaderboard.errors import InputError
from leaderboard.ingest.leaderboards import TEAM_COLUMNS, Leaderboard, read_leaderboard
from leaderboard.metrics import get_metric

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "data"
SHARED = Path(__file__).resolve().parents[2].parent / "shared" / "data"
MLSP = SHARED / "kaggle_public_private" / "mlsp-2014-mri__public_private.csv"
SBERBANK = SHARED / "kaggle_lb_downloads" / "sberbank-russian-housing-market__publicleaderboard.csv"
NLP = SHARED / "kaggle_lb_downloads" / "nlp-getting-started__publicleaderboard.csv"
KAGGLE_HEADER = "TeamId,TeamName,SubmissionDate,Score\n"


def _write(tmp_path: Path, text: str, name: str = "lb.csv", encoding: str = "utf-8") -> Path:
    path = tmp_path / name
    path.write_bytes(text.encode(encoding))
    return path


def _invariant(lb: Leaderboard) -> None:
    assert lb.rows_read == len(lb.entries) + sum(d.count for d in lb.dropped)


def _error(path: Path, **kwargs) -> str:
    kwargs.setdefault("higher_is_better", True)
    with pytest.raises(InputError) as info:
        read_leaderboard(path, **kwargs)
    message = str(info.value)
    assert "\n" not in message and str(path) in message
    return message


# --- Kaggle download --------------------------------------------------------------------------

HISTORY = (KAGGLE_HEADER
           + '1,"Alpha Team","2020-01-01 10:00:00",0.50\n'    # line 2
           + '2,Beta,"2020-01-02 10:00:00",0.65\n'             # line 3
           + '1,"Alpha Team","2020-01-03 10:00:00",0.70\n'    # line 4
           + '3,"Gamma, Inc","2020-01-03 11:00:00",0.40\n'   # line 5
           + '1,"Alpha Renamed","2020-01-04 10:00:00",0.60\n'  # line 6
           + '3,"Gamma, Inc","2020-01-05 11:00:00",0.90\n')  # line 7


def test_kaggle_keeps_best_row_per_team_higher_is_better(tmp_path):
    lb = read_leaderboard(_write(tmp_path, HISTORY, encoding="utf-8-sig"), higher_is_better=True)
    assert lb.format == "kaggle-download" and lb.score_column == "Score" and lb.split is None
    assert lb.entries["team"].tolist() == ["Beta", "Alpha Team", "Gamma, Inc"]  # file order
    assert lb.entries["score"].tolist() == [0.65, 0.70, 0.90]
    assert lb.entries["line"].tolist() == [3, 4, 7]
    assert lb.rows_read == 6
    (dropped,) = lb.dropped
    assert dropped.reason == "superseded by the team's better submission"
    assert dropped.count == 3 and dropped.lines == (2, 5, 6)
    _invariant(lb)


def test_kaggle_keeps_best_row_per_team_lower_is_better(tmp_path):
    lb = read_leaderboard(_write(tmp_path, HISTORY), higher_is_better=False)
    # Team 1's best (lowest) is 0.50 on line 2, under its name at that time.
    assert dict(zip(lb.entries["team"], lb.entries["score"])) == {
        "Alpha Team": 0.50, "Beta": 0.65, "Gamma, Inc": 0.40}
    assert lb.entries["line"].tolist() == [2, 3, 5]
    assert lb.dropped[0].lines == (4, 6, 7)
    _invariant(lb)


def test_kaggle_tied_best_keeps_earliest_submission(tmp_path):
    # The earlier submission comes later in the file: the date decides, not the file order.
    text = (KAGGLE_HEADER + '7,"Late name","2021-05-02 00:00:00",0.8\n'
            + '7,"Early name","2021-05-01 23:59:59",0.8\n' + '7,"Worse","2021-04-01",0.7\n')
    lb = read_leaderboard(_write(tmp_path, text), higher_is_better=True)
    assert lb.entries["team"].tolist() == ["Early name"]
    assert lb.entries["line"].tolist() == [3]
    assert lb.dropped[0].count == 2
    lb = read_leaderboard(_write(tmp_path, text), higher_is_better=False)
    assert lb.entries["team"].tolist() == ["Worse"]


def test_kaggle_team_names_group_by_id_not_name(tmp_path):
    # Kaggle shows deleted accounts as "[Deleted]": different teams that share a name.
    text = KAGGLE_HEADER + '1,[Deleted],"2020-01-01",0.5\n2,[Deleted],"2020-01-01",0.6\n'
    lb = read_leaderboard(_write(tmp_path, text), higher_is_better=True)
    assert lb.entries["team"].tolist() == ["[Deleted]", "[Deleted]"] and lb.dropped == ()


def test_kaggle_without_bom_and_options(tmp_path):
    path = _write(tmp_path, HISTORY)
    lb = read_leaderboard(path, higher_is_better=True, team_col="TeamName", score_col="Score")
    assert lb.format == "kaggle-download" and len(lb.entries) == 3
    assert "no public/private columns" in _error(path, public_col="Score")
    assert "'TeamName', not 'TeamId'" in _error(path, team_col="TeamId")


# --- plain tables -----------------------------------------------------------------------------

@pytest.mark.parametrize("team_name", [*TEAM_COLUMNS, "Team_Name", "TEAM"])
def test_table_autodetects_team_column(tmp_path, team_name):
    path = _write(tmp_path, f"rank,{team_name},Score\n1,a,0.9\n2,b,0.8\n")
    lb = read_leaderboard(path, higher_is_better=True)
    assert lb.format == "table" and lb.score_column == "Score" and lb.split is None
    assert lb.entries["team"].tolist() == ["a", "b"]
    assert lb.entries["score"].tolist() == [0.9, 0.8]
    assert lb.entries["line"].tolist() == [2, 3]
    assert list(lb.entries.columns) == ["team", "score", "line"]


def test_table_explicit_columns_and_file_order(tmp_path):
    path = _write(tmp_path, "who,auc,score\n  x ,0.7,1\ny,0.9,2\nx,0.8,3\n")
    lb = read_leaderboard(path, higher_is_better=True, team_col="who", score_col="AUC")
    assert lb.score_column == "auc"  # explicit names match case-insensitively when unambiguous
    assert lb.entries["team"].tolist() == ["x", "y", "x"]  # duplicates kept, names stripped
    assert lb.entries["score"].tolist() == [0.7, 0.9, 0.8]
    assert lb.dropped == () and lb.rows_read == 3


def test_public_private_selection(tmp_path):
    path = _write(tmp_path, "team_name,public_score,private_score\na,0.9,0.7\nb,0.8,\nc,,0.6\n")
    with pytest.raises(InputError):  # b has no private score, and private is analysed
        read_leaderboard(path, higher_is_better=True)
    path = _write(tmp_path, "team_name,Public,Private\na,0.9,0.7\nb,0.8,\nc,0.5,0.6\n")
    lb = read_leaderboard(path, higher_is_better=True, split="public")
    assert lb.split == "public" and lb.score_column == "Public"
    assert lb.entries["score"].tolist() == [0.9, 0.8, 0.5]
    assert lb.entries["public_score"].tolist() == [0.9, 0.8, 0.5]
    assert np.isnan(lb.entries["private_score"][1]) and lb.entries["private_score"][2] == 0.6
    path = _write(tmp_path, "team,public_score,private_score,score\na,0.9,0.7,0.1\nb,0.8,0.6,0.2\n")
    lb = read_leaderboard(path, higher_is_better=True)
    assert lb.split == "private" and lb.entries["score"].tolist() == [0.7, 0.6]
    lb = read_leaderboard(path, higher_is_better=True, score_col="score", split="public")
    assert lb.split is None and lb.entries["score"].tolist() == [0.1, 0.2]  # score_col wins
    assert lb.entries["public_score"].tolist() == [0.9, 0.8]
    lb = read_leaderboard(path, higher_is_better=True, public_col="score",
                          private_col="public_score")
    assert lb.split == "private" and lb.entries["score"].tolist() == [0.9, 0.8]
    assert lb.entries["public_score"].tolist() == [0.1, 0.2]


def test_only_one_split_column_is_used(tmp_path):
    lb = read_leaderboard(_write(tmp_path, "team,public_score\na,0.5\n"), higher_is_better=True,
                          split="private")
    assert lb.score_column == "public_score" and lb.split is None
    assert lb.entries["public_score"].tolist() == [0.5] and "private_score" not in lb.entries


def test_blank_lines_keep_line_numbers(tmp_path):
    path = _write(tmp_path, "team,score\n\na,1\n  \nb,x\n\n")
    assert "1 row is not a number (line 5): 'x'" in _error(path)
    lb = read_leaderboard(_write(tmp_path, "team,score\n\na,1\n\nb,2\n\n"), higher_is_better=True)
    assert lb.entries["line"].tolist() == [3, 5] and lb.rows_read == 2


# --- errors -----------------------------------------------------------------------------------

def test_error_missing_file_and_directory(tmp_path):
    assert "file not found" in _error(tmp_path / "nope.csv")
    assert "is a directory" in _error(tmp_path)


def test_error_not_utf8_or_not_csv(tmp_path):
    path = _write(tmp_path, "team,score\nok,0.5\nÉquipe,0.6\n", encoding="latin-1")
    message = _error(path)
    assert "not UTF-8" in message and f"{path}:3:" in message
    binary = tmp_path / "model.bin"
    binary.write_bytes(b"\x00\x01PK\x03\x04\xff\xfe\x00\x00garbage")
    assert "not UTF-8" in _error(binary)
    broken = tmp_path / "lb.csv.gz"  # pandas decompresses by suffix: a damaged archive
    broken.write_bytes(b"\x1f\x8b\x08\x00\xff\xfe\x00\x00garbage")
    assert "not a readable CSV file" in _error(broken)


def test_zipped_kaggle_download(tmp_path):
    # Kaggle serves the leaderboard download as a zip holding one CSV.
    path = tmp_path / "publicleaderboard.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("publicleaderboard.csv", HISTORY.encode("utf-8-sig"))
    lb = read_leaderboard(path, higher_is_better=True)
    assert lb.format == "kaggle-download" and lb.entries["line"].tolist() == [3, 4, 7]


def test_error_malformed_csv(tmp_path):
    message = _error(_write(tmp_path, "team,score\na,0.5\nb,c,0.6\n"))
    assert ":3:" in message and "3 fields but the header has 2" in message
    # A first row with one field too many would otherwise silently become pandas' index.
    message = _error(_write(tmp_path, "team,score\na,0.5,1\nb,0.6\n"))
    assert ":2:" in message and "more fields than the header" in message
    message = _error(_write(tmp_path, 'team,score\na,0.5\n"b,0.6\n'))
    assert ":3:" in message and "never closed" in message


def test_error_empty_and_header_only(tmp_path):
    assert "empty" in _error(_write(tmp_path, ""))
    assert "no data rows" in _error(_write(tmp_path, "team,score\n"))
    assert "no data rows" in _error(_write(tmp_path, "team,score\n\n,\n"))
    assert ":1: the first line is blank" in _error(_write(tmp_path, "\nteam,score\na,1\n"))


def test_error_missing_columns_list_existing(tmp_path):
    path = _write(tmp_path, "team_name,public_rank,points\na,1,0.5\n")
    message = _error(path)
    assert "no score column" in message
    assert "columns in the file: team_name, public_rank, points" in message
    message = _error(path, score_col="score")
    assert "column 'score' (--score-col) not found" in message and "public_rank" in message
    message = _error(_write(tmp_path, "id,score\n1,0.5\n", name="noteam.csv"))
    assert "no team column" in message and "columns in the file: id, score" in message
    message = _error(path, private_col="private")
    assert "column 'private' (--private-col) not found" in message
    semicolons = _write(tmp_path, "team;score\na;0.5\n", name="excel.csv")
    assert "separated by semicolons" in _error(semicolons)


def test_error_non_numeric_scores(tmp_path):
    text = "team,Score\n" + "".join(
        f"t{i},{v}\n" for i, v in enumerate(["0.5", "0.6", "0.7x", "0.1", "", "nan", "inf"]))
    message = _error(_write(tmp_path, text))
    assert message.startswith(f"{tmp_path / 'lb.csv'}:4: column 'Score': 4 rows are not numbers")
    assert "(lines 4, 6, 7, 8): '0.7x', '', 'nan', 'inf'" in message
    many = "team,score\n" + "".join(f"t{i},bad{i}\n" for i in range(9))
    assert "9 rows are not numbers (lines 2, 3, 4, 5, 6, ...)" in _error(_write(tmp_path, many))


def test_error_non_numeric_other_split(tmp_path):
    # Blank is fine in the split not analysed, garbage is not.
    path = _write(tmp_path, "team,public_score,private_score\na,oops,0.5\n")
    assert "column 'public_score': 1 row is not a number (line 2): 'oops'" in _error(path)


def test_error_empty_team_names(tmp_path):
    message = _error(_write(tmp_path, "team,score\na,0.5\n ,0.6\n,0.7\n"))
    assert ":3: column 'team': 2 rows are empty (lines 3, 4)" in message
    message = _error(_write(tmp_path, KAGGLE_HEADER + '1,"","2020-01-01",0.5\n'))
    assert ":2: column 'TeamName'" in message


def test_error_kaggle_bad_score_and_bad_split(tmp_path):
    message = _error(_write(tmp_path, KAGGLE_HEADER + '1,a,"2020-01-01",0.5\n2,b,"2020-01-01",\n'))
    assert ":3: column 'Score': 1 row is not a number (line 3): ''" in message
    assert "split must be" in _error(_write(tmp_path, "team,score\na,1\n"), split="test")


# --- bundled example ----------------------------------------------------------------------------

def _load_generator():
    spec = importlib.util.spec_from_file_location("make_example", DATA / "make_example.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_example_files_are_reproducible(tmp_path):
    written = _load_generator().main(tmp_path)
    assert [p.name for p in written] == ["example_leaderboard.csv", "example_leaderboard.json",
                                         "example_kaggle_download.csv"]
    for path in written:
        assert path.read_bytes() == (DATA / path.name).read_bytes(), path.name


def test_example_auc_matches_sklearn_with_ties():
    from sklearn.metrics import roc_auc_score
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 500)
    s = np.round(rng.normal(size=500) + y, 1)  # many ties
    assert _load_generator().auc(y, s) == pytest.approx(roc_auc_score(y, s), abs=1e-12)


def test_example_leaderboard():
    settings = json.loads((DATA / "example_leaderboard.json").read_text(encoding="utf-8"))
    assert get_metric(settings["metric"]).name == "auc"
    assert settings["n_test"] == 2100 and settings["prevalence"] == pytest.approx(0.1)
    lb = read_leaderboard(DATA / settings["file"], higher_is_better=True)
    assert lb.format == "table" and lb.split == "private" and len(lb.entries) == 40
    assert lb.entries["score"].equals(lb.entries["private_score"])
    assert lb.entries[["public_score", "private_score"]].notna().all().all()
    assert lb.entries["score"].between(0.5, 1).all()
    assert not lb.entries["score"].is_monotonic_decreasing  # shuffled, not in rank order
    assert {"R&D <lab>", "Équipe Zürich", "Data, Drinks & Dreams"} <= set(lb.entries["team"])
    assert lb.entries["team"].is_unique


def test_example_kaggle_download_matches_public_scores():
    path = DATA / "example_kaggle_download.csv"
    assert path.read_bytes().startswith(b"\xef\xbb\xbfTeamId,")
    lb = read_leaderboard(path, higher_is_better=True)
    assert lb.format == "kaggle-download" and len(lb.entries) == 40
    assert lb.rows_read > 40 and lb.dropped[0].count == lb.rows_read - 40
    _invariant(lb)
    table = read_leaderboard(DATA / "example_leaderboard.csv", higher_is_better=True).entries
    public = dict(zip(table["team"], table["public_score"]))
    assert dict(zip(lb.entries["team"], lb.entries["score"])) == public
    raw = pd.read_csv(path, encoding="utf-8-sig")
    assert raw.groupby("TeamId").size().between(1, 6).all()
    # A history of improvements: in date order each team's scores only go up.
    for _, team in raw.sort_values("SubmissionDate").groupby("TeamId"):
        assert team["Score"].is_monotonic_increasing and team["Score"].is_unique


# --- real shared data -------------------------------------------------------------------------

@pytest.mark.skipif(not MLSP.exists(), reason=f"shared data absent: {MLSP}")
def test_shared_mlsp_public_private():
    lb = read_leaderboard(MLSP, higher_is_better=True)
    assert lb.format == "table" and lb.split == "private" and lb.score_column == "private_score"
    assert len(lb.entries) == lb.rows_read == 313 and lb.dropped == ()
    assert lb.entries["score"].equals(lb.entries["private_score"])
    assert lb.entries.iloc[0][["team", "score", "public_score"]].tolist() == [
        "Solution Draft (mlsp)", 0.9282, 0.70535]
    assert "Karolis Koncevičius" in set(lb.entries["team"])
    public = read_leaderboard(MLSP, higher_is_better=True, split="public")
    assert public.score_column == "public_score"
    assert public.entries["score"].equals(lb.entries["public_score"])


@pytest.mark.skipif(not SBERBANK.exists(), reason=f"shared data absent: {SBERBANK}")
def test_shared_sberbank_download():
    lb = read_leaderboard(SBERBANK, higher_is_better=False)  # RMSLE
    _invariant(lb)
    # This download holds one row per team already (3265 TeamIds), so nothing is superseded.
    assert lb.format == "kaggle-download" and lb.rows_read == len(lb.entries) == 3265
    assert lb.dropped == ()
    # 11 different TeamIds are all named "[Deleted]": they stay separate entries.
    assert (lb.entries["team"] == "[Deleted]").sum() == 11
    best = lb.entries.loc[lb.entries["score"].idxmin()]
    assert (best["team"], best["score"], best["line"]) == ("alijs & Evgeny", 0.29755, 2)


@pytest.mark.skipif(not NLP.exists(), reason=f"shared data absent: {NLP}")
@pytest.mark.parametrize("higher", [True, False])
def test_shared_nlp_history(higher):
    lb = read_leaderboard(NLP, higher_is_better=higher)
    assert lb.rows_read == 3735 and len(lb.entries) == 1702
    assert lb.dropped[0].count == 3735 - 1702 and len(lb.dropped[0].lines) == 20
    _invariant(lb)
    raw = pd.read_csv(NLP, encoding="utf-8-sig")
    raw["line"] = np.arange(len(raw)) + 2
    expected = raw.groupby("TeamId")["Score"].agg("max" if higher else "min")
    got = lb.entries.set_index(raw.set_index("line").loc[lb.entries["line"], "TeamId"].to_numpy())
    assert got["score"].sort_index().equals(expected.sort_index().rename("score"))
    assert "Salomon Kabongo" in set(lb.entries["team"])  # trailing space in the file, stripped


def test_shared_data_fixture(shared_data):
    assert shared_data == SHARED and (shared_data / "kaggle_lb_downloads").is_dir()
