"""Exercise 05: count FLOPs and bytes, bound a kernel's time, classify kernels on the roofline."""

from __future__ import annotations

from ...models.roofline import bound, roofline_time
from ._tools import part, run_cases

# kind -> (FLOPs per element, arrays of n elements read or written); STREAM conventions
_STREAM = {"copy": (0, 2), "scale": (1, 2), "add": (1, 3), "triad": (2, 3)}


def reference_counts(kind, n, dtype_bytes):
    """(FLOPs, bytes moved) of a STREAM kernel over ``n`` elements, or an n x n x n matmul.

    The matmul moves each of its three n x n matrices once (the ideal a cache allows).

    Examples
    --------
    >>> reference_counts("triad", 1000, 8)
    (2000, 24000)
    >>> reference_counts("matmul", 100, 4)
    (2000000, 120000)
    """
    if kind == "matmul":
        return (2 * n**3, 3 * n * n * dtype_bytes)
    flops_per, arrays = _STREAM[kind]
    return (flops_per * n, arrays * n * dtype_bytes)


def _machine(rng):
    return float(rng.uniform(1e12, 1e15)), float(rng.uniform(1e11, 5e12))


@part("A: FLOPs and bytes of the course kernels", points=3, needs=("kernel_counts",))
def check_counts(kernel_counts, rng):
    cases = []
    for kind in rng.permutation(["copy", "scale", "add", "triad", "matmul"]):
        kind = str(kind)
        n = int(rng.integers(10, 5000)) if kind == "matmul" else int(rng.integers(1_000, 10**8))
        dtype_bytes = int(rng.choice([2, 4, 8]))
        cases.append(((kind, n, dtype_bytes), reference_counts(kind, n, dtype_bytes)))
    return run_cases(kernel_counts, cases, 3)


@part("B: roofline lower bound on the time", points=2, needs=("time_bound",))
def check_time_bound(time_bound, rng):
    cases = []
    for _ in range(6):
        flops, moved = float(rng.uniform(0, 1e13)), float(rng.uniform(1e3, 1e11))
        peak_flops, peak_bandwidth = _machine(rng)
        args = (flops, moved, peak_flops, peak_bandwidth)
        cases.append((args, roofline_time(*args)))
    return run_cases(time_bound, cases, 2, rtol=1e-9)


def _kernel_list(rng, peak_flops, peak_bandwidth):
    ridge = peak_flops / peak_bandwidth
    kernels = []
    for i in range(int(rng.integers(4, 12))):
        moved = float(10 ** rng.uniform(4, 10))
        intensity = ridge * float(10 ** rng.uniform(-2, 2))
        kernels.append((f"k{i}", intensity * moved, moved))
    return kernels


@part("C: memory- or compute-bound, kernel by kernel", points=2, needs=("classify",))
def check_classify(classify, rng):
    cases = []
    for _ in range(5):
        peak_flops, peak_bandwidth = _machine(rng)
        kernels = _kernel_list(rng, peak_flops, peak_bandwidth)
        expected = {name: bound(f, b, peak_flops, peak_bandwidth) for name, f, b in kernels}
        cases.append(((kernels, peak_flops, peak_bandwidth), expected))
    return run_cases(classify, cases, 2)
