"""Streamed submissions (issue 16): files read batch by batch give the very numbers, statuses and
reasons of reading them all at once, whatever the batch size; Parquet files score like CSV ones;
the weights regenerated from a seed are the ones drawn before.

The reference is the in-memory path (every prediction read first, then scored), which the streamed
path must match bit for bit: same float64 values, not merely close ones."""
from __future__ import annotations

import pickle
import zipfile

import numpy as np
import pandas as pd
import pytest

from leaderboard.errors import InputError
from leaderboard.metrics import get_metric
from leaderboard.noise.rng import BLOCK, block_rng
from leaderboard.noise.weights import ResamplingPlan, _tally, count_block, resampling, weight_block
from leaderboard.options import NoiseOptions, RankOptions
from leaderboard.pipelines.scores import Settings
from leaderboard.pipelines.submissions import analyze_submissions
from leaderboard.ingest.submissions import read_solution, read_submissions
from leaderboard.ingest.submissions.files import list_submissions
from tests.conftest import fewest_null_boards


@pytest.fixture(autouse=True)
def _fewest_null_boards(monkeypatch):
    fewest_null_boards(monkeypatch)   # the check's size is not under test here


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    """The bundled submissions example (a zip with good and bad files, public/private rows)."""
    import importlib.util

    from leaderboard.resources import data_dir

    spec = importlib.util.spec_from_file_location("make_ex", data_dir() /
                                                  "make_submissions_example.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    folder = tmp_path_factory.mktemp("example")
    module.main(folder)
    return folder / "example_solution.csv", folder / "example_submissions.zip"


@pytest.fixture(scope="module")
def small_example(example, tmp_path_factory):
    """The example's zip with 11 of its 40 teams (issue 27: each analysis reads and scores a
    third of the files): the first ten (two with shuffled rows, as every fifth team), the
    coarse one (tied scores), the four files to reject and the README to skip, in the zip's
    order, so every batch size below still mixes good, bad and skipped files."""
    from leaderboard.resources import data_dir

    coarse = f"submissions/{_coarse_team(data_dir())}.csv"
    solution, archive = example
    small = tmp_path_factory.mktemp("small") / "example_submissions.zip"
    with zipfile.ZipFile(archive) as src, zipfile.ZipFile(small, "w") as dst:
        names = src.namelist()
        teams = [n for n in names if n.endswith(".csv")][:40]
        keep = set(teams[:10]) | {coarse} | set(names[40:])
        for info in src.infolist():
            if info.filename in keep:
                dst.writestr(info, src.read(info.filename))
    return solution, small


def _coarse_team(folder) -> str:
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_ex0", folder / "make_example.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.COARSE


def _settings(metric: str, replicates: int = 100, resample: str = "plain") -> Settings:
    # bit-for-bit equality, not the noise's size, is under test: the fewest replicates the
    # options allow, still four weight blocks of BLOCK = 32 with a partial last one (issue 27)
    m = get_metric(metric)
    return Settings(m, NoiseOptions(seed=5), RankOptions(replicates=replicates, resample=resample))


def _both(solution_path, subs_path, settings, batches=(None,), split="private"):
    """The in-memory analysis, and the streamed one for each batch size."""
    kind = settings.metric.kind
    solution = read_solution(solution_path, kind=kind)
    memory = analyze_submissions(solution, read_submissions(subs_path, solution, kind=kind),
                                 settings, split=split)
    streamed = [analyze_submissions(solution, list_submissions(subs_path, solution, kind=kind),
                                    settings, split=split, batch_entries=size)
                for size in batches]
    return memory, streamed


def _assert_same(a, b):
    pd.testing.assert_frame_equal(a.table, b.table, check_exact=True)
    np.testing.assert_array_equal(a.bootstrap.replicates, b.bootstrap.replicates)
    np.testing.assert_array_equal(a.bootstrap.point, b.bootstrap.point)
    assert [(f.label, f.status, f.reason, f.rows) for f in a.submissions.files] == \
        [(f.label, f.status, f.reason, f.rows) for f in b.submissions.files]
    assert a.notes == b.notes
    assert (a.shakeup is None) == (b.shakeup is None)
    if a.shakeup is not None:
        assert repr(a.shakeup) == repr(b.shakeup)


@pytest.mark.parametrize("metric,resample", [("auc", "plain"), ("logloss", "stratified"),
                                             ("average_precision", "poisson"),
                                             ("brier", "plain")])
def test_streamed_equals_in_memory_whatever_the_batch(small_example, metric, resample):
    memory, streamed = _both(*small_example, _settings(metric, resample=resample),
                             batches=(1, 4, 7, None))
    assert memory.shakeup is not None                 # both splits, and the post-mortem
    for result in streamed:
        _assert_same(memory, result)
        assert all(f.prediction is None for f in result.submissions.files)   # let go
        assert all(f.digest is not None for f in result.submissions.scored)


def test_streamed_ranking_by_the_public_split(example):
    memory, streamed = _both(*example, _settings("auc"), batches=(3,), split="public")
    _assert_same(memory, streamed[0])


def test_identical_files_found_from_digests(tmp_path):
    rng = np.random.default_rng(1)
    n = 300
    y = rng.integers(0, 2, n)
    pd.DataFrame({"id": range(n), "target": y}).to_csv(tmp_path / "solution.csv", index=False)
    subs = tmp_path / "subs"
    subs.mkdir()
    preds = {name: np.round(y * skill + rng.random(n), 4) for name, skill in
             [("a", 0.5), ("b", 0.3), ("c", 0.1)]}
    preds["a_copy"] = preds["a"]
    for name, p in preds.items():
        frame = pd.DataFrame({"id": range(n), "target": p})
        frame.sample(frac=1, random_state=len(name)).to_csv(subs / f"{name}.csv", index=False)
    memory, streamed = _both(tmp_path / "solution.csv", subs, _settings("auc"), batches=(1, 2))
    for result in streamed:
        _assert_same(memory, result)
        by_team = dict(zip(result.table["team"], result.table["identical_to"]))
        assert by_team["a_copy"] == "a" and by_team["b"] is None
        assert any("Identical predictions" in note for note in result.notes)


def test_metric_refusals_and_undefined_scores_stream_alike(tmp_path):
    """RMSLE refuses negative predictions (on the public or private rows); a batch holding a
    refused file and good ones gives the in-memory reasons and numbers."""
    rng = np.random.default_rng(2)
    n = 200
    y = rng.random(n) * 3
    usage = np.where(np.arange(n) % 3 == 0, "Public", "Private")
    pd.DataFrame({"id": range(n), "target": y, "Usage": usage}).to_csv(
        tmp_path / "solution.csv", index=False)
    subs = tmp_path / "subs"
    subs.mkdir()
    for k in range(6):
        p = y + rng.normal(0, 0.3 + 0.1 * k, n).clip(-y)
        if k == 2:
            p[0] = -1.0                                    # a public row
        if k == 4:
            p[1] = -2.0                                    # a private row
        pd.DataFrame({"id": range(n), "target": p}).to_csv(subs / f"t{k}.csv", index=False)
    memory, streamed = _both(tmp_path / "solution.csv", subs, _settings("rmsle"),
                             batches=(1, 3, 6))
    reasons = {f.team: f.reason for f in memory.submissions.files if f.status == "rejected"}
    assert set(reasons) == {"t2", "t4"}
    assert "on the public rows" in reasons["t2"] and "on the private rows" in reasons["t4"]
    for result in streamed:
        _assert_same(memory, result)


def test_read_errors_come_before_the_missing_split(tmp_path):
    """No private rows and no valid file: the files' problem is reported first, as before."""
    pd.DataFrame({"id": [1, 2, 3], "y": [0, 1, 0], "Usage": ["Public"] * 3}).to_csv(
        tmp_path / "solution.csv", index=False)
    subs = tmp_path / "subs"
    subs.mkdir()
    (subs / "a.csv").write_text("id,y\n1,0.5\n")
    solution = read_solution(tmp_path / "solution.csv", kind="scores")
    with pytest.raises(InputError, match="no valid submission"):
        analyze_submissions(solution, list_submissions(subs, solution, kind="scores"),
                            _settings("auc"))
    (subs / "a.csv").write_text("id,y\n1,0.5\n2,0.6\n3,0.1\n")
    with pytest.raises(InputError, match="no private rows to rank by"):
        analyze_submissions(solution, list_submissions(subs, solution, kind="scores"),
                            _settings("auc"))


def _write_pair(folder, name, frame):
    frame.to_csv(folder / "csv" / f"{name}.csv", index=False)
    frame.to_parquet(folder / "parquet" / f"{name}.parquet", index=False)


def test_parquet_submissions_score_like_csv(tmp_path):
    pytest.importorskip("pyarrow")
    rng = np.random.default_rng(4)
    n = 500
    y = rng.integers(0, 2, n)
    pd.DataFrame({"id": range(n), "target": y,
                  "Usage": np.where(rng.random(n) < 0.3, "Public", "Private")}).to_csv(
        tmp_path / "solution.csv", index=False)
    for sub in ("csv", "parquet"):
        (tmp_path / sub).mkdir()
    for k in range(5):
        p = np.round(y * (0.2 + 0.1 * k) + rng.random(n), 6)
        _write_pair(tmp_path, f"team{k}", pd.DataFrame({"id": range(n), "target": p})
                    .sample(frac=1, random_state=k))
    bad = pd.DataFrame({"id": range(n), "target": np.where(np.arange(n) == 7, np.nan, 0.5)})
    _write_pair(tmp_path, "holes", bad)
    solution = read_solution(tmp_path / "solution.csv", kind="scores")
    settings = _settings("auc")
    a, b = (analyze_submissions(solution, list_submissions(tmp_path / sub, solution,
                                                           kind="scores"), settings,
                                batch_entries=2) for sub in ("csv", "parquet"))
    pd.testing.assert_frame_equal(a.table.drop(columns="file"), b.table.drop(columns="file"),
                                  check_exact=True)
    np.testing.assert_array_equal(a.bootstrap.replicates, b.bootstrap.replicates)
    holes = [f for f in b.submissions.files if f.team == "holes"][0]
    assert holes.status == "rejected"
    assert holes.reason == "missing value on line 9, column 'target'"   # row 8 under a header
    csv_holes = [f for f in a.submissions.files if f.team == "holes"][0]
    assert csv_holes.reason == holes.reason


def test_parquet_problems_are_one_line_rejections(tmp_path):
    pytest.importorskip("pyarrow")
    pd.DataFrame({"id": [1, 2, 3], "y": [0, 1, 0]}).to_csv(tmp_path / "solution.csv",
                                                           index=False)
    subs = tmp_path / "subs"
    subs.mkdir()
    good = pd.DataFrame({"id": [3, 1, 2], "y": [0.1, 0.2, 0.9]})
    good.to_parquet(subs / "good.parquet", index=False)
    data = (subs / "good.parquet").read_bytes()
    (subs / "damaged.parquet").write_bytes(data[:4] + b"\x00" * 40 + data[-4:])
    good.rename(columns={"y": "score"}).to_parquet(subs / "renamed.parquet", index=False)
    with zipfile.ZipFile(tmp_path / "subs.zip", "w") as archive:
        archive.write(subs / "good.parquet", "inner/good.parquet")
    solution = read_solution(tmp_path / "solution.csv", kind="scores")
    files = {f.team: f for f in read_submissions(subs, solution, kind="scores").files}
    assert files["good"].status == "ok"
    assert files["damaged"].reason.startswith("not a readable Parquet file (")
    assert files["renamed"].reason.startswith("missing prediction column 'y' (columns: id, "
                                              "score)")
    assert all("\n" not in (f.reason or "") for f in files.values())
    zipped = read_submissions(tmp_path / "subs.zip", solution, kind="scores")
    np.testing.assert_array_equal(zipped.scored[0].prediction, [0.2, 0.9, 0.1])


def test_found_entries_pickle_and_read_back(example):
    """What a worker receives: a zip member's loader reopens the archive itself."""
    solution_path, zip_path = example
    solution = read_solution(solution_path, kind="scores")
    listing = list_submissions(zip_path, solution, kind="scores")
    loaders = [f.load for f in listing.found if f.load is not None]
    copies = pickle.loads(pickle.dumps(loaders))
    assert [c() for c in copies] == [f() for f in loaders]


def _reference_block(plan: ResamplingPlan, seed: int, block: int, stream: int) -> np.ndarray:
    """The weights as they were drawn before streaming: one vectorised draw per block, counted
    with one bincount (the definition the compact counts must reproduce)."""
    rng = block_rng(seed, stream, block)

    def counts(draws, size):
        offsets = np.arange(draws.shape[0])[:, None] * size
        return np.bincount((draws + offsets).ravel(),
                           minlength=draws.shape[0] * size).reshape(draws.shape[0], size)

    if plan.resample == "grouped":
        drawn = counts(rng.integers(0, plan.n_groups, size=(BLOCK, plan.n_groups)),
                       plan.n_groups)
        return drawn[:, plan.group_index].astype(float)
    if plan.resample == "stratified":
        parts = [rows[rng.integers(0, rows.size, size=(BLOCK, rows.size))] for rows in
                 plan.strata]
        return counts(np.hstack(parts), plan.n_rows).astype(float)
    return counts(rng.integers(0, plan.n_rows, size=(BLOCK, plan.n_rows)),
                  plan.n_rows).astype(float)


@pytest.mark.parametrize("n", [2, 3, 257, 5000])
def test_compact_counts_are_the_weights_drawn_before(n):
    rng = np.random.default_rng(n)
    y = rng.integers(0, 3, n)
    groups = rng.integers(0, max(2, n // 4), n)
    groups[:2] = [0, 1]
    for how in ("plain", "stratified", "grouped"):
        plan = resampling(y, how, groups=groups)
        for block in (0, 5):
            want = _reference_block(plan, 9, block, 2)
            got = count_block(plan, 9, block, 2)
            assert got.dtype == np.uint8
            np.testing.assert_array_equal(got, want)
            np.testing.assert_array_equal(weight_block(plan, 9, block, 2), want)


def test_counts_past_255_widen_instead_of_wrapping():
    draws = np.zeros(300, dtype=np.int64)
    out = _tally(draws, 2)
    assert out.dtype == np.int64 and out.tolist() == [300, 0]
    assert _tally(np.array([1, 1, 0]), 3).tolist() == [1, 2, 0]


def test_integer_ids_are_checked_for_repeats_as_numbers():
    """The int64 shortcut finds exactly the repeats text comparison finds, past int64 too."""
    from leaderboard.ingest.submissions.solution import _duplicated, id_keys

    rng = np.random.default_rng(6)
    ids = pd.Series([str(v) for v in rng.integers(-50, 50, 300)]
                    + ["007", "7", "+7", "99999999999999999999", "99999999999999999999"],
                    dtype="str")
    keys = id_keys(ids, True)
    np.testing.assert_array_equal(_duplicated(keys, True), keys.astype(object).duplicated())
    assert _duplicated(keys, True).iloc[-1] and _duplicated(keys, True).iloc[-3]
