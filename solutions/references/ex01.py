"""The grader's answers to exercise 01: the batch that keeps up with a load, the largest batch under an SLO,
the p99 report.

Read by the grader at grading time (never part of the package a learner installs); see
:mod:`perfcourse.grading.checks._answers`.
"""

from __future__ import annotations

import numpy as np


def batch_for_load(latency, arrival_rate, max_batch):
    """Smallest batch with ``latency(b) <= b / arrival_rate`` and its first request's wait, or (0, None).

    The first request of a batch waits ``(b - 1) / arrival_rate`` for the others, then ``latency(b)``;
    that grows with ``b``, so the smallest batch that keeps up is the best one. By brute force.

    Examples
    --------
    >>> batch_for_load(lambda b: 0.002 + 0.0001 * b, 1000.0, 1000)
    (3, 0.0043)
    """
    for b in range(1, max_batch + 1):
        if latency(b) <= b / arrival_rate:
            return (b, (b - 1) / arrival_rate + latency(b))
    return (0, None)


def largest_batch(latency, slo_s, max_batch):
    """Largest batch in 1..max_batch whose latency meets the SLO (0 if none), by brute force."""
    ok = [b for b in range(1, max_batch + 1) if latency(b) <= slo_s]
    return max(ok) if ok else 0


def p99_report(samples_by_batch, slo_s):
    """(largest batch whose p99 meets the SLO, its throughput = batch / p50) or (0, 0.0)."""
    ok = [b for b, s in samples_by_batch.items() if np.percentile(s, 99) <= slo_s]
    if not ok:
        return (0, 0.0)
    best = max(ok)
    return (best, best / float(np.percentile(samples_by_batch[best], 50)))
