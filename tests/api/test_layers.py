"""The package's layers, read from the code with ``ast``: the command line sits on the Python API
and the pipelines, never the reverse; the statistics never import the report."""
from __future__ import annotations

import ast
from functools import cache, lru_cache
from pathlib import Path

import leaderboard

PACKAGE = Path(leaderboard.__file__).parent


@lru_cache(maxsize=None)
def _tree(path: Path) -> ast.Module:
    """A module's syntax tree, parsed once for all the rules here (they read the same files)."""
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _imports(path: Path, text: str | None = None, running: bool = False) -> set[str]:
    """Every module ``path`` imports, at the top or inside a function (relative ones resolved);
    ``text``: the module's source when it is not on disk (the checkers' own tests); ``running``:
    only the imports that run (not those under ``if TYPE_CHECKING:``)."""
    tree = _tree(path) if text is None else ast.parse(text, filename=str(path))
    here = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    found = set()
    for node in (_running(tree) if running else ast.walk(tree)):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = here.split(".")[:-node.level]
                base = ".".join(parts + ([base] if base else []))
            found.add(base)
            found |= {f"{base}.{alias.name}" for alias in node.names}
    return found


def _modules(under: Path = PACKAGE):
    return sorted(p for p in under.rglob("*.py"))


def _importers(prefix: str, outside: str | None = None) -> list[str]:
    wanted = lambda name: name == prefix or name.startswith(prefix + ".")   # noqa: E731
    return [str(p.relative_to(PACKAGE.parent)) for p in _modules()
            if (outside is None or not str(p.relative_to(PACKAGE.parent)).startswith(outside))
            and any(wanted(name) for name in _imports(p))]


def test_nothing_outside_the_command_line_imports_it():
    # __main__ is the command line's entry point (``python -m leaderboard``): the one exception
    assert _importers("leaderboard.cli", outside="leaderboard/cli/") == ["leaderboard/__main__.py"]


# What the command line may take from ingest/: none of it reads an input. The size option's
# parsing and wording, and the guard that keeps an output from overwriting a file this run read
# or from landing on a device, are about the command's own arguments and outputs; and constants
# (UPPER_CASE names: an option's choices, such as --items-policy's ITEMS_POLICIES).
CLI_MAY_USE = {f"leaderboard.ingest.safe_read.{name}" for name in (
    "format_size", "parse_size", "refuse_special_output", "refuse_unwritable_place", "was_read",
    "forget_files_read")}


def _allowed(name: str) -> bool:
    return name in CLI_MAY_USE or name.rsplit(".", 1)[-1].isupper()


def _cli_reads(path: Path, text: str | None = None) -> set[str]:
    """The ingest names a module imports beyond :data:`CLI_MAY_USE` (a module imported whole
    counts as all of it, so ``from leaderboard.ingest import safe_read`` would be caught)."""
    names = {n for n in _imports(path, text) if n == "leaderboard.ingest"
             or n.startswith("leaderboard.ingest.")}
    allowed = {n for n in names if _allowed(n)}
    modules = {n.rsplit(".", 1)[0] for n in allowed}
    return names - allowed - modules


def test_the_command_line_never_calls_a_reader():
    """The CLI is argparse -> options -> the pipeline, which reads the inputs (issue 27): no module
    of cli/ imports a reader of leaderboard.ingest (read_leaderboard, read_solution,
    read_submissions, read_items, read_file ...), at the top or inside a function."""
    offenders = {str(p.relative_to(PACKAGE.parent)): sorted(_cli_reads(p))
                 for p in _modules(PACKAGE / "cli") if _cli_reads(p)}
    assert offenders == {}


def test_the_reader_rule_sees_a_reader():
    """The checker itself: choose's and compare's old imports are caught, the allowed ones not."""
    text = ("from leaderboard.ingest.safe_read import parse_size, read_file\n"
            "from leaderboard.ingest.benchmarks import FORMATS\n"
            "def f():\n    from leaderboard.ingest.leaderboards import read_leaderboard\n")
    assert _cli_reads(PACKAGE / "cli" / "probe.py", text) == {
        "leaderboard.ingest.safe_read.read_file", "leaderboard.ingest.leaderboards",
        "leaderboard.ingest.leaderboards.read_leaderboard"}


def test_the_scan_sees_imports_inside_functions():
    """The checker itself: a lazy import inside a function counts (it found the old api.py's)."""
    probe = PACKAGE / "cli" / "common.py"
    assert "leaderboard.pipelines.run.engine_for" in _imports(probe)


def test_statistics_never_import_the_report():
    for stage in ("noise", "tiers", "shakeup", "choose", "metrics", "pipelines", "studies"):
        for path in _modules(PACKAGE / stage):
            bad = {name for name in _imports(path) if name.startswith("leaderboard.report")
                   or name.startswith("leaderboard.cli")}
            assert not bad, f"{path.relative_to(PACKAGE.parent)} imports {sorted(bad)}"


def test_numbers_has_its_own_module_and_no_import_circle():
    """``Numbers`` lives in report/numbers.py; the report's modules import it at the top, not
    from html.py inside functions (the old circle)."""
    for path in _modules(PACKAGE / "report"):
        assert "leaderboard.report.html.Numbers" not in _imports(path), path.name
    assert "leaderboard.report.html" not in _imports(PACKAGE / "report" / "numbers.py")


def test_random_streams_come_from_the_registry():
    """Every block generator names its stream from :class:`leaderboard.noise.rng.Stream` (or a
    module constant made from it), never a bare integer; the registry has no two names on one
    value (``@unique``). Outside :mod:`leaderboard.noise.rng`, no code seeds numpy itself from a
    seed it was given (``default_rng([seed, 7])``, ``SeedSequence([seed, 1])`` were plan's and
    the studies' own streams): generators come from ``block_rng``/``entropy_rng``/
    ``entropy_seed`` with a Stream; a fixed population's constant seed is allowed."""
    from leaderboard.noise.rng import Stream

    assert len({int(s) for s in Stream}) == len(Stream.__members__)
    unregistered = []
    for path in _modules():
        tree = _tree(path)
        in_rng = path.relative_to(PACKAGE).as_posix() == "noise/rng.py"
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and not in_rng and _seeds_numpy(node):
                unregistered.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno}")
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in (
                    "block_rng", "entropy_rng", "entropy_seed"):
                stream = node.args[1] if len(node.args) > 1 else None
                assert not isinstance(stream, ast.Constant), f"{path.name}:{node.lineno}"
            if isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and "STREAM" in t.id for t in node.targets):
                assert "Stream." in ast.unparse(node.value), f"{path.name}:{node.lineno}"
    assert unregistered == []


# numpy's seeding calls: outside noise/rng.py each one is a stream the registry does not know
_SEEDING = {"default_rng", "SeedSequence", "RandomState", "seed"}


def _seeds_numpy(call: ast.Call) -> bool:
    """Whether a call seeds numpy's generators from anything but a fixed constant."""
    name = getattr(call.func, "attr", getattr(call.func, "id", None))
    if name not in _SEEDING:   # first: unparsing every call of the package cost ~1 s
        return False
    random = "random" in ast.unparse(call.func) or name in ("default_rng", "SeedSequence")
    return random and not (len(call.args) == 1 and not call.keywords and _fixed(call.args[0]))


def _fixed(node: ast.expr) -> bool:
    """A fixed population's own seed (a literal, or a module constant named ``*_SEED``), which
    no user's seed reaches: not a stream."""
    return isinstance(node, ast.Constant) or (isinstance(node, ast.Name)
                                              and node.id.endswith("_SEED"))


def test_the_seeding_rule_sees_an_unregistered_stream():
    """The checker itself: the old plan_search line is caught, a fixed population is not."""
    def caught(code: str) -> bool:
        return _seeds_numpy(ast.parse(code).body[0].value)

    assert caught("np.random.SeedSequence([s.seed, 1])")
    assert caught("np.random.default_rng([seed, 14])")
    assert caught("np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(s, b, r)))")
    assert not caught("np.random.default_rng(_SAMPLE_SEED)")
    assert not caught("np.random.default_rng(20261123)")


def test_entropy_streams_keep_their_numbers():
    """Routing plan's power check and the studies through the registry changed no number: each
    stream's generator is the one its old line built."""
    import numpy as np

    from leaderboard.noise.rng import _ENTROPY_TAG, Stream, entropy_rng, entropy_seed

    assert entropy_seed(5, Stream.PLAN_POWER_CHECK) == int(
        np.random.SeedSequence([5, 1]).generate_state(1)[0])
    for stream, old in ((Stream.CALIBRATION_STUDY, [5, 7]),
                        (Stream.SCORES_CALIBRATION_STUDY, [5, 14]),
                        (Stream.REGRESSION_CALIBRATION_STUDY, [5, 2, 25]),
                        (Stream.CORRELATION_STUDY, [5, 2]),
                        (Stream.BATTLES_COVERAGE_STUDY, [5, 2])):
        key = (2,) if len(old) == 3 or _ENTROPY_TAG[stream] is None else ()
        assert entropy_rng(5, stream, *key).random() == np.random.default_rng(old).random()
    truth = entropy_rng(5, Stream.OVERFIT_TRUTH, int(Stream.OVERFIT_TRUTH), 3)   # overfit.py
    assert truth.random() == np.random.default_rng([5, 25, 3]).random()


def test_the_confidence_label_is_written_in_one_place():
    import re

    # an f-string formatting the level (a percentile of 100 * (1 - alpha / 2) is not a label)
    rebuilt = re.compile(r"\{100 \* \(1 - [\w.]*alpha[^}]*\):|pct\(1 - [\w.]*alpha")
    offenders = [str(p.relative_to(PACKAGE.parent)) for p in _modules()
                 if p.name != "confidence.py" and rebuilt.search(p.read_text(encoding="utf-8"))]
    assert offenders == []


# Reading input is a row of peers on one toolkit (issue 42 item 1). Every module of ingest/ is in
# one of three tiers: the shared mechanisms and the table toolkit at the bottom; the readers, each
# a group of modules that import only the bottom and their own group; the fronts, which choose a
# reader by the path (--items, --cost-col) and call it.
INGEST_BOTTOM = ("safe_read", "csv_text", "text_rules", "in_memory", "json_logs", "records",
                 "toolkit")
INGEST_READERS = {"leaderboards": ("leaderboards",), "submissions": ("submissions",),
                  "per-item results": ("item_table", "item_sets", "item_coverage"),
                  "harness": ("harness",), "swebench": ("swebench", "swebench_checks"),
                  "helm": ("helm",), "inspect": ("inspect_logs",), "published": ("published",),
                  "battles": ("battles",)}
INGEST_FRONTS = ("benchmarks", "items", "item_costs")


def _ingest_part(name: str) -> str | None:
    """``leaderboard.ingest.toolkit.columns.find_column`` -> ``toolkit``; None outside ingest."""
    parts = name.split(".")
    return parts[2] if parts[:2] == ["leaderboard", "ingest"] and len(parts) > 2 else None


def _ingest_tier(part: str) -> str:
    if part in INGEST_BOTTOM:
        return "bottom"
    if part in INGEST_FRONTS:
        return "front"
    return next((f"reader {group}" for group, parts in INGEST_READERS.items() if part in parts),
                "unplaced")


def _ingest_offences(path: Path, text: str | None = None) -> set[str]:
    """The ingest modules ``path`` imports that its tier may not: the bottom imports only the
    bottom; a reader only the bottom and its own group; a front anything of ingest."""
    here = _ingest_tier(_ingest_part(".".join(path.relative_to(PACKAGE.parent)
                                              .with_suffix("").parts)))
    found = {p for p in (_ingest_part(n) for n in _imports(path, text)) if p}
    allowed = {p for p in found if _ingest_tier(p) == "bottom" or _ingest_tier(p) == here
               or here == "front"}
    return found - allowed


def test_every_ingest_reader_stands_on_the_toolkit_alone():
    parts = {p.relative_to(PACKAGE / "ingest").parts[0].removesuffix(".py")
             for p in _modules(PACKAGE / "ingest")} - {"__init__"}
    assert {p for p in parts if _ingest_tier(p) == "unplaced"} == set()   # a new module: place it
    offenders = {str(p.relative_to(PACKAGE.parent)): sorted(_ingest_offences(p))
                 for p in _modules(PACKAGE / "ingest") if _ingest_offences(p)}
    assert offenders == {}


def test_the_ingest_rule_sees_a_reader_on_a_reader():
    """The checker itself: the old towers are caught (battles on the items reader, a benchmark
    reader on harness, the submissions reader on the scores board's helpers), the toolkit not."""
    ingest = PACKAGE / "ingest"
    assert _ingest_offences(ingest / "battles.py",
                            "from leaderboard.ingest.items import _read\n"
                            "from leaderboard.ingest.toolkit.columns import find_column\n") \
        == {"items"}
    assert _ingest_offences(ingest / "helm.py", "def f():\n    from leaderboard.ingest.harness "
                                                "import _text\n") == {"harness"}
    assert _ingest_offences(ingest / "submissions" / "find.py",
                            "from leaderboard.ingest.leaderboards import _column\n"
                            "from leaderboard.ingest.submissions.table import Rejected\n") \
        == {"leaderboards"}
    assert _ingest_offences(ingest / "json_logs.py",
                            "from leaderboard.ingest.submissions.table import show\n") \
        == {"submissions"}
    assert _ingest_offences(ingest / "items.py", "from leaderboard.ingest.helm import read_helm\n"
                                                 "from leaderboard.ingest import records\n") \
        == set()


def _private_names(path: Path) -> list[str]:
    """``module.name`` for every private name ``path`` takes from another module of the package
    (``from leaderboard.x import _y``), at the top or inside a function."""
    return [f"{node.module}.{alias.name}" for node in ast.walk(_tree(path))
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("leaderboard")
            for alias in node.names if alias.name.startswith("_")]


def test_no_ingest_module_takes_another_modules_private_names():
    """What the readers share is public in the toolkit (issue 42: 18 such imports in ingest/,
    13 of them the scores-board reader's helpers, before it)."""
    taken = {str(p.relative_to(PACKAGE.parent)): _private_names(p)
             for p in _modules(PACKAGE / "ingest") if _private_names(p)}
    assert taken == {}


# --- no hubs (issue 42): a module that imports more than 15 of the package's modules does too many
# jobs. Imports that run count (at the top or in a function); a type checker's alone (under ``if
# TYPE_CHECKING:``) does not: it names a type, it neither loads the module nor calls it. The
# modules above the line when the rule came, each held to its count then until it is split (a
# ceiling that only comes down): pipelines/run.py (28 then) was split into the modes,
# pipelines/scores.py (22) lost Analysis and the ranking helpers, pipelines/compare.py (17) its
# readers (compare_read.py), report/chart_context.py (17) the rank and post-mortem charts
# (rank_charts.py, shakeup_charts.py), report/html.py (22) the page's parts (answer_box.py,
# facts_text.py, how_to_read.py, page_sections.py), cli/analyze.py (19) its outputs
# (analyze_outputs.py) and its arguments' options (analyze_args.py), pipelines/submissions.py
# (24) its scoring of the files, checks and post-mortem (submission_scoring.py,
# submission_checks.py, submission_postmortem.py). None is left.
MAX_OWN_IMPORTS = 15
HUBS_LEFT: dict[str, int] = {}


def _dotted(path: Path) -> str:
    return ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(
        ".__init__")


@cache
def _package_modules() -> frozenset[str]:
    return frozenset(_dotted(p) for p in _modules())


def _running(tree: ast.AST):
    """The nodes of ``tree`` outside its ``if TYPE_CHECKING:`` blocks (their ``else`` kept)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        test = getattr(node, "test", None) if isinstance(node, ast.If) else None
        if test is not None and (getattr(test, "id", None) or getattr(test, "attr", None)) \
                == "TYPE_CHECKING":
            stack.extend(node.orelse)
            continue
        yield node
        stack.extend(ast.iter_child_nodes(node))


def _own_imports(path: Path, text: str | None = None) -> set[str]:
    """The package's modules ``path`` imports when it runs (at the top or in a function): each
    imported name counted as the longest module of the package it names (``from
    leaderboard.noise.bootstrap import STREAM`` is ``leaderboard.noise.bootstrap``)."""
    modules, here = _package_modules(), _dotted(path)
    own = set()
    for name in _imports(path, text, running=True):
        parts = name.split(".")
        found = next((".".join(parts[:k]) for k in range(len(parts), 1, -1)
                      if ".".join(parts[:k]) in modules), None)
        if found is not None and found != here:
            own.add(found)
    return own


def test_no_module_imports_more_than_15_of_the_packages_modules():
    counts = {str(p.relative_to(PACKAGE.parent)): len(_own_imports(p)) for p in _modules()}
    over = {name: n for name, n in counts.items()
            if n > HUBS_LEFT.get(name, MAX_OWN_IMPORTS)}
    assert over == {}, f"split these (at most {MAX_OWN_IMPORTS} of the package's modules each)"
    # a hub split below the line leaves the list
    assert {name for name in HUBS_LEFT if counts.get(name, 0) <= MAX_OWN_IMPORTS} == set()


def test_the_import_count_sees_every_kind_of_import():
    """The checker itself: a module, a name of a module and a function's import each count
    once; the module itself, outside packages and a type checker's import do not."""
    text = ("import numpy\nfrom leaderboard import limits\n"
            "from leaderboard.noise.bootstrap import STREAM, resampling\n"
            "from leaderboard.pipelines.run import Inputs\n"
            "def f():\n    from leaderboard.tiers.ranking import rank_board\n"
            "if TYPE_CHECKING:\n    from leaderboard.metrics import Metric\n")
    assert _own_imports(PACKAGE / "pipelines" / "run.py", text) == {
        "leaderboard.limits", "leaderboard.noise.bootstrap", "leaderboard.tiers.ranking"}


def test_few_imports_take_another_modules_private_names():
    """Issue 42: a helper two modules share is public (named, documented), or lives where it
    belongs; 22 such imports before, 8 after (``python tests/private_imports.py -v`` lists them:
    the tiers' and metrics' kernel modules, the API's two input coercions, the scores settings'
    check)."""
    from private_imports import private_imports

    found = private_imports()
    assert len(found) <= 8, "\n".join(f"{m}:{line} from {src} import {name}"
                                      for m, line, src, name in found)
