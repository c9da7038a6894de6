"""The second half of the hostile-input generator (see tests/hostile_cases.py): zips, manifests,
options, hostile names and `choose`; :func:`all_cases` gathers the whole catalogue."""
from __future__ import annotations

import gzip
import json
from pathlib import Path

from tests.hostile_cases import (GOOD_BOARD, GOOD_TEAMS, Case, _fifo, _link, _not_in_outputs, _zip,
                                 base, board_args, leaderboard_cases, run_subs, solution_cases,
                                 solution_text, submission_cases, submission_text, write)


def zip_cases() -> list[Case]:
    good = {f"{t}.csv": submission_text(k).encode() for k, t in enumerate(GOOD_TEAMS)}

    def _in_zip(name: str, members: dict[str, bytes], bad: dict[str, str], ok: int = 3,
                links: dict[str, str] = {}, extra: tuple[str, ...] = (), patch=None,
                check=None) -> Case:
        def build(folder: Path) -> list[str]:
            base(folder)
            path = _zip(folder, "subs.zip", {**good, **members}, links)
            if patch is not None:
                path.write_bytes(patch(path.read_bytes()))
            return run_subs(folder, path, *extra)
        return Case(name, "zip", build, 0, ok=ok, bad=bad, check=check)

    def _method_99(data: bytes) -> bytes:  # an unsupported compression method for odd.csv
        at = data.index(b"odd.csv")
        local = data.rindex(b"PK\x03\x04", 0, at)
        central = data.rindex(b"PK\x01\x02", 0, data.rindex(b"odd.csv"))
        out = bytearray(data)
        out[local + 8:local + 10] = (99).to_bytes(2, "little")
        out[central + 10:central + 12] = (99).to_bytes(2, "little")
        return bytes(out)

    def _bad_crc(data: bytes) -> bytes:
        at = data.index(b"crc.csv") + len(b"crc.csv") + 5
        out = bytearray(data)
        out[at] ^= 0x01
        return bytes(out)

    def _no_outside_file(folder: Path, out: str, err: str) -> None:
        assert not (folder.parent / "escaped.csv").exists()

    return [
        _in_zip("zip: a link member", {}, {"evil.csv": "symbolic link"},
                links={"evil.csv": "/etc/passwd"}, check=_not_in_outputs("root:")),
        _in_zip("zip: a member over the cap", {"big.csv": b"0" * 100_000},
                {"big.csv": "cap"}, extra=("--max-file-size", "64K")),
        _in_zip("zip: a gzip bomb member", {"bomb.csv.gz": gzip.compress(b"0" * 3_000_000)},
                {"bomb.csv.gz": "cap"}, extra=("--max-file-size", "64K")),
        _in_zip("zip: a ../ member name", {"../escaped.csv": good["alpha.csv"]}, {}, ok=4,
                check=_no_outside_file),
        _in_zip("zip: an absolute member name", {"/tmp/abs.csv": good["beta.csv"]}, {}, ok=4),
        _in_zip("zip: a folder named like a CSV", {"dir.csv/": b""},
                {"dir.csv/": "folder named like a CSV"}),
        _in_zip("zip: an empty folder", {"empty/": b""}, {"empty/": "empty folder"}),
        _in_zip("zip: a nested zip", {"inner.zip": b"PK"}, {"inner.zip": "not a CSV"}),
        _in_zip("zip: an unsupported compression", {"odd.csv": good["alpha.csv"]},
                {"odd.csv": "cannot be read from the zip"}, patch=_method_99),
        _in_zip("zip: a CRC error", {"crc.csv": good["alpha.csv"]},
                {"crc.csv": "cannot be read from the zip"}, patch=_bad_crc),
        _in_zip("zip: a __MACOSX member", {"__MACOSX/._alpha.csv": b"\x00\x05"},
                {"__MACOSX/._alpha.csv": "hidden"}),
        Case("zip: garbage", "zip", lambda f: (base(f), run_subs(
            f, write(f / "subs.zip", b"PK\x03\x04 not a zip")))[1], 2, ("subs.zip", "zip")),
        Case("zip: empty", "zip", lambda f: (base(f), run_subs(f, _zip(f, "subs.zip", {})))[1],
             2, ("subs.zip", "no submission files")),
    ]


def manifest_cases() -> list[Case]:
    def _manifest(name: str, rows: str, bad: dict[str, str], code: int = 0,
                  where: tuple[str, ...] = (), prepare=None, header: str = "team,file",
                  flags: tuple[str, ...] = ("",) * 3) -> Case:
        def build(folder: Path) -> list[str]:
            _, subs = base(folder)
            if prepare is not None:
                prepare(folder, subs)
            text = header + "\n" + "".join(f"{t},subs/{t}.csv{flag}\n"
                                           for t, flag in zip(GOOD_TEAMS, flags)) + rows
            return run_subs(folder, write(folder / "manifest.csv", text))
        where = ("manifest.csv",) + where if code else where
        return Case(name, "manifest", build, code, where, ok=3 if code == 0 else None, bad=bad)

    return [
        _manifest("manifest: a ../ path", "evil,../../etc/passwd\n",
                  {"../../etc/passwd": "outside the manifest's folder"}),
        _manifest("manifest: an absolute path", "evil,/etc/passwd\n",
                  {"/etc/passwd": "absolute path"}),
        _manifest("manifest: a link out of the folder", "evil,subs/link.csv\n",
                  {"subs/link.csv": "outside"},
                  prepare=lambda f, s: _link(s, "link.csv", "/etc/passwd")),
        _manifest("manifest: a named pipe", "pipe,subs/p.csv\n", {"subs/p.csv": "named pipe"},
                  prepare=lambda f, s: _fifo(s, "p.csv")),
        _manifest("manifest: a missing file", "ghost,subs/ghost.csv\n",
                  {"subs/ghost.csv": "not found"}),
        _manifest("manifest: a folder", "dir,subs\n", {"subs": "a folder"}),
        _manifest("manifest: bad selected", "", {}, 2, (":3", "'selected'", "maybe"),
                  header="team,file,selected", flags=(",1", ",maybe", ",0")),
        _manifest("manifest: a row twice", "alpha,subs/alpha.csv\n", {}, 2, (":5", "twice")),
        _manifest("manifest: the solution itself", "cheat,solution.csv\n", {}, 2,
                  (":5", "solution file")),
        _manifest("manifest: an empty team", ",subs/x.csv\n", {}, 2, (":5", "'team'")),
        _manifest("manifest: Team and team", "", {}, 2, (":1", "'Team'", "'team'"),
                  header="Team,file,team"),
    ]


# --- options --------------------------------------------------------------------------------------

def _option(name: str, args: list[str], where: tuple[str, ...]) -> Case:
    def build(folder: Path) -> list[str]:
        sol, subs = base(folder)
        board = write(folder / "board.csv", GOOD_BOARD)
        table = {"{sol}": str(sol), "{subs}": str(subs), "{board}": str(board),
                 "{out}": str(folder / "r.html"), "{dir}": str(folder),
                 "{alpha}": str(subs / "alpha.csv"), "{beta}": str(subs / "beta.csv")}
        return [table.get(a, a) for a in args]
    return Case(name, "options", build, 2, where)


ANALYZE = ["analyze", "{board}", "--metric", "auc", "--n-test", "1000", "--prevalence", "0.2",
           "-o", "{out}", "--quiet", "--draws", "100", "--replicates", "100"]
SUBS = ["analyze", "--solution", "{sol}", "--submissions", "{subs}", "--metric", "auc", "-o",
        "{out}", "--quiet"]
PLAN = ["plan", "--metric", "auc", "--score", "0.8", "--prevalence", "0.1"]
SIMULATE = ["simulate", "--score", "0.8", "--n-test", "100", "--prevalence", "0.1", "-o",
            "{out}", "--quiet"]
CHOOSE = ["choose", "--solution", "{sol}", "--submissions", "{subs}", "--metric", "auc", "-o",
          "{out}", "--quiet"]
COMPARE = ["compare", "--solution", "{sol}", "--baseline", "{alpha}", "--candidate", "{beta}",
           "--metric", "auc", "--quiet"]


def option_cases() -> list[Case]:
    big = str(10 ** 20)
    table = [
        ("analyze --seed -1", ANALYZE + ["--seed", "-1"], ("--seed",)),
        ("simulate --seed -1", SIMULATE + ["--seed", "-1"], ("--seed",)),
        ("plan --seed -1", PLAN + ["--delta", "0.01", "--seed", "-1"], ("--seed",)),
        ("choose --seed -1", CHOOSE + ["--seed", "-1"], ("--seed",)),
        ("calibrate --seed -1", ["calibrate", "--quick", "--seed", "-1"], ("--seed",)),
        ("a seed of 2^40", ANALYZE + ["--seed", str(2 ** 40)], ("--seed",)),
        ("analyze --n-test 1e20", ANALYZE + ["--n-test", big], ("--n-test",)),
        ("plan --n-test 1e20", PLAN + ["--n-test", big], ("--n-test",)),
        ("simulate --n-test 1e30", SIMULATE[:4] + ["1e30"] + SIMULATE[5:], ("--n-test",)),
        ("--beta -1", SUBS + ["--metric", "fbeta", "--beta", "-1"], ("--beta",)),
        ("--beta nan", SUBS + ["--metric", "fbeta", "--beta", "nan"], ("--beta",)),
        ("--alpha 0", ANALYZE + ["--alpha", "0"], ("--alpha",)),
        ("--alpha 1.5", ANALYZE + ["--alpha", "1.5"], ("--alpha",)),
        ("--alpha nan", ANALYZE + ["--alpha", "nan"], ("--alpha",)),
        ("--prevalence 0", ANALYZE + ["--prevalence", "0"], ("--prevalence",)),
        ("--prevalence 1", ANALYZE + ["--prevalence", "1"], ("--prevalence",)),
        ("--prevalence inf", ANALYZE + ["--prevalence", "inf"], ("--prevalence",)),
        ("--draws 0", ANALYZE + ["--draws", "0"], ("--draws",)),
        ("--draws 1e12", ANALYZE + ["--draws", "1e12"], ("--draws",)),
        ("--replicates -5", SUBS + ["--replicates", "-5"], ("--replicates",)),
        # replicates over the memory cap, refused before any is drawn in every command
        ("choose --replicates 10000000", CHOOSE + ["--replicates", "10000000"],
         ("10,000,000 replicates", "--max-memory")),
        ("compare --replicates 10000000", COMPARE + ["--replicates", "10000000"],
         ("10,000,000 replicates", "--max-memory")),
        ("plan --correlation 1", PLAN + ["--delta", "0.01", "--correlation", "1"],
         ("--correlation",)),
        ("choose --correlation nan", CHOOSE + ["--correlation", "nan"], ("--correlation",)),
        ("--prizes 0", ANALYZE + ["--prizes", "0"], ("--prizes",)),
        ("--top-k 0", ANALYZE + ["--top-k", "0"], ("--top-k",)),
        ("--top-k abc", ANALYZE + ["--top-k", "abc"], ("--top-k",)),
        ("--costs with letters", SUBS + ["--metric", "expected_cost", "--costs", "a,b"],
         ("--costs",)),
        ("--costs ragged", SUBS + ["--metric", "expected_cost", "--costs", "0,1;5"],
         ("--costs",)),
        ("--costs nan", SUBS + ["--metric", "expected_cost", "--costs", "nan,1;1,0"],
         ("--costs",)),
        ("--classes 1", ANALYZE + ["--classes", "1"], ("--classes",)),
        ("--classes 1e9", ANALYZE + ["--classes", "1000000000"], ("--classes",)),
        ("--class-shares negative", ANALYZE + ["--class-shares", "0.5,-0.5"],
         ("--class-shares",)),
        ("--class-shares text", ANALYZE + ["--class-shares", "x"], ("--class-shares",)),
        # an option the chosen universe does not read, away from its default: refused, in
        # every command that builds a universe and in choose without a table of scores
        ("analyze auc --df 7", ANALYZE + ["--df", "7"], ("--df does not apply to ROC AUC",)),
        ("analyze auc --threshold 0.3", ANALYZE + ["--threshold", "0.3"],
         ("--threshold does not apply",)),
        ("analyze accuracy --spread 1", ANALYZE[:3] + ["accuracy"] + ANALYZE[4:]
         + ["--spread", "1"], ("--spread does not apply to accuracy", "binomial")),
        ("plan auc --residuals laplace", PLAN + ["--delta", "0.01", "--residuals", "laplace"],
         ("--residuals does not apply",)),
        ("simulate auc --df 5", SIMULATE + ["--df", "5"], ("--df does not apply",)),
        ("choose from predictions --spread 1", CHOOSE + ["--spread", "1"],
         ("--spread", "--public-scores")),
        ("--df 1.5", ANALYZE + ["--df", "1.5"], ("--df",)),   # below 2: no finite variance
        ("--df inf", ANALYZE + ["--df", "inf"], ("--df",)),
        ("--threshold 1", ANALYZE + ["--threshold", "1"], ("--threshold",)),
        ("--spread 0", ANALYZE + ["--spread", "0"], ("--spread",)),
        ("--max-file-size 0", ANALYZE + ["--max-file-size", "0"], ("--max-file-size",)),
        ("--max-file-size abc", ANALYZE + ["--max-file-size", "abc"], ("--max-file-size",)),
        ("--max-file-size 10T", ANALYZE + ["--max-file-size", "10T"], ("--max-file-size",)),
        ("--n-public 1", ANALYZE[:4] + ["--n-public", "1", "--n-private", "100"] + ANALYZE[6:],
         ("--n-public",)),
        ("--public-fraction 1", ANALYZE + ["--public-fraction", "1"], ("--public-fraction",)),
        ("plan --delta 0", PLAN + ["--delta", "0"], ("--delta",)),
        ("plan --delta -0.1", PLAN + ["--delta", "-0.1"], ("--delta",)),
        ("plan --power 1", PLAN + ["--delta", "0.01", "--power", "1"], ("--power",)),
        ("plan --score nan", PLAN[:4] + ["nan"] + PLAN[5:] + ["--delta", "0.01"], ("--score",)),
        ("simulate --score nan", SIMULATE[:2] + ["nan"] + SIMULATE[3:], ("--score",)),
        ("simulate --prevalence 150%", SIMULATE[:6] + ["150%"] + SIMULATE[7:],
         ("--prevalence",)),
        ("calibrate --jobs 0", ["calibrate", "--quick", "--jobs", "0"], ("--jobs",)),
        ("calibrate --entries 1", ["calibrate", "--entries", "1", "--competitions", "2"],
         ("--entries",)),
        ("-o and --json the same file", ANALYZE + ["--json", "{out}"], ("same file",)),
        ("-o over the solution", SUBS + ["-o", "{sol}"], ("input file",)),
        ("--metric holding an escape", ANALYZE[:2] + ["--metric", "\x1b[2Jauc"] + ANALYZE[4:],
         ("\\x1b[2Jauc",)),
        ("an unknown metric", ANALYZE[:2] + ["--metric", "aucc"] + ANALYZE[4:], ("aucc",)),
        ("-o a folder", ANALYZE + ["-o", "{dir}"], ("cannot write",)),
        ("--example and a file", ["analyze", "--example", "--solution", "{sol}", "--quiet"],
         ("--example",)),
    ]
    return [_option(name, args, where) for name, args, where in table]


# --- hostile names that must run, neutralised -------------------------------------------------------

def _html_has(*pairs: tuple[str, str]):
    """Each (absent, present): the raw text must not be in the HTML, its neutral form must."""
    def check(folder: Path, out: str, err: str) -> None:
        html = (folder / "r.html").read_text(encoding="utf-8")
        for absent, present in pairs:
            assert absent not in html, f"{absent!r} reached the HTML"
            assert present in html, f"{present!r} missing from the HTML"
    return check


def name_cases() -> list[Case]:
    rlo = "\u202e"

    def board(name: str, team: str, check, loud: bool = False) -> Case:
        def build(folder: Path) -> list[str]:
            quoted = '"' + team.replace('"', '""') + '"'
            path = write(folder / "board.csv", GOOD_BOARD + f"{quoted},0.70\n")
            args = board_args(path)
            return [a for a in args if a != "--quiet"] if loud else args
        return Case(name, "names", build, 0, check=check)

    def sub_named(name: str, stem: str, check) -> Case:
        def build(folder: Path) -> list[str]:
            _, subs = base(folder)
            write(subs / f"{stem}.csv", submission_text(7))
            return [a for a in run_subs(folder, subs) if a != "--quiet"]
        return Case(name, "names", build, 0, ok=4, check=check)

    def json_keeps(text: str):
        def check(folder: Path, out: str, err: str) -> None:
            data = json.loads((folder / "r.json").read_text(encoding="utf-8"))
            assert text in json.dumps(data, ensure_ascii=False)
            _html_has((text, text.replace(rlo, "[U+202E]")))(folder, out, err)
        return check

    def look_alike(*names: str):
        def check(folder: Path, out: str, err: str) -> None:
            flags = json.loads((folder / "r.json").read_text(encoding="utf-8"))["flags"]
            assert [f["teams"] for f in flags if f["kind"] == "look_alike"] == (
                [list(names)] if names else []), flags
        return check

    return [
        # a board's team names: case and spaces are two teams ("John", "john" on a board of
        # thousands); per-item model ids and arenas fold them too (tests/hostile_benchmarks.py)
        board("a team differing from another only in case: two teams, no flag", "ALPHA",
              look_alike()),
        board("a right-to-left override in a team name", f"admin{rlo}gnp.exe",
              json_keeps(f"admin{rlo}gnp.exe")),
        board("</script> in a team name", "</script><script>alert(1)</script>",
              _html_has(("<script>alert(1)", "&lt;/script&gt;"))),
        board("<!-- in a team name", "<!-- a", _html_has(("<!-- a", "&lt;!-- a"))),
        board("isolates and marks in a team name", "x\u2066y\u2069\u200fz",
              _html_has(("x\u2066y", "x[U+2066]y[U+2069][U+200F]z"))),
        board("an escape sequence in a team name, summary printed", "\x1b[31mred\x1b[0m",
              lambda f, out, err: None, loud=True),
        board("a line break in a team name, summary printed", "two\nlines",
              lambda f, out, err: None, loud=True),
        board("a 10,000-character team name", "n" * 10_000, lambda f, out, err: None),
        sub_named("a right-to-left override in a file name", f"team{rlo}vsc",
                  _html_has((f"team{rlo}vsc", "team[U+202E]vsc"))),
        sub_named("an escape sequence in a file name", "\x1b[1mbold", lambda f, o, e: None),
        sub_named("a line break in a file name", "two\nlines", lambda f, o, e: None),
        sub_named("quotes and ampersands in a file name", "R&D \"<lab>\"",
                  _html_has(("R&D \"<lab>", "R&amp;D"))),
    ]


def choose_cases() -> list[Case]:
    """`choose` reads the same files: a bad candidate among good ones is listed, not fatal."""
    def _choose(name: str, add) -> Case:
        def build(folder: Path) -> list[str]:
            _, subs = base(folder)
            add(folder, subs)
            return ["choose", "--solution", str(folder / "solution.csv"), "--submissions",
                    str(subs), "--metric", "auc", "-o", str(folder / "r.html"), "--json",
                    str(folder / "r.json"), "--quiet", "--replicates", "100", "--draws", "1000"]
        return Case(name, "choose", build, 0, check=_good_candidates)
    return [
        _choose("choose: a link to a system file", lambda f, s: _link(s, "evil.csv",
                                                                       "/etc/passwd")),
        _choose("choose: a named pipe", lambda f, s: _fifo(s, "pipe.csv")),
        _choose("choose: a copy of the solution", lambda f, s: write(s / "copy.csv",
                                                                      solution_text())),
        _choose("choose: NaN in a candidate", lambda f, s: write(
            s / "nan.csv", submission_text(5).replace("\n4,", "\n4,nan,", 1))),
    ]


def _good_candidates(folder: Path, out: str, err: str) -> None:
    data = json.loads((folder / "r.json").read_text(encoding="utf-8"))
    names = sorted(c["name"] for c in data["candidates"])
    assert names == sorted(GOOD_TEAMS), names


def _battles_json(check):
    """A check on the run's JSON (``r.json``)."""
    def run(folder: Path, out: str, err: str) -> None:
        check(json.loads((folder / "r.json").read_text(encoding="utf-8")))
    return run


def battles_cases() -> list[Case]:
    """Arenas (issue 43): inputs whose size or shape would make battles mode allocate, loop or
    crash, and inputs it would read silently wrong. Each is a kind: a long chain of lopsided
    pairs (Newton's steps), a ring whose every redraw breaks it (unbounded redraws), more models
    than a dense fit should hold, more replicates than memory, a compressed bomb."""
    head = "model_a,model_b,winner\n"

    def arena(name: str, rows: str | bytes | None, extra: tuple[str, ...] = (), code: int = 0,
              where: tuple[str, ...] = (), check=None, file: str = "battles.csv") -> Case:
        def build(folder: Path) -> list[str]:
            path = folder / file
            if isinstance(rows, bytes):
                write(path, rows)
            else:
                write(path, head + rows)
            return ["analyze", "--battles", str(path), "--quiet", "--replicates", "200",
                    "-o", str(folder / "r.html"), "--json", str(folder / "r.json"), *extra]
        return Case(name, "battles", build, code, where, check=check)

    chain = "".join(f"c{k:02d},c{k + 1:02d},model_a\n" * 400 + f"c{k:02d},c{k + 1:02d},model_b\n"
                    for k in range(29))
    ring = "".join(f"r{k},r{(k + 1) % 30},model_a\n" for k in range(30))
    big_ring = "".join(f"r{k},r{(k + 1) % 1200},model_a\n" for k in range(1200))
    spelled = "".join(f"{a},{b},{w}\n" for a, b, w in [("GPT-4", "claude", "model_a"),
                                                       ("gpt-4", "claude", "model_b"),
                                                       ("claude", "GPT-4", "tie"),
                                                       ("gpt-4", "GPT-4", "model_a")] * 5)
    islands = "x,y,model_a\ny,x,model_a\np,q,model_a\nq,p,tie\n"
    bomb = gzip.compress(b'{"model_a": "x", "model_b": "y", "winner": "model_a"}\n' * 200_000)

    def chain_in_order(doc: dict) -> None:
        names = [m["model"] for m in doc["models"]]
        assert names == sorted(names) and doc["dropped_replicates"] == 0, names[:5]
        assert all(m["ci_low"] < m["rating"] < m["ci_high"] for m in doc["models"])

    def ring_rated(doc: dict) -> None:
        assert doc["dropped_replicates"] == 0 and len(doc["models"]) == 30
        assert all(m["ci_low"] is not None for m in doc["models"])

    def escaped_names(doc: dict) -> None:   # escaped as a CSV of the DataFrame would hold it
        assert sorted(m["model"] for m in doc["models"]) == ["x\\ud800", "y"], doc["models"]

    def spelled_three_ways(doc: dict) -> None:   # each group named, kept apart
        assert sorted(map(sorted, doc["look_alike"])) == [
            sorted(["caf\u00e9", "cafe\u0301"]), sorted(["gpt4", "\uff47pt4", "g\u200bpt4"])]
        assert len(doc["models"]) == 6

    def spellings_named(doc: dict) -> None:
        assert doc["look_alike"] == [["GPT-4", "gpt-4"]], doc["look_alike"]

    return [
        arena("battles: a chain of 30 models each beating the next 400:1", chain,
              check=_battles_json(chain_in_order)),
        arena("battles: a ring where every redraw breaks the ring", ring,
              check=_battles_json(ring_rated)),
        arena("battles: a ring of 1,200 models", big_ring, code=2,
              where=("battles.csv", "1,200 models", "--max-models")),
        arena("battles: --replicates 10000000", islands, ("--replicates", "10000000"), code=2,
              where=("replicates", "--max-memory")),
        arena("battles: one model spelled with a decomposed accent, fullwidth letters or an "
              "invisible space", "".join(f"{a},{b},{w}\n" for a, b, w in [
                  ("caf\u00e9", "x", "model_a"), ("cafe\u0301", "x", "model_b"),
                  ("gpt4", "x", "tie"), ("\uff47pt4", "x", "model_a"), ("g\u200bpt4", "x", "tie"),
                  ("x", "caf\u00e9", "tie")] * 5),
              check=_battles_json(spelled_three_ways)),
        arena("battles: two spellings of one model", spelled,
              check=_battles_json(spellings_named)),
        arena("battles: groups that never met, refused", islands, ("--disconnected", "error"),
              code=2, where=("p and q; x and y",),
              check=lambda f, out, err: None if "{" not in err else pytest_fail(err)),
        arena("battles: a compressed bomb", bomb, ("--max-file-size", "64K"), code=2,
              where=("battles.jsonl.gz", "size cap"), file="battles.jsonl.gz"),
        arena("battles: a cluster column that is not there", islands,
              ("--cluster-col", "question_id"), code=2, where=("question_id", "not found")),
        arena("battles: --workers with battles", islands, ("--workers", "2"), code=2,
              where=("--workers does not apply to --battles",)),
        arena("battles: two columns of one name", b"model_a,model_b,winner,model_a\n"
              b"x,y,model_a,z\ny,x,model_b,w\n", code=2, where=("battles.csv:1", "model_a")),
        # JSON lines follow the JSON readers' rules (ingest/json_logs.py): legal text inside
        # strings is read, damage is one line naming the file and line
        arena("battles: JSON lines with U+2028 and an emoji inside a name", json_lines(
            [("a\u2028b", "c\U0001F600"), ("c\U0001F600", "a\u2028b")] * 3),
            file="battles.jsonl", check=_battles_json(lambda doc: None if len(
                doc["models"]) == 2 else pytest_fail(str(doc["models"])))),
        arena("battles: JSON lines escaping a lone surrogate in a name and a key", json_lines(
            [("x", "y"), ("y", "x")] * 3).replace(b'"x"', b'"x\\ud800"').replace(
                b'"winner"', b'"n\\udfff": 1, "winner"'), file="battles.jsonl",
            check=_battles_json(escaped_names)),
        arena("battles: a JSON line nested 100,000 deep", json_lines([("x", "y")]) + b"[" * 100_000
              + b"]" * 100_000 + b"\n", code=2, where=("battles.jsonl:2",), file="battles.jsonl"),
        arena("battles: a JSON line with a 5,000-digit integer", json_lines([("x", "y")])
              + b'{"model_a": ' + b"9" * 5000 + b', "model_b": "y", "winner": "tie"}\n', code=2,
              where=("battles.jsonl:2",), file="battles.jsonl"),
        arena("battles: JSON lines with an undecodable byte", json_lines([("x", "y")])
              + b'{"model_a": "\xff", "model_b": "y", "winner": "tie"}\n', code=2,
              where=("battles.jsonl:2",), file="battles.jsonl"),
    ]


def json_lines(pairs: list[tuple[str, str]]) -> bytes:
    """Battles as JSON lines, model_a winning each."""
    return "".join(json.dumps({"model_a": a, "model_b": b, "winner": "model_a"},
                              ensure_ascii=False) + "\n" for a, b in pairs).encode()


def pytest_fail(text: str) -> None:
    raise AssertionError(f"a Python set in the message: {text}")


def all_cases() -> list[Case]:
    """Every case of the catalogue, in families."""
    from tests.hostile_benchmarks import benchmark_cases
    from tests.hostile_readers import (expansion_cases, output_cases, parquet_cases,
                                       undefined_cases)

    return (leaderboard_cases() + solution_cases() + submission_cases() + zip_cases()
            + manifest_cases() + option_cases() + name_cases() + choose_cases()
            + battles_cases() + output_cases() + expansion_cases() + benchmark_cases()
            + parquet_cases() + undefined_cases())
