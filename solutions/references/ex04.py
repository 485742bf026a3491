"""The grader's answers to exercise 04: the scaling table, the worker count that finishes soonest, the most
workers above a floor.

Read by the grader at grading time (never part of the package a learner installs); see
:mod:`perfcourse.grading.checks._answers`.
"""

from __future__ import annotations

import numpy as np

from perfcourse.models.laws import amdahl_speedup, efficiency, gustafson_speedup, speedup


def table(n, times, kind):
    """Strong: speedup t0/t, efficiency speedup * n0/n. Weak: efficiency t0/t, scaled speedup (n/n0) t0/t.

    Examples
    --------
    >>> table([2, 4], [10.0, 12.5], "weak")["speedup"]
    array([1. , 1.6])
    """
    n, times = np.asarray(n, dtype=float), np.asarray(times, dtype=float)
    if kind == "strong":
        s = speedup(times[0], times)
        return {"kind": "strong", "speedup": s, "efficiency": efficiency(s * n[0], n)}
    e = times[0] / times
    return {"kind": "weak", "speedup": e * n / n[0], "efficiency": e}


def best_workers(work_s, fixed_s, per_worker_s, max_n):
    """The n in 1..max_n with the least ``fixed + per_worker n + work / n`` (the smaller on a tie), by brute
    force, and its efficiency ``t(1) / (n t(n))``.

    Examples
    --------
    >>> n, e = best_workers(1e-3, 20e-6, 10e-6, 1000)
    >>> int(n), round(float(e), 4)
    (10, 0.4682)
    """
    n = np.arange(1, max_n + 1, dtype=float)
    t = fixed_s + per_worker_s * n + work_s / n
    best = int(np.argmin(t))                       # the first minimum: the fewest workers on a tie
    return (best + 1, float(t[0] / (n[best] * t[best])))


def max_workers(serial_fraction, min_efficiency, max_n):
    """Largest n <= max_n whose Amdahl (strong) and Gustafson (weak) efficiencies stay >= the floor.

    Examples
    --------
    >>> max_workers(0.05, 0.5, 10_000)
    {'strong': 21, 'weak': 10000}
    """
    n = np.arange(1, max_n + 1, dtype=float)
    strong = amdahl_speedup(serial_fraction, n) / n >= min_efficiency
    weak = gustafson_speedup(serial_fraction, n) / n >= min_efficiency
    return {"strong": int(n[strong].max()), "weak": int(n[weak].max())}
