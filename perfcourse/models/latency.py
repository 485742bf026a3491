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

from . import roofline
from .._check import out, positive_int, real

__all__ = ["dense_layer_latency", "knee_batch", "largest_batch_under_slo", "energy_per_token",
           "batch_fill_time", "time_to_quality", "sweep_batches", "plot_latency_by_batch",
           "plot_latency_throughput"]


def _dense_counts(batches, d, dtype):
    from ..measure.kernels.matmul import dense

    flops = [dense.flops(int(b), d) for b in np.ravel(batches)]
    moved = [dense.bytes_moved(int(b), d, dtype=dtype) for b in np.ravel(batches)]
    return np.reshape(flops, np.shape(batches)), np.reshape(moved, np.shape(batches))


def dense_layer_latency(batch, d, *, peak_flops, peak_bandwidth, dtype="float32", overhead=0.0):
    """Roofline latency of ``X[batch, d] @ W[d, d]`` with ``W`` read once, in seconds.

    ``latency = overhead + max(2 b d^2 / peak_flops, (d^2 + 2 b d) * itemsize / peak_bandwidth)``,
    with the FLOP and byte counts of ``perfcourse.kernels.dense``.

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
    from ..measure.kernels._base import itemsize

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


def sweep_batches(make_call, batches, *, min_samples=5, progress=True, **measure_kwargs):
    """Measure one call per batch size; return ``{batch: Timing}``.

    Parameters
    ----------
    make_call : callable
        ``make_call(batch)`` prepares inputs for that batch and returns a function of no
        arguments that does the work once (it is what gets timed).
    batches : iterable of int
        Batch sizes, each >= 1.
    min_samples : int
        Samples every batch gets, even when a slow call makes that take longer than
        ``max_duration_s``: one call is timed first and the cap stretched to fit.
    progress : bool
        Show a tqdm progress bar.
    **measure_kwargs
        Passed to :func:`perfcourse.timing.measure` (``repeat``, ``max_duration_s``...).

    Examples
    --------
    >>> got = sweep_batches(lambda b: (lambda: sum(range(b))), [1, 4], progress=False, repeat=3, warmup_s=0)
    >>> sorted(got), all(t.n == 3 for t in got.values())
    ([1, 4], True)
    """
    from tqdm.auto import tqdm

    from ..measure import timing

    if not callable(make_call):
        raise TypeError(f"make_call must be a function batch -> call; got {type(make_call).__name__}")
    batches = [positive_int("batch", b) for b in batches]
    if not batches:
        raise ValueError("batches must hold at least one batch size; got none")
    min_samples = positive_int("min_samples", min_samples)
    cap = real("max_duration_s", measure_kwargs.pop("max_duration_s", 10.0), low=0, low_open=True)
    result = {}
    for b in tqdm(batches, desc="batch sweep", unit="batch", disable=not progress):
        call = make_call(b)
        one_call = timing.measure(call, repeat=1, warmup_s=0.0, batch=1).p50
        budget = max(cap, 1.25 * (min_samples + 2) * one_call)
        result[b] = timing.measure(call, name=f"batch {b}", min_samples=min_samples, max_duration_s=budget,
                                   **measure_kwargs)
    return result


def _checked_timings(timings):
    if not isinstance(timings, Mapping) or not timings:
        raise TypeError(f"timings must be a non-empty mapping batch -> Timing; got {type(timings).__name__}")
    return sorted(timings)


def plot_latency_by_batch(timings, ax, *, slo=None, model=None, title=None):
    """Latency p50/p95/p99 against batch (log-log), with an optional SLO line and model curve.

    ``model`` is ``(label, batches, seconds)``. Returns the axes.
    """
    batches = _checked_timings(timings)
    for q, style in ((50, "o-"), (95, "s--"), (99, "^:")):
        ax.loglog(batches, [timings[b].percentile(q) * 1e3 for b in batches], style, label=f"p{q} measured")
    if model is not None:
        label, xs, ys = model
        ax.loglog(xs, np.asarray(ys) * 1e3, "k-", lw=1, alpha=0.6, label=label)
    if slo is not None:
        ax.axhline(real("slo", slo, low=0, low_open=True) * 1e3, color="tab:red", lw=1, label="SLO")
    ax.set_xlabel("batch b [rows per call]")
    ax.set_ylabel("latency per call [ms]")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    if title:
        ax.set_title(title, fontsize=9)
    return ax


def plot_latency_throughput(timings, ax, *, q=50, title=None):
    """Throughput (rows/s at the q-th percentile latency) against that latency, one point per batch."""
    batches = _checked_timings(timings)
    lat = np.array([timings[b].percentile(q) for b in batches])
    thr = np.array(batches) / lat
    ax.loglog(lat * 1e3, thr, "o-")
    for b, x, y in zip(batches, lat * 1e3, thr, strict=True):
        ax.annotate(f"b={b}", (x, y), textcoords="offset points", xytext=(4, -10), fontsize=7)
    ax.set_xlabel(f"latency per call, p{q:g} [ms]")
    ax.set_ylabel("throughput [rows/s]")
    ax.grid(True, which="both", alpha=0.3)
    if title:
        ax.set_title(title, fontsize=9)
    return ax
