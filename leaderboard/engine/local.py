"""The in-process engine: batches run one after another in this process (the default; needs
nothing beyond the package)."""
from __future__ import annotations

from collections.abc import Iterator, Sequence

from leaderboard.engine.work import BATCH_BYTES, BatchResult, Job, run_batch


class LocalEngine:
    """Runs every batch here, in order; peak memory is one batch's.

    Examples
    --------
    >>> LocalEngine().describe()
    'in this process'
    """

    def run(self, job: Job, batches: Sequence[tuple[int, list]]) -> Iterator[BatchResult]:
        """Each batch's result, as it is done."""
        for first, items in batches:
            yield run_batch(job, first, items)

    def budget(self) -> int:
        """Bytes one batch may use (:data:`~leaderboard.engine.work.BATCH_BYTES`)."""
        return BATCH_BYTES

    def spread(self, n_entries: int) -> int:
        """Entries per batch at most: no limit here (the memory budget decides)."""
        return max(1, n_entries)

    def describe(self) -> str:
        """Where the work ran, for notes and logs."""
        return "in this process"

    def close(self) -> None:
        """Nothing to release."""
