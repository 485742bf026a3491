"""The roofline model: a kernel's time is bounded by its FLOPs and by its bytes.

``time >= max(flops / peak_flops, bytes_moved / peak_bandwidth)``. Units: FLOP, bytes,
FLOP/s, bytes/s, seconds; arithmetic intensity in FLOP/byte.
"""

from __future__ import annotations

import numpy as np

from .._check import out, real

__all__ = ["arithmetic_intensity", "ridge_point", "attainable_flops", "roofline_time", "bound",
           "plot_roofline"]


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


def plot_roofline(peak_flops, peak_bandwidth, points=(), *, ax=None, label="roof", roofs=(),
                  intensity_range=(1e-2, 1e4)):
    """Draw the roof and labelled kernel points on log-log axes; return the axes.

    Parameters
    ----------
    peak_flops, peak_bandwidth : float
        The main roof (FLOP/s, bytes/s).
    points : iterable of (name, intensity, achieved_flops)
        Measured kernels: intensity in FLOP/byte, achieved rate in FLOP/s.
    roofs : iterable of (label, peak_flops, peak_bandwidth)
        Extra roofs to draw dashed, e.g. the measured one beside the datasheet one.
    """
    import matplotlib.pyplot as plt

    lo, hi = (real("intensity_range", v, low=0, low_open=True) for v in intensity_range)
    if lo >= hi:
        raise ValueError(f"intensity_range must be (low, high) with low < high; got {intensity_range!r}")
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 4.2))
    x = np.logspace(np.log10(lo), np.log10(hi), 256)
    all_roofs = [(label, peak_flops, peak_bandwidth, "-")] + [(n, f, b, "--") for n, f, b in roofs]
    for name, f, b, style in all_roofs:
        ax.loglog(x, attainable_flops(x, f, b), style, label=f"{name} (ridge {ridge_point(f, b):.3g} FLOP/B)")
    offsets = ((6, 8), (6, -16), (6, 22), (6, -30))   # staggered so neighbouring labels do not overlap
    for k, (name, intensity, achieved) in enumerate(points):
        i = real(f"intensity of {name}", intensity, low=0, low_open=True)
        a = real(f"achieved FLOP/s of {name}", achieved, low=0, low_open=True)
        pct = 100 * a / attainable_flops(i, peak_flops, peak_bandwidth)
        ax.loglog([i], [a], "o")
        ax.annotate(f"{name} ({pct:.0f}% of roof)", (i, a), textcoords="offset points",
                    xytext=offsets[k % len(offsets)], fontsize=8)
    ax.set_xlabel("arithmetic intensity [FLOP/byte]")
    ax.set_ylabel("attainable rate [FLOP/s]")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    return ax
