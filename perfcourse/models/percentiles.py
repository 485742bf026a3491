"""The course's one percentile: linear interpolation between sorted values, as NumPy's default.

Every percentile the course reports (a timing's p50/p95/p99, a claim card's, a simulated trace's)
comes from here. Percentiles are percents: 99 for p99.

Examples
--------
>>> percentile([4.0, 1.0, 3.0, 2.0], 50), percentile([1.0, 2.0, float("nan")], 100)
(2.5, 2.0)
"""

from __future__ import annotations

import math

import numpy as np

from .._check import real

__all__ = ["percentile", "sorted_percentile"]


def sorted_percentile(ordered, q):
    """The ``q``-th percentile of already sorted, NaN-free ``ordered``; never decreases as ``q`` grows.

    Examples
    --------
    >>> sorted_percentile([1.0, 2.0, 3.0, 4.0, 5.0], 95)
    4.8
    """
    pos = (len(ordered) - 1) * (q / 100.0)
    k = math.floor(pos)
    if k >= len(ordered) - 1:
        return float(ordered[-1])
    lo, hi = float(ordered[k]), float(ordered[k + 1])
    return min(max(lo + (hi - lo) * (pos - k), lo), hi)


def percentile(values, q):
    """The ``q``-th percentile (0 to 100) of ``values``, NaN ignored; ``ValueError`` when none is a number."""
    v = np.asarray(values, dtype=np.float64).ravel()
    v = np.sort(v[~np.isnan(v)])
    if v.size == 0:
        raise ValueError("values must hold at least one number to take a percentile of; got none")
    return sorted_percentile(v, real("q", q, low=0, high=100))
