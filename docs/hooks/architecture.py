"""MkDocs hook: the package's import graph and module map, generated from the code at build time.

Every ``.py`` file under ``leaderboard/`` is parsed with :mod:`ast` (nothing is imported, so the
picture is of the source as written). Modules are grouped by subpackage (``leaderboard.tiers``,
``leaderboard.report`` ...; a top-level module such as ``leaderboard.api`` is its own group), and
one edge is drawn from a group to each group it imports. An import at a module's top runs when
the module loads (solid arrow); one only inside functions runs when called (dotted arrow: the
lazy imports that keep ``import leaderboard`` fast). The page asks for the pieces with the lines
``<!-- import-graph -->`` (a static SVG, laid out here, and the same edges as a table) and
``<!-- module-map -->`` (every module with the first line of its docstring).
"""
from __future__ import annotations

import ast
import base64
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = "leaderboard"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _group(module: str) -> str:
    """``leaderboard.tiers.holm`` -> ``tiers``; ``leaderboard.ingest.items`` -> ``ingest``;
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


def _levels(nodes: list[str], edges: dict[tuple[str, str], bool]) -> dict[str, int]:
    """Each node's row: the longest import path from it down to a module importing nothing of
    ours (0). The graph's cycles, if any, are cut where the walk meets a node it is inside."""
    out: dict[str, list[str]] = {n: [] for n in nodes}
    for source, target in edges:
        out[source].append(target)
    level: dict[str, int] = {}

    def walk(node: str, inside: frozenset) -> int:
        if node not in level:
            below = [walk(t, inside | {node}) + 1 for t in out[node] if t not in inside]
            level[node] = max(below, default=0)
        return level[node]

    for node in nodes:
        walk(node, frozenset())
    return level


def svg_graph(edges: dict[tuple[str, str], bool]) -> str:
    """The import graph as a static SVG: rows by level (importers above what they import), each
    row's boxes in the order that puts them nearest the boxes they connect to, arrows down."""
    nodes = sorted({s for s, _ in edges} | {t for _, t in edges})
    level = _levels(nodes, edges)
    top = max(level.values())
    rows = [[n for n in nodes if level[n] == lv] for lv in range(top, -1, -1)]
    box_w, box_h, gap_x, gap_y = 104, 26, 14, 58
    width = max(len(r) for r in rows) * (box_w + gap_x) + gap_x
    x: dict[str, float] = {}
    for i, row in enumerate(rows):
        if i:  # barycentre of the nodes above that import it (a classic layered-layout pass)
            def centre(n: str) -> float:
                above = [x[s] for (s, t) in edges if t == n and s in x]
                return sum(above) / len(above) if above else width / 2
            row.sort(key=centre)
        offset = (width - len(row) * (box_w + gap_x) + gap_x) / 2
        for j, n in enumerate(row):
            x[n] = offset + j * (box_w + gap_x) + box_w / 2
    y = {n: 20 + i * (box_h + gap_y) for i, row in enumerate(rows) for n in row}
    height = 20 + len(rows) * (box_h + gap_y)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height}" '
             f'viewBox="0 0 {width:.0f} {height}" font-family="sans-serif" font-size="12">',
             '<defs><marker id="a" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="6" '
             'markerHeight="6" orient="auto"><path d="M0,0L10,5L0,10z" fill="#555"/></marker></defs>']
    for (source, target), eager in sorted(edges.items()):
        x1, y1, x2, y2 = x[source], y[source] + box_h, x[target], y[target]
        if y2 <= y1:  # an upward edge (a cycle cut above): go round the box's side
            y2 = y[target] + box_h
        mid = (y1 + y2) / 2
        dash = "" if eager else ' stroke-dasharray="4,3"'
        parts.append(f'<path d="M{x1:.0f},{y1} C{x1:.0f},{mid:.0f} {x2:.0f},{mid:.0f} '
                     f'{x2:.0f},{y2}" fill="none" stroke="#888" stroke-width="1"{dash} '
                     'marker-end="url(#a)"/>')
    for n in nodes:
        parts.append(f'<rect x="{x[n] - box_w / 2:.0f}" y="{y[n]}" width="{box_w}" height="{box_h}" '
                     'rx="4" fill="#eef3fb" stroke="#3a6ea5"/>'
                     f'<text x="{x[n]:.0f}" y="{y[n] + 17}" text-anchor="middle">{n}</text>')
    parts.append("</svg>")
    return "".join(parts)


def import_graph() -> str:
    _, edges = scan()
    picture = base64.b64encode(svg_graph(edges).encode()).decode()
    lines = [f'<p><img alt="The import graph of the leaderboard package, by subpackage" '
             f'src="data:image/svg+xml;base64,{picture}"></p>', "",
             "| package or module | imports at load | imports only when called |",
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
