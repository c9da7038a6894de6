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


def test_a_worker_imports_only_what_a_batch_needs(tmp_path):
    """One fresh interpreter (the point: nothing imported before) unpickles AUC's metric, then
    log loss's, and lists what it holds after each (issue 27: one interpreter for both, as
    a worker unpickles every job it gets; before, one each: a second start-up of ~1 s)."""
    metrics = ["auc", "logloss"]
    jobs = []
    for metric in metrics:
        jobs.append(tmp_path / f"{metric}.pkl")
        jobs[-1].write_bytes(pickle.dumps(get_metric(metric)))
    code = ("import pickle, sys; import leaderboard.engine.work\n"
            f"for job in {[str(j) for j in jobs]!r}:\n"
            "    m = pickle.loads(open(job, 'rb').read())\n"
            f"    print(m.name, [x for x in {NOT_NEEDED!r} if x in sys.modules])\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == [f"{get_metric(m).name} []" for m in metrics], \
        out.stdout + out.stderr


def test_the_lazy_package_names_still_resolve():
    from leaderboard.metrics.registry import METRICS
    from leaderboard.noise.model import NoiseModel
    assert leaderboard.metrics.METRICS is METRICS and leaderboard.noise.NoiseModel is NoiseModel
    assert {"get_metric", "Metric"} <= set(dir(leaderboard.metrics))
    with pytest.raises(AttributeError, match="no_such"):
        leaderboard.noise.no_such  # noqa: B018
