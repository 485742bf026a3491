"""Why a timer needs a synchronisation: a model of asynchronous kernel launches.

The host spends ``launch_s`` issuing each kernel and then moves on; the device runs the
kernels one after another, each starting once it has been issued and the previous one has
finished. A timer read on the host right after the last launch (no synchronisation) sees
only the issuing; a timer read after synchronising sees the work.

Examples
--------
>>> t = async_timeline(10, launch_s=5e-6, kernel_s=1e-3)
>>> round(t.host_s * 1e6, 3), round(t.device_s * 1e3, 3)
(50.0, 10.005)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._check import positive_int, real
from ..units import format_seconds

__all__ = ["Timeline", "async_timeline"]


@dataclass(frozen=True)
class Timeline:
    """Times in seconds from the first launch: when each launch returned, started and ended on the device."""

    issued: np.ndarray
    start: np.ndarray
    end: np.ndarray

    @property
    def host_s(self):
        """What a host timer reads without synchronising: the time spent issuing."""
        return float(self.issued[-1])

    @property
    def device_s(self):
        """What a timer reads after synchronising: until the last kernel has finished."""
        return float(self.end[-1])

    @property
    def under_report(self):
        """How many times too small the unsynchronised reading is (device_s / host_s)."""
        return self.device_s / self.host_s

    def summary(self):
        """One line: what the timer reads with and without synchronising.

        Examples
        --------
        >>> print(async_timeline(100, 5e-6, 2e-3).summary())
        100 launches: without sync the timer reads 500 µs, after sync 200 ms (400x more)
        """
        return (f"{self.end.size} launches: without sync the timer reads {format_seconds(self.host_s)}, "
                f"after sync {format_seconds(self.device_s)} ({self.under_report:.3g}x more)")


def async_timeline(launches, launch_s, kernel_s):
    """Model ``launches`` back-to-back asynchronous launches of a kernel lasting ``kernel_s``.

    Parameters
    ----------
    launches : int
        Kernels issued one after another (>= 1).
    launch_s : float
        Host time to issue one launch, seconds (> 0).
    kernel_s : float
        Device time of one kernel, seconds (>= 0).

    Examples
    --------
    >>> t = async_timeline(3, launch_s=10e-6, kernel_s=2e-6)   # tiny kernels: the launches are the cost
    >>> [round(float(v) * 1e6, 3) for v in t.end]
    [12.0, 22.0, 32.0]
    """
    launches = positive_int("launches", launches)
    launch_s = real("launch_s", launch_s, low=0, low_open=True)
    kernel_s = real("kernel_s", kernel_s, low=0)
    issued = launch_s * np.arange(1, launches + 1)
    start, end = np.empty(launches), np.empty(launches)
    free_at = 0.0
    for i in range(launches):
        start[i] = max(issued[i], free_at)
        end[i] = free_at = start[i] + kernel_s
    return Timeline(issued, start, end)
