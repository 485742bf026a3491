"""M/M/1 and M/D/1: closed-form averages of a single-server queue.

Rates are in requests per second, times in seconds. ``rho = arrival_rate / service_rate``
must stay below 1: at or above it the queue grows without bound.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .._check import real

__all__ = ["QueueStats", "mm1", "md1"]


@dataclass(frozen=True)
class QueueStats:
    """Steady-state averages of a single-server queue.

    Attributes
    ----------
    model : str            ``"M/M/1"`` or ``"M/D/1"``
    arrival_rate : float   lambda, requests/s
    service_rate : float   mu, requests/s
    utilization : float    rho = lambda / mu
    mean_wait : float      Wq, seconds spent queued before service
    mean_time_in_system : float   W = Wq + 1/mu, seconds
    mean_in_system : float        L = lambda W, requests
    mean_queue_length : float     Lq = lambda Wq, requests
    """

    model: str
    arrival_rate: float
    service_rate: float
    utilization: float
    mean_wait: float
    mean_time_in_system: float
    mean_in_system: float
    mean_queue_length: float

    def time_in_system_percentile(self, q):
        """Time in system below which ``q`` percent of requests finish (M/M/1 only).

        In M/M/1 the time in system is exponential with rate ``mu - lambda``, so the
        ``q``-th percentile is ``-ln(1 - q/100) / (mu - lambda)``. ``q`` is a percent in (0, 100),
        as everywhere in the course: 99 for p99.

        Examples
        --------
        >>> round(mm1(8, 10).time_in_system_percentile(99), 4)
        2.3026
        """
        q = real("q", q, low=0, high=100, low_open=True, high_open=True)
        if self.model != "M/M/1":
            raise ValueError(f"a closed-form percentile exists here only for M/M/1, not {self.model}; "
                             "simulate the queue to get its percentiles")
        return -math.log1p(-q / 100) / (self.service_rate - self.arrival_rate)


def _rates(arrival_rate, service_rate):
    lam = real("arrival_rate", arrival_rate, low=0, low_open=True)
    mu = real("service_rate", service_rate, low=0, low_open=True)
    if not (isinstance(lam, float) and isinstance(mu, float)):
        raise TypeError("arrival_rate and service_rate must be scalars here")
    rho = lam / mu
    if rho >= 1:
        raise ValueError(f"utilization arrival_rate/service_rate = {rho:.4g} must be < 1; at or above 1 "
                         "the queue grows without bound (no steady state)")
    return lam, mu, rho


def _stats(model, lam, mu, wq):
    w = wq + 1.0 / mu
    return QueueStats(model, lam, mu, lam / mu, wq, w, lam * w, lam * wq)


def mm1(arrival_rate, service_rate):
    """M/M/1: Poisson arrivals, exponential service times, one server.

    ``W = 1 / (mu - lambda)``, ``Wq = W - 1/mu``, ``L = rho / (1 - rho)``.

    Examples
    --------
    >>> s = mm1(8, 10)
    >>> round(s.mean_time_in_system, 6), round(s.mean_wait, 6), round(s.mean_in_system, 6)
    (0.5, 0.4, 4.0)
    """
    lam, mu, _ = _rates(arrival_rate, service_rate)
    return _stats("M/M/1", lam, mu, 1.0 / (mu - lam) - 1.0 / mu)


def md1(arrival_rate, service_rate):
    """M/D/1: Poisson arrivals, constant service time ``1/mu``, one server.

    ``Wq = rho / (2 mu (1 - rho))``: half the M/M/1 wait at the same load.

    Examples
    --------
    >>> round(md1(8, 10).mean_wait, 6)
    0.2
    """
    lam, mu, rho = _rates(arrival_rate, service_rate)
    return _stats("M/D/1", lam, mu, rho / (2.0 * mu * (1.0 - rho)))
