"""Exercise 07: the alpha-beta communication model and the efficiency of a data-parallel step."""

from __future__ import annotations

import numpy as np

from ...models.laws import efficiency, speedup
from ._tools import part, run_cases, short


def reference_fit(sizes_bytes, times_s):
    """Ordinary least squares for ``t = alpha + beta * n``; returns (alpha, beta).

    Examples
    --------
    >>> a, b = reference_fit([0, 1e6, 2e6], [1e-5, 1e-5 + 1e-4, 1e-5 + 2e-4])
    >>> round(a * 1e6, 6), round(b * 1e10, 6)
    (10.0, 1.0)
    """
    n = np.asarray(sizes_bytes, dtype=float)
    design = np.column_stack([np.ones_like(n), n])
    (alpha, beta), *_ = np.linalg.lstsq(design, np.asarray(times_s, dtype=float), rcond=None)
    return float(alpha), float(beta)


def reference_ring(n_bytes, p, alpha, beta):
    """Ring all-reduce: ``2 (p - 1) alpha + 2 (p - 1) / p * n * beta`` seconds (0 for p = 1).

    Examples
    --------
    >>> round(reference_ring(1e9, 8, 10e-6, 1 / 100e9), 6)
    0.01764
    """
    return 2 * (p - 1) * alpha + 2 * (p - 1) / p * n_bytes * beta


def reference_step(compute_s, grad_bytes, p, alpha, beta):
    """(step time, efficiency): compute split p ways plus a ring all-reduce of the gradients."""
    step = compute_s / p + reference_ring(grad_bytes, p, alpha, beta)
    return (step, efficiency(speedup(compute_s, step), p))


def _sse(alpha, beta, sizes, times):
    return float(np.sum((times - (alpha + beta * sizes)) ** 2))


@part("A: fit alpha and beta (least squares)", points=3, needs=("fit_alpha_beta",))
def check_fit(fit_alpha_beta, rng):
    """Any least-squares solver passes: the fit is judged by its squared error, not its digits."""
    for _ in range(5):
        alpha, beta = float(rng.uniform(1e-6, 5e-5)), 1.0 / float(rng.uniform(1e9, 1e11))
        sizes = np.sort(2.0 ** rng.uniform(10, 28, size=int(rng.integers(6, 20))))
        times = (alpha + beta * sizes) * rng.normal(1.0, 0.03, size=len(sizes))
        best = _sse(*reference_fit(sizes, times), sizes, times)
        got = fit_alpha_beta(sizes.copy(), times.copy())
        try:
            sse = _sse(float(got[0]), float(got[1]), sizes, times)
        except (TypeError, ValueError, IndexError):
            return 0, 3, f"expected a pair (alpha, beta) of numbers, got {short(got)}"
        if not sse <= best * (1 + 1e-6) + 1e-30:
            a, b = reference_fit(sizes, times)
            return 0, 3, (f"not the least-squares fit for {len(sizes)} random sizes: expected about "
                          f"alpha={a:.4g} s, beta={b:.4g} s/byte; got {short(got)}")
    return 3, 3, "correct on 5 random data sets"


@part("B: ring all-reduce time", points=2, needs=("ring_allreduce_time",))
def check_ring(ring_allreduce_time, rng):
    cases = []
    for k in range(6):
        p = 1 if k == 0 else int(rng.integers(2, 1025))
        args = (float(rng.uniform(1e3, 1e10)), p, float(rng.uniform(1e-6, 5e-5)), 1 / float(rng.uniform(1e9, 1e12)))
        cases.append((args, reference_ring(*args)))
    return run_cases(ring_allreduce_time, cases, 2, rtol=1e-9, atol=1e-15)


@part("C: data-parallel step time and efficiency", points=2, needs=("data_parallel_step",))
def check_step(data_parallel_step, rng):
    cases = []
    for _ in range(6):
        args = (float(rng.uniform(0.01, 5.0)), float(rng.uniform(1e6, 1e10)), int(rng.integers(2, 513)),
                float(rng.uniform(1e-6, 5e-5)), 1 / float(rng.uniform(1e9, 1e12)))
        cases.append((args, reference_step(*args)))
    return run_cases(data_parallel_step, cases, 2, rtol=1e-9)
