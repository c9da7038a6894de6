"""Which reader an ``--items`` path needs, and the one call that reads it.

``--items`` takes a long table (CSV or Parquet) or what a benchmark publishes:

========== =========================================================================
format     what PATH is
========== =========================================================================
table      a CSV or Parquet file, one row per (model, item)
harness    lm-evaluation-harness ``--log_samples`` output: OUT/<model>/samples_*.jsonl
swebench   SWE-bench results: a folder of system folders (evaluation/<split>/)
helm       a HELM suite folder: benchmark_output/runs/<suite>/<run>/per_instance_stats.json
inspect    an Inspect log (.json or .eval) or a folder of them
========== =========================================================================

``auto`` (the default) recognises each by its files; a folder that looks like two of them is an
error asking for ``--items-format``.
"""
from __future__ import annotations

from pathlib import Path

import pandas as pd

from leaderboard.choices import ITEMS_FORMATS
from leaderboard.errors import InputError

FORMATS = ITEMS_FORMATS


def detect(path: Path) -> str:
    """The format of ``path`` (see the module's table), for ``--items-format auto``.

    Examples
    --------
    >>> detect(Path("results.csv"))
    'table'
    >>> detect(Path("2026-01-01T00-00-00_quiz.eval"))
    'inspect'
    """
    from leaderboard.ingest.harness import looks_like_lm_eval
    from leaderboard.ingest.helm import looks_like_helm
    from leaderboard.ingest.inspect_logs import looks_like_inspect
    from leaderboard.ingest.swebench import looks_like_swebench

    if not path.is_dir():
        return "inspect" if path.suffix == ".eval" or looks_like_inspect(path) else "table"
    found = [name for name, test in (("harness", looks_like_lm_eval), ("helm", looks_like_helm),
                                     ("swebench", looks_like_swebench),
                                     ("inspect", looks_like_inspect)) if test(path)]
    if len(found) > 1:
        raise InputError(f"the folder holds files of several formats ({', '.join(found)}); "
                         "choose one with --items-format", file=str(path))
    if not found:
        raise InputError("a folder of none of the formats --items reads: lm-evaluation-harness "
                         "logs (OUT/<model>/samples_*.jsonl), SWE-bench results (<system>/"
                         "results/results.json, per_instance_details.json or logs/<id>/"
                         "report.json), HELM runs (<run>/per_instance_stats.json) or Inspect "
                         "logs (.json, .eval)", file=str(path))
    return found[0]


def refuse_other_formats(fmt: str, *, harness_filter: str | None = None,
                         instances: str | None = None,
                         missing_instances: str = "unresolved") -> None:
    """Refuse, in one line, an option of one benchmark's reader given with files of another
    format (``fmt``: the one detected or given, ``table`` for a plain table or a DataFrame),
    where it would be ignored.

    Examples
    --------
    >>> refuse_other_formats("swebench", instances="ids.txt")
    >>> refuse_other_formats("table", harness_filter="none")
    Traceback (most recent call last):
    ...
    leaderboard.errors.InputError: --harness-filter is for lm-evaluation-harness logs; --items-format is table
    """
    if (instances is not None or missing_instances != "unresolved") and fmt != "swebench":
        option = "--instances" if instances is not None else "--missing-instances"
        raise InputError(f"{option} is for SWE-bench results; --items-format is {fmt}")
    if harness_filter is not None and fmt != "harness":
        raise InputError(f"--harness-filter is for lm-evaluation-harness logs; --items-format "
                         f"is {fmt}")


def read_benchmark(path: Path, fmt: str, *, metric: str | None = None,
                   harness_filter: str | None = None, instances: str | None = None,
                   missing_instances: str = "unresolved", max_bytes: int
                   ) -> tuple[pd.DataFrame, list[tuple[str, str]], list[str]]:
    """What a benchmark published, as the long table :func:`~leaderboard.ingest.items.read_items`
    reads (text cells ``model``, ``item``, ``value`` and a ``task`` or ``repo`` column), the
    entries not read as ``(path, why)``, and notes on how values were counted.

    ``metric`` is the harness's metric, HELM's stat or Inspect's scorer (None: each format's
    default); ``instances`` and ``missing_instances`` are SWE-bench's denominator
    (:mod:`~leaderboard.ingest.swebench`).

    Examples
    --------
    >>> import json, tempfile
    >>> log = Path(tempfile.mkdtemp()) / "quiz.json"
    >>> _ = log.write_text(json.dumps({"version": 2, "status": "success",
    ...     "eval": {"model": "org/m", "task": "quiz", "created": "2026-01-01"},
    ...     "samples": [{"id": 1, "epoch": 1, "scores": {"match": {"value": "C"}}}]}))
    >>> frame, skipped, notes = read_benchmark(log, "inspect", max_bytes=1 << 20)
    >>> frame.values.tolist()
    [['org/m', 'quiz/1', '1.0', 'quiz']]
    """
    if fmt not in FORMATS or fmt in ("auto", "table"):
        raise ValueError(f"not a benchmark format: {fmt!r}")
    if fmt != "inspect" and not path.is_dir():
        raise InputError(f"--items-format {fmt} reads a folder; this is not one", file=str(path))
    refuse_other_formats(fmt, harness_filter=harness_filter, instances=instances,
                         missing_instances=missing_instances)
    if fmt == "harness":
        from leaderboard.ingest.harness import read_lm_eval

        frame, skipped = read_lm_eval(path, metric=metric, filter_name=harness_filter,
                                      max_bytes=max_bytes)
        return frame, skipped, []
    if fmt == "swebench":
        from leaderboard.ingest.swebench import read_swebench

        if metric is not None:
            raise InputError("SWE-bench results hold one value, resolved; --value-col does not "
                             "apply")
        return read_swebench(path, instances=instances, missing=missing_instances,
                             max_bytes=max_bytes)
    if fmt == "helm":
        from leaderboard.ingest.helm import read_helm

        return read_helm(path, metric=metric, max_bytes=max_bytes)
    from leaderboard.ingest.inspect_logs import read_inspect

    return read_inspect(path, metric=metric, max_bytes=max_bytes)
