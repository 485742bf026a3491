"""The grader's answers to exercise 06: replicas by Little's law, the highest arrival rate under a p99 SLO,
requests in flight.

Read by the grader at grading time (never part of the package a learner installs); see
:mod:`perfcourse.grading.checks._answers`.
"""

from __future__ import annotations

import math

import numpy as np

from perfcourse.models.laws import littles_law


def replicas(arrival_rate, latency_s, concurrency_per_replica, target_utilization):
    """Replicas so that L = lambda * W requests fit at the target utilization.

    Examples
    --------
    >>> replicas(1000, 0.2, 16, 0.7)
    18
    """
    in_flight = littles_law(arrival_rate=arrival_rate, time_in_system=latency_s)
    return math.ceil(in_flight / (concurrency_per_replica * target_utilization))


def max_rate(service_rate, latency_slo_s):
    """Largest M/M/1 arrival rate whose p99 time in system meets the SLO: mu - ln(100)/SLO, or 0.0.

    The time in system is exponential with rate ``mu - lambda``, so its p99 is ``ln(100) / (mu - lambda)``.

    Examples
    --------
    >>> round(max_rate(100.0, 0.1), 6)
    53.948298
    >>> from perfcourse.queueing import mm1
    >>> round(mm1(max_rate(100.0, 0.1), 100.0).time_in_system_percentile(99), 12)   # met exactly
    0.1
    """
    return max(service_rate - math.log(100) / latency_slo_s, 0.0)


def in_flight(arrivals, departures, times):
    """Requests with arrival <= t < departure, for each t in ``times``."""
    arrivals, departures = np.asarray(arrivals), np.asarray(departures)
    times = np.asarray(times)[:, None]
    return ((arrivals <= times) & (times < departures)).sum(axis=1)
