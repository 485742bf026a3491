"""Exercise 05: count FLOPs and bytes, pick the kernels worth optimizing, choose the better device upgrade."""

from __future__ import annotations

from ...models.roofline import roofline_time
from ._tools import part, run_cases


# kind -> (FLOPs per element, arrays of n elements read or written); STREAM conventions
def _machine(rng):
    return float(rng.uniform(1e12, 1e15)), float(rng.uniform(1e11, 5e12))


@part("A: FLOPs and bytes of the course kernels", points=2, needs=("kernel_counts",))
def check_counts(kernel_counts, rng, ref):
    cases = []
    for kind in rng.permutation(["copy", "scale", "add", "triad", "axpy", "matmul"]):
        kind = str(kind)
        n = int(rng.integers(10, 5000)) if kind == "matmul" else int(rng.integers(1_000, 10**8))
        dtype_bytes = int(rng.choice([2, 4, 8]))
        cases.append(((kind, n, dtype_bytes), ref.counts(kind, n, dtype_bytes)))
    return run_cases(kernel_counts, cases, 2)


def _kernel_list(rng, peak_flops, peak_bandwidth, size):
    """Kernels (name, flops, bytes) whose intensities lie up to 100x either side of the ridge."""
    ridge = peak_flops / peak_bandwidth
    kernels = []
    for i in range(size):
        moved = float(10 ** rng.uniform(4, 10))
        kernels.append((f"k{i}", ridge * float(10 ** rng.uniform(-2, 2)) * moved, moved))
    return kernels


def _profile(rng, k):
    """A measured profile: each kernel close to its bound (1.0x-1.2x) or well over it (1.3x-5x); k = 0: all close."""
    peak_flops, peak_bandwidth = _machine(rng)
    kernels = _kernel_list(rng, peak_flops, peak_bandwidth, int(rng.integers(3, 12)))
    profile = []
    for i, (name, flops, moved) in enumerate(kernels):
        over = k != 0 and (i < 2 or rng.random() < 0.5)         # at least two with room, unless k = 0
        ratio = float(rng.uniform(1.3, 5.0)) if over else float(rng.uniform(1.0, 1.2))
        profile.append((name, flops, moved, roofline_time(flops, moved, peak_flops, peak_bandwidth) * ratio))
    order = rng.permutation(len(profile))
    return [profile[i] for i in order], peak_flops, peak_bandwidth


@part("B: the kernels worth optimizing, in order", points=3, needs=("worth_optimizing",))
def check_worth_optimizing(worth_optimizing, rng, ref):
    cases = []
    for k in range(6):
        args = _profile(rng, k)
        cases.append((args, ref.worth_optimizing(*args)))
    return run_cases(worth_optimizing, cases, 3, rtol=1e-9)


def _program(rng, ref):
    """Kernels, a device and a factor for which the two upgrades do not nearly tie; some kernels sit near the
    ridge, so that an upgrade can move them onto the other roof."""
    while True:
        peak_flops, peak_bandwidth = _machine(rng)
        factor = float(rng.uniform(1.5, 4.0))
        kernels = _kernel_list(rng, peak_flops, peak_bandwidth, int(rng.integers(2, 8)))
        name, _, moved = kernels[0]
        kernels[0] = (name, peak_flops / peak_bandwidth * float(rng.uniform(0.5, 2.0)) * moved, moved)
        compute, bandwidth = ref.upgrades(kernels, peak_flops, peak_bandwidth, factor)
        if abs(compute - bandwidth) > 1e-6 * min(compute, bandwidth):
            return [kernels[i] for i in rng.permutation(len(kernels))], peak_flops, peak_bandwidth, factor


@part("C: more FLOP/s or more bandwidth", points=2, needs=("better_upgrade",))
def check_better_upgrade(better_upgrade, rng, ref):
    cases = []
    for _ in range(6):
        args = _program(rng, ref)
        cases.append((args, ref.better_upgrade(*args)))
    return run_cases(better_upgrade, cases, 2, rtol=1e-9)
