"""The leaderboard card (issue 40 item 4): filled on every mode and valid against the schemas;
provenance's hashes equal the inputs' SHA-256 (computed here with hashlib alone); the card's
statistics equal their definitions (a brute-force count of pairs shown different from the
family's own verdicts, a brute-force maximum clique, the SD of the paired replicates, a pandas
count of differing items); the matrix hash ignores row order and sees one changed value; the date
is fixed by SOURCE_DATE_EPOCH so the same command writes the same bytes."""
from __future__ import annotations

import hashlib
import itertools
import json
import math
import os

import numpy as np
import pandas as pd
import pytest
from scipy.special import ndtri

import leaderboard
from leaderboard.cli import main
from leaderboard.schema import SCHEMA_DIR

R = 200


def _errors(data: dict, schema: str) -> list[str]:
    jsonschema = pytest.importorskip("jsonschema")
    spec = json.loads((SCHEMA_DIR / f"{schema}.schema.json").read_text(encoding="utf-8"))
    return [f"{list(e.path)}: {e.message}"
            for e in jsonschema.Draft202012Validator(spec).iter_errors(data)]


def _items(seed: int = 0) -> pd.DataFrame:
    """Five models on 240 binary items, two of them close and correlated (a shared skill)."""
    rng = np.random.default_rng(seed)
    hard = rng.random(240)
    rates = {"m-a": 0.72, "m-b": 0.70, "m-c": 0.60, "m-d": 0.59, "m-e": 0.45}
    return pd.concat([pd.DataFrame({"model": m, "item": [f"q{k:03d}" for k in range(240)],
                                    "value": (0.6 * hard + 0.4 * rng.random(240) < p) * 1})
                      for m, p in rates.items()], ignore_index=True)


@pytest.fixture(scope="module")
def items_run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("card")
    path = tmp / "results.csv"
    _items().to_csv(path, index=False)
    out = tmp / "r.json"
    assert main(["analyze", "--items", str(path), "--replicates", str(R), "--quiet",
                 "-o", str(tmp / "r.html"), "--json", str(out), "--markdown",
                 str(tmp / "r.md")]) == 0
    return path, json.loads(out.read_text(encoding="utf-8")), tmp


def test_provenance_hashes_are_the_inputs_sha256(items_run, tmp_path):
    path, data, tmp = items_run
    prov = data["card"]["provenance"]
    (given,) = prov["inputs"]
    assert given["role"] == "--items" and given["kind"] == "file"
    assert given["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()
    assert given["bytes"] == path.stat().st_size
    assert prov["command"].startswith("leaderboard analyze --items ") and str(path) in \
        prov["command"]
    assert prov["version"] == leaderboard.__version__ and prov["seed"] == 0
    # a folder: its manifest, recomputed here (sorted relative paths, each file's digest)
    folder = tmp_path / "runs"
    for k, model in enumerate(("sys-a", "sys-b")):
        (folder / model).mkdir(parents=True)
        (folder / model / "per_instance_details.json").write_text(json.dumps(
            {f"o__r-{i}": {"resolved": bool((i + k) % 3)} for i in range(30)}))
    (folder / "sys-a" / "notes.txt").write_text("kept in the manifest too")
    os.symlink(folder / "sys-a" / "notes.txt", folder / "sys-b" / "link.txt")   # not listed
    files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*")
                   if p.is_file() and not p.is_symlink())
    manifest = "".join(f"{hashlib.sha256((folder / f).read_bytes()).hexdigest()}  {f}\n"
                       for f in files)
    result = leaderboard.analyze_items(folder, replicates=R)
    (digest,) = result.analysis.card.provenance.inputs
    assert digest.kind == "folder manifest" and digest.files == 3
    assert digest.sha256 == hashlib.sha256(manifest.encode()).hexdigest()
    assert result.analysis.card.provenance.command == \
        f"leaderboard.analyze_items({str(folder)!r}, replicates={R})"
    # a DataFrame: the CSV text the readers read
    frame = _items()
    (digest,) = leaderboard.analyze_items(frame, replicates=R).analysis.card.provenance.inputs
    assert digest.sha256 == hashlib.sha256(frame.to_csv(index=False).encode()).hexdigest()


def test_the_card_on_the_page_json_and_markdown(items_run):
    _, data, tmp = items_run
    assert _errors(data, "analyze") == []
    card = data["card"]
    assert card["mode"] == "items" and card["shape"]["models"] == 5
    assert card["shape"]["units"] == 240 and card["shape"]["outcome"] == "binary"
    page = (tmp / "r.html").read_text(encoding="utf-8")
    assert '<section id="card"' in page and card["shape"]["matrix_sha256"][:16] in page
    text = (tmp / "r.md").read_text(encoding="utf-8")
    assert "**Leaderboard card**" in text
    assert "*Top pair*: m-a ahead of m-b" in text.replace("\\", "")   # names escaped


def test_the_card_is_filled_on_every_mode():
    board = pd.DataFrame({"team": list("abcdef"), "score": [0.91, 0.90, 0.86, 0.80, 0.70, 0.6]})
    scores = leaderboard.analyze(board, metric="auc", n_test=2000, prevalence=0.3, draws=200,
                                 replicates=R)
    rng = np.random.default_rng(1)
    y = (rng.random(400) < 0.4).astype(int)
    solution = pd.DataFrame({"id": range(400), "target": y})
    preds = {t: np.clip(y * s + rng.normal(0.3, 0.25, 400), 0, 1)
             for t, s in (("t1", 0.5), ("t2", 0.45), ("t3", 0.2))}
    subs = leaderboard.analyze_submissions(solution, preds, metric="auc", replicates=R)
    names, strength = np.array(["x", "y", "z"]), np.array([1.0, 0.0, -1.0])
    a = rng.integers(0, 3, 1500)
    b = (a + rng.integers(1, 3, 1500)) % 3
    won = rng.random(1500) < 1 / (1 + np.exp(strength[b] - strength[a]))
    battles = leaderboard.analyze_battles(pd.DataFrame({
        "model_a": names[a], "model_b": names[b],
        "winner": np.where(won, "model_a", "model_b")}), replicates=R)
    for result, schema, mode, unit, models in (
            (scores, "analyze", "scores", "test row", 6),
            (subs, "analyze", "submissions", "test row", 3),
            (battles, "battles", "battles", "battle", 3)):
        data = json.loads(result.to_json())
        assert _errors(data, schema) == [], mode
        card = data["card"]
        assert card["mode"] == mode and card["shape"]["unit"] == unit
        assert card["shape"]["models"] == models and card["shape"]["matrix_sha256"]
        assert card["established_share"]["pairs"] == models * (models - 1) // 2
        assert card["resolved_positions"]["tiers"] >= 1
        assert card["top_pair"]["gap"] > 0 and card["top_pair"]["sd_diff"] > 0
        assert len(card["provenance"]["inputs"]) >= 1
        assert card["provenance"]["command"].startswith("leaderboard.analyze")
    assert battles.analysis.card.shape.units == 1500
    # submissions: predictions are read in batches and not kept, so no count, and why
    assert subs.analysis.card.top_pair.n_eff is None and "not kept" in \
        subs.analysis.card.top_pair.n_eff_reason


def test_established_share_and_the_largest_group_equal_their_definitions():
    """A scores board of 9 with near pairs: pairs shown different counted from the family's own
    verdict matrix; the largest group with no pair shown, by brute force over every subset."""
    scores = [0.900, 0.897, 0.893, 0.880, 0.876, 0.86, 0.859, 0.80, 0.70]
    board = pd.DataFrame({"team": [f"t{k}" for k in range(9)], "score": scores})
    a = leaderboard.analyze(board, metric="auc", n_test=6000, prevalence=0.3, draws=200,
                            replicates=400).analysis
    card = a.card
    shown = a.ranking.simultaneous.shown_better.matrix(9)
    assert card.established.shown == int(shown.sum()) and card.established.pairs == 36
    near = ~(shown | shown.T)
    best = max(size for size in range(1, 10) for group in itertools.combinations(range(9), size)
               if all(near[i, j] for i, j in itertools.combinations(group, 2)))
    assert card.resolved.group == best and card.resolved.group_exact
    assert card.resolved.tiers == a.table["tier"].max()
    assert card.resolved.alone == int((a.table["rank_sim_low"] == a.table["rank_sim_high"]).sum())
    assert 1 < best < 9    # the board has both resolved and unresolved pairs


def test_the_top_pair_equals_its_definition(items_run):
    path, data, _ = items_run
    frame = pd.read_csv(path)
    result = leaderboard.analyze_items(frame, replicates=R)
    a, top = result.analysis, result.analysis.card.top_pair
    reps = a.bootstrap.replicates
    assert top.models == ("m-a", "m-b")
    assert top.sd_diff == pytest.approx(np.std(reps[0] - reps[1], ddof=1), rel=1e-12)
    assert top.sd_independent == pytest.approx(math.hypot(np.std(reps[0], ddof=1),
                                                          np.std(reps[1], ddof=1)), rel=1e-12)
    wide = frame.pivot(index="item", columns="model", values="value")
    assert top.n_eff == int((wide["m-a"] != wide["m-b"]).sum())
    z = -ndtri(0.025) + ndtri(0.8)
    gap = wide["m-a"].mean() - wide["m-b"].mean()
    assert top.gap == pytest.approx(gap)
    assert top.needed == math.ceil(240 * (z * top.sd_diff / gap) ** 2)
    assert top.ratio < 1    # the shared item difficulty: pairing sharpens the comparison
    # a board of scores: the SDs and the correlation the comparisons assumed
    board = pd.DataFrame({"team": ["a", "b", "c"], "score": [0.9, 0.89, 0.7]})
    s = leaderboard.analyze(board, metric="auc", n_test=3000, prevalence=0.2, draws=200,
                            replicates=R, correlation=0.4).analysis
    pair, sd = s.card.top_pair, s.table["sd"].to_numpy()[:2]
    assert pair.sd_diff == pytest.approx(math.sqrt(sd[0] ** 2 + sd[1] ** 2
                                                   - 0.8 * sd[0] * sd[1]))
    assert pair.n_eff is None and "no per-row results" in pair.n_eff_reason


def test_the_matrix_hash_ignores_row_order_and_sees_one_value():
    frame = _items()
    result = leaderboard.analyze_items(frame, replicates=R)
    first = result.analysis.card.shape.sha256
    assert result.card == json.loads(result.to_json())["card"]   # the API's card is the JSON's
    shuffled = frame.sample(frac=1.0, random_state=3)
    assert leaderboard.analyze_items(shuffled, replicates=R).analysis.card.shape.sha256 == first
    changed = frame.copy()
    changed.loc[7, "value"] = 1 - changed.loc[7, "value"]
    assert leaderboard.analyze_items(changed, replicates=R).analysis.card.shape.sha256 != first


def test_the_date_comes_from_source_date_epoch_and_the_bytes_repeat(tmp_path, monkeypatch):
    path = tmp_path / "results.csv"
    _items().to_csv(path, index=False)
    argv = ["analyze", "--items", str(path), "--replicates", str(R), "--quiet", "-o",
            str(tmp_path / "r.html"), "--json", str(tmp_path / "r.json")]
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1767225600")
    assert main(argv) == 0
    first = (tmp_path / "r.json").read_bytes(), (tmp_path / "r.html").read_bytes()
    assert main(argv) == 0
    assert ((tmp_path / "r.json").read_bytes(), (tmp_path / "r.html").read_bytes()) == first
    prov = json.loads(first[0])["card"]["provenance"]
    assert prov["date"] == "2026-01-01" and prov["date_from"] == "SOURCE_DATE_EPOCH"
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    from leaderboard.provenance import today

    assert today() == (pd.Timestamp.now(tz="UTC").date().isoformat(), "clock")
