"""A grid-stride kernel launched on a chosen number of blocks: blocks stand in for processors.

``y[i] = f(f(...f(x[i])))`` with ``f(v) = a v + b`` applied ``steps`` times: 2 n steps FLOPs
over 2 n elements of traffic, so ``steps`` slides the kernel from memory-bound to
compute-bound. The ``blocks`` option sets how many blocks share the work on the GPU (each
thread strides through the array), and how many worker threads share it on the CPU (each
takes one contiguous chunk; NumPy releases the interpreter lock inside its loops).

Examples
--------
>>> grid_stride.flops(2**20, 16), grid_stride.bytes_moved(2**20, 16, dtype="float32") / 2**20
(33554432.0, 8.0)
"""

from __future__ import annotations

import functools
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import _cuda
from ._base import Kernel, uniform

__all__ = ["grid_stride", "A", "B", "TILE"]

A, B = 0.99, 0.01   # f(v) = A v + B contracts towards 1, so no dtype overflows
TILE = 2**18        # elements a CPU worker updates per NumPy call: 1 MiB of float32, long enough
                    # (~25 us) that two threads do not spend their time handing over the GIL


def _inputs(n, steps, *, dtype, xp, rng):
    return uniform(xp, rng, n, dtype), uniform(xp, rng, n, dtype), A, B, steps


@functools.cache
def _pool(workers):
    return ThreadPoolExecutor(max_workers=workers, thread_name_prefix="perfcourse-block")


def _chunk(x, y, a, b, steps, lo, hi):
    for start in range(lo, hi, TILE):
        v = y[start:min(start + TILE, hi)]
        np.copyto(v, x[start:start + v.size])
        for _ in range(steps):
            np.multiply(v, a, out=v)
            np.add(v, b, out=v)


def _cpu(x, y, a, b, steps, blocks=None, threads_per_block=_cuda.THREADS):
    """``blocks`` worker threads, one contiguous chunk each (default: one per logical core)."""
    workers = _blocks("blocks", blocks, os.cpu_count() or 1)
    a, b = x.dtype.type(a), x.dtype.type(b)
    edges = np.linspace(0, x.size, workers + 1).astype(np.int64)
    if workers == 1:
        _chunk(x, y, a, b, steps, 0, x.size)
        return y
    jobs = [_pool(workers).submit(_chunk, x, y, a, b, steps, int(lo), int(hi))
            for lo, hi in zip(edges[:-1], edges[1:], strict=True) if hi > lo]
    for job in jobs:
        job.result()
    return y


def _gpu(x, y, a, b, steps, blocks=None, threads_per_block=_cuda.THREADS):
    """``blocks`` blocks of ``threads_per_block`` threads (default: one thread per element)."""
    threads = _blocks("threads_per_block", threads_per_block, _cuda.THREADS)
    grid = _blocks("blocks", blocks, -(-x.size // threads))
    kernel = _cuda.function("gridstride.cu", f"grid_stride_{_cuda.suffix(x.dtype)}")
    kernel((grid,), (threads,), (x, y, x.dtype.type(a), x.dtype.type(b), np.int32(steps), np.int64(x.size)))
    return y


def _blocks(name, value, default):
    if value is None:
        return int(default)
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1 or None; got {value!r}")
    return int(value)


def _reference(x, y, a, b, steps, **_options):
    p = a ** steps
    return p * np.asarray(x, dtype=np.float64) + b * (1 - p) / (1 - a)


grid_stride = Kernel(
    "grid_stride", "y = f applied `steps` times to x, f(v) = a v + b, over a chosen number of blocks",
    inputs_fn=_inputs, cpu=_cpu, gpu=_gpu, reference=_reference,
    options={"blocks": None, "threads_per_block": _cuda.THREADS})
