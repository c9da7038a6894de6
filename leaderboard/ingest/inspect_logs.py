"""Inspect (UK AISI ``inspect_ai``) evaluation logs, read as per-item results.

An Inspect log holds one evaluation of one task by one model: ``eval`` (``model``, ``task``,
``created``), ``status``, ``results`` and ``samples``, each sample with its ``id``, ``epoch`` and
``scores`` (``{scorer: {"value": ..., "answer": ..., "explanation": ...}}``). Two formats carry
it (Inspect's ``log/_log.py`` and ``log/_recorders``): ``.json``, the whole log in one document,
and ``.eval``, a zip with ``header.json`` (``_journal/start.json`` while a run is under way) and
one ``samples/<id>_epoch_<n>.json`` per sample. PATH is one log or a folder of them (a log dir).

The long table: model = ``eval.model``, item = ``<task>/<sample id>``, task = ``eval.task`` (a
category when there are several), value = the chosen scorer's value as Inspect's own
``value_to_float`` reads it (``C`` 1, ``P`` 0.5, ``I`` and ``N`` 0, true/false, yes/no,
numbers and numeric text), averaged over epochs (Inspect's default ``mean`` reducer). The
scorer is ``metric`` (``scorer`` or ``scorer/key`` for a scorer whose value is a dictionary),
by default the first scorer of the first log. When a task was run twice for a model, the newest
log (``eval.created``) is read and the older one is listed as not read.
"""
from __future__ import annotations

import io
import math
import re
import struct
import zipfile
import zlib
from pathlib import Path

import pandas as pd

from leaderboard.errors import InputError
from leaderboard.ingest.json_logs import (check_memory, entries, expect, finite,
                                          memory_estimate, parse_json)
from leaderboard.ingest.safe_read import (Budget, Unreadable, capped_read, read_file,
                                          zip_is_link, zip_member)
from leaderboard.ingest.text_rules import clean_text
from leaderboard.ingest.toolkit.messages import show

SUFFIXES = (".json", ".eval")
_MAX_MEMBERS = 1_000_000
_ZSTD = 93          # the zip compression method number of Zstandard
_SAMPLE = re.compile(r"^samples/[^/]+\.json$")
_LETTERS = {"C": 1.0, "P": 0.5, "I": 0.0, "N": 0.0}
_WORDS = {"yes": 1.0, "true": 1.0, "no": 0.0, "false": 0.0}


def looks_like_inspect(path: Path) -> bool:
    """Whether ``path`` is an ``.eval`` log, a ``.json`` log (an object with ``eval`` and
    ``version`` near its start), or a folder holding one.

    Examples
    --------
    >>> import tempfile
    >>> log = Path(tempfile.mkdtemp()) / "run.json"
    >>> _ = log.write_text('{"version": 2, "status": "success", "eval": {}, "samples": []}')
    >>> looks_like_inspect(log), looks_like_inspect(log.parent), looks_like_inspect(Path("x.csv"))
    (True, True, False)
    """
    if path.is_dir():
        return any(looks_like_inspect(Path(e.path)) for e in entries(path)
                   if e.is_file(follow_symlinks=False) and e.name.endswith(SUFFIXES))
    if path.suffix == ".eval":
        return True
    if path.suffix != ".json" or not path.is_file():
        return False
    with open(path, "rb") as handle:
        head = handle.read(4096)
    return head.lstrip().startswith(b"{") and b'"eval"' in head and b'"version"' in head


def read_inspect(path: Path, *, metric: str | None = None, max_bytes: int
                 ) -> tuple[pd.DataFrame, list[tuple[str, str]], list[str]]:
    """The long table (text cells ``model``, ``item``, ``value``, ``task``) of one Inspect log
    or a folder of them; the entries not read as ``(path, why)``; notes (epochs averaged,
    samples without a score, runs that did not finish).

    Examples
    --------
    >>> import json, tempfile
    >>> log = Path(tempfile.mkdtemp()) / "2026-01-01T00-00-00_quiz.json"
    >>> _ = log.write_text(json.dumps({"version": 2, "status": "success",
    ...     "eval": {"model": "openai/m", "task": "quiz", "created": "2026-01-01T00:00:00"},
    ...     "samples": [{"id": i, "epoch": 1, "scores": {"match": {"value": v}}}
    ...                 for i, v in enumerate("CIP", start=1)]}))
    >>> frame, skipped, notes = read_inspect(log, max_bytes=1 << 20)
    >>> frame["value"].tolist()
    ['1.0', '0.0', '0.5']
    """
    skipped: list[tuple[str, str]] = []
    logs: list[tuple[Path, dict, list]] = []
    for file in _log_files(path, skipped):
        logs.append((file, *_load(file, max_bytes)))
    if not logs:
        raise InputError("no Inspect logs (.json or .eval) found", file=str(path))
    newest: dict[tuple[str, str], tuple[str, Path, dict, list]] = {}
    for file, header, samples in logs:
        spec = expect(header.get("eval"), dict, "'eval'", str(file))
        model = expect(spec.get("model"), str, "eval.model", str(file))
        task = expect(spec.get("task"), str, "eval.task", str(file))
        created = str(spec.get("created", ""))
        key = (model, task)
        if key in newest and newest[key][0] >= created:
            skipped.append((_name(path, file), f"an older log of {task} by {model} (the newest "
                                               "is read)"))
            continue
        if key in newest:
            skipped.append((_name(path, newest[key][1]), f"an older log of {task} by {model} "
                                                         "(the newest is read)"))
        newest[key] = (created, file, header, samples)
    scorer = metric or _first_scorer(logs)
    rows: list[tuple[str, str, str, str]] = []
    notes: list[str] = []
    for (model, task), (_, file, header, samples) in sorted(newest.items()):
        values, unscored, epochs = _values(samples, scorer, str(file))
        rows += [(clean_text(model), clean_text(f"{task}/{i}"), repr(v), clean_text(task))
                 for i, v in values.items()]
        status = header.get("status")
        if status != "success":
            notes.append(f"{task} ({model}): the log's status is {show(str(status))}; "
                         f"{len(values):,} samples read")
        if unscored:
            notes.append(f"{task} ({model}): {unscored:,} samples without a {show(scorer)} "
                         "score (errors) have no value")
        if epochs > 1:
            notes.append(f"{task} ({model}): {epochs} epochs per sample, averaged")
    if not rows:
        raise InputError(f"no sample has a {show(scorer)} score", file=str(path))
    frame = pd.DataFrame(rows, columns=["model", "item", "value", "task"])
    frame.index = range(2, len(frame) + 2)
    return frame, sorted(skipped), notes


def _log_files(path: Path, skipped: list[tuple[str, str]]) -> list[Path]:
    if not path.is_dir():
        return [path]
    found = []
    for entry in entries(path):
        if entry.is_symlink():
            skipped.append((entry.name, "a link; not followed"))
        elif entry.name.startswith("."):
            skipped.append((entry.name, "hidden; not read"))
        elif entry.is_dir(follow_symlinks=False):
            skipped.append((entry.name, "a folder inside the log folder; not read"))
        elif not entry.is_file(follow_symlinks=False):
            skipped.append((entry.name, "not a regular file; not read"))
        elif entry.name == "logs.json" or not entry.name.endswith(SUFFIXES):
            skipped.append((entry.name, "not an Inspect log (.json or .eval)"))
        else:
            found.append(Path(entry.path))
    return found


def _name(root: Path, file: Path) -> str:
    return file.name if root.is_dir() else str(file)


def _load(file: Path, max_bytes: int) -> tuple[dict, list]:
    """A log's header (``eval``, ``status``, ...) and its samples."""
    source = str(file)
    try:
        data = read_file(file, max_bytes=max_bytes, follow_links=False, decompress=False)
    except Unreadable as err:
        raise InputError(str(err), file=source) from None
    if file.suffix == ".eval":
        return _load_zip(data, source, max_bytes)
    log = expect(parse_json(data, source), dict, "the log", source)
    if "eval" not in log:
        raise InputError("no 'eval' object: not an Inspect log", file=source)
    samples = log.get("samples") or []
    return log, expect(samples, list, "'samples'", source)


def _load_zip(data: bytes, source: str, max_bytes: int) -> tuple[dict, list]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = archive.infolist()
    except (zipfile.BadZipFile, OSError, ValueError) as err:
        raise InputError(f"not a readable .eval (zip) log ({str(err)[:80]})",
                         file=source) from None
    if len(members) > _MAX_MEMBERS:
        raise InputError(f"{len(members):,} members; more than an evaluation log holds",
                         file=source)
    budget = Budget(len(data), max_bytes)   # one for every member: what the log expands to
    parsed = [0]

    def member(info: zipfile.ZipInfo) -> object:
        try:
            raw = (_zstd_member(data, info, budget) if info.compress_type == _ZSTD
                   else zip_member(archive, info, budget))
        except Unreadable as err:
            raise InputError(f"{err} (all members together)",
                             file=f"{source}:{info.filename}") from None
        parsed[0] += memory_estimate(raw)   # what every member parsed so far takes
        check_memory(b"", source, parsed[0])
        return parse_json(raw, f"{source}:{info.filename}", memory_checked=True)

    by_name = {m.filename: m for m in members}
    head = by_name.get("header.json") or by_name.get("_journal/start.json")
    if head is None:
        raise InputError("no header.json or _journal/start.json: not an Inspect .eval log",
                         file=source)
    header = expect(member(head), dict, "header.json", source)
    samples = [expect(member(m), dict, m.filename, source) for m in members
               if _SAMPLE.match(m.filename)]
    if head.filename != "header.json":
        header = {**header, "status": header.get("status", "started")}
    return header, samples


def _zstd_member(data: bytes, info: zipfile.ZipInfo, budget: Budget) -> bytes:
    """A zip member compressed with Zstandard (method 93: recent Inspect versions write .eval
    logs so; Python's zipfile reads it only from 3.14), capped like any member and checked
    against its CRC."""
    if zip_is_link(info):
        raise Unreadable("a symbolic link stored in the zip; not followed")
    if info.file_size > budget.left:
        raise budget.refusal(info.file_size)
    try:
        import zstandard
    except ImportError:
        raise Unreadable("compressed with Zstandard, as recent Inspect versions write .eval "
                         "logs; pip install zstandard") from None
    start = info.header_offset
    if data[start:start + 4] != b"PK\x03\x04":
        raise Unreadable("cannot be read from the zip (no local header)")
    name_length, extra_length = struct.unpack("<HH", data[start + 26:start + 30])
    begin = start + 30 + name_length + extra_length
    packed = data[begin:begin + info.compress_size]
    try:
        with zstandard.ZstdDecompressor().stream_reader(io.BytesIO(packed)) as reader:
            raw = capped_read(reader, budget)
    except zstandard.ZstdError as err:
        raise Unreadable(f"cannot be read from the zip ({str(err)[:80]})") from None
    if zlib.crc32(raw) != info.CRC:
        raise Unreadable("cannot be read from the zip (its CRC does not match: damaged)")
    return raw


def _first_scorer(logs: list[tuple[Path, dict, list]]) -> str:
    for _, _, samples in logs:
        for sample in samples:
            scores = sample.get("scores") if isinstance(sample, dict) else None
            if isinstance(scores, dict) and scores:
                return str(next(iter(scores)))
    statuses = sorted({str(header.get("status")) for _, header, _ in logs})
    raise InputError(f"no sample has a score (the logs' status: {', '.join(map(show, statuses))})",
                     file=str(logs[0][0]))


def _values(samples: list, scorer: str, source: str) -> tuple[dict[str, float], int, int]:
    """Each sample id's value (the mean over its epochs), the samples without a score, and the
    largest number of epochs of a sample."""
    name, _, key = scorer.partition("/")
    sums: dict[str, list[float]] = {}
    unscored: set[str] = set()
    seen: set[tuple[str, str]] = set()
    for row, sample in enumerate(samples, start=1):
        expect(sample, dict, f"sample {row}", source)
        ident = sample.get("id")
        expect(ident, (str, int), f"sample {row}'s id", source)
        where = f"sample {show(str(ident))} (epoch {show(str(sample.get('epoch', 1)))})"
        once = (str(ident), str(sample.get("epoch", 1)))
        if once in seen:   # a log lists each sample once per epoch: a second is a contradiction
            raise InputError(f"{where} is given twice; which of its results holds is "
                             "ambiguous", file=source)
        seen.add(once)
        scores = sample.get("scores")
        if not scores or name not in scores:
            if scores and not sample.get("error"):
                raise InputError(f"{where} has no {show(name)} score (its scorers: "
                                 f"{', '.join(map(show, scores))}); choose one with "
                                 "--value-col", file=source)
            unscored.add(str(ident))
            continue
        score = expect(scores[name], dict, f"{where}'s {show(name)} score", source)
        sums.setdefault(str(ident), []).append(_to_float(score.get("value"), key, where,
                                                         source))
    values = {i: math.fsum(v) / len(v) for i, v in sums.items()}
    return values, len(unscored - set(values)), max((len(v) for v in sums.values()), default=0)


def _to_float(value: object, key: str, where: str, source: str) -> float:
    """A score value as Inspect's ``value_to_float`` reads it; a dictionary needs ``key``."""
    if isinstance(value, dict):
        if key not in value:
            raise InputError(f"{where}'s score is a dictionary ({', '.join(map(show, value))})"
                             ": name one as --value-col scorer/key", file=source)
        value = value[key]
    if isinstance(value, (bool, int, float)):   # the one check of numbers the JSON readers share
        return finite(value, f"{where}'s score value", source)
    if isinstance(value, str):
        text = value.strip()
        if text in _LETTERS:
            return _LETTERS[text]
        if text.lower() in _WORDS:
            return _WORDS[text.lower()]
        try:
            number = float(text)
        except ValueError:
            number = math.nan
        if math.isfinite(number):
            return number
    raise InputError(f"{where}'s score value {show(str(value)[:30])} is not a number, C/I/P/N "
                     "or yes/no", file=source)
