"""The Dask engine: submissions mode's batches on a ``dask.distributed`` cluster.

Imported only when asked (``--workers`` or ``--scheduler``), with the ``dask`` extra installed
(``pip install "leaderboard[dask]"``). The client lists the files; each batch of entries goes to a
worker, which reads its files itself, validates, prepares and scores them on every replicate
(:func:`~leaderboard.engine.work.run_batch`) and sends back only statuses, digests and an
(entries x replicates) array per split. Ranks, tiers and the report run on the client.

What travels: the job (metric, solution, validation plan, splits) once to each worker, and each
batch's file paths (or zip and member). Never a prediction, never a weight matrix: every worker
draws the weights of each replicate block from ``(seed, stream, block)`` itself
(:mod:`leaderboard.noise.weights`). For ``poisson`` weights that is any slice of rows; for the
multinomial schemes (``plain``, ``stratified``, ``grouped``: one joint draw over all rows) it is
the whole block, 7 to 20 ns per row and replicate (measured), once per batch (2000 replicates of
a million rows: 15 to 40 s per batch).

Paths are the client's absolute paths: every worker must see the submission files at the same
paths (a shared file system), with the same ``leaderboard`` installed; the solution travels in
the job.
"""
from __future__ import annotations

from collections.abc import Iterator, Sequence

from leaderboard.engine.dask_checks import check_address, check_workers, probe_scheduler
from leaderboard.engine.work import BATCH_BYTES, BatchResult, Job, run_batch
from leaderboard.errors import InputError


def _distributed():
    try:
        import distributed
    except ImportError:
        raise InputError("--workers and --scheduler need Dask: pip install "
                         "\"leaderboard[dask]\" (or dask[distributed])") from None
    return distributed


class DaskEngine:
    """Batches on a Dask cluster: ``workers`` local processes, or the scheduler at ``scheduler``.

    Parameters
    ----------
    workers : int, optional
        Start a local cluster of this many worker processes (one thread each), closed with the
        engine.
    scheduler : str, optional
        The address of a running scheduler (``tcp://host:8786``); its workers do the work.
    timeout : float
        Seconds to wait for the scheduler before giving up with a one-line error.
    """

    def __init__(self, workers: int | None = None, scheduler: str | None = None, *,
                 timeout: float = 10.0) -> None:
        if (workers is None) == (scheduler is None):
            raise InputError("give either --workers or --scheduler, not both")
        distributed = _distributed()
        self._cluster = None
        if scheduler is not None:
            # credentials never echoed; a server that accepts and never answers, or is not
            # Dask, fails within the time-out (leaderboard/engine/dask_checks.py)
            check_address(scheduler)
            probe_scheduler(scheduler, timeout)
            try:
                self._client = distributed.Client(scheduler, timeout=f"{timeout}s")
            except Exception as err:  # noqa: BLE001 - whatever Dask raises is "cannot connect"
                reason = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
                raise InputError(f"--scheduler {scheduler}: cannot connect ({reason[:160]})") \
                    from None
        elif workers is not None:   # exactly one of the two is given (checked above)
            check_workers(int(workers))
            self._cluster = distributed.LocalCluster(n_workers=int(workers), threads_per_worker=1,
                                                     processes=True, dashboard_address=None)
            self._client = distributed.Client(self._cluster)
        self._where = scheduler or f"a local Dask cluster of {workers} worker processes"

    def workers(self) -> int:
        """Workers connected now (at least 1, so batches can be sized from it)."""
        return max(1, len(self._client.scheduler_info().get("workers", {})))

    def budget(self) -> int:
        """Bytes one batch may use: a quarter of the smallest worker's memory limit (the rest for
        the job, the weights and what reading a file takes), else
        :data:`~leaderboard.engine.work.BATCH_BYTES`. More entries per batch draw each replicate
        block's weights fewer times."""
        limits = [w.get("memory_limit") or 0
                  for w in self._client.scheduler_info().get("workers", {}).values()]
        return max(64 * 2**20, min(limits) // 4) if limits and min(limits) > 0 else BATCH_BYTES

    def spread(self, n_entries: int) -> int:
        """Entries per batch at most, so every worker gets about two batches."""
        return max(1, -(-n_entries // (2 * self.workers())))

    def run(self, job: Job, batches: Sequence[tuple[int, list]]) -> Iterator[BatchResult]:
        """Each batch's result, in the order they finish."""
        distributed = _distributed()
        if not batches:
            return
        shared = self._client.scatter(job, broadcast=True, hash=False)  # once per worker
        futures = [self._client.submit(run_batch, shared, first, items, pure=False)
                   for first, items in batches]
        try:
            for future in distributed.as_completed(futures):
                yield future.result()
        finally:
            self._client.cancel(futures)

    def describe(self) -> str:
        """Where the work ran, for notes and logs."""
        return self._where

    def close(self) -> None:
        """Disconnect, and stop the local cluster if this engine started it."""
        self._client.close()
        if self._cluster is not None:
            self._cluster.close()

    def __enter__(self) -> DaskEngine:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
