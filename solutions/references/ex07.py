"""The grader's answers to exercise 07: the alpha-beta fit, the better link fix, the devices of a data-parallel step.

Read by the grader at grading time (never part of the package a learner installs); see
:mod:`perfcourse.grading.checks._answers`.
"""

from __future__ import annotations

import numpy as np

from perfcourse.models.allreduce import ring_allreduce_time


def fit(sizes_bytes, times_s):
    """Least squares on the relative errors ``(alpha + beta n - t) / t``; returns (alpha, beta).

    Examples
    --------
    >>> a, b = fit([0, 1e6, 2e6], [1e-5, 1e-5 + 1e-4, 1e-5 + 2e-4])
    >>> round(a * 1e6, 6), round(b * 1e10, 6)
    (10.0, 1.0)
    """
    n, t = np.asarray(sizes_bytes, dtype=float), np.asarray(times_s, dtype=float)
    (alpha, beta), *_ = np.linalg.lstsq(np.column_stack([1 / t, n / t]), np.ones_like(t), rcond=None)
    return float(alpha), float(beta)


def fixes(n_bytes, p, alpha, beta):
    return ring_allreduce_time(n_bytes, p, alpha / 2, beta), ring_allreduce_time(n_bytes, p, alpha, beta / 2)


def better_fix(n_bytes, p, alpha, beta):
    """("latency", time with alpha / 2) or ("bandwidth", time with beta / 2), whichever ring all-reduce is faster.

    Examples
    --------
    >>> choice, seconds = better_fix(4 * 2**20, 64, 5e-6, 1 / 25e9)
    >>> choice, round(seconds * 1e6, 3)
    ('latency', 645.301)
    """
    latency, bandwidth = fixes(n_bytes, p, alpha, beta)
    return ("latency", latency) if latency < bandwidth else ("bandwidth", bandwidth)


def step(compute_s, grad_bytes, p, alpha, beta):
    return compute_s / p + ring_allreduce_time(grad_bytes, p, alpha, beta)


def plan_devices(compute_s, grad_bytes, alpha, beta, max_p, min_efficiency):
    """Largest p in 1..max_p with ``compute / (p step(p)) >= min_efficiency`` (by brute force), and step(p).

    Examples
    --------
    >>> p, step = plan_devices(0.8, 1e9, 10e-6, 1 / 100e9, 1024, 0.8)
    >>> p, round(step, 6)
    (10, 0.09818)
    """
    ok = [p for p in range(1, max_p + 1)
          if compute_s / (p * step(compute_s, grad_bytes, p, alpha, beta)) >= min_efficiency]
    best = max(ok)                                 # p = 1 always qualifies: efficiency 1
    return (best, step(compute_s, grad_bytes, best, alpha, beta))
