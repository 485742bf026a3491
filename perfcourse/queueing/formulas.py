"""M/M/1, M/D/1 and M/M/c: closed-form averages of a queue in front of one or ``c`` servers.

Rates are in requests per second, times in seconds. The utilization, ``rho = arrival_rate /
service_rate`` for one server and ``arrival_rate / (c * service_rate)`` for ``c`` servers that
share one first-come-first-served queue, must stay below 1: at or above it the queue grows
without bound.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .._check import out, positive_int, real

__all__ = ["QueueStats", "mm1", "md1", "MMcStats", "mmc", "erlang_c"]


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


@dataclass(frozen=True)
class MMcStats:
    """Steady-state figures of M/M/c: ``servers`` servers sharing one first-come-first-served queue.

    Attributes
    ----------
    model : str            ``"M/M/c"`` with ``c`` written out, e.g. ``"M/M/2"``
    arrival_rate : float   lambda, requests/s
    service_rate : float   mu, requests/s of each server
    servers : int          c
    utilization : float    rho = lambda / (c mu), the busy fraction of each server
    prob_wait : float      Erlang C: the probability that a request has to queue at all
    mean_wait : float      Wq = prob_wait / (c mu - lambda), seconds queued before service
    mean_time_in_system : float   W = Wq + 1/mu, seconds
    mean_in_system : float        L = lambda W, requests
    mean_queue_length : float     Lq = lambda Wq, requests
    """

    model: str
    arrival_rate: float
    service_rate: float
    servers: int
    utilization: float
    prob_wait: float
    mean_wait: float
    mean_time_in_system: float
    mean_in_system: float
    mean_queue_length: float

    @property
    def _drain_rate(self):
        return self.servers * self.service_rate - self.arrival_rate

    def prob_wait_longer(self, t):
        """``P(wait > t) = prob_wait * exp(-(c mu - lambda) t)`` for ``t >= 0`` seconds (a number or an array).

        Examples
        --------
        >>> s = mmc(8, 5, 2)
        >>> round(s.prob_wait_longer(0.0), 4), round(s.prob_wait_longer(1.0), 4)   # 0.7111 x e**-2
        (0.7111, 0.0962)
        """
        t = real("t", t, low=0)
        return out(self.prob_wait * np.exp(-self._drain_rate * np.asarray(t)))

    def wait_percentile(self, q):
        """Wait (seconds in the queue) below which ``q`` percent of requests start service.

        A fraction ``1 - prob_wait`` of requests find a free server and wait 0, so every
        percentile up to ``100 (1 - prob_wait)`` is 0; above it the wait solves
        ``prob_wait * exp(-(c mu - lambda) t) = 1 - q/100``:
        ``t = ln(prob_wait / (1 - q/100)) / (c mu - lambda)``. ``q`` is a percent in (0, 100),
        a number or an array: 99 for p99.

        Examples
        --------
        >>> s = mmc(8, 5, 2)   # prob_wait 0.7111: 28.9% of requests never wait
        >>> s.wait_percentile(20), round(s.wait_percentile(50), 4), round(s.wait_percentile(99), 4)
        (0.0, 0.1761, 2.1321)
        """
        q = real("q", q, low=0, high=100, low_open=True, high_open=True)
        t = np.log(self.prob_wait / (1.0 - np.asarray(q) / 100.0)) / self._drain_rate
        return out(np.maximum(t, 0.0))


def _erlang_c(offered, c):
    # Erlang B by its recursion B(k) = A B(k-1) / (k + A B(k-1)), which never overflows (a sum of
    # A^k / k! does for a few hundred servers), then C = c B / (c - A (1 - B)).
    b = 1.0
    for k in range(1, c + 1):
        b = offered * b / (k + offered * b)
    return c * b / (c - offered * (1.0 - b))


def _mmc_inputs(arrival_rate, service_rate, servers):
    lam = real("arrival_rate", arrival_rate, low=0, low_open=True)
    mu = real("service_rate", service_rate, low=0, low_open=True)
    if not (isinstance(lam, float) and isinstance(mu, float)):
        raise TypeError("arrival_rate and service_rate must be scalars here")
    c = positive_int("servers", servers)
    rho = lam / (c * mu)
    if rho >= 1:
        raise ValueError(f"utilization arrival_rate/(servers x service_rate) = {rho:.4g} must be < 1; at or "
                         "above 1 the queue grows without bound (no steady state)")
    return lam, mu, c


def erlang_c(arrival_rate, service_rate, servers):
    """Erlang C: the probability that a request waits in M/M/c (all ``servers`` busy when it arrives).

    With offered load ``A = lambda / mu`` (erlangs) and ``rho = A / c``,
    ``C = (A^c / c!) / (1 - rho) / (sum_{k<c} A^k / k! + (A^c / c!) / (1 - rho))``.
    One server gives ``C = rho``; two give ``C = 2 rho^2 / (1 + rho)``.

    Parameters
    ----------
    arrival_rate : float, lambda > 0, requests/s
    service_rate : float, mu > 0, requests/s of each server
    servers : int, c >= 1; the utilization lambda / (c mu) must be < 1

    Examples
    --------
    >>> round(erlang_c(8, 10, 1), 6)   # one server: rho
    0.8
    >>> round(erlang_c(8, 5, 2), 6)    # 2 x 0.8**2 / 1.8
    0.711111
    """
    lam, mu, c = _mmc_inputs(arrival_rate, service_rate, servers)
    return _erlang_c(lam / mu, c)


def mmc(arrival_rate, service_rate, servers):
    """M/M/c: Poisson arrivals, ``servers`` servers with exponential service times, one shared FCFS queue.

    ``Wq = C / (c mu - lambda)`` with ``C`` the Erlang C probability of waiting
    (:func:`erlang_c`); ``W = Wq + 1/mu``; Little's law gives ``L`` and ``Lq``. With one
    server it is M/M/1: ``Wq = rho / (mu - lambda)``.

    Parameters
    ----------
    arrival_rate : float, lambda > 0, requests/s
    service_rate : float, mu > 0, requests/s of each server
    servers : int, c >= 1; the utilization lambda / (c mu) must be < 1

    Examples
    --------
    One server is M/M/1, ``Wq = 0.8 / (10 - 8) = 0.4`` s:

    >>> round(mmc(8, 10, 1).mean_wait, 6), round(mm1(8, 10).mean_wait, 6)
    (0.4, 0.4)

    Two servers of half the speed behind one queue, ``C = 2 x 0.8**2 / 1.8 = 0.7111`` and
    ``Wq = 0.7111 / (2 x 5 - 8) = 0.3556`` s, against two separate queues each fed half the
    requests (M/M/1 at 4/s and 5/s, ``Wq = 0.8 / (5 - 4) = 0.8`` s), at the same utilization:

    >>> two = mmc(8, 5, 2)
    >>> two.model, round(two.prob_wait, 4), round(two.mean_wait, 4), round(two.mean_time_in_system, 4)
    ('M/M/2', 0.7111, 0.3556, 0.5556)
    >>> round(mm1(4, 5).mean_wait, 6)
    0.8
    """
    lam, mu, c = _mmc_inputs(arrival_rate, service_rate, servers)
    p = _erlang_c(lam / mu, c)
    wq = p / (c * mu - lam)
    w = wq + 1.0 / mu
    return MMcStats(f"M/M/{c}", lam, mu, c, lam / (c * mu), p, wq, w, lam * w, lam * wq)
