"""The closed-form rank sets' block layout against numpy (issue 41: the layout's sub-block arrays
are now written in their stored forms by the kernel, the runners-up rounded outward there, and
built one part at a time): each sub-block's extremes, holders, holders' errors and runners-up,
as a plain sort of z = e / s per sub-block gives them."""
from __future__ import annotations

import numpy as np

from leaderboard.tiers import closed_sets


def _outward(z: np.ndarray, way: int) -> np.ndarray:
    out = z.astype(np.float32)
    off = out < z if way > 0 else out > z
    out[off] = np.nextafter(out[off], np.float32(np.inf * way))
    return out


def test_layout_parts_are_the_sorted_sub_blocks_rounded_outward():
    rng = np.random.default_rng(41)
    n, reps, sub = 203, 37, 5                     # a last sub-block of 3 entries
    sd = np.sort(rng.uniform(0.01, 0.03, n))
    sd[7] = 0.0                                   # no noise: z = 0 (its errors are 0)
    err = (rng.standard_normal((n, reps)) * sd[:, None]).astype(np.float32)
    err[20:25] = err[20]                          # a sub-block of equal errors: ties
    lay = closed_sets._layout(err, sd, sub)
    a = np.divide(1.0, sd, out=np.zeros(n), where=sd > 0)
    z = err.astype(np.float64) * a[:, None]
    for q, start in enumerate(range(0, n, sub)):
        zq = z[start:start + sub]                 # (members, reps)
        top, bottom = np.sort(zq, axis=0)[::-1], np.sort(zq, axis=0)
        second_top = top[1] if len(zq) > 1 else np.full(reps, -np.inf)
        second_bottom = bottom[1] if len(zq) > 1 else np.full(reps, np.inf)
        np.testing.assert_array_equal(lay.szmax[:, q], _outward(top[0], 1))
        np.testing.assert_array_equal(lay.szmin[:, q], _outward(bottom[0], -1))
        np.testing.assert_array_equal(lay.sz2max[:, q], _outward(second_top, 1))
        np.testing.assert_array_equal(lay.sz2min[:, q], _outward(second_bottom, -1))
        holder_max = start + np.argmax(zq, axis=0)   # the first of equal extremes
        holder_min = start + np.argmin(zq, axis=0)
        np.testing.assert_array_equal(lay.samax[:, q], holder_max)
        np.testing.assert_array_equal(lay.samin[:, q], holder_min)
        np.testing.assert_array_equal(lay.semax[:, q], err[holder_max, np.arange(reps)])
        np.testing.assert_array_equal(lay.semin[:, q], err[holder_min, np.arange(reps)])
    for part in (lay.szmax, lay.szmin, lay.sz2max, lay.sz2min, lay.semax, lay.semin):
        assert part.dtype == np.float32 and part.flags.c_contiguous
    assert lay.samax.dtype == lay.samin.dtype == np.int32
