"""Exercise 05: count FLOPs and bytes, pick the kernels worth optimizing, choose the better device upgrade."""

from __future__ import annotations

from ...models.roofline import roofline_time
from ...models.verdicts import CLOSE_RATIO
from ._tools import part, run_cases

# kind -> (FLOPs per element, arrays of n elements read or written); STREAM conventions
_STREAM = {"copy": (0, 2), "scale": (1, 2), "add": (1, 3), "triad": (2, 3), "axpy": (2, 3)}


def reference_counts(kind, n, dtype_bytes):
    """(FLOPs, bytes moved) of a STREAM-like kernel over ``n`` elements, or an n x n x n matmul.

    ``axpy`` (``y = q * x + y``) reads ``y`` and writes it back: three arrays of traffic. The matmul
    moves each of its three n x n matrices once (the ideal a cache allows).

    Examples
    --------
    >>> reference_counts("triad", 1000, 8)
    (2000, 24000)
    >>> reference_counts("axpy", 1000, 4)
    (2000, 12000)
    >>> reference_counts("matmul", 100, 4)
    (2000000, 120000)
    """
    if kind == "matmul":
        return (2 * n**3, 3 * n * n * dtype_bytes)
    flops_per, arrays = _STREAM[kind]
    return (flops_per * n, arrays * n * dtype_bytes)


def reference_worth_optimizing(kernels, peak_flops, peak_bandwidth):
    """[(name, measured - bound), ...] for kernels more than CLOSE_RATIO over their roofline bound, most first.

    Examples
    --------
    >>> plan = reference_worth_optimizing([("mm", 2e11, 1e9, 5e-3), ("ln", 1e9, 4e9, 3.5e-3),
    ...                                    ("sm", 5e9, 8e9, 4.6e-3)], 100e12, 2e12)
    >>> [(name, round(s * 1e3, 6)) for name, s in plan]
    [('mm', 3.0), ('ln', 1.5)]
    """
    room = []
    for name, flops, moved, measured in kernels:
        bound = roofline_time(flops, moved, peak_flops, peak_bandwidth)
        if measured > CLOSE_RATIO * bound:
            room.append((name, measured - bound))
    return sorted(room, key=lambda item: item[1], reverse=True)


def _upgrades(kernels, peak_flops, peak_bandwidth, factor):
    def total(flop_rate, bandwidth):
        return sum(roofline_time(f, b, flop_rate, bandwidth) for _, f, b in kernels)

    return total(factor * peak_flops, peak_bandwidth), total(peak_flops, factor * peak_bandwidth)


def reference_better_upgrade(kernels, peak_flops, peak_bandwidth, factor):
    """("compute" or "bandwidth", program time): kernels one after another at their roofline bounds.

    Examples
    --------
    >>> reference_better_upgrade([("mm", 2e11, 1e9), ("ln", 1e9, 4e9), ("sm", 5e9, 8e9)], 100e12, 2e12, 2.0)
    ('bandwidth', 0.005)
    """
    compute, bandwidth = _upgrades(kernels, peak_flops, peak_bandwidth, factor)
    return ("compute", compute) if compute < bandwidth else ("bandwidth", bandwidth)


def _machine(rng):
    return float(rng.uniform(1e12, 1e15)), float(rng.uniform(1e11, 5e12))


@part("A: FLOPs and bytes of the course kernels", points=2, needs=("kernel_counts",))
def check_counts(kernel_counts, rng):
    cases = []
    for kind in rng.permutation(["copy", "scale", "add", "triad", "axpy", "matmul"]):
        kind = str(kind)
        n = int(rng.integers(10, 5000)) if kind == "matmul" else int(rng.integers(1_000, 10**8))
        dtype_bytes = int(rng.choice([2, 4, 8]))
        cases.append(((kind, n, dtype_bytes), reference_counts(kind, n, dtype_bytes)))
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
def check_worth_optimizing(worth_optimizing, rng):
    cases = []
    for k in range(6):
        args = _profile(rng, k)
        cases.append((args, reference_worth_optimizing(*args)))
    return run_cases(worth_optimizing, cases, 3, rtol=1e-9)


def _program(rng):
    """Kernels, a device and a factor for which the two upgrades do not nearly tie; some kernels sit near the
    ridge, so that an upgrade can move them onto the other roof."""
    while True:
        peak_flops, peak_bandwidth = _machine(rng)
        factor = float(rng.uniform(1.5, 4.0))
        kernels = _kernel_list(rng, peak_flops, peak_bandwidth, int(rng.integers(2, 8)))
        name, _, moved = kernels[0]
        kernels[0] = (name, peak_flops / peak_bandwidth * float(rng.uniform(0.5, 2.0)) * moved, moved)
        compute, bandwidth = _upgrades(kernels, peak_flops, peak_bandwidth, factor)
        if abs(compute - bandwidth) > 1e-6 * min(compute, bandwidth):
            return [kernels[i] for i in rng.permutation(len(kernels))], peak_flops, peak_bandwidth, factor


@part("C: more FLOP/s or more bandwidth", points=2, needs=("better_upgrade",))
def check_better_upgrade(better_upgrade, rng):
    cases = []
    for _ in range(6):
        args = _program(rng)
        cases.append((args, reference_better_upgrade(*args)))
    return run_cases(better_upgrade, cases, 2, rtol=1e-9)
