"""Every ``leaderboard ...`` command of README.md and docs/ runs as written from a fresh clone
(issue 43): the files it names exist in the repository (the generated examples under data/) or are
written by the ``python data/...`` line before it in its block, and it exits as documented.

The commands run in this process (``leaderboard.cli.main``), in a temporary folder holding a copy
of data/, as a clone would. Only the amount of simulation is cut: ``--draws 100`` and
``--replicates 100`` are added where the command accepts them and does not set them (the exit
status never depends on them; ``benchmarks/bench_docs_commands.py`` times every command as written).
Every page a command writes has a first screen of at most 75 words
(tests/page_words.py); every file it writes is named in what it prints. Usage lines and commands
named in a sentence are checked against the parser; the few commands whose
documented cost is minutes are parsed, not run (tests/docs_commands.py, ``NOT_RUN``).
"""
from __future__ import annotations

import os
import runpy
import shlex
import shutil
import sys
from contextlib import contextmanager
from pathlib import Path

import pytest

from leaderboard.cli import build_parser, main
from tests.docs_commands import NOT_RUN, ROOT, extract, snippets
from tests.page_words import check_answers, check_first_screen

COMMANDS = extract()
_OUTPUTS = {"-o", "--output", "--json", "--csv", "--markdown"}


def _analysis(argv: list[str]) -> tuple[str, ...]:
    """What a command computes: its words without the output options (a command written on two
    pages, or with other outputs, computes the same: it runs once, the one with most outputs)."""
    return tuple(w for i, w in enumerate(argv) if w not in _OUTPUTS
                 and (i == 0 or argv[i - 1] not in _OUTPUTS))


_RUN: dict[tuple, object] = {}
for _command in COMMANDS:
    if _command.kind == "run":
        key = _analysis(_command.argv)
        if key not in _RUN or len(_command.argv) > len(_RUN[key].argv):
            _RUN[key] = _command


def _cheap(argv: list[str]) -> list[str]:
    """``argv`` with little simulation: --draws/--replicates 100 where they apply and are unset."""
    command, given = argv[0], set(argv)
    if "--help" in given:
        return argv
    scores = command == "analyze" and not given & {"--solution", "--items", "--battles"} and not (
        "--example" in given and argv[argv.index("--example") + 1:][:1] in (
            ["submissions"], ["items"], ["battles"]))
    wanted = {"analyze": {"--replicates": "100", **({"--draws": "100"} if scores else {})},
              "plan": {"--draws": "100", **({"--boards": "20", "--replicates": "100"}
                                            if "--from" in given else {})},
              "simulate": {"--draws": "100"},
              "compare": {"--replicates": "100"},
              "choose": {"--draws": "1000", "--replicates": "100"}}.get(command, {})
    return argv + [word for option, value in wanted.items() if option not in given
                   for word in (option, value)]


@contextmanager
def no_static_drawings():   # also used by tests/test_docs_numbers.py
    """Pages written inside have no static chart pictures (the renderer answers "off" at once,
    as on a machine where it cannot run): drawing them took 6 of this file's 16 s of CPU, and
    tests/report draws every chart. Only around a run of this file's own: a session's shared
    pages (tests/conftest.py) keep their pictures for the tests that read them."""
    from leaderboard.report.vega import renderer

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(renderer._RENDERER, "failed", "off in tests/test_docs_commands.py")
        yield


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    """A folder with what a fresh clone holds that the commands read: data/ (its scripts and the
    committed examples); ``ran`` keeps the generator lines already run there."""
    root = tmp_path_factory.mktemp("clone")
    shutil.copytree(ROOT / "data", root / "data",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return {"root": root, "ran": set()}


def _setup(clone, lines, monkeypatch) -> list[Path]:
    """Run a block's lines before the command: ``python data/X.py ARGS`` (in this process, once
    per folder) and ``cd DIR``; the folder the command runs in is the current one after. Returns
    the folders the block's own lines made or entered (the only places, with data/, its files
    may come from)."""
    monkeypatch.chdir(clone["root"])
    own = []
    for line in lines:
        words = shlex.split(line)
        if words[0] == "cd":
            monkeypatch.chdir(words[1])
            own.append(Path.cwd())
            continue
        key = (os.getcwd(), line)
        if key not in clone["ran"]:
            monkeypatch.setattr(sys, "argv", words[1:])
            runpy.run_path(words[1], run_name="__main__")
            clone["ran"].add(key)
        own += [Path.cwd() / w for w in words[2:]]
    return own


def _inputs(argv: list[str]) -> list[str]:
    """The files and folders a command reads, as its parser sees them."""
    from leaderboard.cli import _INPUTS

    if "--help" in argv:
        return []
    args = build_parser(only=argv[0]).parse_args(argv)
    named = [getattr(args, name, None) for name in _INPUTS]
    if argv[0] == "compare" and args.solution:
        named += [args.baseline, args.candidate]
    return [str(n) for n in named if n]


# The bundled examples' own runs: the session's (tests/conftest.py, example_outputs) are these
# commands with other output paths, already run for the tests of the page and the JSON.
_SESSION = {("analyze", "--example"): "scores",
            ("analyze", "--example", "submissions"): "submissions"}


@pytest.mark.parametrize("command", list(_RUN.values()), ids=lambda c: c.text[12:70])
def test_every_documented_command_runs_as_written(command, clone, monkeypatch, capsys,
                                                  example_outputs):
    if _analysis(command.argv) in _SESSION:
        files = example_outputs(_SESSION[_analysis(command.argv)])   # exit 0 asserted there
        assert all(path.stat().st_size > 0 for path in files.values())
        _check_page(files["html"], command)
        return
    own = _setup(clone, command.setup, monkeypatch)
    for name in _inputs(command.argv):   # no file left by another block's generator
        path = Path(name).resolve()
        assert path.is_relative_to(clone["root"] / "data") or any(
            path.is_relative_to(folder) for folder in own), f"{command}: where is {name}?"
    with no_static_drawings():
        status = main(_cheap(command.argv))
    out, err = capsys.readouterr()
    assert status in command.statuses, f"{command}\nexit {status}: {err}"
    argv = command.argv
    written = [argv[k + 1] for k, word in enumerate(argv[:-1]) if word in _OUTPUTS]
    missing = [path for path in written if path not in out]
    assert not missing, f"{command}: wrote {missing} without saying so:\n{out}"
    if "--json" in argv:   # what it wrote follows its published schema, and says what made it
        _check_json(argv, Path(argv[argv.index("--json") + 1]))
    page = _page(argv)
    if page is not None:
        _check_page(page, command)


def _page(argv: list[str]) -> Path | None:
    """The HTML page a command wrote (its -o, or the command's default), if any."""
    if "--help" in argv:
        return None
    output = getattr(build_parser(only=argv[0]).parse_args(argv), "output", None)
    return Path(output) if output and Path(output).suffix == ".html" else None


def _check_page(path: Path, command) -> None:
    """A page's first screen: each answer box at most 75 words, no jargon in it, and at most 75
    words before the page's first table (tests/page_words.py); and no temporary folder of the
    examples named anywhere."""
    html = path.read_text(encoding="utf-8")
    check_answers(html, str(command))
    check_first_screen(html, str(command))
    assert "leaderboard-example-" not in html, f"{command}: names a deleted temporary folder"


def _check_json(argv: list[str], path: Path) -> None:
    import json

    import jsonschema

    from leaderboard import __version__
    from leaderboard.schema import SCHEMA_DIR

    command, battles = argv[0], "--battles" in argv
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["version"] == __version__
    assert data["command"] == command and (not battles or data["mode"] == "battles")
    name = "battles" if battles else "plan_from" if "--from" in argv else command
    schema = json.loads((SCHEMA_DIR / f"{name}.schema.json").read_text(encoding="utf-8"))
    jsonschema.validate(data, schema, cls=jsonschema.Draft202012Validator)


def test_usage_lines_name_real_commands_and_options():
    """Usage lines (``leaderboard analyze FILE --metric METRIC [options]``) and commands named in
    a sentence: the command exists and takes every option they name."""
    checked = 0
    for command in COMMANDS:
        if command.kind != "synopsis":
            continue
        words = command.text.replace("[", " ").replace("]", " ").split()[1:]
        name = next((w for w in words if not w.startswith("-")), None) if words and not \
            words[0].startswith("-") else None
        parser = build_parser(only=name or "")
        known = set(parser._option_string_actions)
        if name is not None:
            assert name in parser._subparsers._group_actions[0].choices, str(command)
            known |= set(parser._subparsers._group_actions[0].choices[name]._option_string_actions)
        unknown = [w for w in words if w.startswith("--") and w not in known]
        assert not unknown, f"{command}: no such option {unknown}"
        checked += 1
    assert checked >= 20


def test_commands_not_run_are_documented_and_parse():
    """Each command left out for its cost is still on a page, and the parser accepts it."""
    documented = {c.text for c in COMMANDS if c.kind == "study"}
    assert set(NOT_RUN) == documented, set(NOT_RUN) ^ documented
    for text in NOT_RUN:
        argv = shlex.split(text)[1:]
        build_parser(only=argv[0]).parse_args(argv)   # a usage error would exit


def test_every_mode_of_the_readme_runs_on_a_shipped_file():
    """The README's commands name no file a clone does not have: every path they give is under
    data/ or written by the block's generator line."""
    readme = [c for c in COMMANDS if c.page == "README.md" and c.kind == "run"]
    for command in readme:
        for word in command.argv:
            if "/" in word and not word.startswith("-"):
                assert word.startswith(("data/", "example/")), str(command)
    modes = {m for c in readme for m in ("--solution", "--items", "--battles", "--example")
             if m in c.argv}
    assert modes == {"--solution", "--items", "--battles", "--example"}


@pytest.mark.parametrize("script", ["make_board_examples", "make_items_example"])
def test_the_shipped_examples_are_what_their_scripts_make(tmp_path, script):
    """The example files under data/ are byte for byte what their deterministic scripts write
    (``python data/<script>.py`` remakes them)."""
    module = runpy.run_path(str(ROOT / "data" / f"{script}.py"))
    written = module["main"](tmp_path)
    assert written
    for path in written:
        assert path.read_bytes() == (ROOT / "data" / path.name).read_bytes(), path.name


# The Python API's functions whose simulation the snippets' test cuts, as _cheap does the
# commands': replicates and draws at most 100 (boards 20), whatever the snippet asks.
_CUT = {"replicates": 100, "draws": 100}


def _cheap_api(monkeypatch) -> None:
    import functools
    import inspect

    import leaderboard

    for name in ("analyze", "analyze_submissions", "analyze_items", "analyze_battles",
                 "choose_finals", "compare", "plan", "simulate"):
        function = getattr(leaderboard, name)
        accepted = set(inspect.signature(function).parameters)

        def cheap(*args, _function=function, _accepted=accepted, **kwargs):
            for option, most in _CUT.items():
                if option in _accepted:
                    kwargs[option] = min(kwargs.get(option, most), most)
            return _function(*args, **kwargs)

        monkeypatch.setattr(leaderboard, name, functools.wraps(function)(cheap))
    from leaderboard import options   # the stages' own options, for the snippets that call them

    for name, option in (("NoiseOptions", "draws"), ("RankOptions", "replicates")):
        monkeypatch.setattr(options, name, functools.partial(getattr(options, name),
                                                             **{option: _CUT[option]}))


_PAGES_OF_SNIPPETS = sorted({s.page for s in snippets()})


@pytest.mark.parametrize("page", _PAGES_OF_SNIPPETS)
def test_every_python_snippet_runs_as_written(page, clone, monkeypatch, capsys):
    """Each ``python`` block of README.md and docs/ runs as a reader pastes it into Python
    started in a clone, a page's blocks one after the other in one session (after the page's
    ``python data/...`` and ``cd`` lines before each): every name it uses is defined on the page
    or imported, every file it reads is shipped or generated. Only the amount of simulation is
    cut (:data:`_CUT`)."""
    namespace: dict = {"__name__": "__snippet__"}
    for snippet in (s for s in snippets() if s.page == page):
        _setup(clone, snippet.setup, monkeypatch)
        _cheap_api(monkeypatch)
        with no_static_drawings():
            exec(compile(snippet.code, str(snippet), "exec"), namespace)


def test_the_snippets_are_found():
    """The pages' Python blocks are all seen (five when written: battles, benchmark formats and
    three on the Python API's page)."""
    found = snippets()
    assert len(found) >= 5 and {s.page for s in found} >= {
        "docs/python-api.md", "docs/battles.md", "docs/benchmark-formats.md"}


def test_no_command_on_a_page_escapes_the_extraction():
    """Every line of a page that starts (after indentation, a ``$ `` prompt or an ``&&``
    chain) with ``leaderboard <command>`` belongs to an extracted command: none sits in an
    indented code block, a block of another language or a fence the extractor does not see."""
    import re

    from tests.docs_commands import pages

    commands = "|".join(build_parser()._subparsers._group_actions[0].choices)
    starts = re.compile(rf"^\s*(?:\$ )?(?:.*&& )?leaderboard ({commands})\b")
    seen = {(c.page, c.line) for c in COMMANDS}
    missed = []
    for path in pages():
        page = path.relative_to(ROOT).as_posix()
        lines = path.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines, 1):
            if starts.match(line) and (page, number) not in seen \
                    and not lines[number - 2].rstrip().endswith("\\"):
                missed.append(f"{page}:{number}: {line.strip()}")
    assert not missed, "\n".join(missed)


def test_every_bundled_example_is_run_by_a_documented_command():
    """Each name ``--example`` takes (scores, kaggle, submissions, items, battles) is run by a
    command of the README or the manual."""
    parser = build_parser(only="analyze")._subparsers._group_actions[0].choices["analyze"]
    names = set(parser._option_string_actions["--example"].choices)
    run = set()
    for command in (c for c in COMMANDS if c.kind == "run" and c.argv[0] == "analyze"):
        if "--example" in command.argv:
            after = command.argv[command.argv.index("--example") + 1:][:1]
            run.add(after[0] if after and not after[0].startswith("-") else "scores")
    assert names <= run, names - run
