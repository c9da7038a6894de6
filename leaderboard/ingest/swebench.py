"""SWE-bench's per-instance results, read as per-item 0/1 "resolved".

The SWE-bench experiments repository keeps one folder per system under
``evaluation/<split>/<date>_<system>/``; PATH is such a split folder (or any folder of system
folders). Each system's results are read from the first of:

1. ``per_instance_details.json``: ``{instance_id: {"resolved": true, "cost": ..., ...}}`` (the
   bash-only board's files): an explicit map, one entry per instance attempted;
2. ``results/results.json`` (or ``results.json``): ``{"resolved": [ids], "no_generation": [ids],
   "no_logs": [ids]}``: only the resolved instances are listed, so the denominator must come from
   the split's instance list (``instances``);
3. ``logs/<instance_id>/report.json``: the evaluation harness's per-instance report,
   ``{instance_id: {"resolved": true, ...}}`` (or the inner object alone).

A file ``<model>.<run_id>.json`` beside the system folders is the harness's run report
(``swebench.harness.run_evaluation``): every instance of the dataset in one of ``resolved_ids``,
``unresolved_ids``, ``empty_patch_ids`` (0), ``error_ids`` and ``incomplete_ids`` (no result);
the model is the file's name without ``.json``.

Denominator. SWE-bench's leaderboard divides by the split's size: an instance a system has no
result for (no patch generated, no evaluation log, absent from its map) counts as unresolved.
That is the default here (``missing="unresolved"``), and every such count is reported in the
notes; ``missing="missing"`` leaves those instances without a value instead, so the model has
holes the items analysis reports rather than zeros nobody measured. Instances listed as resolved
that are not in the instance list are an error (the wrong split), never dropped.

Untrusted input: folders are walked without following links, files are size-capped, an
instance id or system name is text escaped wherever it is shown.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from leaderboard.choices import MISSING_INSTANCES
from leaderboard.errors import InputError
from leaderboard.ingest.json_logs import entries, expect, finite, load_json
from leaderboard.ingest.safe_read import Unreadable, read_file
from leaderboard.ingest.swebench_checks import agrees_with_tests, one_verdict
from leaderboard.ingest.text_rules import clean_text, decode_utf8
from leaderboard.ingest.toolkit.messages import show

MISSING = MISSING_INSTANCES
_DETAILS = "per_instance_details.json"
_RESULTS = ("results/results.json", "results.json")
_REPO = re.compile(r"^(?P<owner>[^_/]+(?:_[^_/]+)*)__(?P<repo>.+)-\d+$")


@dataclass(frozen=True)
class _System:
    """One system's results: resolved flags by instance, ids with no evaluation log, where read."""

    name: str
    resolved: dict[str, bool]
    no_logs: frozenset[str]
    no_generation: frozenset[str]
    listed_only: bool          # results.json: only the resolved ids are listed
    source: str
    records: dict[str, dict] | None = None   # per_instance_details.json: each instance's record


def looks_like_swebench(folder: Path) -> bool:
    """Whether a folder one level down holds SWE-bench results.

    Examples
    --------
    >>> import tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> (root / "sysA").mkdir()
    >>> _ = (root / "sysA" / "per_instance_details.json").write_text("{}")
    >>> looks_like_swebench(root), looks_like_swebench(root / "sysA")
    (True, False)
    """
    return any(_results_file(Path(e.path)) is not None if e.is_dir(follow_symlinks=False)
               else _is_run_report(e) for e in entries(folder) if not e.is_symlink())


def read_swebench(folder: Path, *, instances: str | None = None, missing: str = "unresolved",
                  max_bytes: int, cost_key: str | None = None
                  ) -> tuple[pd.DataFrame, list[tuple[str, str]], list[str]]:
    """The long table (text cells ``model``, ``item``, ``value``, ``repo``) of a folder of
    SWE-bench system folders; the entries not read, as ``(path, why)``; and one note per
    system saying how its denominator was counted.

    ``cost_key``: also a column of that name, each instance's number under that key in
    ``per_instance_details.json`` (``cost``: what the run spent on it; blank where there is no
    record); results of another kind hold no cost and are refused naming the system.

    Examples
    --------
    >>> import json, tempfile
    >>> root = Path(tempfile.mkdtemp())
    >>> (root / "sysA" / "results").mkdir(parents=True)
    >>> _ = (root / "sysA" / "results" / "results.json").write_text(json.dumps(
    ...     {"resolved": ["a__b-1"], "no_generation": ["a__b-2"], "no_logs": []}))
    >>> _ = (root / "ids.txt").write_text("a__b-1\\na__b-2\\na__b-3\\n")
    >>> frame, skipped, notes = read_swebench(root, instances=str(root / "ids.txt"),
    ...                                       max_bytes=1 << 20)
    >>> frame[["model", "item", "value"]].values.tolist()
    [['sysA', 'a__b-1', '1'], ['sysA', 'a__b-2', '0'], ['sysA', 'a__b-3', '0']]
    >>> print(notes[0].replace("; ", ";\\n"))
    sysA: 1 of 3 instances resolved (results/results.json lists the resolved ones;
    the other 2 count as unresolved, 1 of them with no patch generated)
    """
    if missing not in MISSING:
        raise InputError(f"missing instances are counted {' or '.join(MISSING)}, not "
                         f"{show(missing)}")
    skipped: list[tuple[str, str]] = []
    systems: list[_System] = []
    for entry in entries(folder):
        if entry.is_symlink():
            skipped.append((entry.name, "a link; not followed"))
        elif entry.name.startswith("."):
            skipped.append((entry.name, "hidden; not read"))
        elif _is_run_report(entry):
            systems.append(_run_report(Path(entry.path), max_bytes))
        elif not entry.is_dir(follow_symlinks=False):
            if instances is None or Path(entry.path).resolve() != Path(instances).resolve():
                skipped.append((entry.name, "a file beside the system folders (not a run "
                                            "report of the evaluation harness); not read"))
        else:
            system, not_read = _read_system(Path(entry.path), max_bytes)
            skipped += not_read
            if system is not None:
                systems.append(system)
    if not systems:
        raise InputError("no SWE-bench results found (each system folder needs "
                         f"{_DETAILS}, results/results.json or logs/<instance>/report.json; "
                         "or the harness's <model>.<run_id>.json run reports)",
                         file=str(folder))
    split = (_instance_list(instances, max_bytes) if instances is not None
             else _union(systems))
    rows: list[tuple[str, ...]] = []
    notes: list[str] = []
    known = set(split)
    for system in systems:
        stray = [i for i in [*system.resolved, *system.no_logs] if i not in known]
        if stray:
            raise InputError(f"{len(stray):,} instance{'s' if len(stray) > 1 else ''} not in "
                             f"the instance list (first: {show(stray[0])}); are these results "
                             "of another split?", file=system.source)
        note = _note(system, split, missing)
        notes += [note] if note else []
        if cost_key is not None and system.records is None:
            raise InputError(f"--cost-col {show(cost_key)}: {system.name}'s results hold no "
                             f"cost per instance (only SWE-bench's {_DETAILS} has one)",
                             file=system.source)
        for item in split:
            if item in system.resolved:
                value = system.resolved[item]
            elif missing == "missing" and (not system.listed_only or item in system.no_logs):
                continue
            else:
                value = False
            row: tuple[str, ...] = (clean_text(system.name), clean_text(item), "1" if value else "0",
                                    _repo(item))
            if cost_key is not None:
                row += (_cost(system, item, cost_key),)
            rows.append(row)
    if instances is None:
        notes.append(f"Instances: the {len(split):,} ids found in the systems' results (no "
                     "instance list given); an instance no system attempted is not counted.")
    frame = pd.DataFrame(rows, columns=["model", "item", "value", "repo"]
                         + ([cost_key] if cost_key is not None else []))
    frame.index = range(2, len(frame) + 2)
    return frame, sorted(skipped), notes


def _is_run_report(entry) -> bool:
    """A ``<model>.<run_id>.json`` run report of ``swebench.harness.run_evaluation`` (its
    ``resolved_ids`` key within the first few KB: the report opens with counts)."""
    if not entry.name.endswith(".json") or not entry.is_file(follow_symlinks=False):
        return False
    with open(entry.path, "rb") as handle:
        return b'"resolved_ids"' in handle.read(8192)


def _run_report(path: Path, max_bytes: int) -> _System:
    """One system from the harness's run report: every instance of the dataset it ran on is in
    one list (resolved, unresolved, empty patch, error, incomplete: no prediction)."""
    source = str(path)
    data = expect(load_json(path, max_bytes), dict, "the run report", source)
    lists = {key: _ids(data, key, source) for key in ("resolved_ids", "unresolved_ids",
                                                       "empty_patch_ids", "error_ids",
                                                       "incomplete_ids")}
    one_verdict(lists, source)
    everything = {i for ids in lists.values() for i in ids}
    total = data.get("total_instances")
    if isinstance(total, int) and total != len(everything):
        raise InputError(f"total_instances is {total:,} but its id lists hold "
                         f"{len(everything):,} instances", file=source)
    resolved = {**dict.fromkeys(lists["unresolved_ids"] + lists["empty_patch_ids"], False),
                **dict.fromkeys(lists["resolved_ids"], True)}
    never = frozenset(lists["error_ids"] + lists["incomplete_ids"]) - set(resolved)
    return _System(clean_text(path.name.removesuffix(".json")), resolved, never, frozenset(),
                   False, source)


def _results_file(system: Path) -> tuple[str, Path] | None:
    """Which results the system folder holds, by precedence: (kind, path)."""
    details = system / _DETAILS
    if details.is_file() and not details.is_symlink():
        return "details", details
    for name in _RESULTS:
        path = system / name
        if path.is_file() and not path.is_symlink() and not path.parent.is_symlink():
            return "results", path
    logs = system / "logs"
    if logs.is_dir() and not logs.is_symlink():
        return "reports", logs
    return None


def _read_system(system: Path, max_bytes: int) -> tuple[_System | None, list[tuple[str, str]]]:
    found = _results_file(system)
    name = system.name
    if found is None:
        return None, [(name, f"no {_DETAILS}, results/results.json or logs/ folder; not a "
                             "SWE-bench system folder")]
    kind, path = found
    name = clean_text(name)
    used = path.relative_to(system).parts[0]
    skipped = [(f"{name}/{e.name}", "not the results read (" + str(path.relative_to(system))
                + " is)") for e in entries(system) if e.name != used]
    if kind == "details":   # an instance given twice with two verdicts is refused, not the last
        data = expect(load_json(path, max_bytes, unique_keys=True), dict, "the file", str(path))
        resolved = {str(k): _flag(v, str(path), str(k)) for k, v in data.items()}
        return _System(name, resolved, frozenset(), frozenset(), False, str(path),
                       {str(k): v for k, v in data.items()}), skipped
    if kind == "results":
        data = expect(load_json(path, max_bytes), dict, "the file", str(path))
        lists = {key: _ids(data, key, str(path)) for key in ("resolved", "no_generation",
                                                               "no_logs")}
        if "resolved" not in data:
            raise InputError("no 'resolved' list: not a SWE-bench results.json", file=str(path))
        one_verdict({"resolved": lists["resolved"], "no_generation": lists["no_generation"]},
                     str(path))
        one_verdict({"resolved": lists["resolved"], "no_logs": lists["no_logs"]}, str(path))
        resolved = dict.fromkeys(lists["resolved"], True)
        system_ = _System(name, resolved, frozenset(lists["no_logs"]),
                          frozenset(lists["no_generation"]), True, str(path))
        return system_, skipped + _unread_results(system, path)
    resolved, more = _reports(path, max_bytes)
    return _System(name, resolved, frozenset(), frozenset(), False, str(path)), skipped + more


def _unread_results(system: Path, path: Path) -> list[tuple[str, str]]:
    if path.parent == system:
        return []
    return [(f"{system.name}/{path.parent.name}/{e.name}", "not the results read ("
             f"{path.parent.name}/{path.name} is)") for e in entries(path.parent)
            if e.name != path.name]


def _ids(data: dict, key: str, source: str) -> list[str]:
    ids = data.get(key, [])
    expect(ids, list, f"{key!r}", source)
    for value in ids:
        expect(value, str, f"an instance id in {key!r}", source)
    return ids


def _flag(entry: object, source: str, instance: str) -> bool:
    record = expect(entry, dict, f"instance {show(instance)}", source)
    if "resolved" not in record:
        raise InputError(f"instance {show(instance)} has no 'resolved' field", file=source)
    return bool(expect(record["resolved"], bool, f"instance {show(instance)}'s 'resolved'",
                       source))


def _reports(logs: Path, max_bytes: int) -> tuple[dict[str, bool], list[tuple[str, str]]]:
    """``logs/<instance>/report.json`` of one system: resolved by instance, and the rest."""
    system = logs.parent.name
    resolved: dict[str, bool] = {}
    skipped: list[tuple[str, str]] = []
    others = 0
    for entry in entries(logs):
        where = f"{system}/logs/{entry.name}"
        report = Path(entry.path) / "report.json"
        if not entry.is_dir(follow_symlinks=False):
            skipped.append((where, "not an instance folder; not read"))
            continue
        if not report.is_file() or report.is_symlink():
            skipped.append((where, "no report.json (or a link); the instance counts as having "
                                   "no result"))
            continue
        data = expect(load_json(report, max_bytes, unique_keys=True), dict, "the report",
                      str(report))
        inner = data.get(entry.name, data) if len(data) == 1 else data
        resolved[entry.name] = _flag(inner, str(report), entry.name)
        agrees_with_tests(inner, resolved[entry.name], str(report), entry.name)
        others += sum(1 for e in entries(Path(entry.path)) if e.name != "report.json")
    if others:
        skipped.append((f"{system}/logs/*/", f"{others:,} other files in the instance folders "
                                               "(patches, test output); not read"))
    return resolved, skipped


def _instance_list(path: str, max_bytes: int) -> list[str]:
    """The split's instance ids: a JSON list, or one id per line."""
    try:
        data = read_file(path, max_bytes=max_bytes)
    except Unreadable as err:
        raise InputError(str(err), file=path) from None
    text = decode_utf8(data, path, "instance list")   # a BOM (Notepad, Excel) is dropped
    if text.lstrip().startswith("["):
        from leaderboard.ingest.json_logs import parse_json

        ids = expect(parse_json(data, path), list, "the instance list", path)
        ids = [expect(i, str, "an instance id", path) for i in ids]
    else:
        ids = [line.strip() for line in text.split("\n") if line.strip()]
    seen: set[str] = set()
    for row, item in enumerate(ids, start=1):
        if item in seen:
            raise InputError(f"instance {show(item)} is listed twice", file=path, row=row)
        seen.add(item)
    if not ids:
        raise InputError("no instance ids", file=path)
    return ids


def _union(systems: list[_System]) -> list[str]:
    listed = [s for s in systems if s.listed_only]
    if listed:
        raise InputError(f"{listed[0].name}'s results list only the instances resolved; give "
                         "the split's instance ids (one per line) with --instances FILE so the "
                         "unresolved ones are counted (SWE-bench Verified has 500, Lite 300)",
                         file=listed[0].source)
    return sorted({i for s in systems for i in s.resolved} | {i for s in systems
                                                                for i in s.no_logs})


def _note(system: _System, split: list[str], missing: str) -> str | None:
    """How a system's denominator was counted, in one sentence; None when every instance of
    the split has an explicit result."""
    hits = sum(system.resolved.get(i, False) for i in split)
    head = f"{system.name}: {hits:,} of {len(split):,} instances resolved"
    if system.listed_only:
        others = len(split) - hits
        in_split = set(split)
        parts = [f"{n:,} of them with {what}" for n, what in (
            (len(system.no_generation & in_split), "no patch generated"),
            (len(system.no_logs & in_split), "no evaluation log")) if n]
        fate = "count as unresolved"
        if missing == "missing" and system.no_logs & in_split:
            fate += " (those with no evaluation log are left without a value)"
        return (f"{head} (results/results.json lists the resolved ones; the other {others:,} "
                f"{fate}{', ' if parts else ''}{', '.join(parts)})")
    absent = sum(i not in system.resolved for i in split)
    if not absent:
        return None
    fate = "count as unresolved" if missing == "unresolved" else "are left without a value"
    why = " (evaluation errors or no prediction)" if system.no_logs else ""
    return f"{head}; {absent:,} with no result{why} {fate}"


def _cost(system: _System, instance: str, key: str) -> str:
    """An instance's ``key`` in its details record as text (blank with no record: the items
    reader of costs then names the instance); one that is not a number is refused."""
    assert system.records is not None   # the caller refused --cost-col without details
    record = system.records.get(instance)
    if record is None:
        return ""
    if key not in record:
        raise InputError(f"instance {show(instance)} has no {show(key)} (--cost-col); its "
                         f"fields: {', '.join(map(show, list(record)[:12]))}",
                         file=system.source)
    return repr(finite(record[key], f"instance {show(instance)}'s {show(key)}", system.source))


def _repo(instance: str) -> str:
    """The repository of an instance id ``owner__repo-number`` (``django/django``), a natural
    cluster: instances of one repository are related."""
    match = _REPO.match(instance)
    return clean_text(f"{match['owner']}/{match['repo']}") if match else ""
