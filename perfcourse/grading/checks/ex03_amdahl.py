"""Exercise 03: fit Amdahl's serial fraction, the Karp-Flatt series, workers for a target speedup."""

from __future__ import annotations

import math

import numpy as np

from ...models.laws import amdahl_limit, amdahl_speedup, karp_flatt
from ._tools import part, run_cases


def reference_fit(n, speedup):
    """Least-squares ``s`` for ``1/S = s + (1 - s)/n``: minimise sum((1/S - 1/n - s (1 - 1/n))^2).

    Examples
    --------
    >>> n = np.array([1, 2, 4, 8])
    >>> round(reference_fit(n, amdahl_speedup(0.1, n)), 12)
    0.1
    """
    n, speedup = np.asarray(n, dtype=float), np.asarray(speedup, dtype=float)
    x, y = 1.0 - 1.0 / n, 1.0 / speedup - 1.0 / n
    return float(np.clip(np.dot(x, y) / np.dot(x, x), 0.0, 1.0))


def reference_workers(serial_fraction, target):
    """Smallest whole ``n`` with Amdahl speedup >= target, or None when 1/s <= target.

    Examples
    --------
    >>> reference_workers(0.1, 5.0)
    9
    >>> reference_workers(0.1, 10.0) is None
    True
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


def _measurements(rng, with_one=True):
    powers = rng.choice(np.arange(0 if with_one else 1, 8), size=int(rng.integers(3, 7)), replace=False)
    n = 2.0 ** np.sort(powers)
    s = float(rng.uniform(0.005, 0.3))
    noisy = amdahl_speedup(s, n) * rng.normal(1.0, 0.02, size=len(n))
    if with_one:
        noisy[n == 1] = 1.0
    return n, noisy


@part("A: fit the serial fraction (least squares)", points=3, needs=("fit_serial_fraction",))
def check_fit(fit_serial_fraction, rng):
    cases = []
    for _ in range(6):
        n, measured = _measurements(rng)
        cases.append(((n, measured), reference_fit(n, measured)))
    return run_cases(fit_serial_fraction, cases, 3, rtol=1e-6, atol=1e-12)


@part("B: Karp-Flatt serial fraction per run", points=2, needs=("karp_flatt_series",))
def check_karp_flatt(karp_flatt_series, rng):
    cases = []
    for _ in range(6):
        n, measured = _measurements(rng, with_one=False)
        cases.append(((n, measured), karp_flatt(measured, n)))
    return run_cases(karp_flatt_series, cases, 2, rtol=1e-6, atol=1e-12)


@part("C: workers needed for a target speedup", points=2, needs=("workers_for_speedup",))
def check_workers(workers_for_speedup, rng):
    cases = []
    for k in range(8):
        s = float(rng.uniform(0.001, 0.2))
        target = amdahl_limit(s) * (1.0 + float(rng.uniform(0, 1))) if k == 0 else \
            float(rng.uniform(1.1, 0.95 * amdahl_limit(s)))
        cases.append(((s, target), reference_workers(s, target)))
    return run_cases(workers_for_speedup, cases, 2)
