"""Exercise 06: capacity planning with Little's law, an M/M/1 load limit on the tail, in-flight counts."""

from __future__ import annotations

import math

import numpy as np

from ._tools import part, run_cases


@part("A: replicas needed (Little's law)", points=2, needs=("replicas_needed",))
def check_replicas(replicas_needed, rng, ref):
    cases = []
    for _ in range(6):
        args = (float(rng.uniform(10, 1e5)), float(rng.uniform(1e-3, 2.0)), int(rng.integers(1, 256)),
                float(rng.uniform(0.4, 0.95)))
        cases.append((args, ref.replicas(*args)))
    return run_cases(replicas_needed, cases, 2)


@part("B: highest arrival rate meeting a p99 SLO", points=2, needs=("max_arrival_rate",))
def check_max_rate(max_arrival_rate, rng, ref):
    cases = []
    for k in range(6):
        mu = float(rng.uniform(250, 5000))    # every case above 200/s (tests/test_grading_hostile.py relies on it)
        p99_idle = math.log(100) / mu
        slo = p99_idle * float(rng.uniform(0.2, 0.9) if k == 0 else rng.uniform(1.1, 50))
        cases.append(((mu, slo), ref.max_rate(mu, slo)))
    return run_cases(max_arrival_rate, cases, 2, rtol=1e-9, atol=1e-12)


@part("C: requests in flight from a request log", points=3, needs=("in_flight_at",))
def check_in_flight(in_flight_at, rng, ref):
    cases = []
    for _ in range(5):
        n = int(rng.integers(20, 400))
        arrivals = np.cumsum(rng.exponential(1.0 / rng.uniform(5, 500), size=n))
        departures = arrivals + rng.exponential(rng.uniform(0.005, 0.5), size=n)
        order = rng.permutation(n)             # the log is not sorted
        times = np.sort(rng.uniform(0, departures.max(), size=int(rng.integers(5, 50))))
        args = (arrivals[order], departures[order], times)
        cases.append((args, ref.in_flight(*args)))
    return run_cases(in_flight_at, cases, 3)
