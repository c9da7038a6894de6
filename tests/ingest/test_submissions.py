"""Tests for leaderboard.ingest.submissions: reading the solution, finding and validating submissions."""
from __future__ import annotations

import gzip
import zipfile
from pathlib import Path

import numpy as np
import pytest

from leaderboard.errors import InputError
from leaderboard.ingest.submissions import (STATUSES, Solution, SubmissionSet, read_solution,
                                     read_submissions)

N = 10
IDS = list(range(1, N + 1))
LABELS = [i % 2 for i in IDS]
GOOD = [0.1 * (i % 10) for i in IDS]


def _write(path: Path, text: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return path


def _csv(values, ids=IDS, header="id,Insult") -> str:
    return header + "\n" + "".join(f"{i},{v}\n" for i, v in zip(ids, values))


@pytest.fixture
def solution(tmp_path) -> Solution:
    """Binary solution, ids 1..10, lines 2..11; rows 1-3 public."""
    usage = ["PublicTest" if i <= 3 else "PrivateTest" for i in IDS]
    text = "id,Insult,Usage\n" + "".join(f"{i},{y},{u}\n" for i, y, u in zip(IDS, LABELS, usage))
    return read_solution(_write(tmp_path / "solution.csv", text))


def _accounted(subs: SubmissionSet) -> None:
    assert len(subs.files) == sum(subs.counts.values())
    assert set(subs.counts) == set(STATUSES)
    for f in subs.files:
        assert (f.prediction is not None) == f.ok
        if f.status in ("ok", "rejected", "skipped"):  # "not selected": either
            assert (f.reason is None) == f.ok
        assert f.reason is None or "\n" not in f.reason


def _one(tmp_path, solution, text, kind="probabilities", name="team.csv", valid=None, **kwargs):
    """The SubmissionFile of ``text``, read from a folder that also holds a ``valid`` file (else
    every file rejected would raise)."""
    folder = tmp_path / f"subs_{name}"
    _write(folder / "aaa_valid.csv", _csv(GOOD) if valid is None else valid)
    _write(folder / name, text)
    subs = read_submissions(folder, solution, kind=kind, **kwargs)
    _accounted(subs)
    return next(f for f in subs.files if f.file == name)


# --- the solution ------------------------------------------------------------------------------

def test_solution_reads_ids_target_classes_and_usage(tmp_path):
    text = ("ID,label,Usage\n 1 ,b,Public\n2,a,private\n3,c,PUBLICTEST\n4,a,PrivateTest\n"
            "\n5,b, Ignored \n")
    sol = read_solution(_write(tmp_path / "s.csv", text))
    assert sol.id_column == "ID" and sol.target_columns == ("label",)
    assert sol.ids.tolist() == ["1", "2", "3", "4", "5"]
    assert sol.target.tolist() == ["b", "a", "c", "a", "b"] and sol.classes.tolist() == ["a", "b",
                                                                                          "c"]
    assert sol.usage.tolist() == ["public", "private", "public", "private", "ignored"]
    assert sol.counts == {"public": 2, "private": 2, "ignored": 1}
    assert sol.rows_read == 5 == sum(sol.counts.values()) and len(sol) == 5
    assert sol.has_usage and sol.usage_column == "Usage" and sol.groups is None


def test_solution_without_usage_is_all_private_and_id_found_by_name(tmp_path):
    sol = read_solution(_write(tmp_path / "s.csv", "y,Id\n0.5,1\n1.5,2\n"))
    assert sol.id_column == "Id" and sol.target_columns == ("y",)
    assert not sol.has_usage and sol.usage_column is None
    assert sol.usage.tolist() == ["private", "private"]
    assert sol.target.dtype == float and sol.classes is None  # real numbers: not classes


def test_solution_group_column_and_explicit_columns(tmp_path):
    text = "key,g,t1,t2,Usage\na,g1,0,5,Public\nb,g1,1,6,Private\nc,g2,1,7,Private\n"
    sol = read_solution(_write(tmp_path / "s.csv", text), id_col="KEY", group_col="g",
                        target_cols=["t2"])
    assert sol.id_column == "key" and sol.target_columns == ("t2",)
    assert sol.groups.tolist() == ["g1", "g1", "g2"] and sol.target.tolist() == [5, 6, 7]
    assert not sol.integer_ids
    default = read_solution(_write(tmp_path / "s.csv", text), group_col="g")
    assert default.target_columns == ("t1", "t2")  # the group column is not a target


def test_solution_one_hot_columns_become_codes(tmp_path):
    text = "id,dog,cat,bird\n1,1,0,0\n2,0,0,1\n3,0,1,0\n"
    sol = read_solution(_write(tmp_path / "s.csv", text))
    assert sol.one_hot and sol.classes.tolist() == ["bird", "cat", "dog"]
    assert sol.target.tolist() == [2, 0, 1]
    assert (np.eye(3, dtype=int)[sol.target][:, [2, 1, 0]] == [[1, 0, 0], [0, 0, 1],
                                                                [0, 1, 0]]).all()
    multi = read_solution(tmp_path / "s.csv", kind="multilabel")
    assert not multi.one_hot and multi.target.shape == (3, 3) and multi.target.dtype == np.int64


@pytest.mark.parametrize("text, row, column, words", [
    ("id,y,Usage\n1,0,Public\n2,1,Secret\n3,0,Nope\n", 3, "Usage", "unknown Usage value 'Secret'"),
    ("id,y\n1,0\n2,1\n1,1\n", 4, "id", "duplicate id '1' on lines 2 and 4"),
    ("id,y\n007,0\n2,1\n7,1\n", 4, "id", "duplicate id '7' on lines 2 and 4"),
    ("id,y\n1,0\n2,\n", 3, "y", "blank target"),
    ("id,y\n1,0\n ,1\n", 3, "id", "blank id"),
    ("id,y\n1,0\n2,nan\n", 3, "y", "not a finite number"),
])
def test_solution_errors_name_file_line_and_column(tmp_path, text, row, column, words):
    path = _write(tmp_path / "s.csv", text)
    with pytest.raises(InputError) as info:
        read_solution(path)
    err = info.value
    assert (err.file, err.row, err.column) == (str(path), row, column)
    assert words in err.message and "\n" not in str(err)


def test_solution_option_errors(tmp_path):
    path = _write(tmp_path / "s.csv", "id,y\n1,a\n")
    with pytest.raises(InputError, match="not a finite number"):
        read_solution(path, kind="values")
    with pytest.raises(InputError, match="not found"):
        read_solution(path, target_cols="nope")
    with pytest.raises(InputError, match="no target column"):
        read_solution(_write(tmp_path / "t.csv", "id\n1\n"))
    with pytest.raises(InputError, match="unknown prediction kind"):
        read_solution(path, kind="probability")


# --- rejection reasons, one file each ------------------------------------------------------------

@pytest.mark.parametrize("text, reason", [
    (_csv(GOOD[:-2], IDS[:-2]), "wrong row count: 8 rows, expected 10; missing 2 ids (first: 9)"),
    (_csv(GOOD[:1], IDS[:1]), "wrong row count: 1 row, expected 10; missing 9 ids (first: 2)"),
    (_csv(GOOD, IDS[:9] + [3]), "duplicate id 3 on lines 4 and 11"),
    (_csv(GOOD + [0.5], IDS + [9999]), "wrong row count: 11 rows, expected 10; 1 extra id not in "
                                       "the solution (first: 9999 on line 12)"),
    (_csv(GOOD, IDS[:9] + [77]), "1 extra id not in the solution (first: 77 on line 11); missing "
                                 "1 id (first: 10)"),
    ("id,pred,other\n" + "".join(f"{i},0.5,1\n" for i in IDS),
     "missing prediction column 'Insult' (columns: id, pred, other)"),
    (_csv(GOOD, header="key,Insult"), "missing id column 'id' (columns: key, Insult)"),
    ("id;Insult\n1;0.5\n", "missing id column 'id' (columns: id;Insult) (the file seems "
                           "separated by semicolons; save it comma-separated)"),
    (_csv(GOOD[:5] + ["abc"] + GOOD[6:]), "non-numeric value 'abc' on line 7, column 'Insult'"),
    (_csv(GOOD[:5] + ["NaN"] + GOOD[6:]), "NaN on line 7, column 'Insult'"),
    (_csv(GOOD[:7] + ["inf"] + GOOD[8:]), "inf on line 9, column 'Insult'"),
    (_csv(GOOD[:7] + [""] + GOOD[8:]), "missing value on line 9, column 'Insult'"),
    (_csv(GOOD[:2] + [1.3, -2] + GOOD[4:]),
     "probability 1.3 outside [0, 1] on line 4, column 'Insult' (first of 2 bad values)"),
    (_csv(GOOD, IDS[:3] + [""] + IDS[4:]), "missing id on line 5, column 'id'"),
    ("", "empty file"),
    ("id,Insult\n", "no data rows: nothing below the header line"),
    ("\nid,Insult\n1,0.5\n", "the first line is blank"),
    (_csv(GOOD[:4] + ["0.1,7"] + GOOD[5:]), "not valid CSV: line 6 has 3 fields, the header has 2"),
    ('id,Insult\n1,"0.5\n2,0.5\n',
     "not valid CSV: a quoted value opened on line 2 is never closed"),
    (_csv(GOOD).encode("utf-8") + "11,caf\u00e9\n".encode("latin-1"),
     "not UTF-8 text (byte 0xe9 on line 12)"),
    (b"id,Insult\n1,\x00\n", "not a CSV text file (a NUL byte on line 2)"),
])
def test_each_rejection_reason(tmp_path, solution, text, reason):
    f = _one(tmp_path, solution, text)
    assert f.status == "rejected" and reason in f.reason, f.reason


def test_class_probabilities_summing_to_zero(tmp_path):
    sol = read_solution(_write(tmp_path / "s.csv", "id,y\n1,a\n2,b\n3,c\n"))
    text = "id,a,b,c\n1,0.2,0.3,0.5\n2,0,0,0\n3,0,0,0\n"
    _write(tmp_path / "subs" / "x.csv", text)
    _write(tmp_path / "subs" / "ok.csv", "id,a,b,c\n1,1,0,0\n2,0,1,0\n3,0.1,0.1,0.8\n")
    f = {g.file: g for g in read_submissions(tmp_path / "subs", sol, kind="probabilities").files}
    assert f["x.csv"].reason == "class probabilities on line 3 sum to 0 (first of 2 such lines)"


def test_bad_gzip_and_valid_gzip(tmp_path, solution):
    _write(tmp_path / "subs" / "broken.csv.gz", b"not gzip at all")
    _write(tmp_path / "subs" / "packed.csv.gz", gzip.compress(_csv(GOOD).encode()))
    subs = read_submissions(tmp_path / "subs", solution, kind="scores")
    got = {f.file: f for f in subs.files}
    assert got["broken.csv.gz"].status == "rejected"
    assert got["broken.csv.gz"].reason.startswith("not a readable gzip file")
    assert got["packed.csv.gz"].ok and got["packed.csv.gz"].team == "packed"


def test_blank_lines_are_skipped_but_counted_in_line_numbers(tmp_path, solution):
    text = "id,Insult\n\n" + "".join(f"{i},{v}\n" for i, v in zip(IDS[:4], GOOD)) + ",\n" + \
        "5,bad\n" + "".join(f"{i},{v}\n" for i, v in zip(IDS[5:], GOOD[5:])) + "\n\n"
    f = _one(tmp_path, solution, text)
    assert f.reason == "non-numeric value 'bad' on line 8, column 'Insult'" and f.rows == N


# --- alignment ------------------------------------------------------------------------------------

def test_rows_are_aligned_to_the_solution_by_id(tmp_path, solution):
    rng = np.random.default_rng(0)
    order = rng.permutation(N)
    values = np.round(rng.random(N), 4)
    shuffled = _csv(values[order], [IDS[i] for i in order])
    f = _one(tmp_path, solution, shuffled)
    assert f.ok and f.rows == N
    np.testing.assert_array_equal(f.prediction, values)


def test_integer_ids_match_as_integers_text_ids_exactly(tmp_path, solution):
    written = [f"00{i}" if i % 2 else f" {i}.0 " for i in IDS]
    f = _one(tmp_path, solution, _csv(GOOD[::-1], written[::-1]))
    assert f.ok, f.reason
    np.testing.assert_array_equal(f.prediction, GOOD)
    text_sol = read_solution(_write(tmp_path / "t.csv", "id,y\nA007,0\nB1,1\n"))
    g = _one(tmp_path, text_sol, "id,y\nA7,0.5\nB1,0.5\n", name="z.csv",
             valid="id,y\nA007,0.5\nB1,0.5\n")
    assert g.reason == "1 extra id not in the solution (first: A7 on line 2); missing 1 id " \
                       "(first: A007)"


def test_binary_per_class_columns_use_the_positive_class(tmp_path, solution):
    text = "id,0,1\n" + "".join(f"{i},{1 - v},{v}\n" for i, v in zip(IDS, GOOD))
    f = _one(tmp_path, solution, text, kind="scores")
    assert f.ok
    np.testing.assert_array_equal(f.prediction, GOOD)


def test_pred_cols_and_id_col_override(tmp_path, solution):
    text = "row,a,b\n" + "".join(f"{i},{v},0.5\n" for i, v in zip(IDS, GOOD))
    f = _one(tmp_path, solution, text, pred_cols=["a"], id_col="row", valid=text)
    assert f.ok
    np.testing.assert_array_equal(f.prediction, GOOD)
    g = _one(tmp_path, solution, text.replace("b", "c"), pred_cols="b", id_col="row",
             name="c.csv", valid=text)
    assert g.reason == "missing prediction column 'b' (columns: row, a, c)"
    with pytest.raises(InputError, match="take 1 prediction column"):
        read_submissions(tmp_path, solution, kind="scores", pred_cols=["a", "b"])


# --- kinds ----------------------------------------------------------------------------------------

@pytest.fixture
def animals(tmp_path) -> Solution:
    text = "id,y,Usage\n1,cat,Public\n2,dog,Private\n3,bird,Private\n4,cat,Private\n"
    return read_solution(_write(tmp_path / "animals.csv", text))


def test_multiclass_probabilities_one_column_per_class(tmp_path, animals):
    text = "id,dog,bird,cat\n4,0.1,0.1,0.8\n1,0.2,0.2,0.6\n2,0.7,0.2,0.1\n3,0,1,0\n"
    _write(tmp_path / "subs" / "ok.csv", text)
    _write(tmp_path / "subs" / "nocat.csv", "id,dog,bird\n1,0.5,0.5\n2,1,0\n3,0,1\n4,1,0\n")
    subs = read_submissions(tmp_path / "subs", animals, kind="probabilities")
    got = {f.file: f for f in subs.files}
    assert subs.columns.tolist() == ["bird", "cat", "dog"]
    np.testing.assert_allclose(got["ok.csv"].prediction, [[0.2, 0.6, 0.2], [0.2, 0.1, 0.7],
                                                          [1, 0, 0], [0.1, 0.8, 0.1]])
    assert got["nocat.csv"].reason == "missing prediction column 'cat' (columns: id, dog, bird)"


def test_multiclass_with_classes_missing_from_the_solution(tmp_path, animals):
    text = "id,bird,cat,dog,fish\n1,0,1,0,0\n2,0,0,1,0\n3,1,0,0,0\n4,0,0.5,0,0.5\n"
    _write(tmp_path / "subs" / "ok.csv", text)
    subs = read_submissions(tmp_path / "subs", animals, kind="probabilities",
                            classes=["bird", "cat", "dog", "fish"])
    assert subs.scored[0].prediction.shape == (4, 4) and subs.columns[-1] == "fish"
    with pytest.raises(InputError, match="do not include the solution's class"):
        read_submissions(tmp_path / "subs", animals, kind="probabilities", classes=["cat", "dog"])


def test_one_hot_solution_probabilities_and_labels(tmp_path):
    sol = read_solution(_write(tmp_path / "s.csv", "id,dog,cat,bird\n1,1,0,0\n2,0,0,1\n3,0,1,0\n"))
    _write(tmp_path / "p" / "p.csv", "id,cat,dog,bird\n1,0.1,0.8,0.1\n2,0,0,1\n3,0.5,0.5,0\n")
    probs = read_submissions(tmp_path / "p", sol, kind="probabilities").scored[0].prediction
    np.testing.assert_allclose(probs, [[0.1, 0.1, 0.8], [1, 0, 0], [0, 0.5, 0.5]])
    _write(tmp_path / "l" / "names.csv", "id,label\n1,dog\n2,bird\n3,cat\n")
    _write(tmp_path / "l" / "onehot.csv", "id,bird,cat,dog\n1,0,0,1\n2,1,0,0\n3,0,1,0\n")
    _write(tmp_path / "l" / "unknown.csv", "id,label\n1,dog\n2,fish\n3,cat\n")
    _write(tmp_path / "l" / "two.csv", "id,bird,cat,dog\n1,0,0,1\n2,1,1,0\n3,0,1,0\n")
    got = {f.file: f for f in read_submissions(tmp_path / "l", sol, kind="labels").files}
    assert got["names.csv"].prediction.tolist() == sol.target.tolist() == [2, 0, 1]
    assert got["onehot.csv"].prediction.tolist() == [2, 0, 1]
    assert got["unknown.csv"].reason == "unknown class fish on line 3, column 'label' (classes: " \
                                        "bird, cat, dog)"
    assert got["two.csv"].reason == "line 3 marks 2 classes with 1 (expected exactly one)"


def test_labels_integer_and_text(tmp_path, solution, animals):
    f = _one(tmp_path, solution, _csv(LABELS), kind="labels", valid=_csv(LABELS))
    assert f.prediction.dtype == np.int64 and f.prediction.tolist() == LABELS
    g = _one(tmp_path, solution, _csv(LABELS[:2] + [0.5] + LABELS[3:]), kind="labels",
             name="half.csv", valid=_csv(LABELS))
    assert g.reason == "label 0.5 on line 4, column 'Insult' is not an integer like the " \
                       "solution's labels"
    h = _one(tmp_path, animals, "id,y\n1,cat\n2,Dog\n3,bird\n4,fish\n", kind="labels",
             name="words.csv", valid="id,y\n1,cat\n2,Dog\n3,bird\n4,fish\n")
    assert h.ok and h.prediction.tolist() == ["cat", "Dog", "bird", "fish"]  # wrong, not invalid


def test_values_multilabel_rankings_clusters(tmp_path):
    multi = read_solution(_write(tmp_path / "m.csv", "id,a,b\n1,0,1\n2,1,1\n"), kind="multilabel")
    _write(tmp_path / "ml" / "ok.csv", "id,b,a\n2,1,1\n1,1,0\n")
    _write(tmp_path / "ml" / "two.csv", "id,a,b\n1,0,2\n2,1,1\n")
    got = {f.file: f for f in read_submissions(tmp_path / "ml", multi, kind="multilabel").files}
    assert got["ok.csv"].prediction.tolist() == [[0, 1], [1, 1]]
    assert got["two.csv"].reason == "value 2 on line 2, column 'b' is not 0 or 1"

    reg = read_solution(_write(tmp_path / "r.csv", "id,u,v\n1,0.5,2\n2,1.5,3\n"))
    _write(tmp_path / "reg" / "ok.csv", "id,u,v\n1,1e3,-2\n2,0,0\n")
    out = read_submissions(tmp_path / "reg", reg, kind="values")
    assert out.scored[0].prediction.tolist() == [[1000.0, -2.0], [0.0, 0.0]]

    ranks = read_solution(_write(tmp_path / "k.csv", "id,items\n1,a b\n2,7\n"), kind="rankings")
    assert ranks.target.tolist() == ["a b", "7"]
    _write(tmp_path / "rk" / "ok.csv", "id,items\n2,\n1, c  a \n")
    out = read_submissions(tmp_path / "rk", ranks, kind="rankings")
    assert out.scored[0].prediction.tolist() == ["c  a", ""]

    _write(tmp_path / "cl" / "ok.csv", "id,items\n1,x\n2,x\n")
    _write(tmp_path / "cl" / "blank.csv", "id,items\n1,x\n2, \n")
    got = {f.file: f for f in read_submissions(tmp_path / "cl", ranks, kind="clusters").files}
    assert got["ok.csv"].prediction.tolist() == [0, 0]
    assert got["blank.csv"].reason == "missing value on line 3, column 'items'"


# --- where the files come from --------------------------------------------------------------------

def test_folder_with_subfolder_gzip_hidden_and_other_files(tmp_path, solution):
    root = tmp_path / "subs"
    _write(root / "Team A.csv", _csv(GOOD))
    _write(root / "round2" / "team_b.CSV", _csv(GOOD))
    _write(root / "round2" / "team_c.csv.gz", gzip.compress(_csv(GOOD).encode()))
    _write(root / "notes.txt", "not a submission")
    _write(root / ".DS_Store", b"\x00\x01")
    (root / "solution.csv").write_bytes(Path(solution.source).read_bytes())
    sol = read_solution(root / "solution.csv")  # kept with the submissions: never an entry
    subs = read_submissions(root, sol, kind="probabilities")
    _accounted(subs)
    assert subs.layout == "folder" and subs.counts["ok"] == 3 and subs.counts["skipped"] == 3
    assert [(f.team, f.file, f.status, f.reason) for f in subs.files] == [
        (".DS_Store", ".DS_Store", "skipped", "hidden file"),
        ("Team A", "Team A.csv", "ok", None),
        ("notes", "notes.txt", "skipped", "not a CSV file"),
        ("team_b", "round2/team_b.CSV", "ok", None),
        ("team_c", "round2/team_c.csv.gz", "ok", None),
        ("solution", "solution.csv", "skipped", "the solution file")]
    assert [f.label for f in subs.scored] == ["Team A", "team_b", "team_c"]


def test_zip_with_subfolder_and_non_csv_member(tmp_path, solution):
    archive = tmp_path / "subs.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        zf.writestr("final/alpha.csv", _csv(GOOD))
        zf.writestr("final/beta.csv", _csv(GOOD[:-1], IDS[:-1]))
        zf.writestr("final/", "")
        zf.writestr("old/alpha.csv", _csv(GOOD[::-1], IDS[::-1]))
        zf.writestr("README.txt", "hello")
        zf.writestr("__MACOSX/final/._alpha.csv", b"\x00\x05")
    subs = read_submissions(archive, solution, kind="probabilities")
    _accounted(subs)
    assert subs.layout == "zip"
    rows = [(f.label, f.status) for f in subs.files]
    assert rows == [("README (README.txt)", "skipped"),
                    ("._alpha (__MACOSX/final/._alpha.csv)", "skipped"),
                    ("alpha (final/alpha.csv)", "ok"), ("beta", "rejected"),
                    ("alpha (old/alpha.csv)", "ok")]
    np.testing.assert_array_equal(subs.scored[1].prediction, GOOD)


def test_manifest_with_selected(tmp_path, solution):
    _write(tmp_path / "files" / "a1.csv", _csv(GOOD))
    _write(tmp_path / "files" / "a2.csv", _csv(GOOD[:5], IDS[:5]))
    _write(tmp_path / "files" / "b1.csv", _csv(GOOD))
    _write(tmp_path / "files" / "b2.csv", _csv(GOOD))
    _write(tmp_path / "files" / "c1.csv", _csv(["x"] * N))
    manifest = _write(tmp_path / "manifest.csv", "Team,File,Selected\n"
                      "alpha,files/a1.csv,yes\nalpha,files/a2.csv,\n"
                      "beta,files/b1.csv,1\nbeta,files/b2.csv,TRUE\n"
                      "gamma,files/c1.csv,x\ndelta,files/missing.csv,0\n")
    subs = read_submissions(manifest, solution, kind="probabilities")
    _accounted(subs)
    assert subs.layout == "manifest"
    assert [(f.label, f.status, f.selected) for f in subs.files] == [
        ("alpha", "ok", True), ("alpha (files/a2.csv)", "not selected", False),
        ("beta (files/b1.csv)", "ok", True), ("beta (files/b2.csv)", "ok", True),
        ("gamma", "rejected", True), ("delta (files/missing.csv)", "not selected", False)]
    a2, missing = subs.files[1], subs.files[5]
    assert a2.prediction is None and a2.reason.startswith("wrong row count: 5 rows")
    assert missing.reason == "file not found"
    assert subs.counts == {"ok": 3, "rejected": 1, "set aside": 0, "not selected": 2, "skipped": 0}
    assert len(subs.entries) == 4 and len(subs.scored) == 3


def test_manifest_without_selected(tmp_path, solution):
    _write(tmp_path / "a.csv", _csv(GOOD))
    _write(tmp_path / "b.csv", _csv(GOOD))
    manifest = _write(tmp_path / "m.csv", "team,file\n alpha ,a.csv\nalpha,b.csv\nbeta,b.csv\n")
    subs = read_submissions(manifest, solution, kind="probabilities")
    assert [f.label for f in subs.files] == ["alpha (a.csv)", "alpha (b.csv)", "beta"]
    assert all(f.ok and f.selected is None for f in subs.files)
    listed = _write(tmp_path / "m2.csv", f"team,file\ncheat,{solution.source}\n")
    with pytest.raises(InputError, match="is the solution file itself"):
        read_submissions(listed, solution, kind="probabilities")


@pytest.mark.parametrize("text, row, column, words", [
    ("team,file,selected\na,a.csv,maybe\n", 2, "selected", "'maybe' is not a yes/no value"),
    ("team,file\na,a.csv\na,a.csv\n", 3, "file", "lists file 'a.csv' twice"),
    ("team,file\n,a.csv\n", 2, "team", "empty"),
])
def test_manifest_errors(tmp_path, solution, text, row, column, words):
    path = _write(tmp_path / "m.csv", text)
    with pytest.raises(InputError) as info:
        read_submissions(path, solution, kind="probabilities")
    assert (info.value.row, info.value.column) == (row, column) and words in info.value.message


def test_path_errors(tmp_path, solution):
    with pytest.raises(InputError, match="not found"):
        read_submissions(tmp_path / "nope", solution, kind="scores")
    with pytest.raises(InputError, match="not a readable zip file"):
        read_submissions(_write(tmp_path / "bad.zip", b"PK\x03\x04 truncated"), solution,
                         kind="scores")
    with pytest.raises(InputError, match="not a manifest"):
        read_submissions(_write(tmp_path / "one.csv", _csv(GOOD)), solution, kind="scores")
    with pytest.raises(InputError, match="no submission files found"):
        read_submissions(_write(tmp_path / "empty" / "a.txt", "x").parent, solution,
                         kind="scores")
    with pytest.raises(InputError, match="unknown prediction kind"):
        read_submissions(tmp_path, solution, kind="probability")


def test_all_invalid_raises(tmp_path, solution):
    _write(tmp_path / "subs" / "a.csv", _csv(GOOD[:3], IDS[:3]))
    _write(tmp_path / "subs" / "b.csv", "")
    with pytest.raises(InputError) as info:
        read_submissions(tmp_path / "subs", solution, kind="probabilities")
    assert info.value.file == str(tmp_path / "subs")
    assert "no valid submission: all 2 rejected (first: a.csv: wrong row count" in str(info.value)


# --- real data ------------------------------------------------------------------------------------

def test_kaggle_insults_submissions_all_valid(shared_data):
    folder = shared_data / "kaggle_insults"
    if not folder.is_dir():
        pytest.skip("kaggle_insults not in the shared data")
    sol = read_solution(folder / "solution.csv")
    assert sol.counts == {"public": 662, "private": 1985, "ignored": 0}
    assert sol.classes.tolist() == [0, 1] and sol.integer_ids
    subs = read_submissions(folder / "submissions", sol, kind="probabilities")
    assert len(subs.files) == 27 and subs.counts["ok"] == 27
    for f in subs.files:
        assert f.rows == sol.rows_read == 2647
        assert f.prediction.shape == (2647,) and np.all((f.prediction >= 0)
                                                        & (f.prediction <= 1))
