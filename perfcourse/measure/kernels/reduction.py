"""The sum of n numbers three ways: one thread walking, a tree, and the library.

All three do n - 1 additions and read n elements once; what differs is the span, the
longest chain of additions that must happen one after another: n - 1 for the walk,
ceil(log2 n) for a tree. On the GPU the walk is one thread of one block; the tree is a
grid-stride pass plus a shared-memory tree per block and a second tree over the blocks. On
the CPU the walk is a compiled running sum (each add waits for the previous one) and the
tree is log2 n vectorised NumPy levels. Sums are accumulated in float64.

Examples
--------
>>> sum_serial.span(1024), sum_tree.span(1024), sum_tree.flops(1024)
(1023.0, 10.0, 1023.0)
"""

from __future__ import annotations

import numpy as np

from . import _cuda
from ._base import Kernel, itemsize, uniform

__all__ = ["sum_serial", "sum_tree", "sum_library", "tree_cpu_traffic"]

CHUNK = 2**16          # elements per running-sum call on the CPU
TREE_THREADS = 256     # threads per block of the GPU tree (a power of two)
TREE_BLOCKS = 2048     # blocks of the first GPU pass at most
FINAL_THREADS = 1024   # one block reduces the per-block sums


def _inputs(n, *, dtype, xp, rng):
    return (uniform(xp, rng, n, dtype),)


def _serial_cpu(x):
    """A running sum: every addition waits for the one before it."""
    buf = np.empty(min(CHUNK, x.size), dtype=np.float64)
    total = 0.0
    for start in range(0, x.size, CHUNK):
        part = x[start:start + CHUNK]
        np.add.accumulate(part, dtype=np.float64, out=buf[:part.size])
        total += buf[part.size - 1]
    return np.asarray(total)


def tree_cpu_traffic(n, dtype="float32"):
    """Bytes the CPU tree really moves, against the ``n`` elements a perfect sum reads once.

    It converts the input to float64 (reads ``n`` elements, writes ``8 n`` bytes), then each
    level of ``m`` values reads them (``8 m`` bytes) and writes a fresh array of ``m / 2``
    (``4 m``): about ``24 n`` bytes over all levels. Every new array also costs page faults.

    Examples
    --------
    >>> round(tree_cpu_traffic(2**24) / sum_tree.bytes_moved(2**24, dtype="float32"), 2)
    9.0
    """
    if isinstance(n, bool) or int(n) != n or n < 1:
        raise ValueError(f"n must be a whole number >= 1; got {n!r}")
    n, levels, m = int(n), 0.0, int(n)
    while m > 1:
        levels += 8 * m + 8 * (m // 2)
        m //= 2
    return n * itemsize(dtype) + 8.0 * n + levels


def _tree_cpu(x):
    """Pairwise levels: element i adds element i + half, until one value is left."""
    level = np.asarray(x, dtype=np.float64)
    while level.size > 1:
        half = level.size // 2
        top = level[:half] + level[half:2 * half]
        if level.size % 2:
            top[-1] += level[-1]
        level = top
    return level.reshape(())


def _serial_gpu(x):
    import cupy

    out = cupy.empty(1, dtype=cupy.float64)
    _cuda.function("reduction.cu", f"sum_serial_{_cuda.suffix(x.dtype)}")((1,), (1,), (x, out, np.int64(x.size)))
    return out.reshape(())


def _tree_gpu(x):
    import cupy

    blocks = max(1, min(TREE_BLOCKS, -(-x.size // TREE_THREADS)))
    partial = cupy.empty(blocks, dtype=cupy.float64)
    out = cupy.empty(1, dtype=cupy.float64)
    first = _cuda.function("reduction.cu", f"sum_blocks_{_cuda.suffix(x.dtype)}")
    first((blocks,), (TREE_THREADS,), (x, partial, np.int64(x.size)), shared_mem=TREE_THREADS * 8)
    final = _cuda.function("reduction.cu", "sum_partials")
    final((1,), (FINAL_THREADS,), (partial, out, np.int64(blocks)), shared_mem=FINAL_THREADS * 8)
    return out.reshape(())


def _reference(x):
    return np.asarray(np.sum(np.asarray(x, dtype=np.float64)))


def _common(name, summary, cpu, gpu):
    return Kernel(name, summary,
                  inputs_fn=_inputs, cpu=cpu, gpu=gpu, reference=_reference)


sum_serial = _common("sum_serial", "sum by one thread walking the array", _serial_cpu, _serial_gpu)
sum_tree = _common("sum_tree", "sum by a tree reduction", _tree_cpu, _tree_gpu)
sum_library = _common("sum_library", "sum by the library (numpy.sum / cupy.sum)",
                      lambda x: np.asarray(x.sum()), lambda x: x.sum())
