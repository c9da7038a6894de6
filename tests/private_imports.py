"""Count the imports of another module's private names across the package (issue 42's measure:
``from leaderboard.x import _y``, at the top or inside a function; a private module such as
``leaderboard.tiers._pair_kernels`` counts too) in the checkout this file is in. Not a test:

    python tests/private_imports.py          # the total and the count per importing package
    python tests/private_imports.py -v       # every import, with its line
"""
from __future__ import annotations

import ast
import re
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


#: A ``from leaderboard... import`` statement: its names, on one line or in parentheses.
IMPORT = re.compile(r"^[ \t]*from[ \t]+leaderboard[\w.]*[ \t]+import[ \t]+(?:\([^)]*\)|[^\n]*)", re.M)


def private_imports(root: Path = ROOT) -> list[tuple[str, int, str, str]]:
    """``(importing module, line, module imported from, name)`` for every such import."""
    found = []
    for path in sorted((root / "leaderboard").rglob("*.py")):
        module = ".".join(path.relative_to(root).with_suffix("").parts)
        found += [(module, line, source, name) for line, source, name in _imported(path)]
    return found


def _imported(path: Path) -> list[tuple[int, str, str]]:
    """``(line, module, name)`` of the file's private names imported from the package: its
    import statements parsed alone (the whole file only when one does not parse on its own,
    a comment with a parenthesis inside an import's parentheses)."""
    text = path.read_text(encoding="utf-8")
    try:
        nodes = [(text.count("\n", 0, m.start()), node) for m in IMPORT.finditer(text)
                 for node in ast.parse(m.group().strip()).body]
    except SyntaxError:
        nodes = [(0, node) for node in ast.walk(ast.parse(text))]
    return [(offset + node.lineno, node.module or "", alias.name) for offset, node in nodes
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("leaderboard")
            for alias in node.names
            if alias.name.startswith("_") and not alias.name.startswith("__")]


if __name__ == "__main__":
    hits = private_imports()
    for module, line, source, name in hits if "-v" in sys.argv else ():
        print(f"{module}:{line}  from {source} import {name}")
    for package, count in Counter(m.split(".")[1] for m, *_ in hits).most_common():
        print(f"{count:4d}  leaderboard.{package}")
    print(f"{len(hits)} imports of private names across modules")
