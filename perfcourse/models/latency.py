"""Latency against throughput: batching, SLOs and a roofline model of one dense layer.

Units are SI: seconds, requests (or tokens, or rows) per second, watts, joules, FLOP/s,
bytes/s. A *batch* of ``b`` requests that finishes together after ``t`` seconds gives a
throughput of ``b / t`` requests/s, yet no request in it finishes before ``t``.

The dense layer ``Y[b, d] = X[b, d] @ W[d, d]`` does ``2 b d^2`` FLOPs and, when ``W`` is
read once per call, moves about ``(d^2 + 2 b d) * itemsize`` bytes. At small ``b`` the
bytes of ``W`` dominate (memory-bound: the latency hardly grows with ``b``); at large ``b``
the FLOPs dominate (compute-bound: the latency grows in proportion to ``b``).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping

import numpy as np

from .._check import out, positive_int, real
from . import roofline
from .counts import COUNTS, itemsize

__all__ = ["dense_layer_latency", "knee_batch", "largest_batch_under_slo", "energy_per_token", "batch_fill_time",
           "time_to_quality"]


def _dense_counts(batches, d, dtype):
    dense = COUNTS["dense"]
    flops = [dense.flops(int(b), d) for b in np.ravel(batches)]
    moved = [dense.bytes_moved(int(b), d, dtype=dtype) for b in np.ravel(batches)]
    return np.reshape(flops, np.shape(batches)), np.reshape(moved, np.shape(batches))


def dense_layer_latency(batch, d, *, peak_flops, peak_bandwidth, dtype="float32", overhead=0.0):
    """Roofline latency of ``X[batch, d] @ W[d, d]`` with ``W`` read once, in seconds.

    ``latency = overhead + max(2 b d^2 / peak_flops, (d^2 + 2 b d) * itemsize / peak_bandwidth)``,
    with the FLOP and byte counts of ``perfcourse.models.counts`` (kernel "dense").

    Parameters
    ----------
    batch : int or array of int, >= 1
        Rows of ``X`` (requests or tokens served together).
    d : int, >= 1
        Width of the layer.
    peak_flops : float, > 0
        Compute ceiling in FLOP/s (best measured matmul rate, or a datasheet figure).
    peak_bandwidth : float, > 0
        Memory ceiling in bytes/s (best measured copy bandwidth, or a datasheet figure).
    dtype : str
        Element type: "float16", "bfloat16", "float32" or "float64".
    overhead : float, >= 0
        Fixed seconds per call (a launch, a Python call).

    Examples
    --------
    >>> t = dense_layer_latency([1, 1024], 4096, peak_flops=100e9, peak_bandwidth=20e9)
    >>> [f"{x * 1e3:.2f} ms" for x in t]
    ['3.36 ms', '343.60 ms']
    """
    b = real("batch", batch, low=1, integer=True)
    d = positive_int("d", d)
    f = real("peak_flops", peak_flops, low=0, low_open=True)
    bw = real("peak_bandwidth", peak_bandwidth, low=0, low_open=True)
    o = real("overhead", overhead, low=0)
    _itemsize(dtype)
    flops, bytes_moved = _dense_counts(b, d, dtype)
    return out(o + roofline.roofline_time(flops, bytes_moved, f, bw))


def _itemsize(dtype):
    if not isinstance(dtype, str):
        raise TypeError(f"dtype must be a dtype name such as 'float32' or 'bfloat16'; got {dtype!r}")
    return itemsize(dtype)


def knee_batch(d, *, peak_flops, peak_bandwidth, dtype="float32"):
    """Batch where the dense layer turns from memory-bound to compute-bound.

    Solving ``2 b d^2 / F = (d^2 + 2 b d) s / B`` for ``b`` gives
    ``b* = d s F / (2 (d B - s F))``, close to ``ridge * s / 2`` when ``d`` is large.
    Returns ``inf`` when the layer never becomes compute-bound.

    Examples
    --------
    >>> round(knee_batch(4096, peak_flops=160e9, peak_bandwidth=32e9), 2)   # ridge 5 FLOP/byte, fp32
    10.05
    >>> round(knee_batch(8192, peak_flops=989e12, peak_bandwidth=4.8e12, dtype="bfloat16"), 1)  # H200
    217.0
    """
    d = positive_int("d", d)
    f = real("peak_flops", peak_flops, low=0, low_open=True)
    bw = real("peak_bandwidth", peak_bandwidth, low=0, low_open=True)
    s = _itemsize(dtype)
    denominator = 2.0 * (d * bw - s * f)
    return math.inf if denominator <= 0 else d * s * f / denominator


def largest_batch_under_slo(latencies_by_batch, slo):
    """The largest batch whose latency meets ``slo`` (latency <= slo), or None if none does.

    Parameters
    ----------
    latencies_by_batch : mapping of int to float
        Batch size -> latency in seconds at the percentile the SLO is written for (e.g. p99).
    slo : float, > 0
        The latency objective in seconds.

    Examples
    --------
    >>> p99 = {1: 0.004, 8: 0.006, 64: 0.020, 512: 0.140}
    >>> largest_batch_under_slo(p99, 0.025)
    64
    >>> largest_batch_under_slo(p99, 0.001) is None
    True
    """
    if not isinstance(latencies_by_batch, Mapping) or not latencies_by_batch:
        raise TypeError(f"latencies_by_batch must be a non-empty mapping batch -> seconds; "
                        f"got {type(latencies_by_batch).__name__}")
    slo = real("slo", slo, low=0, low_open=True)
    meeting = []
    for batch, latency in latencies_by_batch.items():
        if isinstance(batch, bool) or not isinstance(batch, numbers.Integral) or batch < 1:
            raise ValueError(f"latencies_by_batch keys must be batch sizes (integers >= 1); got {batch!r}")
        if real(f"latency of batch {batch}", latency, low=0) <= slo:
            meeting.append(int(batch))
    return max(meeting, default=None)


def energy_per_token(power, tokens_per_s):
    """Energy efficiency in joules per token: ``power / throughput``.

    Parameters
    ----------
    power : float, > 0
        Average power drawn while serving, in watts (J/s).
    tokens_per_s : float, > 0
        Throughput in tokens/s.

    Examples
    --------
    >>> energy_per_token(700, 20_000)
    0.035
    """
    p = real("power", power, low=0, low_open=True)
    r = real("tokens_per_s", tokens_per_s, low=0, low_open=True)
    return out(p / r)


def batch_fill_time(batch, arrival_rate):
    """Seconds the first request of a batch waits for the other ``batch - 1`` to arrive.

    With requests arriving steadily at ``arrival_rate`` per second: ``(batch - 1) / arrival_rate``.

    Examples
    --------
    >>> batch_fill_time(8, 100)
    0.07
    >>> batch_fill_time(1, 100)
    0.0
    """
    b = real("batch", batch, low=1, integer=True)
    lam = real("arrival_rate", arrival_rate, low=0, low_open=True)
    return out((b - 1) / lam)


def time_to_quality(tokens_needed, tokens_per_s):
    """Seconds of training to reach a target quality: ``tokens_needed / tokens_per_s``.

    A setting that raises tokens/s but needs more tokens to reach the same quality can lose.

    Examples
    --------
    >>> time_to_quality(2e9, 100_000) / 3600
    5.555555555555555
    """
    n = real("tokens_needed", tokens_needed, low=0, low_open=True)
    r = real("tokens_per_s", tokens_per_s, low=0, low_open=True)
    return out(n / r)
