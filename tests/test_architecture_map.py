"""docs/architecture.md's committed map (issue 42 item 6): every package has its row, and every
module, function, class or method the tables "Packages and their entry points" and "Where is it
computed" name exists, read from the source with ``ast`` (nothing is imported), so a rename or a
move that forgets the map fails here instead of leaving it stale."""
from __future__ import annotations

import ast
import re
from functools import lru_cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "leaderboard"
DOC = ROOT / "docs" / "architecture.md"
SECTIONS = ("## Packages and their entry points", "## Where is it computed")
#: What a newcomer looks for: each must have its row in "Where is it computed".
QUESTIONS = ("the AUC's noise", "the universe simulation", "the paired bootstrap", "tiers",
             "rank sets", "the best set", "P(best)", "d95", "the shake-up", "the card",
             "the page")
_NAME = re.compile(r"`(leaderboard(?:\.\w+)+)`")


def section(text: str, heading: str) -> str:
    """The text under ``heading`` up to the next heading of its level."""
    start = text.index(heading + "\n") + len(heading)
    end = text.find("\n## ", start)
    return text[start:end if end >= 0 else None]


def table_rows(text: str) -> list[list[str]]:
    """The cells of a Markdown table's body rows (header and rule left out)."""
    rows = [line.strip().strip("|").split(" | ") for line in text.splitlines()
            if line.startswith("| ")]
    return [[cell.strip() for cell in row] for row in rows[1:] if not row[0].startswith("---")]


@lru_cache(maxsize=None)
def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _defined(body: list[ast.stmt], name: str) -> ast.stmt | None:
    """The statement of ``body`` that defines ``name`` (a def, a class, an assignment or an
    import that re-exports it), else None."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and \
                node.name == name:
            return node
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == name for t in node.targets):
            return node
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and \
                node.target.id == name:
            return node
        if isinstance(node, ast.ImportFrom) and any(
                (alias.asname or alias.name) == name for alias in node.names):
            return node
    return None


def resolves(dotted: str) -> bool:
    """Whether ``leaderboard.a.b.name`` (or ``...Class.method``) names a module of the package,
    or something that module defines at its top (a method of a class defined there)."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        base = ROOT.joinpath(*parts[:cut])
        module = base.with_suffix(".py") if base.with_suffix(".py").is_file() else \
            base / "__init__.py"
        if not module.is_file():
            continue
        rest, body = parts[cut:], _tree(module).body
        if len(rest) > 2:
            return False
        for name in rest:
            node = _defined(body, name)
            if node is None:
                return False
            body = node.body if isinstance(node, ast.ClassDef) else []
        return True
    return False


def named(text: str) -> list[str]:
    return _NAME.findall(text)


def test_the_resolver_tells_a_name_that_exists_from_one_that_does_not():
    assert resolves("leaderboard.tiers.best_set.best_set")
    assert resolves("leaderboard.noise.model.NoiseModel.d95_at")            # a method
    assert resolves("leaderboard.pipelines.modes.mode_of")                  # a package's own
    assert resolves("leaderboard.tiers")
    assert not resolves("leaderboard.tiers.best_set.no_such_function")
    assert not resolves("leaderboard.noise.model.NoiseModel.no_such_method")
    assert not resolves("leaderboard.no_such_module.best_set")
    assert named("`leaderboard.a.b` and `leaderboard.c`, not `x.y`") == ["leaderboard.a.b",
                                                                         "leaderboard.c"]


@pytest.mark.parametrize("heading", SECTIONS)
def test_every_name_the_map_gives_exists(heading):
    text = section(DOC.read_text(encoding="utf-8"), heading)
    names = named(text)
    assert len(names) >= 25, "the table lost its names"
    missing = [name for name in names if not resolves(name)]
    assert missing == [], f"docs/architecture.md {heading!r} names what the code lacks: " \
                          f"{missing}; update the table"


def test_every_package_has_its_row_and_every_question_its_answer():
    text = DOC.read_text(encoding="utf-8")
    rows = {row[0] for row in table_rows(section(text, SECTIONS[0]))}
    packages = {f"`leaderboard.{p.parent.name}`" for p in PACKAGE.glob("*/__init__.py")}
    assert packages - rows == set(), "a package without its row in docs/architecture.md"
    answered = [row[0] for row in table_rows(section(text, SECTIONS[1]))]
    for question in QUESTIONS:
        assert any(row.startswith(question) for row in answered), question
        row = next(r for r in table_rows(section(text, SECTIONS[1])) if r[0].startswith(question))
        assert named(row[1]), f"{question}: name its module and function"
