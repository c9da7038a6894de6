"""Few clusters: a small-sample correction for the cluster bootstrap, and how to say it.

Resampling whole clusters (``--cluster-col``, ``--group-col``) is right when items of one
cluster are related, but the cluster bootstrap's spread is the plug-in variance of ``G`` cluster
totals: it is ``(G - 1) / G`` of the unbiased one and its quantiles are normal-like, while the
statistic's error over ``G`` clusters behaves like a t with ``G - 1`` degrees of freedom. With a
dozen clusters the intervals are too narrow and the ``compare`` gate passes a true null too
often (measured: 8-10% at alpha 5% with 6 or 12 clusters, one of them holding 46% of the items).

The correction (the CR1 factor with a t reference, as in cluster-robust regression) stretches
every replicate away from its entry's score by

    c = sqrt(G / (G - 1)) * t_{G-1}(q) / z(q)

with ``q`` the quantile the decision reads (``1 - alpha / 2`` for two-sided intervals and
tiers, ``1 - alpha`` for the one-sided gate). Paired differences are stretched by the same
factor, so the pairing is kept. Measured (tests/noise/test_clusters.py; 300-400 null boards each,
Monte Carlo SE 1.1-1.3 points): the gate's level is 4.7-5.3% with 6, 12 (one holding 46%) and
20 clusters. With many clusters ``c`` is about 1 and nothing changes; the correction is applied
when there are fewer than :data:`FEW` clusters or one holds at least :data:`LARGE_SHARE` of the
items (then the effective number of clusters is small whatever ``G`` is).
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

FEW = 30               # fewer clusters than this: corrected and said so
LARGE_SHARE = 0.25     # one cluster holding this share of the items or more: said so


@dataclass(frozen=True)
class ClusterCount:
    """How many clusters the items fall into, and whether that is few.

    Attributes
    ----------
    clusters : int
        Distinct clusters ``G``.
    items : int
    largest_share : float
        Share of the items in the largest cluster.
    """

    clusters: int
    items: int
    largest_share: float

    @property
    def few(self) -> bool:
        """Fewer than :data:`FEW` clusters, or one holding :data:`LARGE_SHARE` or more."""
        return self.clusters < FEW or self.largest_share >= LARGE_SHARE

    def factor(self, alpha: float, sides: int = 2) -> float:
        """The stretch ``c`` of the replicates (1 when there are not few clusters, or only one).

        Examples
        --------
        >>> round(ClusterCount(12, 500, 0.46).factor(0.05), 3)
        1.173
        >>> ClusterCount(200, 5000, 0.01).factor(0.05)
        1.0
        """
        from scipy.stats import norm, t

        g = self.clusters
        if not self.few or g < 2:
            return 1.0
        q = 1 - alpha / sides
        return float(np.sqrt(g / (g - 1)) * t.ppf(q, g - 1) / norm.ppf(q))

    def sentence(self, column: str | None = None) -> str:
        """What a reader should know, in one sentence (empty when the clusters are not few)."""
        if not self.few:
            return ""
        what = f"column {column!r}" if column else "the cluster column"
        big = (f"; the largest holds {self.largest_share:.0%} of the items"
               if self.largest_share >= LARGE_SHARE else "")
        return (f"Few clusters: {what} groups the {self.items:,} items into {self.clusters:,} "
                f"clusters{big}. With so few, the cluster bootstrap is too narrow, so the "
                f"intervals, tiers and tests use a t reference with {self.clusters - 1} degrees "
                "of freedom (the replicates stretched by sqrt(G/(G-1)) t/z); treat them as "
                "approximate: a few clusters cannot pin the noise down.")


def cluster_count(groups: np.ndarray) -> ClusterCount:
    """Count the clusters of ``groups`` (one label per item).

    Examples
    --------
    >>> c = cluster_count(np.array(["a", "a", "a", "b", "c", "c"]))
    >>> c.clusters, round(c.largest_share, 2), c.few
    (3, 0.5, True)
    """
    _, sizes = np.unique(np.asarray(groups).astype(str), return_counts=True)
    return ClusterCount(clusters=int(sizes.size), items=int(sizes.sum()),
                        largest_share=float(sizes.max() / sizes.sum()) if sizes.size else 0.0)


def stretch(boot, factor: float):
    """``boot`` (a BootstrapResult) with every replicate moved away from its entry's score by
    ``factor`` (1: unchanged). Differences between entries stretch by the same factor.

    Examples
    --------
    >>> from leaderboard.noise.bootstrap import BootstrapResult
    >>> b = BootstrapResult(np.array([0.5]), np.array([[0.4, 0.6]]), "grouped", 10, 3, 0)
    >>> stretch(b, 2.0).replicates.round(6).tolist()
    [[0.3, 0.7]]
    """
    if factor == 1.0:
        return boot
    point = boot.point[:, None]
    return replace(boot, replicates=point + factor * (boot.replicates - point))
