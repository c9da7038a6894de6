"""The page's words for what the numbers assume (:mod:`leaderboard.pipelines.assumptions`): a
section beside the tier table, and one line under the table naming the assumptions its numbers
rest on, the doubtful ones first."""
from __future__ import annotations

VERDICT_WORDS = {"holds": "holds", "doubtful": "doubtful", "not checkable": "not checkable"}
NAMES = {"universe_shape": "Shape of the noise", "independent_rows": "Independent test rows",
         "independent_items": "Independent items",
         "independent_clusters": "Independent clusters",
         "correlation_between_entries": "Correlation between entries",
         "test_size": "Test-set size"}
ITEM_NAMES = {**NAMES, "test_size": "Number of items"}   # a benchmark's words (issue 26)


def context(analysis) -> dict | None:
    """The section's rows and the table's one-line note, or None without assumptions.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from leaderboard.pipelines.assumptions import Assumption
    >>> a = SimpleNamespace(assumptions=(Assumption("test_size", "400 rows.", ("intervals",),
    ...     True, "400 rows read.", "holds", "Nothing."),))
    >>> context(a)["note"]
    'These intervals rest on: test-set size (holds).'
    """
    items = tuple(analysis.assumptions)
    if not items:
        return None
    subs = getattr(analysis, "submissions", None)
    names = ITEM_NAMES if subs is not None and subs.layout == "items" else NAMES
    rows = [{"title": names.get(a.name, a.name), "verdict": a.verdict,
             "chip": a.verdict.replace(" ", "-"), "statement": a.statement,
             "affects": ", ".join(a.affects), "checked": a.checked,
             "what_to_do": a.what_to_do, "sweep": _sweep(a.measured)} for a in items]
    order = sorted(items, key=lambda a: ("doubtful", "not checkable", "holds").index(a.verdict))
    carried = sorted({x for a in items for x in a.affects},
                     key=lambda x: (x != "intervals", x))
    note = (f"These {carried[0]} rest on: "
            + "; ".join(f"{names.get(a.name, a.name).lower()} ({a.verdict})" for a in order)
            + ".")
    doubtful = [names.get(a.name, a.name).lower() for a in items if a.verdict == "doubtful"]
    return {"rows": rows, "note": note, "doubtful": doubtful}


def _sweep(measured: dict) -> list[dict] | None:
    """The correlation sweep as table rows (a board that cannot check the correlation)."""
    if not measured or "best_set" not in measured:
        return None
    return [{"rho": f"{r:g}", "best": f"{b:,}", "tier_1": f"{t:,}"}
            for r, b, t in zip(measured["correlation"], measured["best_set"],
                               measured["tier_1"])]
