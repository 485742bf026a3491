"""The grader's answers to exercise 09: the per-block sums and the plan of a whole reduction.

Read by the grader at grading time (never part of the package a learner installs); see
:mod:`perfcourse.grading.checks._answers`.
"""

from __future__ import annotations

import numpy as np

from perfcourse.models.counts import log2_ceil


def block_sums(x, threads_per_block):
    """The sum of each block of ``threads_per_block`` consecutive elements (the last may be short).

    Examples
    --------
    >>> block_sums(np.arange(1.0, 11.0), 4).tolist()
    [10.0, 26.0, 19.0]
    """
    x = np.asarray(x, dtype=np.float64)
    return np.add.reduceat(x, np.arange(0, x.size, threads_per_block)) if x.size else np.zeros(0)


def plan(n, threads_per_block):
    """Launches, additions and tree levels of summing ``n`` numbers with one-element-per-thread blocks.

    Each launch turns ``m`` numbers into ``ceil(m / T)`` block sums; every block does ``T - 1``
    additions (threads past the end add zeros) in ``log2 T`` levels. Launch until one is left.

    Examples
    --------
    >>> plan(1000, 64)
    {'launches': 2, 'additions': 1071, 'levels': 12}
    >>> plan(1024, 32)
    {'launches': 2, 'additions': 1023, 'levels': 10}
    """
    launches = additions = 0
    m = n
    while m > 1:
        m = -(-m // threads_per_block)
        launches += 1
        additions += m * (threads_per_block - 1)
    return {"launches": launches, "additions": additions, "levels": launches * log2_ceil(threads_per_block)}
