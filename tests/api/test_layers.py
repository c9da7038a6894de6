"""The package's layers, read from the code with ``ast``: the command line sits on the Python API
and the pipelines, never the reverse; the statistics never import the report."""
from __future__ import annotations

import ast
from pathlib import Path

import leaderboard

PACKAGE = Path(leaderboard.__file__).parent


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports, at the top or inside a function (relative ones resolved)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    here = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    found = set()
    for node in ast.walk(tree):
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
    value (``@unique``)."""
    from leaderboard.noise.rng import Stream

    assert len({int(s) for s in Stream}) == len(Stream.__members__)
    for path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "block_rng":
                stream = node.args[1] if len(node.args) > 1 else None
                assert not isinstance(stream, ast.Constant), f"{path.name}:{node.lineno}"
            if isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and "STREAM" in t.id for t in node.targets):
                assert "Stream." in ast.unparse(node.value), f"{path.name}:{node.lineno}"


def test_the_confidence_label_is_written_in_one_place():
    import re

    # an f-string formatting the level (a percentile of 100 * (1 - alpha / 2) is not a label)
    rebuilt = re.compile(r"\{100 \* \(1 - [\w.]*alpha[^}]*\):|pct\(1 - [\w.]*alpha")
    offenders = [str(p.relative_to(PACKAGE.parent)) for p in _modules()
                 if p.name != "confidence.py" and rebuilt.search(p.read_text(encoding="utf-8"))]
    assert offenders == []
