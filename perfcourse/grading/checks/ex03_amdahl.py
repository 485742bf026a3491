"""Exercise 03: fit Amdahl's serial fraction, the Karp-Flatt series, workers for a target speedup."""

from __future__ import annotations

import numpy as np

from ...models.laws import amdahl_limit, amdahl_speedup, karp_flatt
from ._tools import part, run_cases


def _measurements(rng, *, with_one=True, s=None, noise=0.02):
    """Worker counts (powers of two) and noisy Amdahl speedups; a run at n = 1 reads exactly 1 by default."""
    powers = rng.choice(np.arange(0 if with_one else 1, 8), size=int(rng.integers(3, 7)), replace=False)
    n = 2.0 ** np.sort(powers)
    s = float(rng.uniform(0.005, 0.3)) if s is None else s
    noisy = amdahl_speedup(s, n) * rng.normal(1.0, noise, size=len(n))
    if with_one:
        noisy[n == 1] = 1.0
    return n, noisy


def _as_lists(n, speedup):
    return [int(k) for k in n], [float(v) for v in speedup]


def _fit_cases(rng):
    """Exact data, lists, an outlier run, a noisy run at n = 1, no serial part, superlinear and slower-than-one runs."""
    n, s = 2.0 ** np.arange(int(rng.integers(3, 8))), float(rng.uniform(0.01, 0.3))
    yield n, amdahl_speedup(s, n)                                   # exact: the fit gives s back
    yield _as_lists(*_measurements(rng))                            # plain lists of numbers
    n, measured = _measurements(rng, with_one=False)
    measured[int(rng.integers(len(n)))] *= float(rng.uniform(0.4, 0.7))   # one run far off
    yield n, measured
    n, measured = _measurements(rng, with_one=False)
    yield np.r_[1.0, n], np.r_[float(rng.uniform(0.9, 1.1)), measured]     # a noisy rerun of the baseline
    yield _measurements(rng, s=0.0, noise=0.01)                     # no serial part: s near (or clipped to) 0
    n = 2.0 ** np.arange(1, int(rng.integers(3, 7)))
    yield n, n * rng.uniform(1.05, 1.3, size=len(n))                # superlinear: clipped to 0
    yield _measurements(rng, s=float(rng.uniform(0.97, 1.0)), noise=0.05)   # slower than one worker: up to 1


@part("A: fit the serial fraction (least squares)", points=3, needs=("fit_serial_fraction",))
def check_fit(fit_serial_fraction, rng, ref):
    cases = [((n, measured), ref.fit(n, measured)) for n, measured in _fit_cases(rng)]
    return run_cases(fit_serial_fraction, cases, 3, rtol=1e-6, atol=1e-12)


def _karp_flatt_cases(rng):
    """Exact data (one value at every n), overhead that grows with n, superlinear runs, lists."""
    n, s = 2.0 ** np.arange(1, int(rng.integers(3, 8))), float(rng.uniform(0.01, 0.3))
    yield n, amdahl_speedup(s, n)
    overhead = float(rng.uniform(0.002, 0.02))                      # a cost per worker: e grows with n
    yield n, 1.0 / (s + (1 - s) / n + overhead * n)
    yield n, n * rng.uniform(1.0, 1.2, size=len(n))                 # superlinear: negative values
    for _ in range(3):
        n, measured = _measurements(rng, with_one=False)
        yield _as_lists(n, measured) if rng.random() < 0.5 else (n, measured)


@part("B: Karp-Flatt serial fraction per run", points=2, needs=("karp_flatt_series",))
def check_karp_flatt(karp_flatt_series, rng, ref):
    cases = [((n, measured), karp_flatt(np.asarray(measured, dtype=float), np.asarray(n, dtype=float)))
             for n, measured in _karp_flatt_cases(rng)]
    return run_cases(karp_flatt_series, cases, 2, rtol=1e-6, atol=1e-12)


def _workers_cases(rng):
    """Unreachable targets, a target at the limit, s = 0, targets some n reaches exactly, and plain ones."""
    s = float(rng.uniform(0.001, 0.2))
    yield s, amdahl_limit(s) * (1.0 + float(rng.uniform(0.01, 1)))  # above the limit: None
    j = int(rng.integers(2, 11))
    yield 2.0**-j, 2.0**j                                           # exactly the limit 1/s: None
    yield 0.0, float(rng.uniform(1.5, 5000.0))                      # no serial part: n = ceil(target)
    for k in range(4):                          # targets some n reaches exactly ("as written": amdahl_speedup)
        if k == 0:                              # dyadic s, n a power of two: every way of writing it agrees
            s, n = int(rng.integers(1, 200)) / 1024, 2 ** int(rng.integers(1, 13))
        else:
            s, n = float(rng.uniform(0.001, 0.3)), int(rng.integers(2, 5000))
        yield s, float(amdahl_speedup(s, n))
    yield int(rng.integers(1, 1024)) / 1024, 1.0                    # one worker reaches 1x
    s = float(10 ** rng.uniform(-9, -8))
    yield s, 0.95 * amdahl_limit(s)                                 # near the limit: billions, no loop counts them
    for _ in range(3):
        s = float(rng.uniform(0.001, 0.2))
        yield s, float(rng.uniform(1.1, 0.95 * amdahl_limit(s)))


@part("C: workers needed for a target speedup", points=2, needs=("workers_for_speedup",))
def check_workers(workers_for_speedup, rng, ref):
    cases = [((s, target), ref.workers(s, target)) for s, target in _workers_cases(rng)]
    return run_cases(workers_for_speedup, cases, 2)
