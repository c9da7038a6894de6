"""MkDocs hook: the package's import graph and module map, generated from the code at build time.

Every ``.py`` file under ``leaderboard/`` is parsed with :mod:`ast` (nothing is imported, so the
picture is of the source as written). Modules are grouped by subpackage (``leaderboard.tiers``,
``leaderboard.report`` ...; a top-level module such as ``leaderboard.ingest`` is its own group), and
one edge is drawn from a group to each group it imports. An import at a module's top runs when
the module loads (solid arrow); one only inside functions runs when called (dotted arrow: the
lazy imports that keep ``import leaderboard`` fast). The page asks for the pieces with the lines
``<!-- import-graph -->`` (a Mermaid diagram and the same edges as a table) and
``<!-- module-map -->`` (every module with the first line of its docstring).
"""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "leaderboard"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _group(module: str) -> str:
    """``leaderboard.tiers.holm`` -> ``tiers``; ``leaderboard.ingest`` -> ``ingest``;
    ``leaderboard`` -> ``leaderboard``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def _imports(tree: ast.Module, module: str, is_package: bool) -> list[tuple[str, bool]]:
    """(imported leaderboard module, at top level?) for every import statement."""
    top_level = {id(node) for node in tree.body}
    base = module.split(".") if is_package else module.split(".")[:-1]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                prefix = ".".join(base[: len(base) - node.level + 1])
                target = f"{prefix}.{node.module}" if node.module else prefix
            else:
                target = node.module or ""
            names = [target] + [f"{target}.{alias.name}" for alias in node.names]
        else:
            continue
        # `if TYPE_CHECKING:` blocks sit at top level but never run: count them as lazy
        eager = id(node) in top_level
        found += [(name, eager) for name in names
                  if name == PACKAGE or name.startswith(PACKAGE + ".")]
    return found


def scan() -> tuple[dict[str, str], dict[tuple[str, str], bool]]:
    """(module -> first docstring line, (group, imported group) -> any top-level import)."""
    modules: dict[str, str] = {}
    trees = {}
    for path in sorted((ROOT / PACKAGE).rglob("*.py")):
        module = _module_name(path)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        doc = ast.get_docstring(tree) or ""
        modules[module] = doc.strip().split("\n\n")[0].replace("\n", " ")
        trees[module] = (tree, path.name == "__init__.py")
    edges: dict[tuple[str, str], bool] = {}
    for module, (tree, is_package) in trees.items():
        for name, eager in _imports(tree, module, is_package):
            # the longest known module the name starts with (a `from x import function`)
            while name not in modules and "." in name:
                name = name.rsplit(".", 1)[0]
            source, target = _group(module), _group(name)
            if source != target and target != PACKAGE:
                edges[(source, target)] = edges.get((source, target), False) or eager
    return modules, edges


def _node(group: str) -> str:
    """A Mermaid node id (``__main__`` would read as Markdown bold)."""
    return "g_" + group.strip("_")


def import_graph() -> str:
    _, edges = scan()
    lines = ['<pre class="mermaid">', "flowchart LR"]
    for (source, target), eager in sorted(edges.items()):
        arrow = "-->" if eager else "-.->"
        lines.append(f'  {_node(source)}["{source}"] {arrow} {_node(target)}["{target}"]')
    lines += ["</pre>", "", "| package or module | imports at load | imports only when called |",
              "| --- | --- | --- |"]
    groups = sorted({s for s, _ in edges} | {t for _, t in edges})
    for group in groups:
        eager = ", ".join(t for (s, t), e in sorted(edges.items()) if s == group and e)
        lazy = ", ".join(t for (s, t), e in sorted(edges.items()) if s == group and not e)
        lines.append(f"| `{group}` | {eager} | {lazy} |")
    return "\n".join(lines)


def module_map() -> str:
    modules, _ = scan()
    lines = ["| module | what it is (its docstring's first paragraph) |", "| --- | --- |"]
    for module, doc in modules.items():
        doc = doc.replace("|", "\\|").replace("<", "&lt;").replace(">", "&gt;")
        lines.append(f"| `{module}` | {doc} |")
    return "\n".join(lines)


def on_page_markdown(markdown: str, page, config, files) -> str:  # noqa: ARG001 - MkDocs' hook
    if "<!-- import-graph -->" in markdown:
        markdown = markdown.replace("<!-- import-graph -->", import_graph())
    if "<!-- module-map -->" in markdown:
        markdown = markdown.replace("<!-- module-map -->", module_map())
    return markdown
