"""The roofline model: a kernel's time is bounded by its FLOPs and by its bytes.

``time >= max(flops / peak_flops, bytes_moved / peak_bandwidth)``. Units: FLOP, bytes,
FLOP/s, bytes/s, seconds; arithmetic intensity in FLOP/byte.
"""

from __future__ import annotations

import numpy as np

from .._check import out, real

__all__ = ["arithmetic_intensity", "ridge_point", "attainable_flops", "roofline_time", "bound"]


def arithmetic_intensity(flops, bytes_moved):
    """FLOPs done per byte moved to or from memory (FLOP/byte).

    Examples
    --------
    >>> arithmetic_intensity(2 * 4096**3, 3 * 4096**2 * 4)   # fp32 matmul, each matrix moved once
    682.6666666666666
    >>> arithmetic_intensity(2 * 2**20, 3 * 2**20 * 4)        # triad: 2 FLOPs, 12 bytes per element
    0.16666666666666666
    """
    f = real("flops", flops, low=0)
    b = real("bytes_moved", bytes_moved, low=0, low_open=True)
    return out(f / b)


def ridge_point(peak_flops, peak_bandwidth):
    """Intensity (FLOP/byte) where the memory roof meets the compute roof.

    Kernels below it are memory-bound, kernels above it compute-bound.

    Examples
    --------
    >>> ridge_point(989e12, 4.8e12)   # H200, dense bf16, datasheet
    206.04166666666666
    """
    f = real("peak_flops", peak_flops, low=0, low_open=True)
    b = real("peak_bandwidth", peak_bandwidth, low=0, low_open=True)
    return out(f / b)


def attainable_flops(intensity, peak_flops, peak_bandwidth):
    """The roof: ``min(peak_flops, intensity * peak_bandwidth)`` in FLOP/s.

    Examples
    --------
    >>> attainable_flops(1.0, 100e12, 2e12)
    2000000000000.0
    >>> attainable_flops(1000.0, 100e12, 2e12)
    100000000000000.0
    """
    i = real("intensity", intensity, low=0)
    f = real("peak_flops", peak_flops, low=0, low_open=True)
    b = real("peak_bandwidth", peak_bandwidth, low=0, low_open=True)
    return out(np.minimum(f, i * b))


def roofline_time(flops, bytes_moved, peak_flops, peak_bandwidth):
    """Lower bound on a kernel's time: ``max(flops / peak_flops, bytes_moved / peak_bandwidth)`` s.

    Examples
    --------
    >>> roofline_time(2e9, 4e9, 100e12, 2e12)   # memory side wins: 4 GB at 2 TB/s
    0.002
    """
    f = real("flops", flops, low=0)
    b = real("bytes_moved", bytes_moved, low=0)
    pf = real("peak_flops", peak_flops, low=0, low_open=True)
    pb = real("peak_bandwidth", peak_bandwidth, low=0, low_open=True)
    return out(np.maximum(f / pf, b / pb))


def bound(flops, bytes_moved, peak_flops, peak_bandwidth):
    """Which roof limits a kernel: ``"memory"`` or ``"compute"`` (a tie counts as compute).

    Examples
    --------
    >>> bound(2e9, 4e9, 100e12, 2e12)
    'memory'
    """
    f = real("flops", flops, low=0)
    b = real("bytes_moved", bytes_moved, low=0)
    pf = real("peak_flops", peak_flops, low=0, low_open=True)
    pb = real("peak_bandwidth", peak_bandwidth, low=0, low_open=True)
    return "memory" if b / pb > f / pf else "compute"
