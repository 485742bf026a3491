"""Measuring how long a call takes, honestly: warm-up, synchronisation, repeats, percentiles.

``measure`` follows the shape of ``cupyx.profiler.benchmark``: it runs the function until
a warm-up time has passed (so compilation, allocation and clock ramp stay out), then times
``repeat`` samples. On the GPU each sample sits between two CUDA events and ends with a
synchronisation, because a kernel launch returns before the kernel has run; on the CPU each
sample is read with ``time.perf_counter_ns``. Garbage collection is off while timing. A call
shorter than about 20 us is timed as a batch of calls between one pair of clock readings and
reported per call, since one event pair cannot resolve it. A hard cap bounds the total time.

The result keeps every sample in seconds: look at p95 and p99 as well as the median.

Examples
--------
>>> t = Timing.from_samples([1e-3, 2e-3, 3e-3, 4e-3], name="demo")
>>> t.p50, round(t.mean, 6)
(0.0025, 0.0025)
>>> round(t.p99, 5)
0.00397
"""

from __future__ import annotations

import gc
import math
import os
import time

import numpy as np

from .._check import choice, positive_int, real
from . import backend as _backend
from .samples import NOISY_IQR, Timing

__all__ = ["Timing", "NOISY_IQR", "TIME_SCALE_ENV", "time_scale", "measure", "until_steady", "time_without_sync",
           "flush_bytes", "SHORT_CALL_S"]

SHORT_CALL_S = 20e-6      # calls shorter than this are timed in batches
BATCH_SAMPLE_S = 200e-6   # a batched sample lasts about this long
MAX_BATCH = 100_000


def flush_bytes(b=None):
    """Bytes written before each cold-cache sample: twice the last-level cache (L2 on a GPU).

    Falls back to twice ``backend.FALLBACK_CACHE_BYTES`` when the cache size is unknown.

    Examples
    --------
    >>> flush_bytes(_backend.Backend("numpy", np, False, "cpu", "", cache_bytes=32 * 2**20)) == 64 * 2**20
    True
    """
    b = b or _backend.get()
    return 2 * b.last_level_cache


class _Clock:
    """Times ``batch`` calls of ``call``: CUDA events on the GPU, perf_counter_ns on the CPU."""

    def __init__(self, b):
        self.b = b
        if b.on_gpu:
            self.start, self.end = b.xp.cuda.Event(), b.xp.cuda.Event()

    def time(self, call, batch):
        if self.b.on_gpu:
            self.start.record()
            for _ in range(batch):
                call()
            self.end.record()
            self.end.synchronize()
            return self.b.xp.cuda.get_elapsed_time(self.start, self.end) * 1e-3
        t0 = time.perf_counter_ns()
        for _ in range(batch):
            call()
        return (time.perf_counter_ns() - t0) * 1e-9


def _check_args(fn, args, kwargs, name):
    if not callable(fn):
        raise TypeError(f"fn must be callable; got {fn!r} of type {type(fn).__name__}")
    if kwargs is not None and not isinstance(kwargs, dict):
        raise TypeError(f"kwargs must be a dict or None; got {type(kwargs).__name__}")
    if name is not None and not isinstance(name, str):
        raise TypeError(f"name must be a string or None; got {name!r}")
    kwargs = kwargs or {}
    return (lambda: fn(*args, **kwargs)), name or getattr(fn, "__name__", "call")


MIN_WARMUP_CALLS = 3  # first calls may spin up thread pools or pack buffers, whatever warmup_s says


def _warm_up(call, b, warmup_s, deadline):
    """Call until ``warmup_s`` has passed and at least ``MIN_WARMUP_CALLS`` calls were made (the
    hard deadline cuts both short); return (calls, typical seconds per call)."""
    calls, times = 0, []
    begin = time.perf_counter()
    while True:
        t0 = time.perf_counter_ns()
        call()
        b.synchronize()
        times.append((time.perf_counter_ns() - t0) * 1e-9)
        calls += 1
        now = time.perf_counter()
        if (now - begin >= warmup_s and calls >= MIN_WARMUP_CALLS) or now >= deadline:
            break
    typical = float(np.median(times[-5:])) if len(times) > 1 else times[0]
    return calls, typical


def _choose_batch(batch, typical, l2):
    if batch is not None:
        batch = positive_int("batch", batch)
        if l2 == "cold" and batch > 1:
            raise ValueError(f"batch must be 1 with l2='cold' (only the first call would see a cold cache); "
                             f"got {batch}")
        return batch
    if l2 == "cold" or typical >= SHORT_CALL_S:
        return 1
    return int(min(MAX_BATCH, max(2, math.ceil(BATCH_SAMPLE_S / max(typical, 1e-9)))))


TIME_SCALE_ENV = "PERFCOURSE_TIME_SCALE"


def time_scale():
    """The share of each measurement's time budget to use: ``PERFCOURSE_TIME_SCALE`` (from 0 to 1), else 1.

    The test run of the lessons sets it (the checkout's conftest.py): every measurement keeps its warm-up,
    its synchronisation and its minimum samples, on a smaller budget; what it measures is not
    compared there. A learner's run uses the whole budget.

    Examples
    --------
    >>> import os
    >>> os.environ[TIME_SCALE_ENV] = "0.25"
    >>> time_scale()
    0.25
    >>> del os.environ[TIME_SCALE_ENV]
    >>> time_scale()
    1.0
    """
    text = os.environ.get(TIME_SCALE_ENV, "").strip()
    if not text:
        return 1.0
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not 0 < value <= 1:
        raise ValueError(f"{TIME_SCALE_ENV} must be a number above 0 and at most 1 (or unset); got {text!r}")
    return value


def measure(fn, *args, kwargs=None, repeat=30, warmup_s=0.1, max_duration_s=10.0, l2="warm",
            name=None, batch=None, min_samples=5, backend=None):
    """Time ``fn(*args, **kwargs)`` on the current backend and return a :class:`Timing`.

    Parameters
    ----------
    fn : callable
        What to time. On the GPU it may return before its kernels finish: ``measure`` synchronises.
    *args, kwargs
        Positional and keyword arguments passed to ``fn`` on every call.
    repeat : int
        Samples wanted (>= 1).
    warmup_s : float
        Seconds of untimed calls first (>= 0; at least one call is always made).
    max_duration_s : float
        Hard cap on the whole measurement, warm-up and cache flushes included (> 0); both it and
        ``warmup_s`` are scaled by :func:`time_scale`. Sampling
        stops at the cap (one sample is always taken), and also once ``min_samples`` exist and
        the next sample would cross it; ``stopped_early`` and ``n`` say what happened.
    l2 : {"warm", "cold"}
        ``"warm"`` repeats the call with whatever the cache holds; ``"cold"`` writes a buffer of
        twice the last-level cache (the GPU's L2) before each sample, so data comes from memory.
    name : str, optional
        Label for the result (defaults to ``fn.__name__``).
    batch : int, optional
        Calls per sample. By default 1, or enough calls to last ~200 us when a call is < 20 us.
    min_samples : int
        Samples taken before a sample that would cross the cap may be skipped (capped at ``repeat``).
    backend : Backend, optional
        Defaults to :func:`perfcourse.measure.backend.get`.

    Examples
    --------
    >>> t = measure(sum, range(100), repeat=5, warmup_s=0.0, name="sum of 100 ints")
    >>> t.n, t.l2, t.batch > 1, t.p50 <= t.p95 <= t.p99
    (5, 'warm', True, True)
    """
    call, name = _check_args(fn, args, kwargs, name)
    repeat = positive_int("repeat", repeat)
    scale = time_scale()
    warmup_s = real("warmup_s", warmup_s, low=0) * scale
    max_duration_s = real("max_duration_s", max_duration_s, low=0, low_open=True) * scale
    choice("l2", l2, ("warm", "cold"))
    min_samples = min(positive_int("min_samples", min_samples), repeat)
    b = backend or _backend.get()
    if not isinstance(b, _backend.Backend):
        raise TypeError(f"backend must be a perfcourse.measure.backend.Backend or None; got {type(b).__name__}")

    begin = time.perf_counter()
    deadline = begin + max_duration_s
    calls, typical = _warm_up(call, b, warmup_s, deadline)
    batch = _choose_batch(batch, typical, l2)
    flush = b.xp.empty(flush_bytes(b) // 4, dtype=np.float32) if l2 == "cold" else None
    samples = _sample(call, b, batch, repeat, min_samples, flush, deadline)
    return Timing(np.asarray(samples) / batch, name=name, backend=b.name, device=b.device, l2=l2, batch=batch,
                  repeat=repeat, warmup_calls=calls, stopped_early=len(samples) < repeat,
                  total_s=time.perf_counter() - begin)


def _sample(call, b, batch, repeat, min_samples, flush, deadline):
    """Take up to ``repeat`` samples with the garbage collector off; stop at the deadline."""
    clock, samples = _Clock(b), []
    gc_was_on = gc.isenabled()
    gc.disable()
    try:
        while len(samples) < repeat:
            now = time.perf_counter()
            last = samples[-1] * (1 if flush is None else 2) if samples else 0.0
            if samples and (now >= deadline or (len(samples) >= min_samples and now + last > deadline)):
                break
            if flush is not None:
                flush.fill(len(samples) + 1)
                b.synchronize()
            samples.append(clock.time(call, batch))
    finally:
        if gc_was_on:
            gc.enable()
    return samples


def until_steady(take, *, tries=3, spread=None):
    """Take a measurement again while it is too noisy to judge: the least noisy of at most ``tries``.

    ``take``: a function of no arguments that measures and returns a :class:`Timing` (usually a
    lambda around :func:`measure`). It is called until a result's spread is at most NOISY_IQR,
    ``tries`` times at most; the result with the smallest spread is returned, so the caller still
    sees the NOISY flag when every try was noisy and gives no verdict from it. ``spread``: how to
    read a result's IQR/median (default: a Timing's own), for results that hold several timings.

    Examples
    --------
    >>> quiet = Timing.from_samples([1.0, 1.01, 0.99, 1.0, 1.02], name="copy")
    >>> until_steady(lambda: quiet) is quiet
    True
    >>> loud = iter([Timing.from_samples(s, name="x") for s in ([1, 2, 3, 4, 5], [1, 1.3, 1, 1.3, 1])])
    >>> round(until_steady(lambda: next(loud), tries=2).iqr_over_median, 2)
    0.3
    """
    if not callable(take):
        raise TypeError(f"take must be a function that returns a Timing; got {type(take).__name__}")
    if isinstance(tries, bool) or not isinstance(tries, int) or tries < 1:
        raise ValueError(f"tries must be a whole number of at least 1; got {tries!r}")
    if spread is None:
        def spread(t):
            if not isinstance(t, Timing):
                raise TypeError(f"take must return a Timing; it returned {type(t).__name__}")
            return t.iqr_over_median
    best = None
    for _ in range(tries):
        result = take()
        if best is None or spread(result) < spread(best):
            best = result
        if spread(result) <= NOISY_IQR:
            return result
    return best


def time_without_sync(fn, *args, kwargs=None, warmup=True):
    """The WRONG way, kept for lesson 00: host wall time of one call, with no synchronisation.

    On a GPU the call returns as soon as its kernels are queued, so this reports the launch
    cost, not the work. With ``warmup`` the function is called (and synchronised) once first,
    so that only the missing synchronisation is wrong. Returns seconds.

    Examples
    --------
    >>> import time
    >>> 0.01 <= time_without_sync(time.sleep, 0.01) < 5     # a host call: its whole duration, no less
    True
    """
    call, _ = _check_args(fn, args, kwargs, None)
    if not isinstance(warmup, bool):
        raise TypeError(f"warmup must be True or False; got {warmup!r}")
    if warmup:
        call()
        _backend.get().synchronize()
    t0 = time.perf_counter_ns()
    call()
    return (time.perf_counter_ns() - t0) * 1e-9
