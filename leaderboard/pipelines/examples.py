"""The bundled examples ``analyze --example NAME`` runs (:data:`leaderboard.choices.EXAMPLES`):
their files under data/ (shipped as ``leaderboard._data``), the settings preset where the options
leave them unset, and the submissions example generated into a temporary folder whose files the
page names as the example's.
"""
from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from leaderboard.choices import EXAMPLES
from leaderboard.errors import InputError
from leaderboard.options import AnalyzeOptions, ReadOptions
from leaderboard.resources import data_dir

if TYPE_CHECKING:
    from leaderboard.pipelines.modes.base import Inputs
    from leaderboard.pipelines.analysis import Analysis


def with_example(inputs: Inputs, options: AnalyzeOptions) -> tuple[Inputs, AnalyzeOptions]:
    """A bundled example's inputs, its settings preset where the options leave them unset."""
    if (inputs.board is not None or inputs.solution is not None or inputs.submissions is not None
            or inputs.items is not None):
        raise InputError("give either input files or --example, not both")
    if inputs.example not in EXAMPLES or inputs.example == "battles":
        raise InputError(f"example= must be one of {', '.join(EXAMPLES[:-1])} (battles: "
                         f"analyze_battles), got {inputs.example!r}")
    noise, slices = options.noise, options.slices
    if inputs.example == "submissions":
        preset = make_submissions_example()
        inputs = replace(inputs, solution=preset["solution"], submissions=preset["submissions"])
        noise = replace(noise, metric=noise.metric or preset["metric"])
    elif inputs.example == "items":
        return _items_example(inputs, options)
    elif inputs.example == "kaggle":
        # the same competition's public board (Kaggle's download): its public slice's size
        preset = json.loads((data_dir() / "example_leaderboard.json").read_text(encoding="utf-8"))
        inputs = replace(inputs, board=str(data_dir() / "example_kaggle_download.csv"))
        noise = replace(noise, metric=noise.metric or preset["metric"],
                        prevalence=preset["prevalence"] if noise.prevalence is None
                        else noise.prevalence)
        slices = replace(slices, n_test=preset["n_public"] if slices.n_test is None
                         else slices.n_test)
    else:
        preset = json.loads((data_dir() / "example_leaderboard.json").read_text(encoding="utf-8"))
        inputs = replace(inputs, board=str(data_dir() / preset["file"]))
        noise = replace(noise, metric=noise.metric or preset["metric"],
                        prevalence=preset["prevalence"] if noise.prevalence is None
                        else noise.prevalence)
        # the slices' sizes imply n_test (the private slice ranks the board)
        if slices.n_test is None and slices.public_fraction is None:
            slices = replace(slices, **{k: preset[k] if getattr(slices, k) is None
                                        else getattr(slices, k) for k in ("n_public", "n_private")})
        else:
            slices = replace(slices, n_test=preset["n_test"] if slices.n_test is None
                             else slices.n_test)
    return inputs, replace(options, noise=noise, slices=slices)


def _items_example(inputs: Inputs, options: AnalyzeOptions) -> tuple[Inputs, AnalyzeOptions]:
    """The per-item example (data/make_items_example.py): its columns preset where the options
    keep their defaults."""
    preset = json.loads((data_dir() / "example_items.json").read_text(encoding="utf-8"))
    read = options.read
    columns = {name: preset[name] for name in ("item_col", "value_col", "cluster_col")
               if getattr(read, name) == getattr(ReadOptions(), name)}
    return (replace(inputs, items=str(data_dir() / preset["items"])),
            replace(options, read=replace(read, **columns)))


def example_source(path: str) -> str:
    """How a page names a file of the submissions example: by its name, not by the temporary
    folder it was generated into (removed when the run ends: a page naming it would point
    nowhere).

    Examples
    --------
    >>> example_source("/tmp/leaderboard-example-x1/example_solution.csv")
    'example_solution.csv (the bundled example, made by data/make_submissions_example.py)'
    """
    return f"{Path(path).name} (the bundled example, made by data/make_submissions_example.py)"


def example_named(result: Analysis) -> Analysis:
    """The submissions example's result with its files named by :func:`example_source`, in the
    report and in its card's provenance (the hashes stay: they are of the example's bytes)."""
    board = replace(result.leaderboard, source=example_source(result.leaderboard.source))
    assert result.submissions is not None   # the submissions example
    files = replace(result.submissions, source=example_source(result.submissions.source))
    card = getattr(result, "card", None)
    if card is not None and getattr(card, "provenance", None) is not None:
        given = card.provenance
        card = replace(card, provenance=replace(given, inputs=tuple(
            replace(d, name=example_source(d.name)) for d in given.inputs)))
        return replace(result, leaderboard=board, submissions=files, card=card)
    return replace(result, leaderboard=board, submissions=files)


def make_submissions_example() -> dict:
    """Run data/make_submissions_example.py into a temporary folder; its settings, with paths."""
    import atexit
    import importlib.util
    import shutil
    import tempfile

    script = data_dir() / "make_submissions_example.py"
    spec = importlib.util.spec_from_file_location("make_submissions_example", script)
    assert spec is not None and spec.loader is not None   # a .py file of the package's data
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    folder = Path(tempfile.mkdtemp(prefix="leaderboard-example-"))
    # Removed when the process ends, however the run ends (its files are read by then).
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    module.main(folder)
    preset = json.loads((folder / "example_submissions.json").read_text(encoding="utf-8"))
    preset["solution"] = str(folder / preset["solution"])
    preset["submissions"] = str(folder / preset["submissions"])
    return preset
