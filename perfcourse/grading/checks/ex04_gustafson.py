"""Exercise 04: which kind of scaling a series is and its table, the best worker count, efficiency floors."""

from __future__ import annotations

import numpy as np

from ._tools import part, run_cases


def _series(rng, kind):
    """Worker counts (powers of two, the baseline may be more than 1), noisy times and problem sizes."""
    n = 2.0 ** np.sort(rng.choice(7, size=int(rng.integers(3, 7)), replace=False))
    s, t1 = float(rng.uniform(0.01, 0.2)), float(rng.uniform(0.5, 50.0))
    weak = kind == "weak"
    model = t1 * (s + (1 - s) * (1 if weak else 1 / n)) + (0.02 * t1 * np.log2(n) if weak else 0)
    per_worker = int(rng.integers(100, 10**6))
    sizes = [per_worker * int(k) for k in n] if weak else [per_worker * int(n[-1])] * len(n)
    return n, model * rng.normal(1.0, 0.03, size=len(n)), sizes


@part("A: which kind of scaling, and its table", points=3, needs=("scaling_table",))
def check_table(scaling_table, rng, ref):
    cases = []
    for kind in ("strong", "weak", *rng.choice(["strong", "weak"], size=4)):
        n, times, sizes = _series(rng, str(kind))
        if rng.random() < 0.5:
            n, times = [int(k) for k in n], [float(t) for t in times]
        cases.append(((n, times, sizes), ref.table(n, times, str(kind))))
    return run_cases(scaling_table, cases, 3, rtol=1e-6)


def _worker_cases(rng):
    """Best counts inside the range, beyond it, at 1, and free workers (per_worker_s = 0)."""
    for k in range(7):
        work, fixed = float(10 ** rng.uniform(-4, 1)), float(10 ** rng.uniform(-6, -3))
        best = float(10 ** rng.uniform(0.3, 3))    # where the continuous optimum sqrt(work / per_worker) lies
        per_worker = work / best**2
        max_n = int(rng.integers(2, 5000))
        if k == 0:
            per_worker = 0.0
        elif k == 1:
            max_n = max(1, int(best * float(rng.uniform(0.2, 0.9))))
        elif k == 2:
            per_worker = work * float(rng.uniform(1, 10))      # even a second worker costs more than it saves
        elif k == 3:                                # just below k + 1/2, yet k + 1 workers beat k
            whole = int(rng.integers(2, 60))
            low, high = np.sqrt(whole * (whole + 1)), whole + 0.5
            best = float(rng.uniform(low + 1e-3 * (high - low), high - 1e-3 * (high - low)))
            per_worker, max_n = work / best**2, int(rng.integers(whole + 2, 5000))
        else:
            max_n = int(best * float(rng.uniform(1.5, 20))) + 1
        yield work, fixed, per_worker, max_n


@part("B: the worker count that finishes soonest", points=2, needs=("best_worker_count",))
def check_best_workers(best_worker_count, rng, ref):
    cases = [(args, ref.best_workers(*args)) for args in _worker_cases(rng)]
    return run_cases(best_worker_count, cases, 2, rtol=1e-9)


@part("C: most workers above an efficiency floor", points=2, needs=("max_workers",))
def check_max_workers(max_workers, rng, ref):
    cases = []
    for _ in range(6):
        s = float(rng.uniform(0.001, 0.3))
        floor = float(rng.uniform(0.3, 0.95))
        max_n = int(rng.integers(10, 50_000))
        cases.append(((s, floor, max_n), ref.max_workers(s, floor, max_n)))
    return run_cases(max_workers, cases, 2)
