"""The result cache (leaderboard/disk_cache.py, issue 41): a noise model asked again is read, not
simulated; any argument that differs misses; a damaged, planted or foreign file is never taken;
nothing is unpickled; and a value read back is the value computed, field for field and type for
type."""
from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

from leaderboard import disk_cache, resources
from leaderboard.metrics import get_metric
from leaderboard.noise import grid
from leaderboard.noise.model import NoiseModel, ScoreDistribution
from leaderboard.noise.universes import UniverseOptions

SCORES = np.array([0.81, 0.78, 0.75, 0.7])


@pytest.fixture
def folder(tmp_path, monkeypatch):
    """The result cache in a folder of the test's own; the universes built, counted."""
    monkeypatch.setattr(resources, "results_dir", lambda: tmp_path)
    built = []
    original = grid.get_universe
    monkeypatch.setattr(grid, "get_universe", lambda *a: built.append(a) or original(*a))
    return tmp_path, built


def _model(**change):
    kwargs = dict(leader_score=0.81, n_test=400, prevalence=0.2, draws=100, seed=3)
    kwargs.update(change)
    return grid.build_noise_model(get_metric("auc"), kwargs.pop("scores", SCORES), **kwargs)


def _same(a, b) -> None:
    """Field for field, with the same types (a cached model must print like a computed one)."""
    assert type(a) is type(b)
    if dataclasses.is_dataclass(a):
        for f in dataclasses.fields(a):
            _same(getattr(a, f.name), getattr(b, f.name))
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape and a.tobytes() == b.tobytes()
    elif isinstance(a, tuple):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    else:
        assert a == b or (a != a and b != b)


def test_a_model_asked_again_is_read_and_equal_and_any_change_misses(folder):
    root, built = folder
    first = _model()
    assert len(built) == 1 and len(list((root / "noise").glob("*.npz"))) == 1
    again = _model()
    assert len(built) == 1          # read, not simulated
    _same(first, again)
    for change in ({"seed": 4}, {"draws": 101}, {"scores": SCORES + 1e-12},
                   {"options": UniverseOptions(spread=2.5)}):
        _model(**change)
    assert len(built) == 5          # each a miss
    # computed without the cache: the same bits as read from it
    _same(grid.build_noise_model.__wrapped__(get_metric("auc"), SCORES, leader_score=0.81,
                                             n_test=400, prevalence=0.2, draws=100, seed=3),
          again)


def test_a_damaged_planted_or_foreign_file_is_never_taken(folder):
    root, built = folder
    first = _model()
    (path,) = (root / "noise").glob("*.npz")
    digest = path.with_name(path.name + ".sha256")
    data = bytearray(path.read_bytes())
    data[-40] ^= 1                          # damaged: the digest no longer matches
    path.write_bytes(bytes(data))
    _same(_model(), first)
    assert len(built) == 2
    # a planted value with a matching digest, under this key's name but for another key
    other = disk_cache.encode(disk_cache._Keyed("another key", first),
                              (disk_cache._Keyed, NoiseModel, ScoreDistribution))
    path.write_bytes(other)
    digest.write_text(disk_cache.digest(other))
    _same(_model(), first)
    assert len(built) == 3
    # a pickle is refused by numpy.load, whatever its digest
    import pickle
    planted = pickle.dumps({"x": 1})
    path.write_bytes(planted)
    digest.write_text(disk_cache.digest(planted))
    _same(_model(), first)
    assert len(built) == 4


def test_an_argument_without_a_canonical_form_is_computed_not_cached():
    with pytest.raises(disk_cache.Uncacheable):
        disk_cache.canonical(lambda x: x)
    with pytest.raises(disk_cache.Uncacheable):
        disk_cache.canonical(object())
    assert disk_cache.canonical(0.1) != disk_cache.canonical(np.float64(0.1))   # types differ
    assert disk_cache.canonical(UniverseOptions()) != disk_cache.canonical(
        UniverseOptions(df=4.0))
    assert json.dumps(disk_cache.canonical(get_metric("f1")))   # a metric's factory is named


def test_the_cache_off_writes_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("LEADERBOARD_CACHE_DIR", "")
    assert resources.results_dir() is None
    _model()
    assert not any(tmp_path.iterdir())
