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
>>> print(format_seconds(t.p99))
3.97 ms
"""

from __future__ import annotations

import gc
import math
import time
from dataclasses import dataclass, field

import numpy as np

from . import backend as _backend
from .._check import choice, positive_int, real

__all__ = ["Timing", "measure", "time_without_sync", "format_seconds", "flush_bytes", "SHORT_CALL_S"]

SHORT_CALL_S = 20e-6      # calls shorter than this are timed in batches
BATCH_SAMPLE_S = 200e-6   # a batched sample lasts about this long
MAX_BATCH = 100_000
DEFAULT_CACHE_BYTES = 64 * 2**20
NOISY_IQR = 0.1


def format_seconds(seconds):
    """Format a duration with a unit chosen for it: s, ms, µs or ns, three significant digits.

    Examples
    --------
    >>> format_seconds(0.0123), format_seconds(4.2e-6), format_seconds(2.5), format_seconds(7e-9)
    ('12.3 ms', '4.2 µs', '2.5 s', '7 ns')
    """
    seconds = real("seconds", seconds)
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if abs(seconds) >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


def _quantile(ordered, q):
    """Linear-interpolation percentile of sorted data, clamped so it never decreases with q."""
    pos = (len(ordered) - 1) * (q / 100.0)
    k = math.floor(pos)
    if k >= len(ordered) - 1:
        return float(ordered[-1])
    lo, hi = float(ordered[k]), float(ordered[k + 1])
    return min(max(lo + (hi - lo) * (pos - k), lo), hi)


@dataclass(frozen=True, eq=False)
class Timing:
    """The result of :func:`measure`: raw samples in seconds per call, plus how they were taken.

    ``samples`` holds one value per timed sample, already divided by ``batch`` (calls per
    sample). ``l2`` is ``"warm"`` or ``"cold"``; ``stopped_early`` says the duration cap cut
    the run short of ``repeat`` samples.
    """

    samples: np.ndarray
    name: str = "call"
    backend: str = "numpy"
    device: str = "unknown device"
    l2: str = "warm"
    batch: int = 1
    repeat: int = 0
    warmup_calls: int = 0
    stopped_early: bool = False
    total_s: float = 0.0
    _sorted: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        s = np.asarray(self.samples, dtype=np.float64).ravel()
        if s.size == 0:
            raise ValueError("samples must hold at least one duration; got none")
        if not np.all(np.isfinite(s)) or np.any(s < 0):
            raise ValueError("samples must be finite durations >= 0 seconds")
        s.setflags(write=False)
        object.__setattr__(self, "samples", s)
        object.__setattr__(self, "_sorted", np.sort(s))
        if self.repeat == 0:
            object.__setattr__(self, "repeat", int(s.size))

    @classmethod
    def from_samples(cls, samples, **fields):
        """Build a Timing from durations in seconds (for examples, tests and recorded runs)."""
        return cls(np.asarray(samples, dtype=np.float64), **fields)

    @property
    def n(self):
        """Number of samples."""
        return int(self.samples.size)

    def percentile(self, q):
        """The q-th percentile of the samples in seconds (linear interpolation), 0 <= q <= 100."""
        return _quantile(self._sorted, real("q", q, low=0, high=100))

    @property
    def mean(self):
        return float(self.samples.mean())

    @property
    def p50(self):
        return self.percentile(50)

    median = p50

    @property
    def p95(self):
        return self.percentile(95)

    @property
    def p99(self):
        return self.percentile(99)

    @property
    def min(self):
        return float(self._sorted[0])

    @property
    def iqr_over_median(self):
        """(p75 - p25) / p50: spread relative to the typical value; above 0.1 is flagged noisy."""
        iqr = self.percentile(75) - self.percentile(25)
        if self.p50 == 0:
            return 0.0 if iqr == 0 else math.inf
        return iqr / self.p50

    @property
    def noisy(self):
        return self.iqr_over_median > NOISY_IQR

    def per_second(self, amount, q=50):
        """``amount`` (bytes, FLOPs, items...) divided by the q-th percentile time.

        Examples
        --------
        >>> Timing.from_samples([0.5, 0.5]).per_second(1e9)
        2000000000.0
        """
        t = self.percentile(q)
        return real("amount", amount, low=0) / t if t > 0 else math.inf

    def to_dict(self):
        """Plain JSON-ready summary (samples included)."""
        return {"name": self.name, "backend": self.backend, "device": self.device, "l2": self.l2,
                "batch": self.batch, "repeat": self.repeat, "n": self.n, "stopped_early": self.stopped_early,
                "mean_s": self.mean, "p50_s": self.p50, "p95_s": self.p95, "p99_s": self.p99,
                "iqr_over_median": self.iqr_over_median, "samples_s": self.samples.tolist()}

    def __str__(self):
        how = f"{self.n} samples" + (f" of {self.batch} calls" if self.batch > 1 else "")
        if self.stopped_early:
            how += f" (cut to {self.n} of {self.repeat} by the time cap)"
        text = (f"{self.name}: p50 {format_seconds(self.p50)}, p95 {format_seconds(self.p95)}, "
                f"p99 {format_seconds(self.p99)}, mean {format_seconds(self.mean)} per call; "
                f"{how}, {self.l2} L2, {self.backend} on {self.device}")
        if self.noisy:
            text += f"; NOISY: IQR/median {self.iqr_over_median:.2f} > {NOISY_IQR}"
        return text


def flush_bytes(b=None):
    """Bytes written before each cold-cache sample: twice the last-level cache (L2 on a GPU).

    Falls back to twice 64 MiB when the cache size is unknown.

    Examples
    --------
    >>> flush_bytes(_backend.Backend("numpy", np, False, "cpu", "", cache_bytes=32 * 2**20)) == 64 * 2**20
    True
    """
    b = b or _backend.get()
    return 2 * (b.cache_bytes or DEFAULT_CACHE_BYTES)


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
        Hard cap on the whole measurement, warm-up and cache flushes included (> 0). Sampling
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
        Defaults to :func:`perfcourse.backend.get`.

    Examples
    --------
    >>> t = measure(sum, range(100), repeat=5, warmup_s=0.0, name="sum of 100 ints")
    >>> t.n, t.l2, t.batch > 1, t.p50 <= t.p95 <= t.p99
    (5, 'warm', True, True)
    """
    call, name = _check_args(fn, args, kwargs, name)
    repeat = positive_int("repeat", repeat)
    warmup_s = real("warmup_s", warmup_s, low=0)
    max_duration_s = real("max_duration_s", max_duration_s, low=0, low_open=True)
    choice("l2", l2, ("warm", "cold"))
    min_samples = min(positive_int("min_samples", min_samples), repeat)
    b = backend or _backend.get()
    if not isinstance(b, _backend.Backend):
        raise TypeError(f"backend must be a perfcourse.backend.Backend or None; got {type(b).__name__}")

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


def time_without_sync(fn, *args, kwargs=None, warmup=True):
    """The WRONG way, kept for lesson 00: host wall time of one call, with no synchronisation.

    On a GPU the call returns as soon as its kernels are queued, so this reports the launch
    cost, not the work. With ``warmup`` the function is called (and synchronised) once first,
    so that only the missing synchronisation is wrong. Returns seconds.

    Examples
    --------
    >>> time_without_sync(sum, range(10)) >= 0
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
