"""The scripts under benchmarks/ import names that exist (h-flat found bench_rank_sets.py and two
others failing on import after names were made public or renamed: a benchmark nobody can run
measures nothing). Each ``from leaderboard... import ...`` and ``import leaderboard...`` of every
script is resolved here, without running the scripts."""
from __future__ import annotations

import ast
import importlib
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def _imports(folder: Path) -> list[tuple[str, str, str | None, int]]:
    """(script, module, name or None, line) of every import of the package in ``folder``."""
    found = []
    for script in sorted(folder.glob("*.py")):
        tree = ast.parse(script.read_text(encoding="utf-8"))
        fallbacks = {id(inner) for node in ast.walk(tree) if isinstance(node, ast.Try)
                     for handler in node.handlers if "ImportError" in ast.unparse(handler.type or
                                                                                   ast.Pass())
                     for inner in ast.walk(handler)}   # the old code's names, on purpose
        for node in ast.walk(tree):
            if id(node) in fallbacks:
                continue
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("leaderboard"):
                found += [(script.name, node.module, a.name, node.lineno) for a in node.names]
            elif isinstance(node, ast.Import):
                found += [(script.name, a.name, None, node.lineno) for a in node.names
                          if a.name.startswith("leaderboard")]
    return found


def _missing(imports) -> list[str]:
    missing = []
    for script, module, name, line in imports:
        try:
            loaded = importlib.import_module(module)
        except ImportError as error:
            missing.append(f"{script}:{line}: {module} ({error})")
            continue
        if name is None or name == "*" or hasattr(loaded, name):
            continue
        try:   # a submodule imported by name
            importlib.import_module(f"{module}.{name}")
        except ImportError:
            missing.append(f"{script}:{line}: {module}.{name}")
    return missing


def test_every_benchmark_imports_names_that_exist():
    imports = _imports(BENCHMARKS)
    assert len(imports) > 100   # the scripts do import the package
    missing = _missing(imports)
    assert not missing, "\n".join(missing)


def test_the_check_reports_a_name_the_package_no_longer_has(tmp_path):
    (tmp_path / "bench_x.py").write_text(
        "from leaderboard.tiers.rank_sets import _rank_sets_iv, rank_sets_data\n"
        "import leaderboard.no_such_module\n"
        "try:\n    from leaderboard.x import y\nexcept ImportError:   # the code before\n"
        "    from leaderboard.old import z\n", encoding="utf-8")
    assert _missing(_imports(tmp_path)) == [
        "bench_x.py:1: leaderboard.tiers.rank_sets._rank_sets_iv",
        "bench_x.py:2: leaderboard.no_such_module (No module named 'leaderboard.no_such_module')",
        "bench_x.py:4: leaderboard.x (No module named 'leaderboard.x')"]
