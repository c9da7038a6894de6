"""A generator of malformed and hostile inputs for the catalogue test (tests/cli/test_hostile.py);
the rest of it, and :func:`~tests.hostile_more.all_cases`, is in tests/hostile_more.py.

Each :class:`Case` builds its files in a fresh folder and returns the command line to run. Its
expectations are what an organizer running the tool on uploaded files is promised: the exit
status, one line on stderr naming the file, line and column where there is one, and, for a bad
submission among good ones, that the others were still scored and the bad one is listed with its
reason. The cases are built from small tables, one per family: leaderboards, solutions,
submissions (folders, zips, manifests), options and names.
"""
from __future__ import annotations

import bz2
import gzip
import io
import lzma
import os
import re
import socket
import stat
import tarfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

N = 40  # solution rows: small, so that each case runs in a fraction of a second
GOOD_TEAMS = ("alpha", "beta", "gamma")
QUOTED_BREAK = '"a\nb"'  # a field that spans two lines
FAST = ["--quiet", "--replicates", "100"]


@dataclass(frozen=True)
class Case:
    """One hostile input and what must happen.

    ``build(folder)`` writes the files and returns the arguments after ``leaderboard``. With
    ``code`` 0 the run must succeed; ``ok`` is then the number of scored submissions and ``bad``
    maps a file name to words its reason must hold. With ``code`` 2 the one line on stderr must
    hold every string of ``where`` (the file, ``:line``, the column or the option). With
    ``stdout``, the run's standard output (file descriptor 1) goes to that file of the folder,
    appended to when the build wrote it first (as ``>`` and ``>>`` would); what the run prints
    then goes to stderr, which ``check`` reads.
    """

    name: str
    family: str
    build: Callable[[Path], list[str]]
    code: int
    where: tuple[str, ...] = ()
    ok: int | None = None
    bad: dict[str, str] = field(default_factory=dict)
    check: Callable[[Path, str, str], None] | None = None
    stdout: str | None = None   # a file of the folder standard output (fd 1) is redirected to


# --- the valid base: a solution and three good submissions ----------------------------------------

def labels() -> np.ndarray:
    return np.array([i % 3 == 0 for i in range(N)], dtype=int)  # both classes in both splits


def usage() -> list[str]:
    return ["Public" if i % 4 == 0 else "Private" for i in range(N)]


def solution_text() -> str:
    return "id,target,Usage\n" + "".join(f"{i + 1},{y},{u}\n"
                                         for i, (y, u) in enumerate(zip(labels(), usage())))


def submission_text(seed: int, rows: int = N, header: str = "id,target") -> str:
    rng = np.random.default_rng(seed)
    p = np.clip(0.35 * labels() + 0.65 * rng.random(N), 0, 1)
    return header + "\n" + "".join(f"{i + 1},{p[i]:.4f}\n" for i in range(rows))


def write(path: Path, data: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, str):
        data = data.encode("utf-8")
    path.write_bytes(data)
    return path


def base(folder: Path) -> tuple[Path, Path]:
    """The solution and a submissions folder with the three good files."""
    sol = write(folder / "solution.csv", solution_text())
    subs = folder / "subs"
    for k, team in enumerate(GOOD_TEAMS):
        write(subs / f"{team}.csv", submission_text(k))
    return sol, subs


def run_subs(folder: Path, subs: Path | str, *extra: str, metric: str = "auc") -> list[str]:
    return ["analyze", "--solution", str(folder / "solution.csv"), "--submissions", str(subs),
            "--metric", metric, "-o", str(folder / "r.html"), "--json", str(folder / "r.json"),
            *FAST, *extra]


def board_args(path: Path, *extra: str) -> list[str]:
    return ["analyze", str(path), "--metric", "auc", "--n-test", "1000", "--prevalence", "0.2",
            "-o", str(path.parent / "r.html"), "--json", str(path.parent / "r.json"),
            "--draws", "100", *FAST, *extra]


GOOD_BOARD = "team,score\nalpha,0.81\nbeta,0.79\ngamma,0.75\n"


# --- leaderboards ---------------------------------------------------------------------------------

def _board(name: str, content: bytes | str | Callable[[Path], Path], code: int = 2,
           where: tuple[str, ...] = (), extra: tuple[str, ...] = (), file: str = "board.csv",
           check=None) -> Case:
    def build(folder: Path) -> list[str]:
        path = content(folder) if callable(content) else write(folder / file, content)
        return board_args(path, *extra)
    return Case(name, "leaderboard", build, code, (file,) + where if code else where,
                check=check)


def _gz_bomb(folder: Path) -> Path:
    data = b"team,score\n" + b"a,0.5\n" * 200_000
    return write(folder / "board.csv.gz", gzip.compress(data))


def _fifo(folder: Path, name: str) -> Path:
    path = folder / name
    os.mkfifo(path)
    return path


def _link(folder: Path, name: str, target: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    os.symlink(target, path)
    return path


def _zip(folder: Path, name: str, members: dict[str, bytes], links: dict[str, str] = {}) -> Path:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for member, data in members.items():
            zf.writestr(member, data)
        for member, target in links.items():
            info = zipfile.ZipInfo(member)
            info.external_attr = (stat.S_IFLNK | 0o777) << 16
            zf.writestr(info, target)
    return write(folder / name, buffer.getvalue())


def _tar(folder: Path, name: str, members: dict[str, bytes]) -> Path:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tf:
        for member, data in members.items():
            info = tarfile.TarInfo(member)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return write(folder / name, buffer.getvalue())


def leaderboard_cases() -> list[Case]:
    gz = gzip.compress(GOOD_BOARD.encode())
    flipped = bytearray(gz)
    flipped[14] ^= 0xFF
    flipped[18] ^= 0xFF
    kaggle = "TeamId,TeamName,SubmissionDate,Score\n1,a,2020-01-01,0.8\n2,b,2020-01-02,0.7\n"
    return [
        _board("missing file", lambda f: f / "board.csv", where=("not found",)),
        _board("a directory", lambda f: (f / "board.csv").mkdir() or f / "board.csv",
               where=("directory",)),
        _board("empty file", b"", where=("empty",)),
        _board("only blanks", b"  \n\n \n", where=("empty",)),
        _board("header only", "team,score\n", where=("no data rows",)),
        _board("blank first line", "\nteam,score\na,0.5\n", where=(":1",)),
        _board("latin-1 byte", b"team,score\na,0.5\nb\xe9,0.6\n", where=(":3", "UTF-8")),
        _board("NUL byte", b"team,score\na,0.5\nb\x00,0.6\n", where=(":3", "NUL")),
        _board("a PNG", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", where=("UTF-8",)),
        _board("UTF-16", GOOD_BOARD.encode("utf-16"), where=("UTF-8",)),
        _board("semicolons", "team;score\na;0.5\n", where=("semicolons",)),
        _board("tabs", "team\tscore\na\t0.5\n", where=("tabs",)),
        _board("text score", GOOD_BOARD + "delta,abc\n", where=(":5", "'score'", "abc")),
        _board("empty score", GOOD_BOARD + "delta,\n", where=(":5", "'score'")),
        _board("NaN score", "team,score\na,0.5\nb,NaN\n", where=(":3", "'score'")),
        _board("inf score", "team,score\na,0.5\nb,inf\n", where=(":3", "'score'")),
        _board("score out of range", GOOD_BOARD + "delta,1.5\n", where=(":5", "range")),
        _board("empty team", GOOD_BOARD + ",0.7\n", where=(":5", "'team'")),
        _board("extra field line 2", "team,score\na,0.5,9\nb,0.6\n", where=(":2", "fields")),
        _board("extra field line 5", GOOD_BOARD + "d,0.5,9\n", where=(":5", "fields")),
        _board("unclosed quote", 'team,score\na,0.5\n"b,0.6\nc,0.7\n', where=(":3", "never")),
        _board("duplicate column", "team,score,score\na,0.5,0.6\n", where=(":1", "twice")),
        _board("columns differing in case", "team,Score,score\na,0.5,0.6\n",
               where=(":1", "'Score'", "'score'", "case")),
        _board("columns differing in spaces", "team,score, score\na,0.5,0.6\n",
               where=(":1", "case or spaces")),
        _board("no score column", "team,points\na,0.5\n", where=("points",)),
        _board("no team column", "who,score\na,0.5\n", where=("who",)),
        _board("escape in header", "team,\x1b[31mpts\x1b[0m\na,0.5\n", where=("?[31mpts",)),
        _board("line break in a quoted header", 'team,"sc\nore"\na,0.5\n', where=("sc ore",)),
        _board("quoted team with a line break, then a bad score",
               'team,score\n"multi\nline",0.5\nb,0.6\nc,oops\n', where=(":5", "oops")),
        _board("CRLF, bad score", b"team,score\r\na,0.5\r\nb,x\r\n", where=(":3",)),
        _board("CR only, bad score", b"team,score\ra,0.5\rb,x\r", where=(":3",)),
        _board("damaged gzip", bytes(flipped), file="board.csv.gz", where=("gzip",)),
        _board("truncated gzip", gz[:len(gz) // 2], file="board.csv.gz", where=("gzip",)),
        _board("not gzip at all", b"plain text", file="board.csv.gz", where=("gzip",)),
        _board("gzip bomb over the cap", _gz_bomb, file="board.csv.gz",
               where=("cap", "--max-file-size"), extra=("--max-file-size", "64K")),
        _board("file over the cap", "team,score\n" + "a,0.5\n" * 20_000,
               where=("on disk", "cap"), extra=("--max-file-size", "64K")),
        _board("zip of two files", lambda f: _zip(f, "board.zip", {"a.csv": b"x", "b.csv": b"y"}),
               file="board.zip", where=("2 files",)),
        _board("empty zip", lambda f: _zip(f, "board.zip", {}), file="board.zip",
               where=("0 files",)),
        _board("zip holding a link", lambda f: _zip(f, "board.zip", {}, {"b.csv": "/etc/passwd"}),
               file="board.zip", where=("symbolic link",)),
        _board("garbage zip", b"PK\x03\x04garbage", file="board.zip", where=("zip",)),
        _board("damaged bz2", bz2.compress(GOOD_BOARD.encode())[:20], file="board.csv.bz2",
               where=("bzip2",)),
        _board("damaged xz", lzma.compress(GOOD_BOARD.encode())[:30], file="board.csv.xz",
               where=("xz",)),
        _board("tar of two files", lambda f: _tar(f, "board.tar", {"a.csv": b"1", "b.csv": b"2"}),
               file="board.tar", where=("2 entries",)),
        _board("a named pipe", lambda f: _fifo(f, "board.csv"), where=("named pipe",)),
        _board("a link to a device", lambda f: _link(f, "board.csv", "/dev/zero"),
               where=("device",)),
        _board("a link loop", lambda f: _link(f, "board.csv", "board.csv"), where=("loop",)),
        _board("Kaggle download with --public-col", kaggle, where=("Kaggle",),
               extra=("--public-col", "x")),
        _board("Kaggle download, empty TeamId", kaggle + ",c,2020-01-03,0.6\n",
               where=(":4", "'TeamId'")),
        _board("Kaggle download, bad score", kaggle + "3,c,2020-01-03,high\n",
               where=(":4", "'Score'")),
        _board("header longer than 1 MB", "team," + "x" * (1 << 20) + "\na,0.5\n",
               where=(":1",)),
        _board("--team-col not found", GOOD_BOARD, where=("'who'",), extra=("--team-col", "who")),
        _board("--score-col matching two columns", "team,Score,score\na,0.5,0.6\n",
               where=("'Score'", "'score'"), extra=("--score-col", "SCORE")),
        _board("private column blank where it ranks",
               "team,public_score,private_score\na,0.5,0.6\nb,0.6,\n", where=(":3",)),
        _board("BOM and valid", b"\xef\xbb\xbf" + GOOD_BOARD.encode(), code=0),
    ]


# --- solutions ------------------------------------------------------------------------------------

def _solution(name: str, content: bytes | str | Callable[[Path], Path], where: tuple[str, ...],
              extra: tuple[str, ...] = (), file: str = "solution.csv") -> Case:
    def build(folder: Path) -> list[str]:
        _, subs = base(folder)
        path = folder / file
        if path.exists():
            path.unlink()
        path = content(folder) if callable(content) else write(path, content)
        args = run_subs(folder, subs, *extra)
        args[2] = str(path)
        return args
    return Case(name, "solution", build, 2, (file,) + where)


def solution_cases() -> list[Case]:
    good = solution_text()
    rows = good.splitlines()
    return [
        _solution("missing solution", lambda f: f / "solution.csv", ("not found",)),
        _solution("empty solution", "", ("empty",)),
        _solution("solution not UTF-8", good.replace("3,0", "3,\udce9", 1).encode(
            "utf-8", "surrogateescape"), (":4", "UTF-8")),
        _solution("duplicate id", good + "5,1,Private\n", (f":{N + 2}", "'id'", "duplicate")),
        _solution("blank id", good + ",1,Private\n", (f":{N + 2}", "'id'")),
        _solution("blank target", good + f"{N + 1},,Private\n", (f":{N + 2}", "'target'")),
        _solution("unknown Usage", good + f"{N + 1},1,Secret\n", (f":{N + 2}", "'Usage'",
                                                                 "Secret")),
        _solution("duplicate column", "id,target,target,Usage\n1,0,0,Public\n", (":1", "twice")),
        _solution("Usage and usage", "id,target,Usage,usage\n1,0,Public,Public\n",
                  (":1", "'Usage'", "'usage'")),
        _solution("one class only", "\n".join([rows[0]] + [r[:r.index(",")] + ",0,Private"
                                                            for r in rows[1:]]) + "\n",
                  ("one class", "'target'")),
        _solution("no private rows", "\n".join([rows[0]] + [r.replace("Private", "Public")
                                                            for r in rows[1:]]) + "\n",
                  ("no private rows",)),
        _solution("NaN target", good + f"{N + 1},nan,Private\n", (f":{N + 2}", "'target'")),
        _solution("only an id column", "id\n1\n2\n", ("no target",)),
        _solution("a named pipe", lambda f: _fifo(f, "solution.csv"), ("named pipe",)),
        _solution("gzip bomb", lambda f: write(f / "solution.csv.gz", gzip.compress(
            (good + "".join(f"{i},0,Private\n" for i in range(1000, 30000))).encode())),
            ("cap",), extra=("--max-file-size", "64K"), file="solution.csv.gz"),
        _solution("--target-col missing", good, ("'nope'",), extra=("--target-col", "nope")),
        _solution("--id-col missing", good, ("'key'",), extra=("--id-col", "key")),
        _solution("--group-col missing", good, ("'patient'",),
                  extra=("--resample", "grouped", "--group-col", "patient")),
        _solution("escape in the header", "id,\x1b]0;pwn\x07t,Usage\n1,0,Public\n",
                  ("?]0;pwn?t",), extra=("--target-col", "y")),
        _solution("line break inside a quoted id, duplicate later",
                  'id,target,Usage\n"a\nb",0,Public\nc,1,Private\nc,0,Private\n',
                  (":5", "duplicate")),
    ]


# --- submissions: one bad file among good ones ----------------------------------------------------

def _sub(name: str, add: Callable[[Path, Path], None], bad: dict[str, str], ok: int = 3,
         extra: tuple[str, ...] = (), check=None, metric: str = "auc") -> Case:
    def build(folder: Path) -> list[str]:
        _, subs = base(folder)
        add(folder, subs)
        return run_subs(folder, subs, *extra, metric=metric)
    return Case(name, "submissions", build, 0, ok=ok, bad=bad, check=check)


def _file(name: str, content: str | bytes, reason: str, **kw) -> Case:
    return _sub(name, lambda f, s: write(s / "bad.csv", content), {"bad.csv": reason}, **kw)


def _not_in_outputs(*words: str):
    def check(folder: Path, out: str, err: str) -> None:
        for path in (folder / "r.json", folder / "r.html"):
            text = path.read_text(encoding="utf-8")
            # the page's inlined chart libraries are the same on every page (and hold words like
            # "root:"); everything else, the charts' JSON data included, is searched
            text = re.sub(r'<script type="module">.*?</script>', "", text, flags=re.S)
            for word in words:
                assert word not in text, f"{word!r} leaked into {path.name}"
    return check


def _socket(folder: Path, subs: Path) -> None:
    sock = socket.socket(socket.AF_UNIX)
    sock.bind(str(subs / "sock.csv"))
    sock.close()


def _resaved(folder: Path, subs: Path) -> None:
    lines = solution_text().splitlines()
    write(subs / "answers.csv", "\r\n".join([lines[0]] + lines[:0:-1]) + "\r\n")


def submission_cases() -> list[Case]:
    good = submission_text(9)
    lines = good.splitlines()

    def at(k: int, value: str) -> str:  # line k (1-based) with its prediction replaced
        out = list(lines)
        out[k - 1] = out[k - 1].split(",")[0] + "," + value
        return "\n".join(out) + "\n"

    return [
        _file("missing id column", good.replace("id,target", "key,target", 1), "'id'"),
        _file("missing prediction column", good.replace("id,target", "id,pred", 1), "'target'"),
        _file("NaN on line 5", at(5, "nan"), "line 5, column 'target'"),
        _file("inf on line 6", at(6, "inf"), "line 6"),
        _file("text on line 7", at(7, "abc"), "line 7"),
        _file("empty value on line 8", at(8, ""), "line 8"),
        _file("probability above 1", at(9, "1.5"), "line 9", metric="logloss"),
        _file("negative probability", at(10, "-0.2"), "line 10", metric="logloss"),
        _file("True/False predictions", "id,target\n" + "".join(
            f"{i + 1},{'True' if i % 2 else 'False'}\n" for i in range(N)), "yes/no"),
        _file("duplicate id", good.replace("\n3,", "\n2,", 1), "duplicate id 2 on lines 3 and 4"),
        _file("an extra id", good + "999,0.5\n", "999"),
        _file("a missing row", "\n".join(lines[:-1]) + "\n", "wrong row count"),
        _file("extra field on line 6", at(6, "0.5,7"), "line 6"),
        _file("unclosed quote", at(4, '"0.5'), "line 4"),
        _file("not UTF-8", at(3, "0.5\xe9").encode("latin-1"), "line 3"),
        _file("NUL bytes", at(3, "0.5\x00"), "NUL byte on line 3"),
        _file("empty file", "", "empty file"),
        _file("header only", "id,target\n", "no data rows"),
        _file("duplicate prediction column", good.replace("id,target", "id,target,target", 1),
              "twice"),
        _file("columns differing in case", good.replace("id,target", "id,Target,target", 1),
              "case"),
        _file("a quoted line break, then NaN", "id,target,note\n" + "".join(
            f"{i + 1},{'nan' if i == 8 else '0.5'},{QUOTED_BREAK if i == 2 else ''}\n"
            for i in range(N)), "line 11"),
        _sub("a link to a system file", lambda f, s: _link(s, "evil.csv", "/etc/passwd"),
             {"evil.csv": "outside the submissions folder"}, check=_not_in_outputs("root:")),
        _sub("a link to an endless device", lambda f, s: _link(s, "zero.csv", "/dev/zero"),
             {"zero.csv": "outside"}),
        _sub("a named pipe", lambda f, s: _fifo(s, "pipe.csv"), {"pipe.csv": "named pipe"}),
        _sub("a socket", _socket, {"sock.csv": "socket"}),
        _sub("a broken link", lambda f, s: _link(s, "gone.csv", "nowhere.csv"),
             {"gone.csv": "broken"}),
        _sub("a link loop", lambda f, s: (_link(s, "l1.csv", "l2.csv"),
                                          _link(s, "l2.csv", "l1.csv")),
             {"l1.csv": "loop", "l2.csv": "loop"}),
        _sub("a linked folder outside", lambda f, s: _link(s, "etc", "/etc"),
             {"etc": "outside"}),
        _sub("a linked folder inside", lambda f, s: ((s / "inner").mkdir(),
                                                     _link(s, "again", "inner")),
             {"again": "a symbolic link to a folder", "inner/": "empty folder"}),
        _sub("a link to a good file inside", lambda f, s: _link(s, "alias.csv", "alpha.csv"),
             {}, ok=4),
        _sub("a folder named like a CSV", lambda f, s: write(s / "x.csv" / "inner.txt", "hi"),
             {"x.csv/": "folder named like a CSV", "x.csv/inner.txt": "not a CSV"}),
        _sub("an empty folder", lambda f, s: (s / "nothing").mkdir(), {"nothing/": "empty"}),
        _sub("a hidden folder", lambda f, s: write(s / ".git" / "config", "x"),
             {".git/": "hidden folder"}),
        _sub("a copy of the solution", lambda f, s: write(s / "copy.csv", solution_text()),
             {"copy.csv": "copy of the solution"}),
        _sub("a re-saved copy of the solution", _resaved,
             {"answers.csv": "solution's own content"}),
        _sub("a gzipped good file", lambda f, s: write(s / "packed.csv.gz",
                                                       gzip.compress(good.encode())), {}, ok=4),
        _sub("a damaged .csv.gz", lambda f, s: write(s / "bad.csv.gz", b"\x1f\x8bnot gzip"),
             {"bad.csv.gz": "gzip"}),
        _sub("a .csv.gz bomb", lambda f, s: write(s / "bomb.csv.gz", gzip.compress(
            good.encode() + b"0" * 5_000_000)), {"bomb.csv.gz": "cap"},
            extra=("--max-file-size", "64K")),
        _sub("a file over the cap", lambda f, s: write(s / "big.csv", good + "#" * 200_000),
             {"big.csv": "on disk"}, extra=("--max-file-size", "64K")),
        _sub("a README", lambda f, s: write(s / "README.txt", "hello"), {"README.txt": "not a CSV"}),
        _sub("a file name that is not UTF-8", lambda f, s: write(
            s / os.fsdecode(b"bad\xffname.csv"), good), {}, ok=4),
        _sub("a nested bad file", lambda f, s: write(s / "a" / "b" / "c.csv", at(5, "nan")),
             {"a/b/c.csv": "line 5"}),
        _sub("rmsle with a prediction of -3", lambda f, s: write(s / "neg.csv", at(5, "-3")),
             {"neg.csv": "RMSLE cannot score it"}, metric="rmsle"),
    ]
