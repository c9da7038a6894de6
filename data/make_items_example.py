"""Generate the bundled per-item example: a benchmark's results, one row per (model, question).

Run ``python data/make_items_example.py [out_dir]`` (default: this folder). The output is
deterministic (fixed seed; the same numpy gives a byte-identical file) and is committed next to
this script:

``example_items.csv``
    ``model,question,passage,correct,cost_usd``: 10 models answering 240 questions, six questions
    to a reading passage (40 passages). ``correct`` is 0 or 1, ``cost_usd`` the answer's cost
    (``--cost-col cost_usd``).
``example_items.json``
    The settings ``leaderboard analyze --example items`` reads it with (its columns).

The model: model m answers question q correctly with probability
``logistic(ability_m - difficulty_q - hardness_p)``, where ``hardness_p`` is shared by the six
questions of passage p (a hard passage is hard for every model, so questions of one passage move
together and must be resampled together: ``--cluster-col passage``). Two models at the top are
0.1 apart in ability (a near tie the questions should not separate).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

SEED = 20261207
PASSAGES, PER_PASSAGE = 40, 6
# (model, ability on the logit scale, dollars per question)
MODELS = [("atlas-2-pro", 1.9, 0.021), ("orion-ultra", 1.8, 0.034), ("nimbus-70b", 1.3, 0.009),
          ("quill-8x7b", 1.0, 0.004), ("kestrel-v3", 0.8, 0.006), ("tern-13b", 0.5, 0.002),
          ("vega-chat", 0.3, 0.003), ("marlin-7b", 0.0, 0.001), ("osprey-3b", -0.4, 0.0006),
          ("wren-1.5b", -0.8, 0.0003)]
SETTINGS = {"items": "example_items.csv", "item_col": "question", "value_col": "correct",
            "cluster_col": "passage",
            "description": "Simulated benchmark: 10 models answering 240 questions of 40 reading "
                           "passages (six questions each); 0/1 correctness and "
                           "each answer's cost. Made by data/make_items_example.py."}


def items_rows(seed: int = SEED) -> list[tuple]:
    """The example's rows, model by model, question by question."""
    rng = np.random.default_rng(seed)
    hardness = rng.normal(0.0, 0.8, PASSAGES)
    difficulty = rng.normal(0.0, 1.0, PASSAGES * PER_PASSAGE)
    rows = []
    for name, ability, cost in MODELS:
        logit = ability - difficulty - np.repeat(hardness, PER_PASSAGE)
        correct = rng.random(logit.size) < 1.0 / (1.0 + np.exp(-logit))
        spend = cost * rng.lognormal(0.0, 0.3, logit.size)
        for q in range(logit.size):
            p = q // PER_PASSAGE
            rows.append((name, f"q{q + 1:03d}", f"p{p + 1:02d}", int(correct[q]),
                         f"{spend[q]:.5f}"))
    return rows


def main(out_dir: str | Path | None = None) -> list[Path]:
    """Write the table and its settings into ``out_dir`` (default: this folder)."""
    folder = Path(out_dir) if out_dir is not None else Path(__file__).parent
    folder.mkdir(parents=True, exist_ok=True)
    table = folder / SETTINGS["items"]
    lines = ["model,question,passage,correct,cost_usd"]
    lines += [",".join(str(v) for v in row) for row in items_rows()]
    table.write_text("\n".join(lines) + "\n", encoding="utf-8")
    meta = folder / "example_items.json"
    meta.write_text(json.dumps(SETTINGS, indent=2) + "\n", encoding="utf-8")
    return [table, meta]


if __name__ == "__main__":
    for written in main(sys.argv[1] if len(sys.argv) > 1 else None):
        print(written)
