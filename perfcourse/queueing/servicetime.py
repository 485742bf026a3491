"""Inputs of a queue simulation: when requests arrive, and how long a batch of them takes.

Arrivals are a :class:`Poisson` process (``n`` requests at ``rate`` per second) or given
times. A :class:`Service` maps a batch size ``b`` to seconds: :func:`affine` (a fixed cost
plus a cost per request), :func:`table` (measured latencies, interpolated), :func:`exponential`
(random times around a mean, the "M" service of M/M/1), or any function of ``b``.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .._check import positive_int, real
from ..units import format_seconds

__all__ = ["Poisson", "Service", "affine", "table", "exponential", "as_service", "arrival_times", "rng_from"]


@dataclass(frozen=True)
class Poisson:
    """A Poisson arrival process: ``n`` requests at ``rate`` per second (exponential gaps).

    Examples
    --------
    >>> a = Poisson(100.0, 100_000).draw(np.random.default_rng(0))
    >>> round(len(a) / a[-1])  # requests per second
    100
    """

    rate: float
    n: int

    def __post_init__(self):
        real("rate", self.rate, low=0, low_open=True)
        positive_int("n", self.n)

    def draw(self, rng):
        """Arrival times in seconds, starting after the first gap."""
        return np.cumsum(rng.exponential(1.0 / self.rate, self.n))


def arrival_times(arrivals, rng):
    """Arrival times as a sorted float array, from a :class:`Poisson` or given times."""
    if isinstance(arrivals, Poisson):
        return arrivals.draw(rng)
    if isinstance(arrivals, (numbers.Number, str)) or arrivals is None:
        raise TypeError(f"arrivals must be a Poisson(rate, n) or a 1-D array of arrival times; got {arrivals!r}")
    a = real("arrivals", np.asarray(arrivals), low=0)
    if a.ndim != 1 or a.size == 0:
        raise ValueError(f"arrivals must be a non-empty 1-D array of times; got shape {a.shape}")
    if np.any(np.diff(a) < 0):
        raise ValueError("arrivals must be sorted in time (non-decreasing); sort them with np.sort first")
    return a


@dataclass(frozen=True)
class Service:
    """Service time of one batch as a function of its size ``b``.

    ``mean(b)`` gives the mean time in seconds for an integer array of sizes. With
    ``random=True`` each batch takes an exponentially distributed time around that mean
    (the "M" service of M/M/1); otherwise exactly ``mean(b)`` (the "D" of M/D/1).
    Calling the service gives the mean: a float for one size, an array for an array.

    Examples
    --------
    >>> s = Service(lambda b: 0.002 * b ** 0.5, label="square root")
    >>> s(4), s([1, 16]).tolist()
    (0.004, [0.002, 0.008])
    """

    mean: Callable
    random: bool = False
    label: str = "service"

    def __call__(self, b):
        b = np.asarray(b)
        t = np.broadcast_to(np.asarray(self.mean(b), dtype=np.float64), b.shape)
        if not np.all(np.isfinite(t)) or np.any(t < 0):
            raise ValueError(f"{self.label} must give finite times >= 0 s; got {t[~(np.isfinite(t) & (t >= 0))][:3]}")
        return float(t) if t.ndim == 0 else t

    def sample(self, b, rng):
        """Draw service times (seconds) for an array of batch sizes ``b``."""
        t = np.asarray(self(b))
        return t * rng.standard_exponential(t.shape) if self.random else t.copy()


def affine(t0, t1=0.0):
    """Service time ``t(b) = t0 + t1 * b``: a fixed cost plus a cost per request in the batch.

    Examples
    --------
    >>> affine(0.010, 0.002)([1, 8]).round(6).tolist()
    [0.012, 0.026]
    """
    t0 = real("t0", t0, low=0)
    t1 = real("t1", t1, low=0)
    if t0 == 0 and t1 == 0:
        raise ValueError("affine needs t0 > 0 or t1 > 0: a service that takes no time never queues")
    return Service(lambda b: t0 + t1 * np.asarray(b, dtype=np.float64),
                   label=f"t(b) = {format_seconds(t0)} + {format_seconds(t1)} x b")


def table(batch_sizes, seconds):
    """Service time interpolated from a measured latency table ``seconds[i]`` at ``batch_sizes[i]``.

    Linear between points; beyond the largest size, extended along the last two points.

    Examples
    --------
    >>> table([1, 4, 16], [0.01, 0.01, 0.04])([2, 10, 32]).round(4).tolist()
    [0.01, 0.025, 0.08]
    """
    b = real("batch_sizes", np.atleast_1d(batch_sizes), low=1)
    s = real("seconds", np.atleast_1d(seconds), low=0, low_open=True)
    if b.ndim != 1 or b.shape != s.shape or b.size < 2:
        raise ValueError(f"batch_sizes and seconds must be 1-D of the same length >= 2; got {b.shape}, {s.shape}")
    if np.any(np.diff(b) <= 0):
        raise ValueError(f"batch_sizes must be strictly increasing; got {b.tolist()}")
    slope = (s[-1] - s[-2]) / (b[-1] - b[-2])

    def mean(x):
        x = np.asarray(x, dtype=np.float64)
        return np.where(x > b[-1], s[-1] + slope * (x - b[-1]), np.interp(x, b, s))

    return Service(mean, label=f"measured table over b = {b[0]:g}..{b[-1]:g}")


def exponential(mean):
    """Exponentially distributed service time with the given mean (seconds, or a function of b).

    Examples
    --------
    >>> s = exponential(0.1)
    >>> s.random, float(s(1))
    (True, 0.1)
    """
    base = as_service(mean)
    return Service(base.mean, random=True, label=f"exponential, mean {base.label}")


def as_service(service):
    """Turn a number (constant seconds), a function of ``b`` or a :class:`Service` into a Service."""
    if isinstance(service, Service):
        return service
    if isinstance(service, numbers.Real) and not isinstance(service, bool):
        return affine(service, 0.0)
    if callable(service):
        return Service(service, label=getattr(service, "__name__", "service"))
    raise TypeError(f"service must be seconds (a number), a function of the batch size b, or a Service "
                    f"(affine, table, exponential); got {service!r}")


def rng_from(seed):
    """A NumPy Generator from an int seed, a Generator (used as is) or None (fresh entropy)."""
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, numbers.Integral)):
        raise TypeError(f"seed must be an int, a numpy Generator or None; got {seed!r}")
    return np.random.default_rng(seed)
