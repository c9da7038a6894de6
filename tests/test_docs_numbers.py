"""The manual's numbers agree with the code (issue 43): every default a page states is the
parser's, quoted lines are the code's own, and numbers quoted from the bundled example's output are
that output's. Defaults and option tables are generated where they can be (docs/hooks); these
tests hold the prose around them.
"""
from __future__ import annotations

import functools
import json
import re

import pytest

from leaderboard.cli import build_parser, main
from tests.docs_commands import ROOT, pages
from tests.test_docs_commands import no_static_drawings

_COMMAND_OF = {"choose.md": "choose", "plan.md": "plan", "simulate.md": "simulate",
               "compare.md": "compare", "calibrate.md": "calibrate"}


@functools.cache
def _actions(command: str) -> dict:
    parser = build_parser(only=command)
    sub = parser._subparsers._group_actions[0].choices[command]
    return dict(sub._option_string_actions)


# Defaults that depend on the mode, which the parser leaves unset (None) and the pipeline fills:
# (command, option, value as stated) -> why it is right.
MODE_DEFAULTS = {
    ("analyze", "--metric", "mean"): "per-item results are scored by their mean unless --metric",
}


def _number(text: str) -> float | None:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def _matches(action, value: str) -> bool:
    """Whether ``value``, as a page writes it, is ``action``'s default: as the parser holds it
    (or its ``const``, for an option whose value is optional), or as its help says it
    (``256M``, ``5,000``)."""
    held = [d for d in (action.default, action.const) if d is not None]
    if any(str(d) == value for d in held):
        return True
    number = _number(value)
    if number is not None and any(isinstance(d, (int, float)) and not isinstance(d, bool)
                                  and d == number for d in held):
        return True
    said = re.findall(r"\(default:? ([^;,):]+(?:,\d{3})*)", action.help or "")
    return any(s.strip() == value or (number is not None and _number(s.strip()) == number)
               for s in said)


_ROW = re.compile(r"^\| (`[^|]*`) \| (.*?) \| .* \|$")
_CHOICE = re.compile(r"`([^`]+)` \(default[),]")                 # `normal` (default)
_VALUE = re.compile(r"\(default:? (`[^`]+`|[\d.,]+)[),;: ]")     # (default 2000), (default `256M`)
_WITH = re.compile(r"\(with `(--[\w-]+)`, default `?([\w.]+)`?\)")  # (with `--df`, default 5)
_PLURAL = re.compile(r"\(defaults ((?:`[^`]+`(?:, )?)+)")          # (defaults `model`, `item`, ...)
_PROSE = re.compile(r"`(--[\w-]+)(?: [A-Za-z]+)?` \(default:? `?([\w.]+?)`?[),; ]")


def stated_defaults() -> list[tuple[str, str, tuple[str, ...], str]]:
    """Every default a page states: (page:line, command, the options it may be of, value)."""
    found = []
    for path in pages():
        if path.name in ("calibration.md", "benchmarks.md") or path.name == "README.md":
            continue   # measured tables, not options' defaults
        command = _COMMAND_OF.get(path.name, "analyze")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            where = f"{path.relative_to(ROOT)}:{number}"
            row = _ROW.match(line)
            if row and "--" in row.group(1):
                options = tuple(re.findall(r"`(--[\w-]+)", row.group(1)))
                text = row.group(2)
                for match in _WITH.finditer(text):
                    found.append((where, command, (match.group(1),), match.group(2)))
                text = _WITH.sub("", text)
                for match in _PLURAL.finditer(text):
                    values = re.findall(r"`([^`]+)`", match.group(1))
                    found += [(where, command, (o,), v) for o, v in zip(options, values)]
                text = _PLURAL.sub("", text)
                found += [(where, command, options, m.group(1))
                          for pattern in (_CHOICE, _VALUE) for m in pattern.finditer(text)]
                continue
            found += [(where, command, (m.group(1),), m.group(2)) for m in _PROSE.finditer(line)]
    return found


def test_every_default_a_page_states_is_the_parsers():
    stated = stated_defaults()
    wrong = []
    for where, command, options, value in stated:
        actions = _actions(command)
        value = value.strip("`").rstrip(",")
        known = [actions[o] for o in options if o in actions]
        if any((command, o, value) in MODE_DEFAULTS for o in options):
            continue
        if known and not any(_matches(a, value) for a in known):
            wrong.append(f"{where}: {'/'.join(options)} default {value!r}, the parser's: "
                         f"{[a.default for a in known]}")
    assert not wrong, "\n".join(wrong)
    assert len(stated) >= 25   # the patterns still find the pages' defaults (27 when written)


def test_the_first_run_line_quoted_is_the_one_printed():
    """getting-started quotes the line a first run prints on a terminal when it compiles."""
    from leaderboard.resources import compile_notice

    page = (ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8")
    quoted = re.search(r"```text\n(leaderboard: compiling[^\n]*)\n```", page).group(1)
    printed = compile_notice("/home/you/.cache/leaderboard/numba", "")
    assert quoted == re.sub(r"\(/home/you[^)]*\)", "(...)", printed)


def test_pages_count_what_they_list():
    """A page that says how many modes there are lists that many."""
    words = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
    for path in pages():
        text = path.read_text(encoding="utf-8")
        for match in re.finditer(r"\b(two|three|four|five|six) modes\b", text):
            listed = len(re.findall(r"^- \*\*[^*]+\*\* \(`leaderboard analyze", text[match.end():],
                                    re.MULTILINE))
            assert listed == words[match.group(1)], f"{path.name}: {match.group(0)}, {listed} listed"


@pytest.fixture(scope="module")
def example_default(tmp_path_factory):
    """``leaderboard analyze --example`` at its defaults (2,000 draws and replicates): the run
    the README and the manual quote, and docs/make_picture.py draws."""
    out = tmp_path_factory.mktemp("default") / "r.json"
    with no_static_drawings():   # the page's numbers, not its pictures
        assert main(["analyze", "--example", "--quiet", "-o", str(out.with_suffix(".html")),
                     "--json", str(out)]) == 0
    return json.loads(out.read_text(encoding="utf-8"))


def test_the_example_numbers_quoted_are_the_examples(example_default):
    best = sum(e["in_best_set"] for e in example_default["entries"])
    entries = len(example_default["entries"])
    quoted = 0
    for path in pages():
        text = path.read_text(encoding="utf-8")
        for match in re.finditer(r"(\d+) of (\d+) entries could be the best", text):
            assert (int(match.group(1)), int(match.group(2))) == (best, entries), path.name
            quoted += 1
    assert quoted >= 2   # README and the manual's home page


def _example_facts() -> dict[str, tuple]:
    """What the bundled examples hold, counted from their files."""
    import zipfile

    import pandas as pd

    from leaderboard.pipelines.examples import make_submissions_example
    from leaderboard.resources import data_dir

    data = data_dir()
    settings = json.loads((data / "example_leaderboard.json").read_text(encoding="utf-8"))
    board = pd.read_csv(data / settings["file"])
    items = pd.read_csv(data / "example_items.csv")
    battles = pd.read_csv(data / "example_battles.csv")
    with zipfile.ZipFile(make_submissions_example()["submissions"]) as archive:
        files = len([n for n in archive.namelist() if not n.endswith("/")])
    return {
        r"(\d+) teams and a (\d+)-row private test set at (\d+)% positives":
            (len(board), settings["n_private"], round(100 * settings["prevalence"])),
        r"(\d+) models on (\d+) questions of (\d+)\s+passages":
            (items["model"].nunique(), items["question"].nunique(), items["passage"].nunique()),
        r"an arena of (\d+) models and ([\d,]+) battles":
            (len(set(battles["model_a"]) | set(battles["model_b"])), len(battles)),
        r"(\d+)\s+submission files": (files,),
    }


def test_the_examples_facts_the_pages_state_are_the_files():
    """"40 teams and a 2100-row private test set at 10% positives", "45 submission files": the
    counts a page gives of a bundled example are its files'."""
    found = 0
    for pattern, truth in _example_facts().items():
        for path in pages():
            for match in re.finditer(pattern, path.read_text(encoding="utf-8")):
                said = tuple(int(g.replace(",", "")) for g in match.groups())
                assert said == truth, f"{path.name}: {match.group(0)!r}, the files: {truth}"
                found += 1
    assert found >= 5


def test_the_first_screen_page_quotes_the_example_it_ran(example_default):
    """docs/first_screen.md's row for the bundled example: d95, the spread of 40 equals (and at
    the measured correlation), and how far tier 1 reaches from the leader, as the default run
    gives them (4 decimals)."""
    page = (ROOT / "docs" / "first_screen.md").read_text(encoding="utf-8")
    row = next(line for line in page.splitlines() if line.startswith("| bundled example"))
    numbers = [float(x) for x in re.findall(r"\d+\.\d+", row)]
    spread = example_default["spread_of_equals"]
    entries = example_default["entries"]
    reach = entries[0]["score"] - min(e["score"] for e in entries if e["tier"] == 1)
    said = [example_default["d95"], spread["independent"], spread["at_correlation"],
            spread["correlation"], reach]
    assert numbers == [round(x, 4) if k != 3 else x for k, x in enumerate(said)], row


_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
          "eight": 8, "nine": 9, "ten": 10}


def test_the_counts_in_words_the_pages_give_of_the_examples_are_theirs(example_outputs):
    """"four broken on purpose" (the submissions example's rejected files, as its run reports
    them), "three battles are dropped" (the battles example's rows a scorer drops: a model
    against itself, no winner), "the seed articles' 27-case experiment" (simulate --grid's
    cases) and "Python 3.10 or newer" (pyproject.toml's requires-python)."""
    import tomllib

    import pandas as pd

    from leaderboard.pipelines import simulate
    from leaderboard.resources import data_dir

    files = json.loads(example_outputs("submissions")["json"].read_text(encoding="utf-8"))
    battles = pd.read_csv(data_dir() / "example_battles.csv", keep_default_na=False)
    dropped = int(((battles["model_a"] == battles["model_b"])
                   | (battles["winner"].str.strip() == "")).sum())
    cases = (len(simulate.DEFAULT_SCORES) * len(simulate.DEFAULT_N_TESTS)
             * len(simulate.DEFAULT_PREVALENCES))
    python = re.search(r">=\s*3\.(\d+)", tomllib.loads(
        (ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["requires-python"])
    truth = {r"\b(\w+) (?:of them )?broken on purpose":
             sum(f["status"] == "rejected" for f in files["files"]),
             r"\b(\w+) battles are dropped": dropped,
             r"\b(\d+)-case experiment": cases,
             r"Python 3\.(\d+) or newer": int(python.group(1))}
    found = 0
    for pattern, value in truth.items():
        for path in pages():
            for match in re.finditer(pattern, path.read_text(encoding="utf-8")):
                said = match.group(1).lower()
                assert _WORDS.get(said, said) in (value, str(value)), \
                    f"{path.name}: {match.group(0)!r}, the code's: {value}"
                found += 1
    assert found >= 8   # README and getting-started say each (9 when written)


def test_the_simulate_pages_figures_are_what_simulate_gives():
    """docs/commands/simulate.md's d95 and "truly better ahead" figures for AUC 0.8 (and 0.81)
    on 1000 rows with 1% positives and on 10,000 rows with 20%, in the default binormal universe
    and the seeds' linspace: each is the default run's (5000 draws, seed 0) rounded as written.
    (tests/pipelines/test_simulate.py holds the linspace figures to the seeds' own.)"""
    import leaderboard

    page = (ROOT / "docs" / "commands" / "simulate.md").read_text(encoding="utf-8")
    d95 = re.search(r"AUC 0\.8 on 1000 rows with 1% positives: about ([\d.]+) in the\s+default "
                    r"binormal universe \(([\d.]+) in the seeds' own, `--universe linspace`\); "
                    r"on 10,000 rows with 20%\s+positives: about ([\d.]+) \(([\d.]+)\)", page)
    ahead = re.search(r"AUC 0\.81 against 0\.80 on 1000 rows with 1% positives: about (\d+)% "
                      r"\((\d+)% with `--universe linspace`\)", page)
    assert d95 and ahead, "the sentences moved: update the patterns"

    def said(text: str) -> tuple[float, int]:   # the figure and its decimals
        return float(text), len(text.partition(".")[2])

    for universe, small, large, share in (("binormal", d95[1], d95[3], ahead[1]),
                                          ("linspace", d95[2], d95[4], ahead[2])):
        run = leaderboard.simulate(metric="auc", scores=[0.80, 0.81], n_tests=1000,
                                   prevalences=0.01, universe=universe)
        value, digits = said(small)
        assert round(run.cases[0].d95, digits) == value, (universe, run.cases[0].d95, small)
        assert round(100 * run.ahead[0].probability) == int(share), (universe, share)
        if universe == "binormal":   # linspace's is the seeds' figure, checked in test_simulate
            big = leaderboard.simulate(metric="auc", scores=[0.80], n_tests=10000,
                                       prevalences=0.2, universe=universe)
            value, digits = said(large)
            assert round(big.cases[0].d95, digits) == value, (universe, big.cases[0].d95, large)


def test_the_architecture_pages_import_ceiling_is_the_tests():
    """"No module imports more than 15 of the package's modules": tests/api/test_layers.py's
    ceiling, and no hub is said to be left over the ceiling while none is."""
    from tests.api import test_layers

    page = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    said = re.search(r"No module imports more than (\d+) of the package's modules", page)
    assert said and int(said.group(1)) == test_layers.MAX_OWN_IMPORTS
    assert bool(test_layers.HUBS_LEFT) == ("hubs are held" in page)
