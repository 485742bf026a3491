"""The workload of the lesson-08 case study: a batch of requests of given lengths, and its answer.

Request ``i`` is a float64 host array of ``L_i`` rows (tokens) by ``d`` features; the
float64 :func:`reference` is what every version of ``pc.pipeline`` must reproduce within
``TOLERANCE``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._check import positive_int, real
from ..measure import backend as _backend

__all__ = ["EPS", "TOLERANCE", "Batch", "make_batch", "uniform_lengths", "mixed_lengths", "reference", "max_error"]

EPS = 1e-5
TOLERANCE = 1e-4   # largest absolute error allowed against the float64 reference (outputs lie in [-1, 1])


def uniform_lengths(n, length):
    """``n`` requests of ``length`` rows each.

    Examples
    --------
    >>> uniform_lengths(3, 16).tolist()
    [16, 16, 16]
    """
    return np.full(positive_int("n", n), positive_int("length", length), dtype=np.int64)


def mixed_lengths(n, median, *, sigma=1.0, max_length=256, seed=0):
    """``n`` request lengths drawn from a log-normal with the given median, clipped to [1, max_length].

    Real traffic is like this: most requests short, a few very long.

    Examples
    --------
    >>> L = mixed_lengths(1000, 16, seed=1)
    >>> bool(12 <= np.median(L) <= 20), int(L.min()) >= 1, int(L.max()) <= 256
    (True, True, True)
    """
    n, max_length = positive_int("n", n), positive_int("max_length", max_length)
    median = real("median", median, low=1)
    sigma = real("sigma", sigma, low=0)
    raw = np.random.default_rng(seed).lognormal(np.log(median), sigma, size=n)
    return np.clip(np.rint(raw), 1, max_length).astype(np.int64)


@dataclass(frozen=True)
class Batch:
    """Requests on the host (float64), parameters already on the device (float32)."""

    requests: tuple
    w: object
    bias: object
    backend: _backend.Backend

    @property
    def lengths(self):
        return np.array([len(r) for r in self.requests], dtype=np.int64)

    @property
    def d(self):
        return int(self.w.shape[0])


def make_batch(lengths, d, *, seed=0, backend=None):
    """Random requests of the given lengths and random parameters (seeded; never zeros).

    Examples
    --------
    >>> batch = make_batch([3, 5], 8, backend=_backend.get())
    >>> [r.shape for r in batch.requests], batch.d
    ([(3, 8), (5, 8)], 8)
    """
    lengths = np.atleast_1d(real("lengths", lengths, low=1, integer=True)).astype(np.int64)
    d = positive_int("d", d)
    b = backend or _backend.get()
    rng = np.random.default_rng(seed)
    requests = tuple(rng.standard_normal((int(n), d)) * 2.0 + 0.5 for n in lengths)
    w = (rng.standard_normal((d, d)) / np.sqrt(d)).astype(np.float32)
    bias = (0.1 * rng.standard_normal(d)).astype(np.float32)
    return Batch(requests, b.xp.asarray(w), b.xp.asarray(bias), b)


def reference(batch):
    """The outputs computed in float64 on the host, request by request.

    Examples
    --------
    >>> batch = make_batch([4, 2], 8)
    >>> ref = reference(batch)
    >>> ref.shape, bool(np.all(np.abs(ref) <= 1))
    ((2, 8), True)
    """
    w = batch.backend.to_numpy(batch.w).astype(np.float64)
    bias = batch.backend.to_numpy(batch.bias).astype(np.float64)
    outs = []
    for r in batch.requests:
        z = (r - r.mean(axis=1, keepdims=True)) / np.sqrt(r.var(axis=1, keepdims=True) + EPS)
        outs.append(np.tanh(z @ w + bias).mean(axis=0))
    return np.stack(outs)


def max_error(outputs, ref):
    """Largest absolute difference between two output arrays of the same shape.

    Examples
    --------
    >>> max_error(np.array([0.5, 0.25]), np.array([0.5, 0.2500001])) < 1e-6
    True
    """
    a, b = np.asarray(outputs, dtype=np.float64), np.asarray(ref, dtype=np.float64)
    if a.shape != b.shape:
        raise ValueError(f"outputs and ref must have the same shape; got {a.shape} and {b.shape}")
    return float(np.abs(a - b).max())
