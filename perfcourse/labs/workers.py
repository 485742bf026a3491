"""Strong and weak scaling measured with the grid-stride kernel, workers as processors.

On the GPU a worker is a thread block: the grid-stride kernel launched on ``N`` blocks shares
its elements among them. On the CPU a worker is a thread that takes one contiguous chunk
(NumPy releases the interpreter lock inside its loops, so threads really run side by side).
Strong scaling keeps the total number of elements fixed; weak scaling keeps the elements per
worker fixed, so the problem grows with ``N``.

Examples
--------
>>> worker_counts(most=8)
[1, 2, 4, 8]
>>> sizes("strong", 2**20, [1, 2, 4]), sizes("weak", 2**20, [1, 2, 4])
([1048576, 1048576, 1048576], [1048576, 2097152, 4194304])
"""

from __future__ import annotations

import os
import time

import numpy as np

from .._check import choice, positive_int
from .._lang import _, ngettext
from ..measure import backend as _backend
from ..measure import timing
from ..measure.kernels import grid_stride
from ..measure.kernels._cuda import THREADS
from ..measure.kernels.gridstride import TILE
from ..measure.kernels.gridstride import A as grid_stride_a
from ..measure.kernels.gridstride import B as grid_stride_b
from ..models import scaling

__all__ = ["worker_counts", "concurrency", "sizes", "Sweep", "sweep", "overheads", "cores_busy",
           "tile_pass"]


def worker_counts(backend=None, *, most=None):
    """Powers of two from 1 up to ``most`` (default: 2x the CPU cores, or 8 blocks per GPU SM)."""
    if most is None:
        b = backend or _backend.get()
        most = 8 * b.sms if b.on_gpu else 2 * (os.cpu_count() or 1)
    most = positive_int("most", most)
    return [2**k for k in range(most.bit_length()) if 2**k <= most]


def concurrency(backend=None):
    """Workers that can make progress at the same time: CPU cores, or blocks resident on all SMs."""
    b = backend or _backend.get()
    if not b.on_gpu:
        return os.cpu_count() or 1
    return b.sms * max(1, b.threads_per_sm // THREADS)


def sizes(kind, n, workers):
    """Elements per run: ``n`` for every count (strong) or ``n`` per worker (weak)."""
    choice("kind", kind, ("strong", "weak"))
    n = positive_int("n", n)
    counts = [positive_int("workers", w) for w in workers]
    return [n if kind == "strong" else n * w for w in counts]


class Sweep:
    """One scaling measurement: the table, the raw timings and what was run."""

    def __init__(self, kind, n, steps, workers, timings, dtype):
        self.kind, self.n, self.steps, self.dtype = kind, n, steps, dtype
        self.workers, self.timings = list(workers), list(timings)
        seconds = [t.p50 for t in timings]
        self.table = (scaling.strong_scaling if kind == "strong" else scaling.weak_scaling)(self.workers, seconds)

    @property
    def label(self):
        steps = ngettext("{n} step", "{n} steps", self.steps).format(n=self.steps)
        if self.kind == "strong":
            return _("{kind}, {n:,} elements, {steps}").format(kind=self.kind, n=self.n, steps=steps)
        return _("{kind}, {n:,} elements per worker, {steps}").format(kind=self.kind, n=self.n, steps=steps)

    def __str__(self):
        return _("{label} ({dtype}):").format(label=self.label, dtype=self.dtype) + f"\n{self.table}"


def sweep(kind, n, steps, workers, *, dtype="float32", repeat=7, max_duration_s=1.0, progress=True, seed=0,
          inputs=None, first=None, measured=None):
    """Time the grid-stride kernel on each worker count; return a :class:`Sweep` (p50 per point).

    ``kind`` is ``"strong"`` (``n`` elements in total) or ``"weak"`` (``n`` per worker). The
    inputs are made once at the largest size and the smaller runs use their first elements;
    pass ``inputs=(x, y)`` (from ``grid_stride.make_inputs``) to share one pair between sweeps.
    ``first``, a :class:`~perfcourse.measure.timing.Timing` of the first worker count's run
    measured earlier, is used instead of timing that run again, so that one configuration has
    one number wherever it is shown. ``measured``, a dict shared by several sweeps, does the same
    between them: a run of the same length, steps, worker count and dtype already timed by one
    sweep is reused by the next (a strong sweep's ``N`` workers on ``n`` elements is a weak
    sweep's ``N`` workers on ``n / N`` each).
    """
    from tqdm.auto import tqdm

    counts = [positive_int("workers", w) for w in workers]
    lengths = sizes(kind, n, counts)
    steps = positive_int("steps", steps)
    if inputs is None:
        x, y, a, b, _unused = grid_stride.make_inputs(max(lengths), steps, dtype=dtype, seed=seed)
    else:
        (x, y), a, b = inputs, grid_stride_a, grid_stride_b
        if min(x.size, y.size) < max(lengths) or x.dtype != y.dtype:
            raise ValueError(f"inputs must be two arrays of one dtype with at least {max(lengths):,} elements; "
                             f"got {x.size:,} and {y.size:,} ({x.dtype}, {y.dtype})")
        dtype = str(x.dtype)
    if first is not None and not isinstance(first, timing.Timing):
        raise TypeError(f"first must be a Timing of the first worker count's run, or None; got {type(first).__name__}")
    timings = [] if first is None else [first]
    if measured is not None and not isinstance(measured, dict):
        raise TypeError(f"measured must be a dict shared by the sweeps, or None; got {type(measured).__name__}")
    shared = {} if measured is None else measured
    if first is not None:
        shared.setdefault((lengths[0], steps, counts[0], dtype), first)
    todo = list(zip(counts, lengths, strict=True))[len(timings):]
    for w, length in tqdm(todo, desc=f"{kind} scaling", disable=not progress, leave=False):
        key = (length, steps, w, dtype)
        if key not in shared:
            shared[key] = timing.measure(grid_stride.run, x[:length], y[:length], a, b, steps, kwargs={"blocks": w},
                                         repeat=repeat, max_duration_s=max_duration_s,
                                         name=f"grid_stride n={length} steps={steps} workers={w}")
        timings.append(shared[key])
    return Sweep(kind, n, steps, counts, timings, dtype)


def overheads(workers, *, dtype="float32", repeat=15, max_duration_s=0.5):
    """p50 seconds of a near-empty run per worker count: the fixed cost that never shrinks.

    Each worker gets one element (CPU) or one element per thread (GPU), so the time is the
    dispatch of the threads (CPU) or the launch of the blocks (GPU) and nothing else.
    """
    counts = [positive_int("workers", w) for w in workers]
    per_worker = THREADS if _backend.get().on_gpu else 1
    x, y, a, b, steps = grid_stride.make_inputs(max(counts) * per_worker, 1, dtype=dtype, seed=1)
    return [timing.measure(grid_stride.run, x[:w * per_worker], y[:w * per_worker], a, b, steps,
                           kwargs={"blocks": w}, repeat=repeat, max_duration_s=max_duration_s).p50
            for w in counts]


def cores_busy(call, *, seconds=0.3, min_calls=3):
    """Cores this process kept busy on average while calling ``call`` again and again.

    CPU time of all the process's threads divided by wall time, over at least ``min_calls``
    calls and about ``seconds``: near ``N`` when ``N`` worker threads each had a core, near 1
    when they took turns (waiting for a core that other programs held, or for each other).
    Meaningful on the CPU backend only: a GPU run keeps the host thread waiting.

    Examples
    --------
    >>> 0 < cores_busy(lambda: sum(range(10_000)), seconds=0.02) < (os.cpu_count() or 1) + 0.5
    True
    """
    if not callable(call):
        raise TypeError(f"call must be a function of no arguments; got {call!r}")
    min_calls = positive_int("min_calls", min_calls)
    wall0, cpu0, calls = time.perf_counter(), time.process_time(), 0
    while calls < min_calls or time.perf_counter() - wall0 < seconds:
        call()
        calls += 1
    return (time.process_time() - cpu0) / (time.perf_counter() - wall0)


def tile_pass(*, dtype="float32", repeat=30, max_duration_s=0.5):
    """Bytes/s the CPU grid-stride kernel's passes reach over a tile held in the cache, on one core, and its Timing.

    The CPU version of ``grid_stride`` makes two passes per step over a tile of ``TILE``
    elements (``v *= a`` then ``v += b``), each reading and writing the whole tile. This times
    one step on a tile already in the cache and counts its ``4 TILE`` elements of traffic: the
    ceiling its steps run against (at the p50), with the timing it came from, so that a verdict
    read against it can ask whether it was steady.
    """
    x = np.full(TILE, 1.0, dtype=dtype)
    a, b = x.dtype.type(grid_stride_a), x.dtype.type(grid_stride_b)

    def step():
        np.multiply(x, a, out=x)
        np.add(x, b, out=x)

    host = _backend.Backend("numpy", np, False, _backend.get().device, "the CPU's own cache")
    t = timing.measure(step, repeat=repeat, max_duration_s=max_duration_s, backend=host,
                       name=_("one step (2 passes) over a {n:,}-element tile").format(n=TILE))
    return 4 * x.nbytes / t.p50, t
