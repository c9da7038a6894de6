"""The page text's fast paths give what the plain conversions gave (issue 27): neutral_bidi's
printable check and its memory of large texts, and records' column-at-a-time conversion
(against pandas' own rows)."""
from __future__ import annotations

import math
import sys

import markupsafe
import numpy as np
import pandas as pd
import pytest

from leaderboard.report.render import _BIDI, _LARGE, neutral_bidi
from leaderboard.report.vega.common import records


def _plain_neutral(value):
    """neutral_bidi as it was: one search of the whole text, then the substitution."""
    if not isinstance(value, str) or not _BIDI.search(value):
        return value
    shown = _BIDI.sub(lambda m: f"[U+{ord(m.group()):04X}]", str(value))
    return markupsafe.Markup(shown) if isinstance(value, markupsafe.Markup) else shown


def test_every_character_neutral_bidi_shows_fails_the_printable_check():
    everything = "".join(chr(c) for c in range(sys.maxunicode + 1) if not 0xD800 <= c <= 0xDFFF)
    shown = set(_BIDI.findall(everything))
    assert len(shown) > 80   # the class as written: controls, bidi marks, invisibles
    passed = {c for c in shown if c.isprintable() and c != "\u034f"}
    assert not passed, sorted(hex(ord(c)) for c in passed)


@pytest.mark.parametrize("kind", [str, markupsafe.Markup])
def test_neutral_bidi_same_as_the_plain_search(kind):
    texts = ["team", "", "a\tb\nc", "caf\u00e9 \u00b5", "team\u202egnp.exe", "a\u034fb",
             "x\u200by", "\x07bell", "soft\u00adhyphen", "\ufeffbom", "\u2028line"]
    big_clean = "var x = '\u2026';\n" * (_LARGE // 10)
    big_dirty = big_clean + "\u202e"
    for text in [*texts, big_clean, big_dirty, big_clean]:   # big_clean twice: from memory
        value = kind(text)
        got, want = neutral_bidi(value), _plain_neutral(value)
        assert got == want and type(got) is type(want), text[:40]


def _reference_records(frame):
    """Rows by pandas' own ``to_dict("records")`` (Python scalars), non-finite floats as None."""
    def plain(v):
        return None if isinstance(v, float) and not math.isfinite(v) else v
    return [{k: plain(v) for k, v in row.items()} for row in frame.to_dict("records")]


def test_records_same_values_and_types_as_pandas_rows():
    frame = pd.DataFrame({
        "team": ["a", "b\u202e", "c"],
        "score": [0.5, float("nan"), float("inf")],
        "f32": np.array([0.1, -np.inf, 2.5], dtype=np.float32),
        "rank": np.array([1, 2, 3], dtype=np.int64),
        "u8": np.array([0, 7, 255], dtype=np.uint8),
        "top": [True, False, True],
        "mixed": pd.Series([None, np.float64("nan"), np.int32(4)], dtype=object),
    })
    got, want = records(frame), _reference_records(frame)
    assert got == want
    for g, w in zip(got, want):
        assert [type(v) for v in g.values()] == [type(v) for v in w.values()]
    assert records(frame.iloc[:0]) == [] and records(frame[[]]) == [{}, {}, {}]
