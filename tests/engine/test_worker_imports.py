"""What a Dask worker imports to run a batch (issue 27): the batch's module and the metric it
unpickles, not the metric registry with every metric's dependencies nor SciPy's statistics
(before: 3.6 s of imports per worker for ``noise.bootstrap`` alone on the busy machine)."""
from __future__ import annotations

import pickle
import subprocess
import sys

import pytest

import leaderboard.metrics
import leaderboard.noise
from leaderboard.metrics import get_metric

NOT_NEEDED = ("scipy.stats", "leaderboard.metrics.registry", "leaderboard.noise.model",
              "sklearn")


@pytest.mark.parametrize("metric", ["auc", "logloss"])
def test_a_worker_imports_only_what_a_batch_needs(tmp_path, metric):
    job = tmp_path / "metric.pkl"
    job.write_bytes(pickle.dumps(get_metric(metric)))
    code = ("import pickle, sys; import leaderboard.engine.work; "
            f"m = pickle.loads(open({str(job)!r}, 'rb').read()); "
            f"print(m.name, [x for x in {NOT_NEEDED!r} if x in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == [get_metric(metric).name, "[]"], out.stdout + out.stderr


def test_the_lazy_package_names_still_resolve():
    from leaderboard.metrics.registry import METRICS
    from leaderboard.noise.model import NoiseModel
    assert leaderboard.metrics.METRICS is METRICS and leaderboard.noise.NoiseModel is NoiseModel
    assert {"get_metric", "Metric"} <= set(dir(leaderboard.metrics))
    with pytest.raises(AttributeError, match="no_such"):
        leaderboard.noise.no_such  # noqa: B018
