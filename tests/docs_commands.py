"""Every ``leaderboard ...`` command of README.md and docs/, extracted as a reader would copy it.

Shared by tests/test_docs_commands.py (which runs them, from a copy of a fresh clone) and
benchmarks/bench_docs_commands.py (which times them as written). A command is

- a line of a fenced code block (bash) that starts with ``leaderboard `` or ``python `` (continued
  by a trailing backslash; a trailing ``# comment`` is dropped), kept with the lines of its block
  that come before it: a block is run in order, as a reader pastes it;
- or an inline code span that starts with ``leaderboard `` and gives arguments.

Each command is one of three kinds (:attr:`Command.kind`):

``run``
    a command to run as written; it must exit 0 (or with a status its comment documents, as
    ``# exit 0: ...; 1: ...`` does for ``compare``);
``synopsis``
    a usage line with placeholders (``FILE``, ``[options]``) or an inline reference to a command or
    an option (``leaderboard choose``, ``leaderboard analyze --battles``): its command and every
    option it names must exist;
``study``
    a command whose documented cost is minutes (``leaderboard calibrate``'s studies,
    ``--workers`` starting a Dask cluster): parsed by the real parser (exit 0 from the parse), not
    run. Listed by name in :data:`NOT_RUN`, each with the reason.

Every fenced ``python`` block is a :class:`Snippet` (:func:`snippets`), run by the same test file
with the page's earlier blocks in one session.
"""
from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: The commands not run by the test, each with why: their documented cost is minutes or a
#: cluster. Keys are the command as written (the test fails on a key no page holds any more).
NOT_RUN = {
    "leaderboard calibrate": "the whole study: about 15 minutes on 2 cores",
    "leaderboard calibrate --quick -o /tmp/calibration.md": "the quick study: about 50 s of CPU",
    "leaderboard calibrate --entries 50 --competitions 100 -o cal50.md --json cal50.json":
        "a study of 100 competitions per cell",
    "leaderboard calibrate --scores-only --jobs 2": "the scores-only study: minutes",
    "leaderboard calibrate --scores-only --regression-only --jobs 2": "the regression study",
    "leaderboard analyze --solution example/example_solution.csv --submissions "
    "example/submissions/ --metric auc --workers 4": "starts a local Dask cluster of 4 processes",
}

# A placeholder in a usage line: an upper-case word (FILE, METRIC, N), or an optional part.
_PLACEHOLDER = re.compile(r"(?<![\w-])[A-Z][A-Z_]*(?![\w-])|\[")
_FENCE = re.compile(r"^\s*```(\w*)\s*$")   # indented too (a block inside a list item)
_INLINE = re.compile(r"`(leaderboard [^`]+)`")
# "# exit 0: shown better; 1: not shown better; 2: bad input": the statuses a comment documents
# (2, bad input, is never what an example of the manual should do)
_EXIT = re.compile(r"\bexit (\d:.*)")
_STATUS = re.compile(r"(?:^|; )(\d):")


@dataclass(frozen=True)
class Command:
    """One documented command: where it is, its words, and what it must do."""

    page: str           # the file, relative to the repository
    line: int           # its first line in the file
    text: str           # the command as written (continuations joined, comment dropped)
    kind: str           # "run", "synopsis" or "study"
    statuses: tuple[int, ...] = (0,)   # the exit statuses its comment documents
    setup: tuple[str, ...] = ()        # the lines of its block before it, run first

    @property
    def argv(self) -> list[str]:
        """The words after the program's name."""
        return shlex.split(self.text)[1:]

    def __str__(self) -> str:
        return f"{self.page}:{self.line}: {self.text}"


def pages(root: Path = ROOT) -> list[Path]:
    """README.md and every Markdown page of docs/, in a stable order."""
    return [root / "README.md", *sorted((root / "docs").rglob("*.md"))]


def _kind(text: str, inline: bool) -> str:
    if text in NOT_RUN:
        return "study"
    words = shlex.split(text)
    if _PLACEHOLDER.search(text.split(" ", 1)[1] if " " in text else ""):
        return "synopsis"
    if inline and (len(words) < 3 or (words[-1].startswith("--") and len(words) == 3
                                      and words[-1] not in _FLAGS_ALONE)):
        return "synopsis"   # a command or option named in a sentence
    return "run"


# Options that are whole commands by themselves when named inline (they take no value).
_FLAGS_ALONE = {"--example", "--grid", "--help", "--quick"}


def _code_lines(lines: list[str], start: int) -> tuple[list[tuple[int, str, str]], int]:
    """The commands of the block starting after line ``start``: (line, text, comment)."""
    found, pending, first, comment = [], "", 0, ""
    i = start
    while i < len(lines) and not _FENCE.match(lines[i]):
        raw = lines[i].rstrip()
        i += 1
        if not pending and not re.search(r"(^|&& )(leaderboard|python data/)", raw.strip()):
            continue
        if not pending:
            first = i
        body, _, note = raw.partition(" #") if not raw.lstrip().startswith("#") else ("", "", "")
        comment += " " + note
        if body.endswith("\\"):
            pending += body[:-1].strip() + " "
            continue
        for part in (pending + body.strip()).split("&&"):   # the install line ends with a run
            if part.strip().startswith(("leaderboard ", "python data/", "cd ")):
                found.append((first, part.strip(), comment))
        pending, comment = "", ""
    return found, i + 1


@dataclass(frozen=True)
class Snippet:
    """One block of Python on a page: where it is, its code, and the lines of the page's bash
    blocks before it that make its files or enter their folder (``python data/...``, ``cd``)."""

    page: str
    line: int           # the block's first line of code
    code: str
    setup: tuple[str, ...] = ()

    def __str__(self) -> str:
        return f"{self.page}:{self.line}"


def snippets(root: Path = ROOT) -> list[Snippet]:
    """Every fenced ``python`` block of README.md and docs/, in page and line order."""
    found = []
    for path in pages(root):
        page = path.relative_to(root).as_posix()
        lines = path.read_text(encoding="utf-8").splitlines()
        setup: list[str] = []
        i = 0
        while i < len(lines):
            fence = _FENCE.match(lines[i])
            if not fence:
                i += 1
                continue
            start, i = i + 1, i + 1
            while i < len(lines) and not _FENCE.match(lines[i]):
                i += 1
            body = lines[start:i]
            i += 1
            if fence.group(1) == "python":
                found.append(Snippet(page, start + 1, "\n".join(body), tuple(setup)))
            elif fence.group(1) in ("bash", "sh", "console", "shell"):
                setup += [part.strip() for line in body
                          for part in line.partition(" #")[0].split("&&")
                          if part.strip().startswith(("python data/", "cd "))]
    return found


def extract(root: Path = ROOT) -> list[Command]:
    """Every documented command of every page, in page and line order."""
    commands: list[Command] = []
    for path in pages(root):
        page = path.relative_to(root).as_posix()
        lines = path.read_text(encoding="utf-8").splitlines()
        i = 0
        while i < len(lines):
            fence = _FENCE.match(lines[i])
            if fence and fence.group(1) in ("bash", "sh", "console", "shell"):
                block, i = _code_lines(lines, i + 1)
                before: list[str] = []
                for line, text, comment in block:
                    if text.startswith("leaderboard "):
                        said = _EXIT.search(comment)
                        statuses = tuple(int(s) for s in _STATUS.findall(said.group(1))
                                         if s != "2") if said else (0,)
                        commands.append(Command(page, line, text, _kind(text, False),
                                                statuses, tuple(before)))
                    else:
                        before.append(text)   # a generator of the files the commands read
                continue
            if fence:   # another language's block: skipped whole
                i += 1
                while i < len(lines) and not _FENCE.match(lines[i]):
                    i += 1
                i += 1
                continue
            for match in _INLINE.finditer(lines[i]):
                text = " ".join(match.group(1).split())
                commands.append(Command(page, i + 1, text, _kind(text, True)))
            i += 1
    return commands
