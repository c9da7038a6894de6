"""The page's table data written a block of rows at a time (issue 41, item 2) is the same bytes
as the page rendered the old way: every row held in one payload, escaped by ``script_json``
and printed by the template.

The reference below is ``tier_table.payload`` as it was before the rows were streamed (copied
verbatim from ``leaderboard/report/tier_table.py`` at 5f22d36), rendered into the same template
with the same context; the boards' names are hostile (markup, ``&``, the line and paragraph
separators, bidi overrides, control and invisible characters, the placeholder's own text).
"""
from __future__ import annotations

import dataclasses
import math
import tracemalloc

import numpy as np
import pandas as pd
import pytest

import leaderboard
from leaderboard import safe_write
from leaderboard.report import html, tier_table
from leaderboard.report.render import neutral_bidi, render_page, script_json, script_json_printed
from leaderboard.report.tier_table import payload_text

HOSTILE = ["</script><script>alert(1)</script>", "<!-- a & b > c", "line\u2028sep\u2029para",
           "team\u202egnp.exe", "iso\u2066late\u2069", "zero\u200bwidth\u00adsoft\ufeffbom",
           "esc\x1bbell\x07 c1\x85\x9f del\x7f", 'quote " \\ back', "<lb-table-data/>",
           "caf\u00e9 \U0001f600", "tab\tnew\nline"]


# --- the old builder, verbatim ----------------------------------------------------------------

def _rounded(values, decimals: int) -> list:
    """Numbers rounded as the page prints them (Python's correctly rounded format), NaN -> None."""
    return [float(f"{v:.{decimals}f}") if math.isfinite(v) else None
            for v in np.asarray(values, dtype=float).tolist()]


def _p_values(values) -> list:
    """Holm's p rounded as printed; 0 stands for "<0.001" (the script prints it so)."""
    out = []
    for p in np.asarray(values, dtype=float).tolist():
        out.append(None if not math.isfinite(p) else 0 if p < 0.001 else float(f"{p:.3f}"))
    return out


def _shares(values) -> list:
    return [None if not math.isfinite(p) else (0 if p == 0 else p)
            for p in np.asarray(values, dtype=float).tolist()]


def old_payload(a, decimals: int) -> dict:
    t = a.table
    columns: dict[str, list] = {"rank": t["rank"].astype(int).tolist(),
                                "team": t["team"].astype(str).tolist(),
                                "score": _rounded(t["score"], decimals)}
    if a.tiers is not None:
        columns["ci_low"] = _rounded(t["ci_low"], decimals)
        columns["ci_high"] = _rounded(t["ci_high"], decimals)
        columns["tier"] = t["tier"].astype(int).tolist()
        if bool(np.isfinite(t["p_vs_anchor"].to_numpy(dtype=float)).any()):
            columns["p"] = _p_values(t["p_vs_anchor"])
    if a.ranking is not None:
        placed = t["tier"].to_numpy(dtype=int) > 0
        for name, source in (("rank_low", "rank_ci_low"), ("rank_high", "rank_ci_high"),
                             ("sim_low", "rank_sim_low"), ("sim_high", "rank_sim_high")):
            values = t[source].to_numpy(dtype=float)
            columns[name] = [int(v) if ok else None for v, ok in zip(values.tolist(), placed)]
        columns["p_best"] = _shares(t["p_best"].where(placed))
        for k in a.ranking.top_k:
            columns[f"p_top_{k}"] = _shares(t[f"p_top_{k}"].where(placed))
        columns["best"] = (t["in_best_set"].to_numpy(dtype=bool) & placed).astype(int).tolist()
    for name in ("public", "private"):
        if f"{name}_score" in t.columns:
            columns[name] = _rounded(t[f"{name}_score"], decimals)
    return {"fields": list(columns), "rows": [list(row) for row in zip(*columns.values())]}


def old_table_data(a, meta: dict):
    data = old_payload(a, meta["decimals"])
    data["meta"] = meta   # html._table_data's dict, now html._table_meta's
    return script_json(data)


def old_page(a) -> str:
    """The page as the old code rendered it: the whole payload in the template's context."""
    context = html.build_context(a, charts=True)
    return render_page(html.TEMPLATE, {**context,
                                       "table_data": old_table_data(a, context["table_meta"])})


# --- the boards -------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def analyses():
    rng = np.random.default_rng(7)
    n = 30
    teams = [f"team {k}" for k in range(n)]
    teams[1:1 + len(HOSTILE)] = HOSTILE
    public = np.round(0.9 - 0.1 * np.sqrt(np.arange(n) / n) + rng.normal(0, 0.01, n), 5)
    private = np.round(public + rng.normal(0, 0.01, n), 5)
    board = pd.DataFrame({"team": teams, "public": public, "private": private})
    ranked = leaderboard.analyze(board, metric="auc", n_test=4000, prevalence=0.3,
                                 n_public=1000, n_private=3000, replicates=200, top_k=(3,),
                                 public_col="public", private_col="private")
    plain = leaderboard.analyze(board[["team", "private"]], metric="auc", score_col="private")
    return {"ranked": ranked.analysis, "plain": plain.analysis}


@pytest.mark.parametrize("kind", ["ranked", "plain"])
def test_the_page_is_the_old_page_byte_for_byte(analyses, kind, tmp_path, monkeypatch):
    """Rows in blocks of one, two or the default (all of them here): the payload prints as the
    old one did; the page (rendered, and written a few characters at a time) is the old page's
    bytes."""
    a = analyses[kind]
    meta = html.build_context(a)["table_meta"]
    expected = str(neutral_bidi(old_table_data(a, meta)))   # as the template printed it
    for block in (1, 2, tier_table.BLOCK):
        assert "".join(script_json_printed(payload_text(a, meta["decimals"], meta, block))) \
            == expected, block
    page = old_page(a)
    monkeypatch.setattr(tier_table, "BLOCK", 2)
    monkeypatch.setattr(safe_write, "CHARS_PER_WRITE", 7)
    html.write_html(a, tmp_path / "r.html")
    assert (tmp_path / "r.html").read_bytes() == page.encode("utf-8")
    assert page.count(expected) == 1 and "<lb-table-data/>" not in page
    if kind == "ranked":   # what the escaping must change is there, and changed
        _check_escaped(expected)


def _check_escaped(data: str) -> None:
    """No raw ``<``, ``&``, separator, bidi or C1 control in the script's data; invisible
    characters shown as code points; every column of a ranked board with public scores."""
    assert data.startswith('{"fields":["rank","team","score","ci_low","ci_high","tier",'
                           '"rank_low","rank_high","sim_low","sim_high","p_best","p_top_3",'
                           '"best","public","private"],"rows":[[1,')
    for raw in "<>&\u2028\u2029\u202e\u2066\x85\x7f\x1b\u200b\ufeff":
        assert raw not in data, repr(raw)
    assert "\\u003clb-table-data/\\u003e" in data and "team\\u202egnp" in data
    assert "zero[U+200B]width[U+00AD]soft[U+FEFF]bom" in data and '"meta":{"decimals":' in data




def test_writing_the_payload_holds_one_block_of_rows(analyses, monkeypatch):
    """The ranked board's rows repeated to 200 and 1,600 entries, in blocks of 40: the payload's
    traced peak grows by less than a quarter of what the old builder's grows by."""
    small = analyses["ranked"]
    table = pd.concat([small.table] * (1600 // len(small.table) + 1), ignore_index=True)
    meta = html.build_context(small)["table_meta"]

    def streamed(a):
        for _ in script_json_printed(payload_text(a, meta["decimals"], meta, 40)):
            pass

    def peak(make, n: int) -> int:
        a = dataclasses.replace(small, table=table.iloc[:n])
        tracemalloc.start()
        try:
            make(a)
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    peak(streamed, 200)   # once first: what the first call caches is not the rows'
    def whole(a):
        old_table_data(a, meta)

    old = peak(whole, 1600) - peak(whole, 200)
    new = peak(streamed, 1600) - peak(streamed, 200)
    assert old > 1_000_000 and new < old / 4, (old, new)


def test_a_page_that_fails_before_its_first_piece_leaves_the_earlier_file_whole(tmp_path,
                                                                                 monkeypatch):
    """The page's context (every number it prints) is made before its first piece, and the
    file is opened only after that piece: a failure there leaves the last run's report as it
    was, as when the whole page was rendered before the write. Fails when write_pieces opens
    (and empties) the file first."""
    path = tmp_path / "report.html"
    path.write_text("the earlier report", encoding="utf-8")

    def broken(*args, **kwargs):
        raise RuntimeError("made up")

    monkeypatch.setattr(html, "build_context", broken)
    with pytest.raises(RuntimeError, match="made up"):
        html.write_html(None, path)   # type: ignore[arg-type]
    assert path.read_text(encoding="utf-8") == "the earlier report"
    safe_write.write_pieces(path, iter(()))   # no pieces: an empty file, as write_text("")
    assert path.read_bytes() == b""
