"""Outputs that differ only by the static chart drawings (issue 41: pages carry none unless
``--static-charts`` asks): read the two trees ``tests/same_outputs.py BASE --keep FOLDER`` kept,
and check that every file differing between them is a page whose only change is each static
drawing replaced by the note for readers without JavaScript (tests/chart_helpers.py,
:func:`without_static`). Not a test; a tool for the review of that change.

    python tests/same_outputs.py /work/main --keep /tmp/same   # BASE: a tree with the drawings
    python tests/static_outputs.py /tmp/same

Exit status 0 when every differing file differs only so, 1 with the list of the others.
"""
from __future__ import annotations

import argparse
import filecmp
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from chart_helpers import without_static  # noqa: E402


def differing(before: Path, after: Path) -> list[Path]:
    """The files (relative) present in either tree whose bytes differ, or present in one only."""
    names = {p.relative_to(before) for p in before.rglob("*") if p.is_file()}
    names |= {p.relative_to(after) for p in after.rglob("*") if p.is_file()}
    return sorted(n for n in names if not ((before / n).is_file() and (after / n).is_file()
                                           and filecmp.cmp(before / n, after / n, shallow=False)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kept", help="the folder same_outputs.py --keep wrote (before/, after/)")
    args = parser.parse_args()
    before, after = Path(args.kept) / "before", Path(args.kept) / "after"
    files = differing(before, after)
    other, drawings = [], 0
    for name in files:
        if not ((before / name).is_file() and (after / name).is_file()):
            other.append(f"{name}: in one tree only")
            continue
        old = (before / name).read_text(encoding="utf-8", errors="surrogateescape")
        new = (after / name).read_text(encoding="utf-8", errors="surrogateescape")
        if without_static(old) != new or 'class="lb-static"' in new:
            other.append(f"{name}: differs beyond the static drawings")
        drawings += old.count('class="lb-static"')
    print(f"{len(files)} differing files; {len(files) - len(other)} differ only by their static "
          f"drawings ({drawings} drawings, each replaced by the note for readers without "
          f"JavaScript)")
    for line in other:
        print(line)
    return 1 if other else 0


if __name__ == "__main__":
    sys.exit(main())
