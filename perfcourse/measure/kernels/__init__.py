"""The course's real kernels, each with its FLOP, byte and span counts and a NumPy reference.

Every kernel is a :class:`Kernel` with one interface, so a lesson can treat them alike::

    import perfcourse as pc
    k = pc.kernels.triad                      # or pc.kernels.get("triad")
    n = 2**24
    k.flops(n), k.bytes_moved(n, dtype="float32"), k.span(n)     # counts: FLOP, bytes, steps
    args = k.make_inputs(n, dtype="float32", seed=0)             # random inputs on the backend
    out = k.run(*args)                         # CuPy kernel for CuPy arrays, NumPy otherwise
    t = pc.timing.measure(k.run, *args)        # time it
    k.bytes_moved(n, dtype="float32") / t.p50  # achieved bandwidth, bytes/s
    k.check(n, dtype="float32")                # fresh random inputs vs the float64 reference

The interface (all sizes are positional integers named by ``k.sizes``):

- ``k.flops(*sizes)``: useful FLOPs (an FMA counts 2).
- ``k.bytes_moved(*sizes, dtype="float32")``: bytes a perfect implementation reads and writes.
- ``k.span(*sizes)``: the critical path in dependent steps, or None where it teaches nothing.
- ``k.intensity(*sizes, dtype=)``: FLOP/byte.
- ``k.make_inputs(*sizes, dtype="float32", xp=None, seed=None)``: a tuple ``args``; ``xp`` is
  ``numpy``, ``cupy``, their names, or None for the current backend.
- ``k.run(*args, **options)``: the result. ``k.options`` lists the knobs and their defaults.
- ``k.expected(*args, **options)``: the float64 NumPy reference result.
- ``k.check(*sizes, dtype=, xp=, seed=None, **options)``: run on fresh input, compare, return
  the normwise relative error (AssertionError beyond the dtype's tolerance).
- ``k.dtypes``: supported dtype names; ``"bfloat16"`` is stored as uint16 bit patterns and
  needs the GPU.

The kernels (``ALL`` maps name to kernel):

=================  ============  ====================================================
name               sizes         what it teaches
=================  ============  ====================================================
copy, scale,       n             STREAM: the memory roof (2n or 3n elements moved)
add, triad
sum_serial,        n             span n against span log2 n, same work
sum_tree,
sum_library
recurrence_serial  n             x[t+1] = a[t] x[t] + b[t]: a loop against an
recurrence_scan                  associative scan (span n against log2 n + 1)
dense              b, d          one layer X[b, d] @ W[d, d]: memory- then compute-bound
matmul             m, k, n       the compute roof over dtypes and awkward shapes
grid_stride        n, steps      option ``blocks``: blocks (CPU: threads) as processors
spin               n             option ``seconds``: busy but useless
strided_read       n             option ``stride``: coalesced against strided reads
fma_chains         n, fmas       options ``chains``, ``threads_per_block``: dependency
                                 and occupancy at equal FLOPs
=================  ============  ====================================================

CUDA C sources live beside this module as ``.cu`` files; ``perfcourse.measure.kernels.sizes`` picks
sizes from the device's cache and free memory.

Examples
--------
>>> sorted(ALL)[:4]
['add', 'copy', 'dense', 'fma_chains']
>>> get("triad").flops(10)
20.0
>>> import numpy as np
>>> args = triad.make_inputs(1000, dtype="float64", xp=np, seed=1)
>>> bool(np.allclose(triad.run(*args), triad.expected(*args)))
True
"""

from __future__ import annotations

from ._base import DTYPES, Kernel, itemsize, relative_error
from .access import strided_read
from .fma import fma_chains
from .gridstride import grid_stride, tile_traffic
from .matmul import dense, from_bfloat16, matmul, to_bfloat16
from .recurrence import recurrence_scan, recurrence_serial
from .reduction import sum_library, sum_serial, sum_tree, tree_cpu_traffic
from .spin import spin
from .stream import add, copy, scale, triad

__all__ = ["Kernel", "ALL", "get", "DTYPES", "itemsize", "relative_error", "to_bfloat16", "from_bfloat16",
           "copy", "scale", "add", "triad", "sum_serial", "sum_tree", "sum_library", "recurrence_serial",
           "recurrence_scan", "dense", "matmul", "grid_stride", "spin", "strided_read", "fma_chains",
           "tile_traffic", "tree_cpu_traffic"]

ALL = {k.name: k for k in (copy, scale, add, triad, sum_serial, sum_tree, sum_library, recurrence_serial,
                           recurrence_scan, dense, matmul, grid_stride, spin, strided_read, fma_chains)}


def get(name):
    """The kernel called ``name`` (see ``ALL``)."""
    if name not in ALL:
        raise ValueError(f"name must be one of {', '.join(sorted(ALL))}; got {name!r}")
    return ALL[name]
