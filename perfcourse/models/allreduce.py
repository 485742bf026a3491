"""The alpha-beta model of an all-reduce, fitted to measurements and used to predict scaling.

Sending a message of ``m`` bytes costs ``alpha + m * beta``: ``alpha`` is the fixed latency
of one message (seconds) and ``beta`` the time per byte (seconds/byte, one over bandwidth).
A ring all-reduce over ``n`` ranks cuts the buffer into ``n`` pieces and makes
``2 (n - 1)`` steps (a reduce-scatter, then an all-gather), each sending one piece, so

    T(m, n) = 2 (n - 1) alpha + 2 (n - 1) / n * m * beta.

The latency term grows with ``n``; the bandwidth term approaches ``2 m beta`` and stops
growing. A data-parallel training step is compute followed by an all-reduce of the
gradient, so this model, fitted once on the ranks you have, predicts the efficiency at
larger ``n`` (for the same transport: a fit on shared memory says nothing about a network).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._check import choice, out, real
from ..units import format_seconds

__all__ = ["AlphaBeta", "ring_allreduce_time", "ring_terms", "latency_crossover", "fit_alpha_beta", "bus_bandwidth",
           "step_time", "predicted_efficiency"]


def _ranks(n):
    return real("n", n, low=1, integer=True)


def ring_allreduce_time(nbytes, n, alpha, beta):
    """Time of a ring all-reduce of ``nbytes`` over ``n`` ranks (seconds).

    ``T = 2 (n - 1) alpha + 2 (n - 1) / n * nbytes * beta``; zero for one rank.

    Parameters
    ----------
    nbytes : float or array, >= 0
        Size of the buffer each rank contributes (bytes).
    n : int or array, >= 1
        Number of ranks.
    alpha : float, >= 0
        Latency per message (seconds).
    beta : float, >= 0
        Time per byte (seconds/byte).

    Examples
    --------
    >>> round(ring_allreduce_time(4e6, 8, 10e-6, 1e-9) * 1e3, 3)   # 4 MB, 8 ranks, 10 us, 1 GB/s: ms
    7.14
    >>> ring_allreduce_time(4e6, 1, 10e-6, 1e-9)
    0.0
    """
    m = real("nbytes", nbytes, low=0)
    n = _ranks(n)
    a = real("alpha", alpha, low=0)
    b = real("beta", beta, low=0)
    return out(2 * (n - 1) * a + 2 * (n - 1) / n * m * b)


def ring_terms(nbytes, n, alpha, beta):
    """The two terms of :func:`ring_allreduce_time`: ``(latency, bandwidth)`` in seconds.

    Latency ``2 (n - 1) alpha``; bandwidth ``2 (n - 1) / n * nbytes * beta``.

    Examples
    --------
    >>> lat, bw = ring_terms(4 * 2**20, 64, 5e-6, 1 / 25e9)   # 4 MiB, 64 ranks, 5 us, 25 GB/s
    >>> round(lat * 1e6), round(bw * 1e6)                     # us
    (630, 330)
    """
    m = real("nbytes", nbytes, low=0)
    n = _ranks(n)
    a = real("alpha", alpha, low=0)
    b = real("beta", beta, low=0)
    return out(2 * (n - 1) * a), out(2 * (n - 1) / n * m * b)


def latency_crossover(nbytes, alpha, beta):
    """Rank count at which the ring's latency term equals its bandwidth term: ``nbytes * beta / alpha``.

    Below it the all-reduce is bandwidth-bound, above it latency-bound: ``2 (n - 1) alpha``
    overtakes ``2 (n - 1) / n * nbytes * beta`` exactly when ``n > nbytes * beta / alpha``.

    Examples
    --------
    >>> round(latency_crossover(4 * 2**20, 5e-6, 1 / 25e9), 1)   # 4 MiB, 5 us, 25 GB/s: ranks
    33.6
    >>> round(latency_crossover(2**30, 5e-6, 1 / 25e9))          # 1 GiB
    8590
    """
    m = real("nbytes", nbytes, low=0)
    a = real("alpha", alpha, low=0, low_open=True)
    b = real("beta", beta, low=0)
    return out(m * b / a)


def bus_bandwidth(nbytes, seconds, n):
    """Bus bandwidth of an all-reduce (bytes/s): ``nbytes / seconds * 2 (n - 1) / n``.

    The factor counts the bytes each rank really sends in a ring, so the figure can be
    compared with the link's bandwidth whatever ``n`` is.

    Examples
    --------
    >>> bus_bandwidth(1e6, 1e-3, 2) / 1e9    # GB/s
    1.0
    >>> round(bus_bandwidth(1e6, 1e-3, 8) / 1e9, 3)
    1.75
    """
    m = real("nbytes", nbytes, low=0)
    t = real("seconds", seconds, low=0, low_open=True)
    n = _ranks(n)
    return out(m / t * 2 * (n - 1) / n)


@dataclass(frozen=True)
class AlphaBeta:
    """A fitted alpha-beta model: ``alpha`` (s), ``beta`` (s/byte), fitted on ``n`` ranks.

    ``rel_error`` is the root-mean-square relative error of the fit on its own points.
    """

    alpha: float
    beta: float
    n: int
    rel_error: float

    @property
    def bandwidth(self):
        """``1 / beta`` in bytes/s (infinite when beta is 0)."""
        return float("inf") if self.beta == 0 else 1.0 / self.beta

    def predict(self, nbytes, n):
        """Ring all-reduce time for ``nbytes`` on ``n`` ranks with this alpha and beta."""
        return ring_allreduce_time(nbytes, n, self.alpha, self.beta)

    def __str__(self):
        return (f"alpha = {format_seconds(self.alpha, unit='µs')}, beta = {format_seconds(self.beta, unit='ns')}/byte "
                f"({self.bandwidth / 1e9:.3g} GB/s), fitted on {self.n} ranks, "
                f"rms relative error {self.rel_error:.1%}")


def fit_alpha_beta(nbytes, seconds, n):
    """Fit ``alpha`` and ``beta`` of a ring all-reduce to measured times on ``n`` ranks.

    The measured times are fitted as ``t = a + b m`` by least squares on the *relative*
    error (so 10 us and 10 ms points count alike), with ``a, b >= 0``; then
    ``alpha = a / (2 (n - 1))`` and ``beta = b n / (2 (n - 1))``.

    Parameters
    ----------
    nbytes : array of float, > 0, at least two distinct sizes
    seconds : array of float, > 0, same length (one time per size, e.g. the median)
    n : int, >= 2 (one rank sends nothing)

    Examples
    --------
    >>> m = np.array([1e3, 1e5, 1e7])
    >>> fit = fit_alpha_beta(m, ring_allreduce_time(m, 2, 5e-6, 2e-9), 2)
    >>> round(fit.alpha * 1e6, 6), round(fit.beta * 1e9, 6)
    (5.0, 2.0)
    """
    m = np.atleast_1d(real("nbytes", nbytes, low=0, low_open=True))
    t = np.atleast_1d(real("seconds", seconds, low=0, low_open=True))
    n = real("n", n, low=2, integer=True)
    if m.shape != t.shape or m.ndim != 1:
        raise ValueError(f"nbytes and seconds must be 1-d and of equal length; got {m.shape} and {t.shape}")
    if np.unique(m).size < 2:
        raise ValueError(f"nbytes must hold at least two distinct sizes to separate alpha from beta; got {m}")
    a, b = _relative_lsq(m, t)
    rel = float(np.sqrt(np.mean(((a + b * m) - t) ** 2 / t**2)))
    return AlphaBeta(alpha=a / (2 * (n - 1)), beta=b * n / (2 * (n - 1)), n=int(n), rel_error=rel)


def _relative_lsq(m, t):
    """Least squares of (a + b m - t) / t with a, b >= 0."""
    design = np.column_stack([1 / t, m / t])
    (a, b), *_ = np.linalg.lstsq(design, np.ones_like(t), rcond=None)
    if a < 0:
        a, b = 0.0, float(np.sum(m / t) / np.sum((m / t) ** 2))
    if b < 0:
        a, b = float(np.sum(1 / t) / np.sum(1 / t**2)), 0.0
    return float(a), float(b)


def step_time(compute_s, n, nbytes, alpha, beta, *, scaling="strong"):
    """Predicted time of one data-parallel step on ``n`` ranks (seconds).

    ``compute_s`` is the compute time of the whole batch on one rank. Strong scaling splits
    that batch: ``compute_s / n + T_ar``; weak scaling gives every rank a batch of the same
    size: ``compute_s + T_ar``. ``T_ar`` is the ring all-reduce of the ``nbytes`` gradient.
    Compute and communication are assumed not to overlap.

    Examples
    --------
    >>> round(step_time(0.1, 4, 4e6, 10e-6, 1e-9) * 1e3, 3)   # ms
    31.06
    >>> round(step_time(0.1, 4, 4e6, 10e-6, 1e-9, scaling="weak") * 1e3, 3)
    106.06
    """
    c = real("compute_s", compute_s, low=0, low_open=True)
    n = _ranks(n)
    choice("scaling", scaling, ("strong", "weak"))
    comm = ring_allreduce_time(nbytes, n, alpha, beta)
    return out((c / n if scaling == "strong" else c) + comm)


def predicted_efficiency(compute_s, n, nbytes, alpha, beta, *, scaling="strong"):
    """Parallel efficiency predicted by the alpha-beta model.

    Strong scaling: ``speedup / n = compute_s / (n * step_time)``. Weak scaling: the scaled
    speedup is ``n * compute_s / step_time``, so the efficiency is ``compute_s / step_time``.
    One rank sends nothing, so its efficiency is 1.

    Examples
    --------
    >>> round(predicted_efficiency(0.1, 4, 4e6, 10e-6, 1e-9), 3)
    0.805
    >>> round(predicted_efficiency(0.1, 4, 4e6, 10e-6, 1e-9, scaling="weak"), 3)
    0.943
    """
    t = step_time(compute_s, n, nbytes, alpha, beta, scaling=scaling)
    c = real("compute_s", compute_s, low=0, low_open=True)
    n = _ranks(n)
    return out(c / (n * t) if scaling == "strong" else c / t)
