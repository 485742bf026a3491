"""The scaling laws of the course, as small pure functions.

Units are SI throughout: seconds, requests per second, plain ratios. Every function
accepts scalars (and returns a plain float) or NumPy arrays (and returns an array), so
the same call computes a worked example and draws a curve.
"""

from __future__ import annotations

import numpy as np

from .._check import out, real

__all__ = [
    "amdahl_speedup", "amdahl_limit", "gustafson_speedup", "parallelism", "brent_bound",
    "speedup", "efficiency", "karp_flatt", "littles_law", "batch_throughput",
]


def amdahl_speedup(serial_fraction, n):
    """Speedup of a fixed-size problem on ``n`` workers (Amdahl's law).

    ``speedup = 1 / (s + (1 - s) / n)`` where ``s`` is the fraction of the one-worker
    time that cannot run in parallel.

    Parameters
    ----------
    serial_fraction : float or array, in [0, 1]
    n : float or array, >= 1 (number of workers)

    Examples
    --------
    >>> round(amdahl_speedup(0.1, 8), 2)
    4.71
    >>> amdahl_speedup(0.0, 4)
    4.0
    """
    s = real("serial_fraction", serial_fraction, low=0, high=1)
    n = real("n", n, low=1)
    return out(1.0 / (s + (1.0 - s) / n))


def amdahl_limit(serial_fraction):
    """Largest speedup Amdahl's law allows with unlimited workers: ``1 / s``.

    Returns ``inf`` for ``s = 0`` (a perfectly parallel program has no ceiling).

    Examples
    --------
    >>> amdahl_limit(0.1)
    10.0
    >>> amdahl_limit(0.01)
    100.0
    """
    s = real("serial_fraction", serial_fraction, low=0, high=1)
    with np.errstate(divide="ignore", over="ignore"):
        return out(np.divide(1.0, s))


def gustafson_speedup(serial_fraction, n):
    """Scaled speedup when the problem grows with ``n`` (Gustafson's law).

    ``speedup = s + (1 - s) * n`` where ``s`` is the serial fraction of the time
    measured on the ``n``-worker run.

    Examples
    --------
    >>> gustafson_speedup(0.1, 8)
    7.3
    """
    s = real("serial_fraction", serial_fraction, low=0, high=1)
    n = real("n", n, low=1)
    return out(s + (1.0 - s) * n)


def parallelism(work, span):
    """Average available parallelism ``T1 / T_inf``.

    Parameters
    ----------
    work : float or array, > 0
        ``T1``: total operations (or time) on one worker.
    span : float or array, > 0 and <= work
        ``T_inf``: length of the critical path.

    Examples
    --------
    >>> parallelism(1024, 10)
    102.4
    """
    w = real("work", work, low=0, low_open=True)
    d = real("span", span, low=0, low_open=True)
    _span_within_work(w, d)
    return out(w / d)


def _span_within_work(work, span):
    if np.any(np.asarray(span) > np.asarray(work)):
        raise ValueError(f"span must be <= work (the critical path is part of the work); "
                         f"got span={span!r}, work={work!r}")


def brent_bound(work, span, p):
    """Upper bound on the time with ``p`` workers: ``T_p <= T1 / p + T_inf`` (Brent).

    A greedy scheduler never does worse than this; no scheduler does better than
    ``max(T1 / p, T_inf)``.

    Examples
    --------
    >>> brent_bound(1_000_000, 20, 100)
    10020.0
    """
    w = real("work", work, low=0, low_open=True)
    d = real("span", span, low=0, low_open=True)
    p = real("p", p, low=1)
    _span_within_work(w, d)
    return out(w / p + d)


def speedup(t_baseline, t_new):
    """How many times faster the new version is: ``t_baseline / t_new``.

    Examples
    --------
    >>> speedup(100.0, 30.0)
    3.3333333333333335
    """
    a = real("t_baseline", t_baseline, low=0, low_open=True)
    b = real("t_new", t_new, low=0, low_open=True)
    return out(a / b)


def efficiency(speedup, n):
    """Parallel efficiency: ``speedup / n`` (1.0 means perfect scaling).

    Examples
    --------
    >>> efficiency(6.4, 8)
    0.8
    """
    s = real("speedup", speedup, low=0, low_open=True)
    n = real("n", n, low=1)
    return out(s / n)


def karp_flatt(speedup, n):
    """Experimentally determined serial fraction (Karp-Flatt metric).

    ``e = (1/speedup - 1/n) / (1 - 1/n)``. When the run follows Amdahl's law exactly,
    ``e`` equals its serial fraction; ``e`` growing with ``n`` points at overheads
    (communication, imbalance) rather than a fixed serial part. Needs ``n > 1``.

    Examples
    --------
    >>> round(karp_flatt(amdahl_speedup(0.05, 16), 16), 6)
    0.05
    """
    s = real("speedup", speedup, low=0, low_open=True)
    n = real("n", n, low=1, low_open=True)
    return out((1.0 / s - 1.0 / n) / (1.0 - 1.0 / n))


def littles_law(*, arrival_rate=None, time_in_system=None, in_flight=None):
    """Little's law ``L = lambda * W``: give any two, get the third.

    Parameters
    ----------
    arrival_rate : float, > 0, requests per second (lambda)
    time_in_system : float, > 0, seconds (W)
    in_flight : float, > 0, requests (L)

    Examples
    --------
    >>> littles_law(arrival_rate=200, time_in_system=0.05)
    10.0
    >>> littles_law(in_flight=10, arrival_rate=200)
    0.05
    """
    given = {k: v for k, v in (("arrival_rate", arrival_rate), ("time_in_system", time_in_system),
                               ("in_flight", in_flight)) if v is not None}
    if len(given) != 2:
        raise ValueError("littles_law needs exactly two of arrival_rate, time_in_system, in_flight "
                         f"(as keywords); got {sorted(given) or 'none'}")
    v = {k: real(k, x, low=0, low_open=True) for k, x in given.items()}
    if "in_flight" not in v:
        return out(v["arrival_rate"] * v["time_in_system"])
    if "arrival_rate" not in v:
        return out(v["in_flight"] / v["time_in_system"])
    return out(v["in_flight"] / v["arrival_rate"])


def batch_throughput(batch_size, batch_latency):
    """Requests per second when ``batch_size`` requests finish together every ``batch_latency`` s.

    Examples
    --------
    >>> round(batch_throughput(8, 0.030), 1)
    266.7
    >>> batch_throughput(1, 0.020)
    50.0
    """
    b = real("batch_size", batch_size, low=1)
    t = real("batch_latency", batch_latency, low=0, low_open=True)
    return out(b / t)
