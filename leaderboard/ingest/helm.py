"""HELM's per-instance outputs, read as per-item results.

``helm-run --suite SUITE`` writes ``benchmark_output/runs/SUITE/<run>/`` per run (one scenario and
one model), holding ``run_spec.json`` (the run's ``name`` and ``adapter_spec.model``),
``per_instance_stats.json`` (a list of ``{"instance_id", "train_trial_index", "perturbation",
"stats": [{"name": {"name": "exact_match", "split": "test"}, "count", "sum", "mean", ...}]}``)
and ``stats.json`` (the run's aggregated stats, the numbers HELM's tables show); HELM's
``PerInstanceStats`` and ``Stat`` classes define the fields. PATH is the suite folder.

The long table: model = ``adapter_spec.model``, item = ``<scenario>/<instance_id>`` where the
scenario is the run name without its ``model=`` part, task = the scenario (a category when
there are several), value = the chosen metric's ``mean`` on the instance. Perturbed copies of
an instance (robustness and fairness variants) are left out: HELM's headline numbers are on the
unperturbed instances. Several train trials of an instance are averaged, as HELM's aggregate
does. When the run has ``stats.json``, the mean read here is checked against it and any
difference is said in the notes.
"""
from __future__ import annotations

import math
from pathlib import Path

import pandas as pd

from leaderboard.errors import InputError
from leaderboard.ingest.json_logs import entries, expect, finite, load_json
from leaderboard.ingest.text_rules import clean_text
from leaderboard.ingest.toolkit.messages import show

DEFAULT_METRIC = "exact_match"
_MODEL_ARGS = ("model=", "model_deployment=")


def looks_like_helm(folder: Path) -> bool:
    """Whether a folder one level down holds HELM's ``per_instance_stats.json``.

    Examples
    --------
    >>> import tempfile
    >>> suite = Path(tempfile.mkdtemp())
    >>> (suite / "boolq,model=org_m").mkdir()
    >>> _ = (suite / "boolq,model=org_m" / "per_instance_stats.json").write_text("[]")
    >>> looks_like_helm(suite), looks_like_helm(suite / "boolq,model=org_m")
    (True, False)
    """
    return any((Path(e.path) / "per_instance_stats.json").is_file() for e in entries(folder)
               if e.is_dir(follow_symlinks=False))


def read_helm(folder: Path, *, metric: str | None = None, max_bytes: int
              ) -> tuple[pd.DataFrame, list[tuple[str, str]], list[str]]:
    """The long table (text cells ``model``, ``item``, ``value``, ``task``) of a HELM suite
    folder; the entries not read as ``(path, why)``; notes on what was left out or disagreed.

    Examples
    --------
    >>> import json, tempfile
    >>> run = Path(tempfile.mkdtemp()) / "mmlu:subject=anatomy,model=org_m"
    >>> run.mkdir()
    >>> _ = (run / "run_spec.json").write_text(json.dumps(
    ...     {"name": run.name, "adapter_spec": {"model": "org/m"}}))
    >>> stat = lambda v: {"name": {"name": "exact_match", "split": "test"}, "count": 1,
    ...                   "sum": v, "mean": v}
    >>> _ = (run / "per_instance_stats.json").write_text(json.dumps(
    ...     [{"instance_id": f"id{i}", "train_trial_index": 0, "stats": [stat(i % 2)]}
    ...      for i in range(3)]))
    >>> frame, skipped, notes = read_helm(run.parent, max_bytes=1 << 20)
    >>> frame.values.tolist()[1]
    ['org/m', 'mmlu:subject=anatomy/id1', '1.0', 'mmlu:subject=anatomy']
    """
    metric = metric or DEFAULT_METRIC
    rows: list[tuple[str, str, str, str]] = []
    skipped: list[tuple[str, str]] = []
    notes: list[str] = []
    for entry in entries(folder):
        if entry.is_symlink():
            skipped.append((entry.name, "a link; not followed"))
        elif entry.name.startswith("."):
            skipped.append((entry.name, "hidden; not read"))
        elif not entry.is_dir(follow_symlinks=False):
            skipped.append((entry.name, "a file beside the run folders; not read"))
        elif not (Path(entry.path) / "per_instance_stats.json").is_file():
            skipped.append((entry.name, "no per_instance_stats.json; not a HELM run folder"))
        else:
            run_rows, run_notes = _read_run(Path(entry.path), metric, max_bytes)
            rows += run_rows
            notes += run_notes
            skipped += [(f"{entry.name}/{e.name}", "not read (run_spec.json and "
                         "per_instance_stats.json are; stats.json is checked)")
                        for e in entries(Path(entry.path))
                        if e.name not in ("run_spec.json", "per_instance_stats.json",
                                          "stats.json")]
    if not rows:
        raise InputError("no HELM run folders (<run>/per_instance_stats.json) found one folder "
                         "down; give the suite folder benchmark_output/runs/<suite>",
                         file=str(folder))
    frame = pd.DataFrame(rows, columns=["model", "item", "value", "task"])
    frame.index = range(2, len(frame) + 2)
    return frame, sorted(skipped), notes


def _read_run(run: Path, metric: str, max_bytes: int) -> tuple[list, list[str]]:
    spec_path = run / "run_spec.json"
    spec = expect(load_json(spec_path, max_bytes), dict, "run_spec.json", str(spec_path))
    adapter = expect(spec.get("adapter_spec", {}), dict, "adapter_spec", str(spec_path))
    model = adapter.get("model") or adapter.get("model_deployment")
    expect(model, str, "adapter_spec.model", str(spec_path))
    name = expect(spec.get("name", run.name), str, "name", str(spec_path))
    scenario = scenario_of(name)
    source = str(run / "per_instance_stats.json")
    records = expect(load_json(run / "per_instance_stats.json", max_bytes), list,
                     "per_instance_stats.json", source)
    by_split: dict[str, dict[str, list[float]]] = {}
    seen: set[tuple[str, str, str]] = set()
    perturbed = 0
    for row, record in enumerate(records, start=1):
        expect(record, dict, f"entry {row}", source)
        if record.get("perturbation") is not None:
            perturbed += 1
            continue
        instance = record.get("instance_id")
        expect(instance, (str, int), f"entry {row}'s instance_id", source)
        split, value = _metric(record, metric, source, row)
        trial = str(record.get("train_trial_index", 0))
        if (split, str(instance), trial) in seen:   # HELM writes each (instance, trial) once
            raise InputError(f"entry {row}: instance {show(str(instance))} (train trial "
                             f"{show(trial)}, {show(split)} split) is given twice; which of "
                             "its results holds is ambiguous", file=source)
        seen.add((split, str(instance), trial))
        by_split.setdefault(split, {}).setdefault(str(instance), []).append(value)
    if not by_split:
        raise InputError("no unperturbed instance", file=source)
    split = "test" if "test" in by_split else sorted(by_split)[0]
    sums = by_split[split]
    rows = [(clean_text(model), clean_text(f"{scenario}/{i}"), repr(math.fsum(v) / len(v)),
             clean_text(scenario)) for i, v in sums.items()]
    notes = [f"{scenario} ({model}): the {split} split read; {len(v):,} instances of the "
             f"{s} split left out" for s, v in sorted(by_split.items()) if s != split]
    if perturbed:
        notes.append(f"{scenario} ({model}): {perturbed:,} perturbed instances left out "
                     "(HELM's headline numbers are on the unperturbed ones)")
    trials = {len(v) for v in sums.values()}
    if trials != {1}:
        notes.append(f"{scenario} ({model}): {max(trials)} train trials per instance, averaged")
    check = _published(run / "stats.json", metric, split, max_bytes)
    if check is not None:
        mean = math.fsum(math.fsum(v) / len(v) for v in sums.values()) / len(sums)
        if abs(mean - check) > 1e-9 * max(1.0, abs(check)):
            notes.append(f"{scenario} ({model}): {metric} here {mean:.6g}, its stats.json "
                         f"says {check:.6g}")
    return rows, notes


def scenario_of(run_name: str) -> str:
    """The run name without its model arguments: the scenario, the same for every model.

    Examples
    --------
    >>> scenario_of("mmlu:subject=anatomy,method=multiple_choice_joint,model=openai_gpt2")
    'mmlu:subject=anatomy,method=multiple_choice_joint'
    >>> scenario_of("simple_mcqa:model=simple_model1")
    'simple_mcqa'
    """
    head, _, arguments = run_name.partition(":")
    kept = [a for a in arguments.split(",") if a and not a.startswith(_MODEL_ARGS)]
    return f"{head}:{','.join(kept)}" if kept else head


def _metric(record: dict, metric: str, source: str, row: int) -> tuple[str, float]:
    """The instance's split and its unperturbed ``metric``; refused when the entry gives that
    stat twice with different values (which one holds would be a guess)."""
    stats = expect(record.get("stats"), list, f"entry {row}'s stats", source)
    names = []
    found: list[tuple[str, float]] = []
    instance = show(str(record.get("instance_id")))
    for stat in stats:
        label = expect(stat, dict, f"entry {row}'s stat", source).get("name")
        label = expect(label, dict, f"entry {row}'s stat name", source)
        names.append(str(label.get("name")))
        if label.get("name") == metric and label.get("perturbation") is None:
            value = stat.get("mean")
            if value is None and stat.get("count"):
                value = finite(stat.get("sum"), f"entry {row}: {metric}'s sum", source) / \
                    finite(stat["count"], f"entry {row}: {metric}'s count", source)
            found.append((str(label.get("split")), finite(
                value, f"entry {row}: {metric} of instance {instance}", source)))
    if len(set(found)) > 1:
        given = "; ".join(f"{v:g} ({show(split)} split)" for split, v in dict.fromkeys(found))
        raise InputError(f"entry {row}: instance {instance} gives its unperturbed "
                         f"{show(metric)} stat {len(found)} times with different values "
                         f"({given}); which one holds is ambiguous", file=source)
    if found:
        return found[0]
    shown = ", ".join(map(show, sorted(set(names))[:12]))
    raise InputError(f"entry {row}: instance {instance} has no "
                     f"{show(metric)} stat (its stats: {shown}); choose one with --value-col",
                     file=source)


def _published(path: Path, metric: str, split: str, max_bytes: int) -> float | None:
    """The run's aggregated ``metric`` on ``split`` (unperturbed) from ``stats.json``, or None."""
    if not path.is_file() or path.is_symlink():
        return None
    stats = load_json(path, max_bytes)
    if not isinstance(stats, list):
        return None
    for stat in stats:
        label = stat.get("name") if isinstance(stat, dict) else None
        if (isinstance(label, dict) and label.get("name") == metric
                and str(label.get("split")) == split and label.get("perturbation") is None
                and label.get("sub_split") is None
                and isinstance(stat.get("mean"), (int, float))):
            return float(stat["mean"])
    return None
