"""Exercise 04: strong- and weak-scaling tables, and how far each scaling stays efficient."""

from __future__ import annotations

import numpy as np

from ...models.laws import amdahl_speedup, efficiency, gustafson_speedup, speedup
from ._tools import part, run_cases


def reference_strong(n, times):
    """Fixed total work: speedup against the first run, efficiency = speedup * n0 / n."""
    n, times = np.asarray(n, dtype=float), np.asarray(times, dtype=float)
    s = speedup(times[0], times)
    return {"speedup": s, "efficiency": efficiency(s * n[0], n)}


def reference_weak(n, times):
    """Fixed work per worker: efficiency = t0 / t, scaled speedup = (n / n0) * t0 / t."""
    n, times = np.asarray(n, dtype=float), np.asarray(times, dtype=float)
    e = times[0] / times
    return {"scaled_speedup": e * n / n[0], "efficiency": e}


def reference_max_workers(serial_fraction, min_efficiency, max_n):
    """Largest n <= max_n whose Amdahl (strong) and Gustafson (weak) efficiencies stay >= the floor.

    Examples
    --------
    >>> reference_max_workers(0.05, 0.5, 10_000)
    {'strong': 21, 'weak': 10000}
    """
    n = np.arange(1, max_n + 1, dtype=float)
    strong = amdahl_speedup(serial_fraction, n) / n >= min_efficiency
    weak = gustafson_speedup(serial_fraction, n) / n >= min_efficiency
    return {"strong": int(n[strong].max()), "weak": int(n[weak].max())}


def _runs(rng, *, weak):
    n = 2.0 ** np.sort(rng.choice(7, size=int(rng.integers(3, 7)), replace=False))
    s = float(rng.uniform(0.01, 0.2))
    t1 = float(rng.uniform(0.5, 50.0))
    model = t1 * (s + (1 - s) * (1 if weak else 1 / n)) + (0.02 * t1 * np.log2(n) if weak else 0)
    return n, model * rng.normal(1.0, 0.03, size=len(n))


@part("A: strong-scaling speedup and efficiency", points=2, needs=("strong_scaling",))
def check_strong(strong_scaling, rng):
    cases = []
    for _ in range(5):
        n, times = _runs(rng, weak=False)
        cases.append(((n, times), reference_strong(n, times)))
    return run_cases(strong_scaling, cases, 2, rtol=1e-6)


@part("B: weak-scaling scaled speedup and efficiency", points=2, needs=("weak_scaling",))
def check_weak(weak_scaling, rng):
    cases = []
    for _ in range(5):
        n, times = _runs(rng, weak=True)
        cases.append(((n, times), reference_weak(n, times)))
    return run_cases(weak_scaling, cases, 2, rtol=1e-6)


@part("C: most workers above an efficiency floor", points=3, needs=("max_workers",))
def check_max_workers(max_workers, rng):
    cases = []
    for _ in range(6):
        s = float(rng.uniform(0.001, 0.3))
        floor = float(rng.uniform(0.3, 0.95))
        max_n = int(rng.integers(10, 50_000))
        cases.append(((s, floor, max_n), reference_max_workers(s, floor, max_n)))
    return run_cases(max_workers, cases, 3)
