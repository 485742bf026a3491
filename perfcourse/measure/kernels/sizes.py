"""Sizes chosen from the device: past the last-level cache, inside a fraction of free memory.

A memory-bound sweep that fits in cache measures the cache, not memory; one that asks for
all of memory crashes. ``sweep_elements`` picks a power of two that makes the working set a
few times the last-level cache (the GPU's L2, the CPU's L3) yet stays under a fraction of
free memory, and ``fit`` turns an out-of-memory error into a printed message and a smaller
size instead of a crash.

Examples
--------
>>> sweep_elements(3, "float32", cache=32 * 2**20, free=16 * 2**30)   # 3 x 64 MiB = 6x L3
16777216
>>> sweep_elements(3, "float32", cache=32 * 2**20, free=2**28)      # capped by memory
4194304
"""

from __future__ import annotations

import math
import os

from ..._check import positive_int, real
from .. import backend as _backend
from ._base import itemsize

__all__ = ["cache_bytes", "free_bytes", "sweep_elements", "fit", "is_out_of_memory", "CACHE_FACTOR",
           "MEMORY_FRACTION", "stream_elements", "STREAM_CACHE_FACTOR"]

CACHE_FACTOR = 4          # working set >= this many last-level caches
MEMORY_FRACTION = 0.25    # never ask for more than this share of free memory
# a STREAM run's three arrays together span this many last-level caches: on the CPU 4 suffice;
# a GPU's L2 is small against its memory and its caching is adaptive, so the GPU gets 16
STREAM_CACHE_FACTOR = {"cpu": 4, "gpu": 16}


def cache_bytes(backend=None):
    """The last-level cache of the current device in bytes (``FALLBACK_CACHE_BYTES`` when unknown)."""
    return (backend or _backend.get()).last_level_cache


def free_bytes(backend=None):
    """Free memory in bytes: the GPU's free memory, or the host's available memory."""
    b = backend or _backend.get()
    if b.on_gpu:
        return int(b.xp.cuda.runtime.memGetInfo()[0])
    try:
        with open("/proc/meminfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))


def sweep_elements(arrays, dtype="float32", *, cache_factor=CACHE_FACTOR, memory_fraction=MEMORY_FRACTION,
                   cache=None, free=None, backend=None):
    """Elements per array for a memory-bound sweep over ``arrays`` arrays (a power of two).

    The working set ``arrays * n * itemsize`` is at least ``cache_factor`` last-level caches,
    unless that would pass ``memory_fraction`` of free memory, in which case the largest
    power of two under that cap is returned. ``cache`` and ``free`` (bytes) default to the
    device's own figures.
    """
    arrays = positive_int("arrays", arrays)
    real("cache_factor", cache_factor, low=0, low_open=True)
    real("memory_fraction", memory_fraction, low=0, high=1, low_open=True)
    cache = cache_bytes(backend) if cache is None else real("cache", cache, low=0, low_open=True)
    free = free_bytes(backend) if free is None else real("free", free, low=0, low_open=True)
    per_array = cache_factor * cache / (arrays * itemsize(dtype))
    n = 2 ** max(0, math.ceil(math.log2(per_array)))
    cap = memory_fraction * free / (arrays * itemsize(dtype))
    if n > cap:
        n = 2 ** max(0, math.floor(math.log2(max(cap, 1))))
    return int(n)


def stream_elements(backend=None, *, quick=False):
    """Elements per array of a STREAM run (copy, triad: three arrays), the one rule every lesson uses.

    The three arrays together span ``STREAM_CACHE_FACTOR`` last-level caches, so the run measures
    memory, not the cache; ``quick`` (a smoke test) takes half a cache instead, and says nothing
    about memory.

    Examples
    --------
    >>> from perfcourse.measure.backend import Backend
    >>> import numpy as np
    >>> cpu = Backend("numpy", np, False, "test CPU", "test", cache_bytes=32 * 2**20)
    >>> stream_elements(cpu) * 3 * 4 >= 4 * 32 * 2**20
    True
    """
    b = backend or _backend.get()
    factor = 0.5 if quick else STREAM_CACHE_FACTOR["gpu" if b.on_gpu else "cpu"]
    return sweep_elements(3, "float32", cache_factor=factor, backend=b)


def is_out_of_memory(err):
    """True for the errors that mean "not enough memory" on either backend."""
    text = f"{type(err).__name__} {err}".lower()
    return isinstance(err, MemoryError) or "outofmemory" in text or "out of memory" in text \
        or "memoryallocation" in text or "alloc_failed" in text


def fit(make, n, *, minimum=1, what="arrays"):
    """Call ``make(n)``, halving ``n`` after each out-of-memory error; return ``(n, make(n))``.

    Each retry prints one line saying what did not fit and what is tried instead. Other
    errors pass through; below ``minimum`` a MemoryError explains what was tried.

    Examples
    --------
    >>> def make(n):
    ...     if n > 1024:
    ...         raise MemoryError("too big")
    ...     return n
    >>> fit(make, 4096, what="demo arrays")
    Out of memory for demo arrays at size 4096; trying 2048 instead.
    Out of memory for demo arrays at size 2048; trying 1024 instead.
    (1024, 1024)
    """
    n, minimum = positive_int("n", n), positive_int("minimum", minimum)
    while True:
        try:
            return n, make(n)
        except Exception as err:  # noqa: BLE001 - only out-of-memory errors are handled
            if not is_out_of_memory(err):
                raise
            _release_gpu_memory()
            if n // 2 < minimum:
                raise MemoryError(f"{what} do not fit in memory even at size {n} (minimum {minimum}); "
                                  f"free memory or choose a smaller size") from err
            print(f"Out of memory for {what} at size {n}; trying {n // 2} instead.")
            n //= 2


def _release_gpu_memory():
    import sys

    cupy = sys.modules.get("cupy")
    if cupy is not None:
        try:
            cupy.get_default_memory_pool().free_all_blocks()
        except Exception:  # noqa: BLE001 - best effort on a machine without a GPU
            pass
