"""The hostile-input catalogue, part three (issue 43): outputs that land where the run prints,
compressed inputs that expand far beyond their size, benchmark reports that crash a reader or
contradict themselves, and Parquet read by another rule than CSV. Gathered by
:func:`tests.hostile_more.all_cases`, run by tests/cli/test_hostile.py.

Each family holds several variants of one kind of input, so that a fix of the mechanism (one
safe writer, one expansion budget, one text rule, one Parquet checker) is what makes them pass,
not a fix of one example.
"""
from __future__ import annotations

import gzip
import io
import json
import lzma
import os
import re
import tarfile
import zipfile
from pathlib import Path

from tests.hostile_cases import (GOOD_BOARD, Case, _fifo, base, board_args, run_subs,
                                 submission_text, write)

# What a decompression bomb expands to: past the 16M every compressed input may reach whatever
# its size (leaderboard.limits.EXPANSION_FLOOR), from a file of a few tens of KB
BOMB = b"team,score\n" + b"a,0.5\n" * (17 * 2 ** 20 // 6)
ITEMS = ["--quiet", "--replicates", "100"]


def items_args(folder: Path, path: Path, *extra: str) -> list[str]:
    return ["analyze", "--items", str(path), "-o", str(folder / "r.html"), "--json",
            str(folder / "r.json"), *ITEMS, *extra]


# --- outputs that are where the run prints ------------------------------------------------------

def _page(name: str) -> callable:
    def check(folder: Path, out: str, err: str) -> None:
        text = (folder / name).read_text(encoding="utf-8")
        assert text.startswith("<!DOCTYPE html>") and text.endswith("</html>\n"), text[-200:]
        assert "entries ranked by score" not in text          # no summary inside the page
        assert "entries ranked by score" in err               # it went to stderr instead
    return check


def _json_file(name: str, head: str = "") -> callable:
    def check(folder: Path, out: str, err: str) -> None:
        text = (folder / name).read_text(encoding="utf-8")
        assert text.startswith(head)
        assert json.loads(text[len(head):])["command"] == "analyze"
    return check


def _starts(name: str, head: str, then: str) -> callable:
    def check(folder: Path, out: str, err: str) -> None:
        text = (folder / name).read_text(encoding="utf-8")
        assert text.startswith(head + then), text[:200]
        assert "ranked by score" not in text
    return check


def output_cases() -> list[Case]:
    def loud(name: str, options: list[str], stdout: str, check, before: str = "") -> Case:
        def build(folder: Path) -> list[str]:
            if before:
                write(folder / stdout, before)
            args = board_args(write(folder / "board.csv", GOOD_BOARD))
            args = [a for a in args if a != "--quiet"]
            for option, value in zip(options[::2], options[1::2]):
                at = args.index(option) if option in args else None
                if at is None:
                    args += [option, value]
                else:
                    args[at + 1] = value
            return [str(folder / a[1:]) if a.startswith("@") else a for a in args]
        return Case(name, "outputs", build, 0, stdout=stdout, check=check)

    def refused(name: str, options: list[str], where: tuple[str, ...], setup=None) -> Case:
        def build(folder: Path) -> list[str]:
            if setup is not None:
                setup(folder)
            args = board_args(write(folder / "board.csv", GOOD_BOARD)) + options
            return [str(folder / a[1:]) if a.startswith("@") else a for a in args]
        return Case(name, "outputs", build, 2, where)

    def hard_link(folder: Path) -> None:
        write(folder / "r.html", "")
        os.link(folder / "r.html", folder / "t.csv")

    return [
        loud("-o /dev/stdout > page.html", ["-o", "/dev/stdout"], "page.html", _page("page.html")),
        loud("-o page.html > page.html", ["-o", "@page.html"], "page.html", _page("page.html")),
        loud("--json /dev/stdout > out.json", ["--json", "/dev/stdout"], "out.json",
             _json_file("out.json")),
        loud("--json /dev/stdout >> a log", ["--json", "/dev/stdout"], "log.json",
             _json_file("log.json", "kept\n"), before="kept\n"),
        loud("--csv /dev/fd/1 > t.csv", ["--csv", "/dev/fd/1"], "t.csv",
             _starts("t.csv", "", "rank,team,score")),
        loud("--markdown /dev/stdout > t.md", ["--markdown", "/dev/stdout"], "t.md",
             _starts("t.md", "", "**ROC AUC**")),
        refused("--json /dev/stderr", ["--json", "/dev/stderr"], ("--json /dev/stderr",)),
        refused("--csv onto a FIFO", ["--csv", "@t.csv"], ("--csv", "FIFO"),
                lambda f: _fifo(f, "t.csv")),
        refused("--markdown onto a FIFO", ["--markdown", "@t.md"], ("--markdown", "FIFO"),
                lambda f: _fifo(f, "t.md")),
        refused("-o and --csv hard-linked", ["--csv", "@t.csv"], ("same file",), hard_link),
        # refused before the analysis, not after it wrote the other outputs
        refused("--csv into a folder that does not exist", ["--csv", "@nope/t.csv"],
                ("--csv", "nope does not exist")),
        refused("-o ending with a slash", ["-o", "no-such-h3/page.html/"],
                ("-o", "a folder's path")),
    ]


# --- compressed inputs that expand far beyond their size ----------------------------------------

def _tar_gz(data: bytes) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tf:
        info = tarfile.TarInfo("board.csv")
        info.size = len(data)
        tf.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _zst(data: bytes) -> bytes:
    import zstandard

    return zstandard.ZstdCompressor(level=3).compress(data)


def _inspect_log(model: str, values: list[str], task: str = "quiz", epochs=None,
                 **extra) -> dict:
    return {"version": 2, "status": "success",
            "eval": {"model": model, "task": task, "created": "2026-01-01T00:00:00"},
            "samples": [{"id": i, "epoch": 1 if epochs is None else epochs[i],
                         "scores": {"match": {"value": v}}, **extra}
                        for i, v in enumerate(values)], **({} if not extra else {})}


def _inspect_folder(folder: Path) -> Path:
    logs = folder / "logs"
    for k, model in enumerate(("org/a", "org/b")):
        write(logs / f"2026-01-01T00-00-0{k}_quiz_{k}.json", json.dumps(
            _inspect_log(model, ["C" if (i + k) % 3 else "I" for i in range(12)])))
    return logs


def _eval_zip(samples: dict[str, bytes], model: str = "org/c") -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("header.json", json.dumps({"version": 2, "status": "success", "eval": {
            "model": model, "task": "quiz", "created": "2026-01-02T00:00:00"}}))
        for name, data in samples.items():
            zf.writestr(name, data)
    return buffer.getvalue()


def _sample(i: int, value: str = "C", epoch: int = 1) -> bytes:
    return json.dumps({"id": i, "epoch": epoch, "scores": {"match": {"value": value}}}).encode()


def expansion_cases() -> list[Case]:
    def board(name: str, file: str, data: bytes) -> Case:
        def build(folder: Path) -> list[str]:
            return board_args(write(folder / file, data))
        return Case(name, "expansion", build, 2, (file, "expands to more than 16M",
                                                 "--max-expansion"))

    def inspect_bomb(folder: Path) -> list[str]:
        logs = _inspect_folder(folder)
        body = b'{"id": 99, "epoch": 1, "scores": {"match": {"value": "C"}}, "x": [' + \
            b"[]," * (6 * 2 ** 20) + b"[]]}"
        write(logs / "bomb.eval", _eval_zip({f"samples/{i}_epoch_1.json": _sample(i)
                                              for i in range(12)} | {
            "samples/99_epoch_1.json": body}))
        return items_args(folder, logs)

    def subs_zip(folder: Path) -> list[str]:
        base(folder)
        members = {f"{t}.csv": submission_text(k).encode()
                   for k, t in enumerate(("alpha", "beta", "gamma"))}
        members["bomb.csv"] = submission_text(5).encode() + b"#" * (17 * 2 ** 20)
        return run_subs(folder, write(folder / "subs.zip", _zip_bytes(members)))

    def solution_xz(folder: Path) -> list[str]:
        _, subs = base(folder)
        sol = write(folder / "solution.csv.xz", lzma.compress(
            b"id,target\n" + b"1,0\n" * (17 * 2 ** 20 // 4), preset=0))
        args = run_subs(folder, subs)
        args[2] = str(sol)
        return args

    def parquet_bomb(folder: Path) -> list[str]:
        import pyarrow as pa
        import pyarrow.parquet as pq

        rows = 200_000
        table = pa.table({"model": ["m" * 100] * rows, "item": ["q"] * rows,
                          "value": [1.0] * rows})
        pq.write_table(table, folder / "r.parquet", compression="zstd")
        return items_args(folder, folder / "r.parquet")

    def json_memory(folder: Path) -> list[str]:
        out = folder / "out"
        for k, model in enumerate(("a", "b")):
            write(out / model / "samples_arc_2026-11-20T10-31-07.123456.jsonl", "".join(
                json.dumps({"doc_id": i, "filter": "none", "metrics": ["acc"],
                            "acc": float((i + k) % 2)}) + "\n" for i in range(12)))
        write(out / "c" / "samples_arc_2026-11-20T10-31-07.123456.jsonl",
              '{"doc_id": 0, "x": [' + "[]," * 100_000 + "[]]}\n")
        return items_args(folder, out, "--max-memory", "2M")

    return [
        board("a .csv.gz bomb", "board.csv.gz", gzip.compress(BOMB)),
        board("a .csv.xz bomb", "board.csv.xz", lzma.compress(BOMB, preset=0)),
        board("a .csv.zst bomb", "board.csv.zst", _zst(BOMB)),
        board("a .zip bomb", "board.zip", _zip_bytes({"board.csv": BOMB})),
        board("a .tar.gz bomb", "board.tar.gz", _tar_gz(BOMB)),
        Case("a bomb member in a zip of submissions", "expansion", subs_zip, 0, ok=3,
             bad={"bomb.csv": "--max-expansion"}),
        Case("a .csv.xz solution bomb", "expansion", solution_xz, 2,
             ("solution.csv.xz", "--max-expansion")),
        Case("an Inspect .eval bomb", "expansion", inspect_bomb, 2,
             ("bomb.eval", "samples/99_epoch_1.json", "--max-expansion")),
        Case("a Parquet whose pages expand", "expansion", parquet_bomb, 2,
             ("r.parquet", "--max-expansion")),
        Case("JSON lines that parse to more than --max-memory", "expansion", json_memory, 2,
             ("samples_arc", "--max-memory")),
    ]


def _zip_bytes(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buffer.getvalue()


# --- Parquet read by the CSV reader's rules ------------------------------------------------------

def parquet_cases() -> list[Case]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [(m, f"q{i}", float((i + k) % 2)) for k, m in enumerate("abc") for i in range(12)]
    model, item, value = ([r[j] for r in rows] for j in range(3))

    def table(names: list[str], columns: list[list]) -> pa.Table:
        return pa.Table.from_arrays([pa.array(c) for c in columns], names=names)

    def items(name: str, make, where: tuple[str, ...], extra=()) -> Case:
        def build(folder: Path) -> list[str]:
            pq.write_table(make(), folder / "r.parquet")
            return items_args(folder, folder / "r.parquet", *extra)
        return Case(name, "parquet", build, 2, ("r.parquet",) + where)

    def items_csv(name: str, header: str, where: tuple[str, ...], extra=()) -> Case:
        def build(folder: Path) -> list[str]:
            text = header + "\n" + "".join(f"{m},{i},{v},{1 - v}\n" for m, i, v in rows)
            return items_args(folder, write(folder / "r.csv", text), *extra)
        return Case(name, "parquet", build, 2, ("r.csv",) + where)

    def submission(name: str, make, reason: str) -> Case:
        def build(folder: Path) -> list[str]:
            _, subs = base(folder)
            pq.write_table(make(), subs / "bad.parquet")
            return run_subs(folder, subs)
        return Case(name, "parquet", build, 0, ok=3, bad={"bad.parquet": reason})

    def csv_only(name: str, file: str) -> Case:   # read as CSV: "byte 0x.. on line 3" before
        def build(folder: Path) -> list[str]:
            sol, subs = base(folder)
            frame = table(["team", "score"], [["a", "b"], [0.5, 0.6]])
            pq.write_table(frame, folder / file)
            if file.startswith("board"):
                return board_args(folder / file)
            args = run_subs(folder, subs)
            args[2] = str(folder / file)
            return args
        return Case(name, "parquet", build, 2, (file, "a Parquet file", "save it as CSV"))

    ids = list(range(1, 41))
    return [
        csv_only("a board of scores saved as Parquet", "board.parquet"),
        csv_only("a solution saved as Parquet", "solution.parquet"),
        items("an empty Parquet", lambda: table(["model", "item", "value"],
                                                [[], [], pa.array([], pa.float64())]),
              ("no data rows",)),
        items("a Parquet of no columns", lambda: pa.table({}), ("no data rows",)),
        items("two Parquet columns of one name", lambda: table(
            ["model", "item", "value", "value"], [model, item, value, value]),
            (":1", "written twice")),
        items("Parquet columns differing only in spaces", lambda: table(
            ["model", "item", "value", " value"], [model, item, value, value]),
            (":1", "case or spaces")),
        items("Parquet columns differing only in case, named loosely", lambda: table(
            ["model", "item", "value", "Value"], [model, item, value, value]),
            ("'value'", "'Value'"), extra=("--value-col", "VALUE")),
        items_csv("CSV columns differing only in case, named loosely (the same rule)",
                  "model,item,value,Value", ("'value'", "'Value'"), extra=("--value-col",
                                                                           "VALUE")),
        submission("a Parquet submission naming a column twice", lambda: table(
            ["id", "target", "target"], [ids, [0.5] * 40, [0.1] * 40]), "written twice"),
        submission("an empty Parquet submission", lambda: table(
            ["id", "target"], [pa.array([], pa.int64()), pa.array([], pa.float64())]),
            "no data rows"),
    ]


# --- statistics that are not defined: shown as missing with the reason, never "nan" --------------

_NAN = re.compile(r"(?<![A-Za-z_])(?:nan|NaN|inf|Infinity)(?![A-Za-z_])")


def _no_nan(*files: str):
    """No file the run wrote shows "nan" or "inf" as a number: the page's text and its tables'
    and charts' data (the inlined chart libraries aside), the JSON, the exports, the summary."""
    def check(folder: Path, out: str, err: str) -> None:
        for name in files:
            text = (folder / name).read_text(encoding="utf-8")
            if name.endswith(".html"):
                text = re.sub(r'<script type="module">.*?</script>', "", text, flags=re.S)
            found = _NAN.search(text)
            assert found is None, f"{name}: {text[max(found.start() - 80, 0):found.end() + 20]}"
        assert _NAN.search(out + err) is None, out + err
    return check


def undefined_cases() -> list[Case]:
    def board(name: str, text: str, *extra: str, words: tuple[str, ...] = ()) -> Case:
        def build(folder: Path) -> list[str]:
            args = board_args(write(folder / "board.csv", text), "--csv",
                              str(folder / "t.csv"), "--markdown", str(folder / "t.md"), *extra)
            return [a for a in args if a != "--quiet"]

        def check(folder: Path, out: str, err: str) -> None:
            _no_nan("r.html", "r.json", "t.csv", "t.md")(folder, out, err)
            page = (folder / "r.html").read_text(encoding="utf-8")
            assert all(w in page for w in words), words
        return Case(name, "undefined", build, 0, check=check)

    def choose_one_class(folder: Path) -> list[str]:
        sol, subs = base(folder)
        lines = sol.read_text().splitlines()   # the public rows: every fourth, all of class 0
        write(sol, "\n".join([lines[0]] + [r if ",Private" in r else r.replace(",1,", ",0,")
                                           for r in lines[1:]]) + "\n")
        return ["choose", "--solution", str(sol), "--submissions", str(subs), "--metric", "auc",
                "-o", str(folder / "r.html"), "--quiet", "--replicates", "100"]

    def edge(name: str, metric: str, scores: str, *extra: str) -> Case:
        def build(folder: Path) -> list[str]:
            text = "team,score\n" + "".join(f"t{k},{v}\n" for k, v in enumerate(scores.split()))
            args = board_args(write(folder / "board.csv", text), *extra)
            args[args.index("--metric") + 1] = metric
            return args
        return Case(name, "undefined", build, 0, check=_holds_own_score)

    return [
        edge("a log loss of 1e-9 on 1,000 rows", "logloss", "1e-9 1e-6 0.3 0.69",
             "--prevalence", "0.1"),
        edge("an AUC of 1 - 1e-9 on 100,000 rows", "auc", "0.999999999 0.9 0.5 1e-9",
             "--n-test", "100000"),
        edge("a Dice of 1e-9", "dice", "1e-9 0.5 0.9", "--n-test", "100000"),
        board("entries no noise model reaches (P(best) of none)",
              "team,score\na,0.9999\nb,0.8\nc,0.0001\n", "--n-test", "30"),
        board("every score tied (Kendall's tau of no order)", "team,score\na,0.8\nb,0.8\nc,0.8\n",
              words=("not defined here",)),
        board("public and private boards all tied (Spearman of no order)",
              "team,public_score,private_score\na,0.8,0.8\nb,0.8,0.8\nc,0.8,0.8\n",
              "--n-public", "200", "--n-private", "800",
              words=("not defined: every public", "can be detected at any size")),
        Case("choose when the seen rows hold one class", "undefined", choose_one_class, 2,
             ("solution.csv", "undefined for every candidate", "one class")),
    ]


def _holds_own_score(folder: Path, out: str, err: str) -> None:
    """Every interval on the page holds its own score (an entry without one is named)."""
    data = json.loads((folder / "r.json").read_text(encoding="utf-8"))
    named = {t for group in data["left_out"] for t in group["teams"]}
    for e in data["entries"]:
        if e["ci_low"] is None:
            assert e["team"] in named, e
        else:
            assert e["ci_low"] <= e["score"] <= e["ci_high"], e
