"""Exercise 07: fit the alpha-beta model, pick the faster link, plan the devices of a data-parallel step."""

from __future__ import annotations

import numpy as np

from ._tools import part, run_cases, short


def _relative_sse(alpha, beta, sizes, times):
    return float(np.sum(((alpha + beta * sizes) - times) ** 2 / times**2))


@part("A: fit alpha and beta, every size alike", points=3, needs=("fit_alpha_beta",))
def check_fit(fit_alpha_beta, rng, ref):
    """Any solver passes: the fit is judged by its sum of squared relative errors, not its digits."""
    for _ in range(5):
        alpha, beta = float(rng.uniform(1e-6, 5e-5)), 1.0 / float(rng.uniform(1e9, 1e11))
        sizes = np.sort(2.0 ** rng.uniform(8, 26, size=int(rng.integers(6, 20))))
        times = (alpha + beta * sizes) * rng.normal(1.0, 0.03, size=len(sizes))
        a, b = ref.fit(sizes, times)
        best = _relative_sse(a, b, sizes, times)
        got = fit_alpha_beta(sizes.copy(), times.copy())
        try:
            sse = _relative_sse(float(got[0]), float(got[1]), sizes, times)
        except (TypeError, ValueError, IndexError):
            return 0, 3, f"expected a pair (alpha, beta) of numbers, got {short(got)}"
        if not sse <= best * (1 + 1e-6) + 1e-30:
            return 0, 3, (f"not the fit with the least squared relative error for {len(sizes)} random sizes: "
                          f"expected about alpha={a:.4g} s, beta={b:.4g} s/byte; got {short(got)}")
    return 3, 3, "correct on 5 random data sets"


def _fix_cases(rng, ref):
    """Messages from 16 KiB to 16 GiB on 2 to 4096 ranks, never nearly tied, until both fixes have won."""
    cases, seen = [], set()
    while len(cases) < 6 or (len(seen) < 2 and len(cases) < 40):
        args = (float(2 ** rng.uniform(14, 34)), int(2 ** rng.uniform(1, 12)),
                float(rng.uniform(1e-6, 5e-5)), 1 / float(rng.uniform(1e9, 1e11)))
        latency, bandwidth = ref.fixes(*args)
        if abs(latency - bandwidth) > 1e-6 * min(latency, bandwidth):
            expected = ref.better_fix(*args)
            seen.add(expected[0])
            cases.append((args, expected))
    return cases


@part("B: less latency or more bandwidth", points=2, needs=("better_fix",))
def check_better_fix(better_fix, rng, ref):
    return run_cases(better_fix, _fix_cases(rng, ref), 2, rtol=1e-9)


@part("C: devices for a data-parallel step", points=2, needs=("plan_devices",))
def check_plan_devices(plan_devices, rng, ref):
    cases = []
    for k in range(6):
        args = [float(rng.uniform(0.01, 5.0)), float(rng.uniform(1e6, 1e10)), float(rng.uniform(1e-6, 5e-5)),
                1 / float(rng.uniform(1e9, 1e12)), int(rng.integers(2, 2049)), float(rng.uniform(0.3, 0.95))]
        if k == 0:
            args[4] = int(rng.integers(2, 6))          # the budget of devices binds first
            args[5] = 0.05
        elif k == 1:
            args[5] = 0.999                            # a floor no second device meets
            args[1] = max(args[1], 1e9)
        cases.append((tuple(args), ref.plan_devices(*args)))
    return run_cases(plan_devices, cases, 2, rtol=1e-9)
