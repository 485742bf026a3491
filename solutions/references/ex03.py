"""The grader's answers to exercise 03: the least-squares serial fraction and the workers a target speedup needs.

Read by the grader at grading time (never part of the package a learner installs); see
:mod:`perfcourse.grading.checks._answers`.
"""

from __future__ import annotations

import math

import numpy as np

from perfcourse.models.laws import amdahl_limit, amdahl_speedup


def fit(n, speedup):
    """Least-squares ``s`` for ``1/S = s + (1 - s)/n``: minimise sum((1/S - 1/n - s (1 - 1/n))^2).

    Examples
    --------
    >>> n = np.array([1, 2, 4, 8])
    >>> round(fit(n, amdahl_speedup(0.1, n)), 12)
    0.1
    """
    n, speedup = np.asarray(n, dtype=float), np.asarray(speedup, dtype=float)
    x, y = 1.0 - 1.0 / n, 1.0 / speedup - 1.0 / n
    return float(np.clip(np.dot(x, y) / np.dot(x, x), 0.0, 1.0))


def workers(serial_fraction, target):
    """Smallest whole ``n`` with Amdahl speedup >= target, or None when 1/s <= target.

    Examples
    --------
    >>> workers(0.1, 5.0)
    9
    >>> workers(0.1, 10.0) is None
    True
    >>> workers(0.0, 7.5)
    8
    """
    if target <= 1.0:
        return 1
    if amdahl_limit(serial_fraction) <= target:
        return None
    n = max(1, math.ceil((1 - serial_fraction) / (1 / target - serial_fraction)))
    while amdahl_speedup(serial_fraction, n) < target:
        n += 1
    while n > 1 and amdahl_speedup(serial_fraction, n - 1) >= target:
        n -= 1
    return n
