"""Per-sample logs of EleutherAI's lm-evaluation-harness, read as per-item results.

``lm-eval ... --output_path OUT --log_samples`` writes, per model, a folder
``OUT/<model>/`` holding ``samples_<task>_<timestamp>.jsonl``: one JSON object per line and per
(document, filter), with ``doc_id``, ``filter``, ``metrics`` (the names of the metrics scored) and
one key per metric holding that document's value (``"acc": 1.0``), beside the document, the
prompts and the responses (the evaluator's ``log_samples`` code and its documentation,
``docs/interface.md``). This module turns such a folder into the long table
:func:`~leaderboard.ingest.items.read_items` reads: model = the folder under OUT, item =
``task/doc_id``, task = the category, value = the chosen metric.

Untrusted as any upload: folders are walked without following links, only regular files are
read (size-capped), a line that is not JSON or lacks the metric is an error naming the file and
line, and a metric that is not a number (some forks log dictionaries) is refused, never guessed.
"""
from __future__ import annotations

import math
import os
import re
from pathlib import Path

import pandas as pd

from leaderboard.errors import InputError
from leaderboard.ingest.json_logs import parse_json_lines
from leaderboard.ingest.safe_read import Unreadable, read_file
from leaderboard.ingest.text_rules import clean_text
from leaderboard.ingest.toolkit.messages import show

_SAMPLES = re.compile(r"^samples_(?P<task>.+)_(?P<stamp>\d{4}-\d{2}-\d{2}T[\d\-.:]+)\.jsonl$")


def looks_like_lm_eval(folder: Path) -> bool:
    """Whether ``folder`` holds lm-eval sample logs (a ``samples_*.jsonl`` one level down)."""
    return any(_SAMPLES.match(f.name) for sub in _subfolders(folder) for f in _files(sub))


def read_lm_eval(folder: Path, *, metric: str | None = None, filter_name: str | None = None,
                 max_bytes: int) -> tuple[pd.DataFrame, list[tuple[str, str]]]:
    """The long table (text cells: ``model``, ``item``, ``value``, ``task``) of a folder of
    lm-eval outputs, the newest run of each (model, task) when a task was run twice; and every
    other entry of the folder, as ``(path relative to it, why it was not read)``.

    ``metric`` defaults to the first name in the samples' ``metrics`` lists; ``filter_name``
    is needed only when the logs hold several filters (``strict-match``, ``flexible-extract``).
    """
    rows: list[tuple[str, str, str, str]] = []
    chosen_metric, filters = metric, set()
    skipped = [(e.name, why) for e, why in _others(folder, top=True)]
    for model_dir in _subfolders(folder):
        newest: dict[str, tuple[str, Path]] = {}
        for path in _files(model_dir):
            match = _SAMPLES.match(path.name)
            if not match:
                skipped.append((f"{model_dir.name}/{path.name}", "not an lm-eval "
                                "samples_<task>_<time>.jsonl log"))
            elif match["stamp"] > newest.get(match["task"], ("", path))[0]:
                if match["task"] in newest:
                    skipped.append(_older(model_dir, newest[match["task"]][1], match["task"]))
                newest[match["task"]] = (match["stamp"], path)
            else:
                skipped.append(_older(model_dir, path, match["task"]))
        skipped += [(f"{model_dir.name}/{e.name}", why) for e, why in _others(model_dir)]
        for task, (_, path) in sorted(newest.items()):
            source = str(path)
            for line, sample in _samples(path, source, max_bytes):
                chosen_metric = chosen_metric or _first_metric(sample, source, line)
                flt = clean_text(sample.get("filter", "none"))
                filters.add(flt)
                if filter_name is not None and flt != filter_name:
                    continue
                value = sample.get(chosen_metric)
                if isinstance(value, (bool, int)):
                    value = _finite(value)
                if not isinstance(value, (int, float)) or not math.isfinite(value):
                    names = ", ".join(map(show, sample.get("metrics", [])))
                    raise InputError(f"metric {show(chosen_metric)} is "
                                     f"{_what(value)} here "
                                     f"(its metrics: {names})", file=source, row=line)
                if "doc_id" not in sample:
                    raise InputError("no doc_id: not an lm-eval sample log", file=source, row=line)
                rows.append((clean_text(model_dir.name),
                             clean_text(f"{task}/{sample['doc_id']}"), repr(float(value)),
                             clean_text(task)))
    if not rows and not filters:
        raise InputError("no lm-eval samples_<task>_<time>.jsonl logs found one folder down "
                         "(lm-eval --output_path OUT --log_samples writes OUT/<model>/...)",
                         file=str(folder))
    if filter_name is None and len(filters) > 1:
        raise InputError(f"the logs hold several filters ({', '.join(map(show, sorted(filters)))}"
                         "): choose one with --harness-filter", file=str(folder))
    if filter_name is not None and filter_name not in filters:
        raise InputError(f"--harness-filter {show(filter_name)}: the logs' filters are "
                         f"{', '.join(map(show, sorted(filters)))}", file=str(folder))
    frame = pd.DataFrame(rows, columns=["model", "item", "value", "task"])
    frame.index = range(2, len(frame) + 2)
    return frame, sorted((clean_text(name), why) for name, why in skipped)


def _finite(value: int) -> float:
    """An integer metric value as a float (a 400-digit one is too large: NaN, refused)."""
    try:
        return float(value)
    except OverflowError:
        return math.nan


def _what(value: object) -> str:
    if value is None:
        return "missing"
    if isinstance(value, (int, float)):
        return f"not a finite number ({_short(value)})"
    return "not a number"


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 20 else text[:20] + "..."


def _older(model_dir: Path, path: Path, task: str) -> tuple[str, str]:
    return (f"{model_dir.name}/{path.name}", f"an older run of {task} (the newest log is read)")


def _others(folder: Path, top: bool = False):
    """The entries of ``folder`` that are not read, with the reason: links, special files,
    and (at the top) files, or (in a model folder) folders."""
    with os.scandir(folder) as entries:
        for e in sorted(entries, key=lambda e: e.name):
            if e.is_symlink():
                yield e, "a link; not followed"
            elif e.name.startswith(".") and e.is_dir(follow_symlinks=False) and top:
                yield e, "a hidden folder; not read"
            elif e.is_dir(follow_symlinks=False):
                if not top:
                    yield e, "a folder inside a model's folder; not read"
            elif e.is_file(follow_symlinks=False):
                if top:
                    yield e, "a file beside the model folders (lm-eval writes OUT/<model>/...)"
            else:
                yield e, "not a regular file; not read"


def _subfolders(folder: Path) -> list[Path]:
    with os.scandir(folder) as entries:   # links are not followed out of the folder
        return sorted(Path(e.path) for e in entries
                      if e.is_dir(follow_symlinks=False) and not e.name.startswith("."))


def _files(folder: Path) -> list[Path]:
    with os.scandir(folder) as entries:
        return sorted(Path(e.path) for e in entries if e.is_file(follow_symlinks=False))


def _samples(path: Path, source: str, max_bytes: int):
    try:
        data = read_file(path, max_bytes=max_bytes, follow_links=False)
    except Unreadable as err:
        raise InputError(str(err), file=source) from None
    for line, sample in parse_json_lines(data, source):
        if not isinstance(sample, dict):
            raise InputError("not a JSON object", file=source, row=line)
        yield line, sample


def _first_metric(sample: dict, source: str, line: int) -> str:
    names = sample.get("metrics")
    if not isinstance(names, list) or not names:
        raise InputError("no 'metrics' list to choose the value from; name the metric with "
                         "--value-col", file=source, row=line)
    return str(names[0])
