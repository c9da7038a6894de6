"""Property-based fuzzing of the readers (issue 15): whatever bytes a participant uploads, each
reader returns a well-formed result or refuses with one printable line, never another exception.

Hypothesis generates raw bytes and CSV-like text built from the characters that break parsers
(quotes, separators, line breaks of three kinds, NUL, escape, bidi overrides, invalid UTF-8,
"nan", "True"), and shrinks any failure to a minimal file.
"""
from __future__ import annotations

import csv
import gzip
import io
import zipfile

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from leaderboard.ingest.csv_text import record_lines
from leaderboard.errors import InputError
from leaderboard.ingest.leaderboards import read_leaderboard
from leaderboard.ingest.safe_read import Unreadable, read_file
from leaderboard.ingest.submissions import read_solution
from leaderboard.ingest.toolkit.messages import Rejected
from leaderboard.ingest.toolkit.reading import parse_csv
from leaderboard.ingest.submissions.validate import make_plan, validate

FUZZ = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])

_PIECES = ["id", "team", "score", "target", "Usage", "Private", "Public", "1", "2", "3", "0.5",
           "-1", "1e9", "nan", "inf", "True", "", " ", ",", '"', '""', "\n", "\r\n", "\r", "\x00",
           "\x1b[31m", "\u202e", "é", "\udcff", "a,b", "007", "7.0"]
_FIELD = st.lists(st.sampled_from(_PIECES), max_size=4).map("".join)
_ROWS = st.lists(st.lists(_FIELD, min_size=1, max_size=4), min_size=0, max_size=8)


def _csv_bytes(rows: list[list[str]], header: str) -> bytes:
    text = header + "\n" + "\n".join(",".join(row) for row in rows) + "\n"
    return text.encode("utf-8", "surrogateescape")


def _one_line(message: str) -> None:
    assert message and "\n" not in message and "\r" not in message
    assert all(ch.isprintable() for ch in message), repr(message)


@FUZZ
@given(data=st.binary(max_size=400))
def test_parse_csv_on_any_bytes(data):
    try:
        raw = parse_csv(data, "fuzz.csv")
    except InputError as error:
        _one_line(str(error))
        return
    assert len(raw) >= 1 and list(raw.index) == sorted(set(raw.index))
    assert raw.index.min() >= 2  # line 1 is the header


@FUZZ
@given(rows=_ROWS, header=st.sampled_from(["team,score", "team,Score,score", "name,score,x",
                                           "team,public_score,private_score", "team;score"]))
def test_read_leaderboard_accounts_for_every_row(tmp_path_factory, rows, header):
    path = tmp_path_factory.mktemp("lb") / "board.csv"
    path.write_bytes(_csv_bytes(rows, header))
    try:
        board = read_leaderboard(path, higher_is_better=True)
    except InputError as error:
        _one_line(str(error))
        return
    entries = board.entries
    assert board.rows_read == len(entries) + sum(d.count for d in board.dropped)
    assert np.isfinite(entries["score"]).all() and (entries["team"].str.strip() != "").all()


@pytest.fixture(scope="module")
def plan(tmp_path_factory):
    path = tmp_path_factory.mktemp("sol") / "solution.csv"
    path.write_text("id,target,Usage\n1,0,Public\n2,1,Private\n3,0,Private\n", encoding="utf-8")
    return make_plan(read_solution(path), "probabilities")


@FUZZ
@given(rows=_ROWS, header=st.sampled_from(["id,target", "id,Target,target", "id,target,target",
                                           "target,id", "id", "id,target,note"]))
def test_validate_gives_probabilities_in_solution_order_or_a_reason(plan, rows, header):
    data = _csv_bytes(rows, header)
    try:
        values, n = validate(data, plan)
    except Rejected as error:
        _one_line(str(error))
        return
    assert values.shape == (3,) and n == 3
    assert np.isfinite(values).all() and ((values >= 0) & (values <= 1)).all()


@FUZZ
@given(data=st.binary(max_size=300))
def test_validate_on_any_bytes(plan, data):
    try:
        values, _ = validate(data, plan)
    except Rejected as error:
        _one_line(str(error))
        return
    assert values.shape == (3,)


@FUZZ
@given(rows=_ROWS, header=st.sampled_from(["id,target,Usage", "id,target", "id,y,usage,Usage",
                                           "id,target,group"]))
def test_read_solution_or_one_line(tmp_path_factory, rows, header):
    path = tmp_path_factory.mktemp("sol") / "solution.csv"
    path.write_bytes(_csv_bytes(rows, header))
    try:
        sol = read_solution(path)
    except InputError as error:
        _one_line(str(error))
        return
    assert len(sol) == sol.rows_read == sum(sol.counts.values())
    assert len(set(sol.keys)) == len(sol)


@FUZZ
@given(payload=st.binary(max_size=2000), suffix=st.sampled_from(
    [".csv", ".csv.gz", ".zip", ".csv.bz2", ".csv.xz", ".tar"]), wrap=st.booleans(),
    cap=st.integers(min_value=16, max_value=4000))
def test_read_file_is_capped_or_refused(tmp_path_factory, payload, suffix, wrap, cap):
    """Any bytes under any compression suffix: at most ``cap`` bytes come back, or a refusal;
    ``wrap`` packs the payload properly so that decompression paths run too."""
    if wrap and suffix == ".csv.gz":
        payload = gzip.compress(payload)
    elif wrap and suffix == ".zip":
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.writestr("a.csv", payload)
        payload = buffer.getvalue()
    path = tmp_path_factory.mktemp("f") / f"x{suffix}"
    path.write_bytes(payload)
    try:
        data = read_file(path, max_bytes=cap)
    except Unreadable as error:
        _one_line(str(error))
        return
    assert len(data) <= cap


@FUZZ
@given(rows=st.lists(st.lists(st.text(alphabet="ab, \n\"", max_size=5), min_size=1,
                              max_size=3), min_size=1, max_size=6))
def test_record_lines_match_the_lines_csv_writes(rows):
    """Against a reference: write records with the csv module, counting each one's lines."""
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["h"])
    starts, line = [], 2
    for row in rows:
        before = buffer.tell()
        writer.writerow(row)
        starts.append(line)
        line += buffer.getvalue()[before:].count("\n")
    data = buffer.getvalue().encode()
    got = record_lines(data, len(rows))
    if got is not None:  # None: the records could not be mapped, and line numbers say records
        assert got.tolist() == starts


_VALUES = ["0.5", "1", "0", "nan", "True", "false", "", " 0.2 ", "-0", "1.0000001", "1.1", "-0.5",
           "1e-3", "inf", "abc", '"0.25"']


def _probability(text: str) -> float | None:
    """The reference: what a scorer accepts as a probability, else None."""
    text = text.strip().strip('"').strip()
    try:
        value = float(text)
    except ValueError:
        return None
    ok = np.isfinite(value) and -1e-6 <= value <= 1 + 1e-6 and text.lower() not in (
        "true", "false")
    return min(max(value, 0.0), 1.0) if ok else None


@FUZZ
@given(order=st.permutations([1, 2, 3]), values=st.lists(st.sampled_from(_VALUES), min_size=3,
                                                          max_size=3))
def test_validate_accepts_exactly_the_valid_probabilities(plan, order, values):
    data = ("id,target\n" + "".join(f"{i},{v}\n" for i, v in zip(order, values))).encode()
    expected = [_probability(v) for v in values]
    try:
        got, _ = validate(data, plan)
    except Rejected as error:
        _one_line(str(error))
        assert None in expected, f"valid file rejected: {error}"
        return
    assert None not in expected
    want = np.empty(3)
    want[np.array(order) - 1] = expected
    np.testing.assert_allclose(got, want)
