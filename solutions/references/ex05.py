"""The grader's answers to exercise 05: FLOPs and bytes of the course kernels, the kernels worth optimizing,
the better upgrade.

Read by the grader at grading time (never part of the package a learner installs); see
:mod:`perfcourse.grading.checks._answers`.
"""

from __future__ import annotations

from perfcourse.models.roofline import roofline_time
from perfcourse.models.verdicts import CLOSE_RATIO

STREAM = {"copy": (0, 2), "scale": (1, 2), "add": (1, 3), "triad": (2, 3), "axpy": (2, 3)}


def counts(kind, n, dtype_bytes):
    """(FLOPs, bytes moved) of a STREAM-like kernel over ``n`` elements, or an n x n x n matmul.

    ``axpy`` (``y = q * x + y``) reads ``y`` and writes it back: three arrays of traffic. The matmul
    moves each of its three n x n matrices once (the ideal a cache allows).

    Examples
    --------
    >>> counts("triad", 1000, 8)
    (2000, 24000)
    >>> counts("axpy", 1000, 4)
    (2000, 12000)
    >>> counts("matmul", 100, 4)
    (2000000, 120000)
    """
    if kind == "matmul":
        return (2 * n**3, 3 * n * n * dtype_bytes)
    flops_per, arrays = STREAM[kind]
    return (flops_per * n, arrays * n * dtype_bytes)


def worth_optimizing(kernels, peak_flops, peak_bandwidth):
    """[(name, measured - bound), ...] for kernels more than CLOSE_RATIO over their roofline bound, most first.

    Examples
    --------
    >>> plan = worth_optimizing([("mm", 2e11, 1e9, 5e-3), ("ln", 1e9, 4e9, 3.5e-3),
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


def upgrades(kernels, peak_flops, peak_bandwidth, factor):
    def total(flop_rate, bandwidth):
        return sum(roofline_time(f, b, flop_rate, bandwidth) for _, f, b in kernels)

    return total(factor * peak_flops, peak_bandwidth), total(peak_flops, factor * peak_bandwidth)


def better_upgrade(kernels, peak_flops, peak_bandwidth, factor):
    """("compute" or "bandwidth", program time): kernels one after another at their roofline bounds.

    Examples
    --------
    >>> better_upgrade([("mm", 2e11, 1e9), ("ln", 1e9, 4e9), ("sm", 5e9, 8e9)], 100e12, 2e12, 2.0)
    ('bandwidth', 0.005)
    """
    compute, bandwidth = upgrades(kernels, peak_flops, peak_bandwidth, factor)
    return ("compute", compute) if compute < bandwidth else ("bandwidth", bandwidth)
