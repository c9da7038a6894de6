"""The JSON streamed a block of entries at a time (issue 41, item 2) is the same bytes as
``json.dumps`` of the whole document built the old way: every entry's row held as a dict.

The reference below is the entries' code as it was before the rows were streamed (copied from
``leaderboard/report/json_out.py`` at 876e043), so a change in a key's order, a number's form, an
escape or the indentation fails here; the boards carry hostile names (quotes, backslashes,
control characters, line and paragraph separators, markup), missing scores and flags.
"""
from __future__ import annotations

import dataclasses
import json
import tracemalloc

import numpy as np
import pandas as pd
import pytest

import leaderboard
from leaderboard.report import json_entries, json_out
from leaderboard.report.json_out import json_text, to_json_dict, write_json
from leaderboard.report.numbers import json_number as _num
from leaderboard.report.tier_marks import anchor_mask
from leaderboard.report.vocabulary import is_items

OPTIONS = {"indent": 2, "ensure_ascii": False, "allow_nan": False}
HOSTILE = ['quote " and \\ backslash', "tab\tnew\nline\rreturn", "line\u2028sep\u2029para",
           "</script><script>alert(1)</script>", "caf\u00e9 \U0001f600", "esc\x1bbell\x07",
           "  spaced  ", "{\"json\": [1]}"]


def _old_entries(analysis) -> list[dict]:   # the pre-streaming code, verbatim in substance
    table = analysis.table
    has_tiers = analysis.tiers is not None
    anchors = anchor_mask(table["tier"].to_numpy()) if has_tiers else np.zeros(len(table), bool)
    extra = [c for c in ("file", "public_score", "private_score") if c in table.columns]
    columns = ["rank", "team", "score", "ci_low", "ci_high", "sd", "d95", "p_vs_anchor", "tier"]
    identical = (table["identical_to"].tolist() if analysis.submissions is not None
                 else [None] * len(table))
    out = []
    rows = table[columns + extra].itertuples(index=False, name=None)
    for i, (row, ranks, same) in enumerate(zip(rows, _old_rank_fields(analysis), identical)):
        rank, team, score, lo, hi, sd, d95, p, tier, *rest = row
        entry = {"team": str(team), "score": _num(score), "rank": int(rank),
                 "ci_low": _num(lo), "ci_high": _num(hi),
                 "tier": int(tier) if has_tiers and tier > 0 else None,
                 "sd": _num(sd), "d95": _num(d95),
                 "p_vs_anchor": None if anchors[i] else _num(p),
                 "is_anchor": bool(anchors[i])}
        for name, value in zip(extra, rest):
            entry[name] = str(value) if name == "file" else _num(value)
        entry.update(ranks)
        if analysis.submissions is not None:
            entry["identical_to"] = None if same is None else str(same)
        if is_items(analysis):
            entry["model"] = entry["team"]
        out.append(entry)
    return out


def _old_rank_fields(analysis) -> list[dict]:
    ranking, table = analysis.ranking, analysis.table
    none = dict.fromkeys(("rank_ci_low", "rank_ci_high", "rank_sim_low", "rank_sim_high",
                          "p_best", "p_top", "in_best_set"))
    if ranking is None:
        return [dict(none) for _ in range(len(table))]
    ints = ("rank_ci_low", "rank_ci_high", "rank_sim_low", "rank_sim_high")
    tops = [str(k) for k in ranking.top_k]
    columns = zip(table["tier"].tolist(), *(table[c].tolist() for c in ints),
                  table["p_best"].tolist(), table["in_best_set"].tolist(),
                  *(table[f"p_top_{k}"].tolist() for k in ranking.top_k))
    return [dict(none) if int(tier) == 0 else {
        "rank_ci_low": int(low), "rank_ci_high": int(high), "rank_sim_low": int(sim_low),
        "rank_sim_high": int(sim_high), "p_best": _num(p_best),
        "p_top": {k: _num(p) for k, p in zip(tops, p_top)}, "in_best_set": bool(best)}
        for tier, low, high, sim_low, sim_high, p_best, best, *p_top in columns]


def _old_text(analysis) -> str:
    """``json.dumps`` of the document with the entries (and the two counts read from them) as
    the old code made them."""
    document = to_json_dict(analysis)
    entries = _old_entries(analysis)
    n_tiers = max((e["tier"] for e in entries if e["tier"] is not None), default=None)
    assert document["n_tiers"] == n_tiers
    assert document["tier1_size"] == (sum(e["tier"] == 1 for e in entries) if n_tiers else None)
    assert document["entries"] == entries
    return json.dumps({**document, "entries": entries}, **OPTIONS) + "\n"


def _board(n: int = 24) -> pd.DataFrame:
    rng = np.random.default_rng(5)
    teams = [f"team {k}" for k in range(n)]
    teams[1:1 + len(HOSTILE)] = HOSTILE
    teams[-1] = teams[-2].upper()   # a look-alike pair: a flag
    public = np.round(0.9 - 0.1 * np.sqrt(np.arange(n) / n) + rng.normal(0, 0.01, n), 5)
    private = np.round(public + rng.normal(0, 0.01, n), 5)
    private[3] = 1.0             # a perfect score and one below chance: flagged
    private[5] = 0.2
    return pd.DataFrame({"team": teams, "public": public, "private": private})


@pytest.fixture(scope="module")
def analyses():
    board = _board()
    scores = leaderboard.analyze(board, metric="auc", n_test=4000, prevalence=0.3,
                                 n_public=1000, n_private=3000, draws=200, replicates=200,
                                 top_k=(3,), public_col="public", private_col="private")
    plain = leaderboard.analyze(board[["team", "private"]].dropna(), metric="auc",
                                score_col="private")   # no test size: no noise model
    rng = np.random.default_rng(2)
    long = pd.DataFrame([(name, f"item {i}", float(rng.random() < 0.4 + 0.04 * k))
                         for k, name in enumerate(HOSTILE[:6]) for i in range(40)],
                        columns=["model", "item", "value"])
    items = leaderboard.analyze_items(long, replicates=200)
    return {"scores": scores.analysis, "plain": plain.analysis, "items": items.analysis}


@pytest.mark.parametrize("kind", ["scores", "plain", "items"])
@pytest.mark.parametrize("block", [1, 2, 1024])
def test_streamed_json_is_the_old_dumps_byte_for_byte(analyses, kind, block, tmp_path,
                                                      monkeypatch):
    """Streamed in blocks of one, two or all rows, written a few characters or a megabyte at
    a time: the same bytes as the old document's ``json.dumps``."""
    analysis = analyses[kind]
    monkeypatch.setattr(json_entries, "BLOCK", block)
    expected = _old_text(analysis)
    assert json_text(analysis) == expected
    for chars in (7, 1 << 20):
        monkeypatch.setattr(json_out, "_CHARS_PER_WRITE", chars)
        write_json(analysis, tmp_path / "r.json")
        assert (tmp_path / "r.json").read_bytes() == expected.encode("utf-8")


def test_the_boards_reach_what_the_stream_must_keep(analyses):
    """The boards above hold what a careless encoder would change: escapes, nulls, flags,
    each mode's extra keys."""
    text = json_text(analyses["scores"])
    assert '\\"' in text and "\\\\" in text and "\\n" in text
    assert "\u2028" in text and "\U0001f600" in text   # kept as they are (ensure_ascii off)
    scores = json.loads(text)
    assert scores["entries"][0]["p_top"] and scores["n_tiers"]
    assert {"perfect", "far_out"} <= {f["kind"] for f in scores["flags"]}
    assert scores["shakeup"] and all(e["public_score"] for e in scores["entries"])
    assert json.loads(json_text(analyses["plain"]))["entries"][0]["ci_low"] is None
    assert all(e["model"] == e["team"] for e in to_json_dict(analyses["items"])["entries"])


def test_writing_the_json_holds_one_block_of_rows(analyses, tmp_path, monkeypatch):
    """The no-noise board's rows repeated to 400 and 3,200 entries, written in blocks of 40:
    the writer's traced peak grows by less than a quarter of what the rows' dicts grow by
    (the old writer held them all: it grew by more than they do)."""
    small = analyses["plain"]
    table = pd.concat([small.table] * (3200 // len(small.table) + 1), ignore_index=True)
    monkeypatch.setattr(json_entries, "BLOCK", 40)

    def peak(make, n: int) -> int:
        analysis = dataclasses.replace(small, table=table.iloc[:n])
        tracemalloc.start()
        try:
            make(analysis)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    def write(analysis):
        write_json(analysis, tmp_path / "r.json")

    peak(write, 400)   # once first: what the first call caches is not the rows'
    rows = peak(to_json_dict, 3200) - peak(to_json_dict, 400)
    writer = peak(write, 3200) - peak(write, 400)
    assert rows > 1_000_000 and writer < rows / 4, (rows, writer)
    assert len(json.loads((tmp_path / "r.json").read_text("utf-8"))["entries"]) == 400
