"""Generate the bundled arena example: pairwise battles in LMArena's layout.

Run ``python data/make_battles_example.py [out_dir]`` (default: this folder). The output is
deterministic (fixed seed; the same numpy gives a byte-identical file) and is committed next to
this script as ``example_battles.csv`` with columns ``model_a, model_b, winner, judge,
category``.

The arena: 14 models with known Bradley-Terry strengths on the arenas' scale (400 points per
factor 10 in the odds), two of them 8 points apart at the top (a near tie the battles should not
separate). Pairings are uneven: a model is drawn in proportion to its popularity, so newer models
have few battles. One battle in six is a tie (one tie in three of those is ``tie (bothbad)``);
ties are independent of strength. Added on purpose, to show the accounting: two battles of a model
against itself, one battle with no winner recorded, and two models that only ever met each other
(not comparable with the rest). One name holds HTML-special characters.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pandas as pd

SEED = 20261127
BATTLES = 5000
TIE_SHARE = 1 / 6
# (name, true rating, popularity)
MODELS = [("atlas-2-pro", 1180, 3.0), ("orion-ultra", 1172, 2.0), ("nimbus-70b", 1120, 3.0),
          ("lyra-mini", 1090, 1.0), ("quill-8x7b", 1075, 2.0), ("kestrel-v3", 1040, 2.5),
          ("sable <beta> & co", 1030, 0.4), ("tern-13b", 1000, 1.5), ("vega-chat", 985, 1.5),
          ("marlin-7b", 950, 2.0), ("osprey-3b", 900, 1.0), ("wren-1.5b", 860, 0.8),
          ("dune-small", 840, 0.5), ("ember-base", 800, 0.6)]
ISLAND = ("island-a", "island-b")   # they only meet each other


def battles_frame(seed: int = SEED) -> pd.DataFrame:
    """The example's battles, one row per battle (the file's rows, in order)."""
    rng = np.random.default_rng(seed)
    names = np.array([m[0] for m in MODELS])
    rating = np.array([m[1] for m in MODELS], dtype=float)
    popular = np.array([m[2] for m in MODELS])
    weights = popular / popular.sum()
    a = rng.choice(len(names), size=BATTLES, p=weights)
    b = rng.choice(len(names) - 1, size=BATTLES, p=None)
    b = np.where(b >= a, b + 1, b)                           # never a model against itself
    p_a = 1 / (1 + 10 ** ((rating[b] - rating[a]) / 400))
    tie = rng.random(BATTLES) < TIE_SHARE
    both_bad = rng.random(BATTLES) < 1 / 3
    winner = np.where(tie, np.where(both_bad, "tie (bothbad)", "tie"),
                      np.where(rng.random(BATTLES) < p_a, "model_a", "model_b"))
    frame = pd.DataFrame({"model_a": names[a], "model_b": names[b], "winner": winner,
                          "judge": [f"voter{v:03d}" for v in rng.integers(0, 300, BATTLES)],
                          "category": rng.choice(["coding", "writing", "math", "chat"],
                                                 size=BATTLES)})
    extra = pd.DataFrame({"model_a": ["tern-13b", "vega-chat", "lyra-mini", *ISLAND, ISLAND[0]],
                          "model_b": ["tern-13b", "vega-chat", "kestrel-v3", ISLAND[1],
                                      ISLAND[0], ISLAND[1]],
                          "winner": ["tie", "model_a", "", "model_a", "model_a", "tie"],
                          "judge": ["voter001"] * 6, "category": ["chat"] * 6})
    return pd.concat([frame, extra], ignore_index=True)


def main(out_dir: str | Path | None = None) -> Path:
    folder = Path(out_dir) if out_dir is not None else Path(__file__).parent
    path = folder / "example_battles.csv"
    battles_frame().to_csv(path, index=False, lineterminator="\n")
    return path


if __name__ == "__main__":
    print(main(sys.argv[1] if len(sys.argv) > 1 else None))
