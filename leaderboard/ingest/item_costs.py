"""Per-item costs (``--cost-col``): what each model spent on each item, read from the same long
table as the per-item results (issue 26 item 6).

Kept apart from :func:`~leaderboard.ingest.items.read_items` so either can change alone: this
reader takes the items and models that reader kept and fills a cost matrix in their order. A
cost must be a finite number at least 0; a model kept for the analysis must have a cost on every
item kept, else the file, line and column are named. Several rows of one (model, item) (repeated
samples) give the item their mean cost.
"""
from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from leaderboard.errors import InputError
from leaderboard.ingest.benchmarks import detect
from leaderboard.ingest.in_memory import InMemory
from leaderboard.ingest.safe_read import DEFAULT_MAX_BYTES
from leaderboard.ingest.toolkit.columns import column_numbers, find_column
from leaderboard.ingest.toolkit.messages import show
from leaderboard.ingest.toolkit.reading import parse_csv, read_table_file


def read_item_costs(path: str | os.PathLike[str] | InMemory, models: list[str],
                    items: np.ndarray, *, cost_col: str, model_col: str = "model",
                    item_col: str = "item", items_format: str = "auto",
                    instances: str | None = None, missing_instances: str = "unresolved",
                    max_bytes: int = DEFAULT_MAX_BYTES) -> np.ndarray:
    """Each of ``models``' mean cost on each of ``items``: shape (models, items).

    Parameters
    ----------
    path : str, PathLike or InMemory
        The per-item results (CSV or Parquet), as given to ``--items``; or a folder of SWE-bench
        results whose systems have ``per_instance_details.json`` (``cost_col`` is then the key
        of each instance's record, ``instances`` and ``missing_instances`` as the items reader
        was given them).
    models : list of str
        The models to cost, in the order wanted (the analysis's, names stripped as the items
        reader strips them).
    items : ndarray of str
        The items to cost, in the analysis's order.
    cost_col, model_col, item_col : str
        The columns (matched exactly, else ignoring case).
    max_bytes : int
        Size cap of the file.

    Raises
    ------
    InputError
        Benchmark logs without costs (lm-eval, HELM, Inspect; SWE-bench results.json and
        reports), a missing column, a cost that is not a
        finite number at least 0 (its line named), or a model without a cost on some item.

    Examples
    --------
    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "r.csv"
    >>> _ = p.write_text("model,item,value,usd\\na,q1,1,0.5\\na,q2,0,1.5\\nb,q1,1,2\\nb,q2,1,4\\n")
    >>> read_item_costs(p, ["b", "a"], np.array(["q1", "q2"]), cost_col="usd").tolist()
    [[2.0, 4.0], [0.5, 1.5]]
    """
    source = path.source if isinstance(path, InMemory) else str(path)
    if isinstance(path, InMemory):
        raw = parse_csv(path.data, source)
    elif (fmt := items_format if items_format != "auto" else detect(Path(path))) == "swebench":
        from leaderboard.ingest.swebench import read_swebench

        raw = read_swebench(Path(path), instances=instances, missing=missing_instances,
                            max_bytes=max_bytes, cost_key=cost_col)[0]
        model_col, item_col = "model", "item"
    elif fmt != "table":
        raise InputError(f"--cost-col reads a column of a long table of per-item results (or "
                         f"the cost in SWE-bench's per_instance_details.json); {_FORMATS[fmt]} "
                         "hold none", file=source)
    else:
        raw = read_table_file(Path(path), source, max_bytes)
    model = find_column(raw, model_col, (), "model", "--model-col", source)
    item = find_column(raw, item_col, (), "item", "--item-col", source)
    cost = find_column(raw, cost_col, (), "cost", "--cost-col", source)
    values = column_numbers(raw, cost, source, allow_missing=False).to_numpy()
    if (values < 0).any():
        row = int(np.argmax(values < 0))
        raise InputError(f"cost {raw[cost].iloc[row].strip()[:24]!r} is negative; a cost is "
                         "at least 0", file=source, row=int(raw.index[row]), column=cost)
    m_code = _index(models).get_indexer(raw[model].str.strip())
    i_code = _index(items).get_indexer(raw[item].str.strip())
    kept = (m_code >= 0) & (i_code >= 0)
    total = np.zeros((len(models), len(items)))
    count = np.zeros((len(models), len(items)), dtype=np.int64)
    np.add.at(total, (m_code[kept], i_code[kept]), values[kept])
    np.add.at(count, (m_code[kept], i_code[kept]), 1)
    if (count == 0).any():
        k, j = np.argwhere(count == 0)[0]
        missing = int((count[k] == 0).sum())
        raise InputError(f"model {show(models[k])} has no cost on {missing:,} of {len(items):,} "
                         f"items (first: {show(items[j])}); --cost-col needs a cost on every item "
                         "the analysis uses", file=source, column=cost)
    return total / count


_FORMATS = {"harness": "lm-evaluation-harness logs", "helm": "HELM runs",
            "inspect": "Inspect logs", "swebench": "SWE-bench results"}


def _index(labels):
    """Labels as a pandas Index (for :meth:`~pandas.Index.get_indexer`)."""
    import pandas as pd

    return pd.Index(list(labels))
