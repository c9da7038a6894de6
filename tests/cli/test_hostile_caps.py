"""Hostile input, part three (issue 29): caps checked before work, small samples, names that look
alike, harness logs that once crashed the reader, and a run under an address-space limit.

Every case runs the real command line (in-process, or in a subprocess where a limit or a crash of
a native library must not reach the test runner) and must end as promised: a one-line error with
exit status 2 naming what is wrong and the option that changes it, or a correct result; never a
traceback, an internal error (70), a numpy warning or a hang.
"""
from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import pytest

from leaderboard.cli import main
from leaderboard.resources import data_dir
from leaderboard.report.vega import renderer

REPO = Path(__file__).resolve().parents[2]
GB4 = 4 * 2 ** 30
# For runs that test names, caps and files, not the noise: the fewest draws and replicates allowed.
FEW_DRAWS = ["--draws", "100", "--replicates", "100"]


def run(argv, capsys):
    """(exit status, stdout, stderr) of the command line, with no traceback or warning."""
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "Warning" not in err, err
    return code, out, err


def one_line_error(argv, capsys, *words) -> str:
    code, out, err = run(argv, capsys)
    lines = err.splitlines()
    assert code == 2, err
    assert len(lines) == 1 and lines[0].startswith("leaderboard: error:"), err
    for w in words:
        assert w in lines[0], f"{w!r} not in {lines[0]}"
    return lines[0]


# --- the chart renderer in a child process ------------------------------------------------------

def _limited(limit: int):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    return apply


# ``python -m leaderboard`` with the package's shipped Vega bundle (leaderboard/report/vega/shipped.py,
# present once the tree was installed) out of sight: these cases are a machine whose only bundle
# is the user's cache, or none at all (a shipped bundle is read as a cached one is)
_NO_SHIPPED_BUNDLE = ("from leaderboard.report.vega import shipped; "
                      "shipped.FOLDER = shipped.FOLDER / 'absent'; "
                      "from leaderboard.cli import entry; entry()")


@pytest.mark.parametrize("cached", [False, True], ids=["no cached bundle", "cached bundle"])
def test_example_runs_under_a_4gb_address_space_limit(tmp_path, monkeypatch, cached):
    """vl-convert's V8 aborts the process under `ulimit -v 4194304`: the report is still written,
    exit 0, no crash trace on the terminal; without a cached bundle the page says why the charts
    are missing.

    The example runs at 100 draws and replicates (the default is 2,000): what the limit breaks is
    V8's reservation of its heap, the same at any size; the example's peak memory is the same at
    both sizes (355 MB resident, measured), far under the limit, with the same threads. With
    a cached bundle, the bundle is built beforehand in this process, by the function every run
    uses to fill the cache (a second subprocess of the example did it before)."""
    cache = tmp_path / "cache"
    env = dict(os.environ, PYTHONPATH=str(REPO), LEADERBOARD_CACHE_DIR=str(cache))
    small = ["--draws", "100", "--replicates", "100"]
    if cached:   # a bundle built beforehand, without the limit (as a previous run leaves it)
        from leaderboard.report.vega import embed

        monkeypatch.setenv("LEADERBOARD_CACHE_DIR", str(cache))
        assert embed.looks_like_bundle(embed._cached_bundle())
        assert any(cache.iterdir())
    out = tmp_path / "r.html"
    done = subprocess.run([sys.executable, "-c", _NO_SHIPPED_BUNDLE, "analyze", "--example", *small,
                           "-o", str(out), "--json", str(tmp_path / "r.json"), "--quiet"], env=env,
                          capture_output=True, text=True, timeout=600,
                          preexec_fn=_limited(GB4))
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stderr == "" and done.stdout == ""
    page = out.read_text(encoding="utf-8")
    assert json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))["entries"]
    assert "<table" in page
    if cached:   # interactive charts from the cached bundle; no static picture
        assert "vegaEmbed" in page and "this chart is drawn by JavaScript" in page
    else:
        assert "vegaEmbed" not in page
        assert "cannot be drawn here, as its renderer (vl-convert) cannot run" in page


def test_a_renderer_that_dies_turns_off_quietly(capfd):
    child = renderer._Child()
    child_code = renderer._CHILD
    try:
        renderer._CHILD = "import os, sys; sys.stderr.write('C stack trace\\n'); os.abort()"
        assert child.ask({"op": "svg", "spec": {}, "vl_version": None}) is None
        assert "stopped" in child.failed
        started = time.monotonic()
        assert child.ask({"op": "svg", "spec": {}, "vl_version": None}) is None   # at once
        assert time.monotonic() - started < 0.1
    finally:
        renderer._CHILD = child_code
        child.stop()
    out, err = capfd.readouterr()
    assert "C stack trace" not in out + err


def test_a_renderer_that_never_answers_is_stopped(monkeypatch):
    child = renderer._Child()
    monkeypatch.setattr(renderer, "_CHILD", "import time; time.sleep(60)")
    monkeypatch.setattr(renderer, "TIMEOUT_SECONDS", 1.0)
    started = time.monotonic()
    assert child.ask({"op": "bundle", "vl_version": None}) is None
    assert time.monotonic() - started < 10 and child.process is None


def test_a_specification_vl_convert_refuses_is_an_error_not_a_dead_renderer():
    with pytest.raises(renderer.RenderError):
        renderer.svg({"mark": "no-such-mark"}, None)
    assert renderer.unavailable() is None
    assert renderer.svg({"mark": "point", "data": {"values": [{"a": 1}]},
                         "encoding": {"x": {"field": "a", "type": "quantitative"}}},
                        None).startswith("<svg")


def test_a_100kb_team_name_does_not_stall_the_report(tmp_path, capsys):
    """The static renderer measured every character of a 100 KB name's label: 106 s for a
    10-row board. Its texts are now cut at LABEL_LIMIT characters; the interactive chart, the
    table and the JSON keep the whole name."""
    name = "x" * 100_000
    rows = ["team,score"] + [f"team{i},{0.7 + i / 100}" for i in range(9)] + [f"{name},0.69"]
    board = tmp_path / "b.csv"
    board.write_text("\n".join(rows) + "\n")
    started = time.monotonic()
    code, _, err = run(["analyze", board, "--metric", "auc", "--n-test", "1000",
                        "--prevalence", "0.5", "-o", tmp_path / "r.html", "--json",
                        tmp_path / "r.json", "--quiet", "--max-name-length", "100000",
                        "--static-charts", *FEW_DRAWS], capsys)
    assert code == 0, err
    assert time.monotonic() - started < 60
    teams = [e["team"] for e in json.loads((tmp_path / "r.json").read_text())["entries"]]
    assert name in teams
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "x" * renderer.LABEL_LIMIT + "…" in page   # the static picture's label


def test_shorten_texts_keeps_expressions_and_titles():
    expression = "datum.team == 'a' ? " + "1 + " * 100 + "1 : 0"
    spec = {"transform": [{"calculate": expression, "as": "k"}], "title": "t" * 300,
            "datasets": {"d": [{"team": "n" * 500}]},
            "encoding": {"y": {"sort": ["n" * 500], "scale": {"domain": ["n" * 500]}}}}
    short = renderer.shorten_texts(spec, 10)
    assert short["transform"][0]["calculate"] == expression and short["title"] == "t" * 300
    assert short["datasets"]["d"][0]["team"] == "n" * 10 + "…"
    assert short["encoding"]["y"]["sort"] == ["n" * 10 + "…"]
    assert short["encoding"]["y"]["scale"]["domain"] == ["n" * 10 + "…"]


# --- lm-evaluation-harness logs that crashed the reader, and valid ones it refused ---------------

STAMP = "2026-11-20T10-31-07.123456"


def _log(out: Path, model: str | bytes, lines: list[str], task: str = "arc") -> Path:
    folder = os.path.join(os.fsencode(out), model if isinstance(model, bytes) else model.encode())
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"samples_{task}_{STAMP}.jsonl".encode())
    with open(path, "wb") as handle:
        handle.write("".join(line + "\n" for line in lines).encode("utf-8", "surrogatepass"))
    return Path(os.fsdecode(path))


def _sample(doc_id, acc, **extra) -> str:
    return json.dumps({"doc_id": doc_id, "filter": "none", "metrics": ["acc"], "acc": acc,
                       **extra})


def _two_good_models(out: Path, docs: int = 30) -> None:
    for k, model in enumerate(("good-a", "good-b")):
        _log(out, model, [_sample(i, float((i + k) % 3 == 0)) for i in range(docs)])


def _items(out: Path, tmp_path: Path) -> list:
    return ["analyze", "--items", out, "--quiet", "--replicates", "200", "-o",
            tmp_path / "r.html", "--json", tmp_path / "r.json"]


@pytest.mark.parametrize("bad, words", [
    ('{"doc_id": 5, "filter": "none", "metrics": ["acc"], "acc": ' + "9" * 400 + "}",
     "not a finite number"),
    ('{"doc_id": 5, "filter": "none", "metrics": ["acc"], "acc": 1e400}', "not a finite number"),
    ('{"doc_id": 5, "x": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
    ('{"doc_id": 5, "acc": ' + "1" * 5000 + "}", "not a JSON line"),
], ids=["400-digit integer", "1e400", "100,000-deep nesting", "5,000-digit integer"])
def test_a_hostile_log_line_is_one_line_naming_file_and_line(tmp_path, capsys, bad, words):
    out = tmp_path / "out"
    _two_good_models(out)
    path = _log(out, "bad-model", [_sample(0, 1.0), bad])
    one_line_error(_items(out, tmp_path), capsys, words, f"{path.name}:2")


def test_json_lines_with_u2028_and_nel_inside_strings_are_read(tmp_path, capsys):
    """JSON allows U+2028, U+2029 and NEL raw inside strings; lines end at "\\n" only."""
    out = tmp_path / "out"
    _two_good_models(out)
    raw = [json.dumps({"doc_id": i, "filter": "none", "metrics": ["acc"], "acc": 1.0,
                       "resps": f"line\u2028sep\u0085nel\u2029par\x0bvt\x1cfs {i}"},
                      ensure_ascii=False) for i in range(30)]
    assert "\u2028" in raw[0]
    _log(out, "c-unicode", raw)
    code, _, err = run(_items(out, tmp_path), capsys)
    assert code == 0, err
    entries = json.loads((tmp_path / "r.json").read_text())["entries"]
    assert {e["team"]: e["score"] for e in entries}["c-unicode"] == 1.0


def test_lone_surrogate_doc_id_and_undecodable_folder_names(tmp_path, capsys):
    out = tmp_path / "out"
    _two_good_models(out, docs=12)
    lines = [json.dumps({"doc_id": "d\ud800" if i == 0 else i, "filter": "none",
                         "metrics": ["acc"], "acc": 1.0}) for i in range(12)]
    for model in ("good-a", "good-b"):   # the same items for everyone, one id a lone surrogate
        _log(out, model, [json.dumps({"doc_id": "d\ud800" if i == 0 else i, "filter": "none",
                                      "metrics": ["acc"], "acc": float(i % 2)})
                          for i in range(12)])
    _log(out, b"model-\xff\xfe", lines)
    _log(out, b"model-\xfe\xff", lines)   # undecodable names stay apart (issue 43)
    os.makedirs(os.path.join(os.fsencode(out), b"good-a", b"sub-\xff"))   # skipped, named
    code, out_text, err = run(_items(out, tmp_path) + ["--replicates", "100"], capsys)
    assert code == 0, err
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    teams = {e["team"] for e in report["entries"]}
    assert {"model-\\xff\\xfe", "model-\\xfe\\xff"} <= teams
    files = {f["team"] for f in report["files"]}
    assert "good-a/sub-\\xff" in files
    assert "model-\\xff\\xfe" in (tmp_path / "r.html").read_text(encoding="utf-8")


# --- caps checked before work -------------------------------------------------------------------

def _board(tmp_path: Path, names: list[str]) -> Path:
    path = tmp_path / "board.csv"
    path.write_text("team,score\n" + "".join(f"{n},{0.6 + k / 1000}\n"
                                             for k, n in enumerate(names)), encoding="utf-8")
    return path


def _scores_args(board: Path, tmp_path: Path) -> list:
    return ["analyze", board, "--metric", "auc", "--n-test", "1000", "--prevalence", "0.5",
            "--quiet", "-o", tmp_path / "r.html"]


def _items_file(tmp_path: Path, models: int, items: int, header_extra: str = "") -> Path:
    path = tmp_path / "items.csv"
    lines = [f"model,item,value{header_extra}"]
    lines += [f"m{m},q{i},{(m + i) % 2}" + ("," * header_extra.count(",")) for m in range(models)
              for i in range(items)]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_1mb_team_name_is_refused_naming_its_line(tmp_path, capsys):
    board = _board(tmp_path, ["a", "b", "x" * 2 ** 20, "c"])
    started = time.monotonic()
    one_line_error(_scores_args(board, tmp_path), capsys, "board.csv:4", "'team'",
                   "1,048,576 characters", "--max-name-length")
    assert time.monotonic() - started < 10


def test_a_long_name_under_a_raised_cap_is_kept(tmp_path, capsys):
    board = _board(tmp_path, ["a", "b", "y" * 20_000])
    code, _, err = run(_scores_args(board, tmp_path) + ["--max-name-length", "20000", "--json",
                                                       tmp_path / "r.json", *FEW_DRAWS], capsys)
    assert code == 0, err
    assert "y" * 20_000 in {e["team"] for e in json.loads((tmp_path / "r.json").read_text())[
        "entries"]}


def test_a_1mb_model_name_in_items_is_refused(tmp_path, capsys):
    path = tmp_path / "items.csv"
    rows = ["model,item,value"] + [f"{m},q{i},{i % 2}" for m in ("a", "b", "z" * 2 ** 20)
                                   for i in range(5)]
    path.write_text("\n".join(rows) + "\n")
    one_line_error(["analyze", "--items", path, "--quiet", "-o", tmp_path / "r.html"], capsys,
                   "items.csv:12", "'model'", "--max-name-length")


def test_100000_columns_are_refused_from_the_header(tmp_path, capsys):
    path = tmp_path / "items.csv"
    path.write_text("model,item,value," + ",".join(f"c{k}" for k in range(100_000)) + "\n"
                    + "a,q1,1" + "," * 100_000 + "\n")
    started = time.monotonic()
    one_line_error(["analyze", "--items", path, "--quiet", "-o", tmp_path / "r.html"], capsys,
                   "items.csv:1", "100,003 columns", "cap of 10,000", "--max-columns")
    assert time.monotonic() - started < 5


def test_rows_over_the_cap_are_refused_before_parsing(tmp_path, capsys):
    path = _items_file(tmp_path, 3, 40)
    one_line_error(["analyze", "--items", path, "--quiet", "-o", tmp_path / "r.html",
                    "--max-rows", "100"], capsys, "items.csv", "120 rows", "--max-rows")
    code, _, err = run(["analyze", "--items", path, "--quiet", "-o", tmp_path / "r.html",
                        "--max-rows", "120", "--replicates", "200"], capsys)
    assert code == 0, err


def test_ten_million_items_rows_are_refused_quickly(tmp_path, capsys):
    """10 million rows (about 60 MB: under the file-size cap) would fill the machine once parsed
    into text cells; the line count is checked first."""
    path = tmp_path / "items.csv"
    with open(path, "wb") as handle:
        handle.write(b"model,item,value\n")
        block = b"".join(b"m%d,q%d,1\n" % (k % 7, k) for k in range(100_000))
        for _ in range(100):   # 10,000,000 rows
            handle.write(block)
    started = time.monotonic()
    one_line_error(["analyze", "--items", path, "--quiet", "-o", tmp_path / "r.html",
                    "--max-rows", "5000000"], capsys, "10,000,000 rows", "--max-rows")
    assert time.monotonic() - started < 20


def test_models_by_items_over_the_memory_cap_are_refused(tmp_path, capsys):
    """Every row a new model and a new item: the model-by-item table would be rows squared."""
    path = tmp_path / "items.csv"
    path.write_text("model,item,value\n" + "".join(f"m{k},q{k},1\n" for k in range(20_000)))
    one_line_error(["analyze", "--items", path, "--quiet", "-o", tmp_path / "r.html"], capsys,
                   "20,000 models by 20,000 items", "--max-memory")


def test_ten_million_replicates_are_refused_up_front(tmp_path, capsys):
    started = time.monotonic()
    one_line_error(["analyze", "--example", "submissions", "--replicates", "10000000",
                    "--quiet", "-o", tmp_path / "r.html"], capsys,
                   "10,000,000 replicates of", "--replicates", "--max-memory")
    assert time.monotonic() - started < 60


def test_a_parquet_bomb_is_refused_from_its_metadata(tmp_path, capsys):
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    n = 3_000_000   # one long repeated text per row: kilobytes on disk, gigabytes decompressed
    # pa.repeat builds the same string columns as pa.array([...] * n), without 3 million Python
    # strings each (3.9 s -> 0.8 s for the value column)
    table = pa.table({"model": pa.repeat(pa.scalar("m"), n), "item": pa.repeat(pa.scalar("q"), n),
                      "value": pa.repeat(pa.scalar("1" * 200), n)})
    path = tmp_path / "bomb.parquet"
    pq.write_table(table, path, compression="zstd")
    assert path.stat().st_size < 2 ** 20
    one_line_error(["analyze", "--items", path, "--quiet", "-o", tmp_path / "r.html"], capsys,
                   "bomb.parquet", "expands to more than 16M", "--max-expansion")
    one_line_error(["analyze", "--items", path, "--quiet", "-o", tmp_path / "r.html",
                    "--max-expansion", "1000000", "--max-file-size", "4M"], capsys,
                   "bomb.parquet", "decompresses to more than", "--max-file-size")  # size cap
    one_line_error(["analyze", "--items", path, "--quiet", "-o", tmp_path / "r.html",
                    "--max-rows", "1000000"], capsys, "3,000,000 rows", "--max-rows")


def test_a_million_entry_board_is_refused_with_its_option(tmp_path, capsys):
    path = tmp_path / "board.csv"
    with open(path, "w") as handle:
        handle.write("team,score\n")
        # the scores are never read (the count is refused first): one fixed score per line
        # writes the same million entries without formatting a million floats
        handle.writelines(f"t{k},0.5\n" for k in range(1_000_000))
    started = time.monotonic()
    one_line_error(_scores_args(path, tmp_path), capsys, "1,000,000 entries",
                   "cap of 200,000", "--max-entries")
    assert time.monotonic() - started < 60


def test_a_second_target_col_with_items_is_an_error(tmp_path, capsys):
    path = tmp_path / "items.csv"
    path.write_text("model,item,value,truth,other\n" + "".join(
        f"{m},q{i},{(i * 7 % 10) / 10},{i % 2},0\n" for m in ("a", "b") for i in range(20)))
    one_line_error(["analyze", "--items", path, "--metric", "auc", "--target-col", "truth",
                    "--target-col", "other", "--quiet", "-o", tmp_path / "r.html"], capsys,
                   "one --target-col", "'truth', 'other'")


# --- numbers at the edges of float64 --------------------------------------------------------------

def test_scores_near_1e308_are_one_line_errors(tmp_path, capsys):
    board = tmp_path / "b.csv"
    board.write_text("team,score\na,1e308\nb,1.5e308\nc,0.5\n")
    one_line_error(["analyze", board, "--metric", "rmse", "--n-test", "1000", "--quiet", "-o",
                    tmp_path / "r.html"], capsys, "b.csv:2", "'score'", "beyond +-1e+100")


def test_rmse_on_1e308_targets_is_a_one_line_error(tmp_path, capsys):
    path = tmp_path / "items.csv"
    path.write_text("model,item,value,truth\n" + "".join(
        f"{m},q{i},{1e308 * (i % 2)},{1.5e308 * ((i + 1) % 2)}\n" for m in "ab" for i in range(20)))
    one_line_error(["analyze", "--items", path, "--metric", "rmse", "--target-col", "truth",
                    "--quiet", "-o", tmp_path / "r.html"], capsys, "items.csv:2", "'truth'",
                   "beyond +-1e+100")


def test_a_model_of_1e308_values_is_listed_as_rejected_and_subnormals_are_scored(tmp_path,
                                                                                  capsys):
    rows = ["model,item,value"]
    for model, values in (("a", [0, 1] * 10), ("b", [1, 1, 0, 1] * 5),
                          ("huge", [1e308, -1e308] * 10), ("tiny", [5e-324, 1e-310] * 10)):
        rows += [f"{model},q{i},{v!r}" for i, v in enumerate(values)]
    path = tmp_path / "items.csv"
    path.write_text("\n".join(rows) + "\n")
    code, _, err = run(["analyze", "--items", path, "--quiet", "-o", tmp_path / "r.html",
                        "--json", tmp_path / "r.json", "--replicates", "200"], capsys)
    assert code == 0 and err == "", err
    report = json.loads((tmp_path / "r.json").read_text())
    files = {f["team"]: f for f in report["files"]}
    assert files["huge"]["status"] == "rejected" and "1e+100" in files["huge"]["reason"]
    scores = {e["team"]: e for e in report["entries"]}
    assert set(scores) == {"a", "b", "tiny"}
    tiny = scores["tiny"]
    assert tiny["score"] == pytest.approx((5e-324 + 1e-310) / 2, rel=1e-9)
    assert 0 < tiny["ci_low"] <= tiny["score"] <= tiny["ci_high"] <= 1e-310


def test_a_submission_of_1e308_predictions_is_rejected_alone(tmp_path, capsys):
    sol = tmp_path / "solution.csv"
    sol.write_text("id,target\n" + "".join(f"{i},{i % 3}\n" for i in range(60)))
    subs = tmp_path / "subs"
    subs.mkdir()
    for name, scale in (("good1", 1.0), ("good2", 1.1), ("huge", 1e306)):
        (subs / f"{name}.csv").write_text("id,target\n" + "".join(
            f"{i},{scale * ((i * 7) % 5) / 2}\n" for i in range(60)))
    code, _, err = run(["analyze", "--solution", sol, "--submissions", subs, "--metric", "rmse",
                        "--quiet", "-o", tmp_path / "r.html", "--json", tmp_path / "r.json",
                        "--replicates", "200"], capsys)
    assert code == 0 and err == "", err
    files = {f["team"]: f for f in json.loads((tmp_path / "r.json").read_text())["files"]}
    assert files["huge"]["status"] == "rejected" and "1e+100" in files["huge"]["reason"]
    assert files["good1"]["status"] == files["good2"]["status"] == "ok"


# --- small samples: refused below the size where the bootstrap means anything -------------------

def _write_items(path: Path, models: dict[str, list[float]], extra=None) -> Path:
    head = "model,item,value" + (f",{extra[0]}" if extra else "")
    rows = [head] + [f"{m},q{i},{v}" + (f",{extra[1](i)}" if extra else "")
                     for m, values in models.items() for i, v in enumerate(values)]
    path.write_text("\n".join(rows) + "\n")
    return path


def test_bootstrap_minimum_is_backed_by_coverage():
    """The docstring's numbers: below MIN_UNITS the percentile interval undercovers far beyond
    Monte Carlo error; at MIN_UNITS and above it is within a few points of 95%."""
    import numpy as np

    from leaderboard.noise.bootstrap import MIN_UNITS

    rng = np.random.default_rng(1)

    def coverage(n, p=0.8, samples=600, replicates=400):
        x = (rng.random((samples, n)) < p).astype(float)
        idx = rng.integers(0, n, (samples, replicates, n))
        means = np.take_along_axis(x[:, None, :].repeat(replicates, 1), idx, 2).mean(2)
        lo, hi = np.quantile(means, [0.025, 0.975], axis=1)
        return float(((lo <= p) & (p <= hi)).mean())

    se = (0.95 * 0.05 / 600) ** 0.5
    assert coverage(3) < 0.95 - 10 * se                 # about 0.49
    assert coverage(3 * MIN_UNITS) > 0.95 - 4 * se      # about 0.95


@pytest.mark.parametrize("n", [2, 3])
def test_two_or_three_items_are_refused_naming_the_minimum(tmp_path, capsys, n):
    path = _write_items(tmp_path / "items.csv", {"a": [1] * n, "b": [0] * n})
    one_line_error(["analyze", "--items", path, "--quiet", "-o", tmp_path / "r.html"], capsys,
                   f"only {n} items", "at least 10")
    one_line_error(["compare", "--items", path, "--baseline", "b", "--candidate", "a",
                    "--quiet"], capsys, f"only {n} items", "at least 10")
    assert not (tmp_path / "r.html").exists()


def test_ten_items_give_intervals_with_width(tmp_path, capsys):
    path = _write_items(tmp_path / "items.csv", {"a": [1, 0] * 5, "b": [0, 0, 1, 0, 0] * 2})
    code, _, err = run(["analyze", "--items", path, "--quiet", "-o", tmp_path / "r.html",
                        "--json", tmp_path / "r.json", "--replicates", "500"], capsys)
    assert code == 0, err
    for e in json.loads((tmp_path / "r.json").read_text())["entries"]:
        assert e["ci_low"] < e["ci_high"]


def test_one_cluster_in_compare_is_refused(tmp_path, capsys):
    path = _write_items(tmp_path / "items.csv", {"a": [1, 0] * 20, "b": [0, 0, 1, 0] * 10},
                        extra=("cl", lambda i: "one"))
    one_line_error(["compare", "--items", path, "--baseline", "b", "--candidate", "a",
                    "--cluster-col", "cl", "--quiet"], capsys, "only 1 cluster", "at least 6")


@pytest.mark.parametrize("categories, words", [
    (lambda i: "c0" if i == 0 else "c1", ("category c0 has only 1 item", "1 of 2 categories")),
    (lambda i: f"c{i}", ("only 1 item", "500 of 500 categories")),
], ids=["a category with one item", "500 single-item categories"])
def test_small_categories_are_one_line_errors(tmp_path, capsys, categories, words):
    path = _write_items(tmp_path / "items.csv", {"a": [1, 0] * 250, "b": [0, 1, 1, 0] * 125},
                        extra=("cat", categories))
    one_line_error(["analyze", "--items", path, "--category-col", "cat", "--quiet", "-o",
                    tmp_path / "r.html"], capsys, *words, "--category-col")


# --- names that look alike ----------------------------------------------------------------------

def test_names_differing_by_invisible_characters_are_marked_and_kept_apart(tmp_path, capsys):
    names = ["team", "te\u200bam", "\uff54\uff45\uff41\uff4d", "team\u2060", "\ufb01le", "file",
             "other"]
    board = tmp_path / "b.csv"
    board.write_text("team,score\n" + "".join(f"{n},{0.7 + k / 100}\n"
                                             for k, n in enumerate(names)), encoding="utf-8")
    code, _, err = run(["analyze", board, "--metric", "auc", "--n-test", "1000", "--prevalence",
                        "0.5", "--quiet", "-o", tmp_path / "r.html", "--json",
                        tmp_path / "r.json", *FEW_DRAWS], capsys)
    assert code == 0, err
    report = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert sorted(e["team"] for e in report["entries"]) == sorted(names)   # kept apart
    alike = sorted((sorted(f["teams"]) for f in report["flags"] if f["kind"] == "look_alike"),
                   key=len)
    assert alike == [sorted(["\ufb01le", "file"]), sorted(["team", "te\u200bam", "team\u2060",
                                                          "\uff54\uff45\uff41\uff4d"])]
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "te[U+200B]am" in page and "team[U+2060]" in page   # the tables' names differ
    assert "[U+FB01]le" in page                                 # the flag spells it out
    assert "\u200b" not in page.replace("\\u200b", "")          # never raw in the page's text


# --- the Python API: strings are data, caps apply, errors are InputError naming the input ------

def test_api_strings_are_paths_and_caps_apply(tmp_path, monkeypatch):
    import pandas as pd

    import leaderboard
    from leaderboard import limits
    from leaderboard.errors import InputError

    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError) as err:   # a file named --example, not the bundled example
        leaderboard.analyze("--example", metric="auc", n_test=500, prevalence=0.2)
    assert "--example" in str(err.value) and "not found" in str(err.value)
    board = pd.DataFrame({"team": ["a", "b", "n" * 20_000], "-score": [0.9, 0.85, 0.6]})
    with pytest.raises(InputError) as err:
        leaderboard.analyze(board, metric="auc", score_col="-score", n_test=2000, prevalence=0.3)
    # the API's words (issue 42: no command-line option in its errors): the cap is set by limits
    assert "leaderboard.limits.Limits(max_name_length=)" in str(err.value) and \
        "'team'" in str(err.value) and "--max" not in str(err.value)
    with limits.using(limits.Limits(max_name_length=20_000)):
        result = leaderboard.analyze(board, metric="auc", score_col="-score", n_test=2000,
                                     prevalence=0.3, draws=100, replicates=100)
    assert "n" * 20_000 in list(result.table["team"])


def test_ten_million_replicates_of_a_board_of_scores_are_refused_up_front(tmp_path, capsys):
    """Scores-only boards too (they ran until killed, 4.4 GB after 10 minutes)."""
    board = data_dir() / "example_leaderboard.csv"
    one_line_error(["analyze", str(board), "--metric", "auc", "--n-test", "2100",
                    "--prevalence", "0.1", "--replicates", "10000000", "--quiet", "-o",
                    str(tmp_path / "r.html")], capsys, "10,000,000 replicates of 40 entries",
                   "--max-memory")
