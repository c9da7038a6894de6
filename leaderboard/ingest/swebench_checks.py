"""SWE-bench results that contradict themselves about an instance, refused rather than read with
one verdict picked (:mod:`~leaderboard.ingest.swebench` calls these on every file it reads).

A report lists each instance under one verdict: resolved, unresolved, no patch, an error. An
instance under two (a run report's ``resolved_ids`` and ``unresolved_ids``, a ``results.json``'s
``resolved`` and ``no_generation``), or a ``report.json`` marked resolved while its own required
tests failed, is an error naming the file and the instance. (A JSON object giving one instance
twice is refused where it is parsed: :func:`~leaderboard.ingest.json_logs.parse_json`'s
``unique_keys``.)
"""
from __future__ import annotations

from leaderboard.errors import InputError
from leaderboard.ingest.toolkit.messages import show


def one_verdict(lists: dict[str, list[str]], source: str) -> None:
    """Refuse a report listing one instance under two verdicts (resolved and unresolved, or
    resolved and no patch generated): which holds is unknown, and counting either is a guess.

    Examples
    --------
    >>> one_verdict({"resolved_ids": ["a__b-1"], "unresolved_ids": ["a__b-2"]}, "r.json")
    >>> one_verdict({"resolved_ids": ["a__b-1"], "unresolved_ids": ["a__b-1"]}, "r.json")
    ... # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    leaderboard.errors.InputError: r.json: instance a__b-1 is in 'resolved_ids' and in 'unresolved_ids': the
    report contradicts itself
    """
    seen: dict[str, str] = {}
    for key, ids in lists.items():
        for instance in dict.fromkeys(ids):   # listed twice in one list: the same verdict
            if instance in seen:
                raise InputError(f"instance {show(instance)} is in {seen[instance]!r} and in "
                                 f"{key!r}: the report contradicts itself", file=source)
            seen[instance] = key


def agrees_with_tests(record: dict, resolved: bool, source: str, instance: str) -> None:
    """Refuse an evaluation report whose 'resolved' contradicts its own test results: the
    harness resolves an instance when every FAIL_TO_PASS and PASS_TO_PASS test passes."""
    tests = record.get("tests_status")
    if not isinstance(tests, dict):
        return
    failed = []
    for kind in ("FAIL_TO_PASS", "PASS_TO_PASS"):
        group = tests.get(kind)
        if isinstance(group, dict) and isinstance(group.get("failure"), list):
            failed += group["failure"]
    if resolved and failed:
        raise InputError(f"instance {show(instance)} is marked resolved but {len(failed):,} of "
                         f"its required tests failed (first: {show(str(failed[0]))}): the "
                         "report contradicts itself", file=source)
