"""A grid-stride kernel launched on a chosen number of blocks: blocks stand in for processors.

``y[i] = f(f(...f(x[i])))`` with ``f(v) = a v + b`` applied ``steps`` times: 2 n steps FLOPs
over 2 n elements of memory traffic, so ``steps`` raises the FLOPs per byte of memory. The
``blocks`` option sets how many blocks share the work on the GPU (each thread strides through
the array), and how many worker threads share it on the CPU (each takes one contiguous chunk;
NumPy releases the interpreter lock inside its loops).

The two backends do the same arithmetic but are bound by different things at large ``steps``.
On the GPU each thread keeps its value in a register through all the steps, so the kernel
becomes compute-bound. NumPy has no fused loop: the CPU version copies a tile of ``TILE``
elements into the output and makes 2 passes over it per step (multiply, then add), each
reading and writing the whole tile. The tile stays in the core's own (L2) cache, so memory
sees only the 2 n elements, but the passes move ``tile_traffic(n, steps)`` bytes through
that cache: on the CPU the kernel is bound by the core's cache bandwidth, not by its
arithmetic. Like arithmetic units, that cache comes with every core, which is what a scaling
experiment needs to tell apart from the memory bandwidth all cores share.

Examples
--------
>>> grid_stride.flops(2**20, 16), grid_stride.bytes_moved(2**20, 16, dtype="float32") / 2**20
(33554432.0, 8.0)
>>> tile_traffic(2**20, 16, dtype="float32") / 2**20   # MiB through the cache on the CPU
256.0
"""

from __future__ import annotations

import functools
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from . import _cuda
from ._base import Kernel, itemsize, uniform

__all__ = ["grid_stride", "A", "B", "TILE", "tile_traffic"]

A, B = 0.99, 0.01   # f(v) = A v + B contracts towards 1, so no dtype overflows
TILE = 2**16        # elements a CPU worker updates per NumPy call: 256 KiB of float32, small enough to
                    # stay in any current core's private L2 cache, long enough (several us per call)
                    # that two threads spend little of their time handing over the interpreter lock


def tile_traffic(n, steps, dtype="float32"):
    """Bytes the CPU version moves through the cores' caches: 2 passes per step, each reading and
    writing every element (``4 n steps`` elements). Memory itself sees only ``bytes_moved``."""
    if isinstance(n, bool) or isinstance(steps, bool) or int(n) != n or int(steps) != steps or n < 1 or steps < 1:
        raise ValueError(f"n and steps must be whole numbers >= 1; got n={n!r}, steps={steps!r}")
    return 4.0 * int(n) * int(steps) * itemsize(dtype)


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
