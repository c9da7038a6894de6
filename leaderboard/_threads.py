"""Run a GIL-releasing compiled kernel over a range of tasks on numba's thread count."""
from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np


def threaded(kernel, n_tasks: int, *args) -> None:
    """Run ``kernel(*args, t0, t1)`` over task ranges covering 0..n_tasks.

    The kernels release the GIL and write disjoint outputs (or exact maxima), so how the range
    is split cannot change a result.
    """
    threads = numba.get_num_threads()
    if threads == 1 or n_tasks < 2:
        kernel(*args, 0, n_tasks)
        return
    edges = np.linspace(0, n_tasks, min(n_tasks, 4 * threads) + 1).astype(np.int64)
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(lambda e: kernel(*args, e[0], e[1]), zip(edges[:-1], edges[1:])))
