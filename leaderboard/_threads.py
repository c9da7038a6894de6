"""Run a GIL-releasing compiled kernel over a range of tasks on numba's thread count; keep small
linear algebra on one BLAS thread.

The compiled kernels are plain ``@njit(nogil=True)`` loops over a task range, run here on
threads, rather than numba's ``parallel=True``: its parfor pass tripled a kernel's compile time
(about 25 s of CPU on the example's first run, benchmarks/bench_start.py) for no speed a plain
kernel on two threads lacks. One pool serves every call: starting threads per call cost about
a millisecond, which small boards called thousands of times (the known-truth studies) noticed.
"""
from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager

import numpy as np

_POOL: ThreadPoolExecutor | None = None
_POOL_SIZE = 0
_LOCK = threading.Lock()


def _pool(threads: int) -> ThreadPoolExecutor:
    """The shared pool, (re)made when numba's thread count changed."""
    global _POOL, _POOL_SIZE
    with _LOCK:
        if _POOL is None or _POOL_SIZE != threads:
            if _POOL is not None:
                _POOL.shutdown(wait=False)
            _POOL = ThreadPoolExecutor(threads, thread_name_prefix="leaderboard")
            _POOL_SIZE = threads
        return _POOL


def _forget_pool() -> None:
    """In a forked child the pool's threads do not exist: start a new pool there."""
    global _POOL, _POOL_SIZE, _LOCK
    _POOL, _POOL_SIZE, _LOCK = None, 0, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


def thread_count() -> int:
    """numba's thread count (``NUMBA_NUM_THREADS``, ``numba.set_num_threads``), numba imported
    here: a run that calls no kernel never imports it (:mod:`leaderboard._jit`)."""
    import numba

    return int(numba.get_num_threads())


def threaded(kernel, n_tasks: int, *args) -> None:
    """Run ``kernel(*args, t0, t1)`` over task ranges covering 0..n_tasks.

    The kernels release the GIL and write disjoint outputs (or exact maxima), so how the range
    is split cannot change a result. A kernel must not itself call :func:`threaded` (its tasks
    would wait on the pool they occupy); none does: they are compiled loops.

    Examples
    --------
    >>> seen = []
    >>> threaded(lambda t0, t1: seen.append((t0, t1)), 0)
    >>> seen
    [(0, 0)]
    """
    threads = thread_count()
    if threads == 1 or n_tasks < 2:
        kernel(*args, 0, n_tasks)
        return
    edges = np.linspace(0, n_tasks, min(n_tasks, 4 * threads) + 1).astype(np.int64)
    list(_pool(threads).map(lambda e: kernel(*args, e[0], e[1]), zip(edges[:-1], edges[1:])))


_BLAS = None


@contextmanager
def one_blas_thread():
    """Small linear algebra (solves and eigendecompositions of models x models or candidates x
    candidates matrices) on one BLAS thread, as a context or a decorator. Such a matrix takes
    under a millisecond on one thread, while OpenBLAS's threads on a busy machine made each
    take 0.05-0.35 s: a 1M-battle fit 2.4 s against 0.12 s, a 30 x 30 ``eigh`` in ``choose``'s
    posterior 46 ms against 0.1 ms (the shared 2-core machine at load 7-20).

    Examples
    --------
    >>> import numpy as np
    >>> with one_blas_thread():
    ...     float(np.linalg.eigvalsh(np.eye(3)).sum())
    3.0
    """
    global _BLAS
    if _BLAS is None:      # finding the loaded BLAS libraries costs ~10 ms: once a process
        from threadpoolctl import ThreadpoolController

        _BLAS = ThreadpoolController().select(user_api="blas").lib_controllers
    # Each library's own setter, not ThreadpoolController.limit: its bookkeeping cost ~50 us a
    # call, more than the eigendecomposition it guards (a study calls this thousands of times).
    before = [lib.get_num_threads() for lib in _BLAS]
    for lib, threads in zip(_BLAS, before):
        if threads != 1:
            lib.set_num_threads(1)
    try:
        yield
    finally:
        for lib, threads in zip(_BLAS, before):
            if threads != 1:
                lib.set_num_threads(threads)
