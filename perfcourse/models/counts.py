"""FLOP, byte and span counts of every course kernel: the numbers to write down before timing.

Each kernel has one :class:`Counts` record, keyed by the kernel's name; the runnable kernels in
``perfcourse.measure.kernels`` read their counts from here, so a count is written once.

- ``flops(*sizes)``: useful floating-point operations (an FMA counts 2).
- ``bytes_moved(*sizes, dtype=)``: bytes a perfect implementation reads plus writes in DRAM.
- ``span(*sizes)``: the critical path in dependent steps (None where it teaches nothing).

Bytes follow BabelStream: copy and scale move 2 arrays, add and triad 3.

Examples
--------
>>> COUNTS["triad"].flops(1000), COUNTS["triad"].bytes_moved(1000, dtype="float32")
(2000.0, 12000.0)
>>> COUNTS["sum_tree"].span(1024), COUNTS["sum_serial"].span(1024)
(10.0, 1023.0)
>>> COUNTS["dense"].intensity(1, 4096, dtype="float32")
0.4997559785261103
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from .._check import choice, positive_int

__all__ = ["DTYPES", "itemsize", "dtype_name", "log2_ceil", "scan_offsets", "dependent_steps", "FMA_CHAINS",
           "Counts", "COUNTS", "get"]

# dtype name -> bytes per element. bfloat16 has no NumPy dtype: it is stored as uint16 bit patterns.
DTYPES = {"float16": 2, "bfloat16": 2, "float32": 4, "float64": 8}
FMA_CHAINS = (1, 2, 4, 8)   # independent chains the fma_chains kernel can interleave


def dtype_name(dtype):
    """The course's name for a dtype (a name, or anything :class:`numpy.dtype` accepts)."""
    return dtype if isinstance(dtype, str) else np.dtype(dtype).name


def itemsize(dtype):
    """Bytes per element of a course dtype name.

    Examples
    --------
    >>> itemsize("float32"), itemsize("bfloat16")
    (4, 2)
    """
    return DTYPES[choice("dtype", dtype_name(dtype), tuple(DTYPES))]


def log2_ceil(n):
    """Levels of a binary tree over ``n`` leaves: ceil(log2 n), 0 for n = 1.

    Examples
    --------
    >>> log2_ceil(1), log2_ceil(2), log2_ceil(1000), log2_ceil(1024)
    (0, 1, 10, 10)
    """
    return max(0, math.ceil(math.log2(n))) if n > 1 else 0


def scan_offsets(n):
    """The offsets 1, 2, 4 ... below ``n`` of a log-step (Hillis-Steele) scan, one per round.

    Examples
    --------
    >>> list(scan_offsets(10))
    [1, 2, 4, 8]
    """
    k = 1
    while k < n:
        yield k
        k *= 2


def dependent_steps(fmas, chains=1):
    """FMAs in one chain, each waiting for the previous one: ``fmas / chains``.

    Examples
    --------
    >>> dependent_steps(64, 4)
    16
    """
    if chains not in FMA_CHAINS:
        raise ValueError(f"chains must be one of {FMA_CHAINS}; got {chains!r}")
    if isinstance(fmas, bool) or not isinstance(fmas, (int, np.integer)) or fmas < 1 or fmas % chains:
        raise ValueError(f"fmas must be a positive integer divisible by chains={chains}; got {fmas!r}")
    return int(fmas) // chains


@dataclass(frozen=True)
class Counts:
    """The counts of one kernel; every function takes the sizes named in ``sizes``."""

    name: str
    sizes: tuple[str, ...]
    flops_fn: Callable[..., float]
    bytes_fn: Callable[..., float]
    span_fn: Callable[..., float] | None = None

    def flops(self, *sizes):
        """Useful floating-point operations for these sizes (an FMA counts 2), in FLOP."""
        self.check_sizes(sizes)
        return float(self.flops_fn(*sizes))

    def bytes_moved(self, *sizes, dtype="float32"):
        """Bytes a perfect implementation reads plus writes in DRAM for these sizes and dtype."""
        self.check_sizes(sizes)
        return float(self.bytes_fn(*sizes, dtype=choice("dtype", dtype_name(dtype), tuple(DTYPES))))

    def span(self, *sizes):
        """Length of the critical path in dependent steps; None where the kernel does not teach it."""
        self.check_sizes(sizes)
        return None if self.span_fn is None else float(self.span_fn(*sizes))

    def intensity(self, *sizes, dtype="float32"):
        """Arithmetic intensity ``flops / bytes_moved`` in FLOP/byte."""
        return self.flops(*sizes) / self.bytes_moved(*sizes, dtype=dtype)

    def check_sizes(self, sizes):
        """Raise unless ``sizes`` are as many positive integers as ``self.sizes`` names."""
        if len(sizes) != len(self.sizes):
            raise TypeError(f"{self.name} takes sizes {self.sizes}; got {len(sizes)} values {sizes}")
        for name, value in zip(self.sizes, sizes, strict=True):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise TypeError(f"{self.name}: size {name} must be an integer >= 1; got {value!r}")
            if value < 1:
                raise ValueError(f"{self.name}: size {name} must be an integer >= 1; got {value!r}")


def _arrays(count):
    """Bytes of ``count`` arrays of n elements."""
    return lambda n, dtype: count * n * itemsize(dtype)


def _scan_flops(n):
    return sum(3 * (n - k) for k in scan_offsets(n)) + 2 * n


_ALL = (
    Counts("copy", ("n",), lambda n: 0, _arrays(2)),
    Counts("scale", ("n",), lambda n: n, _arrays(2)),
    Counts("add", ("n",), lambda n: n, _arrays(3)),
    Counts("triad", ("n",), lambda n: 2 * n, _arrays(3)),
    Counts("sum_serial", ("n",), lambda n: n - 1, _arrays(1), lambda n: n - 1),
    Counts("sum_tree", ("n",), lambda n: n - 1, _arrays(1), log2_ceil),
    Counts("sum_library", ("n",), lambda n: n - 1, _arrays(1), log2_ceil),
    Counts("recurrence_serial", ("n",), lambda n: 2 * n, _arrays(3), lambda n: n),
    # copy a and b in (4n), 2 reads + 2 writes per round, read A and B and write x at the end
    Counts("recurrence_scan", ("n",), _scan_flops, lambda n, dtype: (4 + 4 * log2_ceil(n) + 3) * n * itemsize(dtype),
           lambda n: log2_ceil(n) + 1),
    Counts("matmul", ("m", "k", "n"), lambda m, k, n: 2 * m * n * k,
           lambda m, k, n, dtype: (m * k + k * n + m * n) * itemsize(dtype)),
    # W read once, X read once, Y written once
    Counts("dense", ("b", "d"), lambda b, d: 2 * b * d * d, lambda b, d, dtype: (d * d + 2 * b * d) * itemsize(dtype)),
    Counts("grid_stride", ("n", "steps"), lambda n, steps: 2 * n * steps,
           lambda n, steps, dtype: 2 * n * itemsize(dtype), lambda n, steps: steps),
    # one float32 clock value written per thread
    Counts("spin", ("n",), lambda n: 0, lambda n, dtype: 4 * n),
    Counts("strided_read", ("n",), lambda n: 0, _arrays(2)),
    # float32 only: x read and out written once
    Counts("fma_chains", ("n", "fmas"), lambda n, fmas: 2 * n * fmas, lambda n, fmas, dtype: 2 * n * 4),
)

COUNTS = {c.name: c for c in _ALL}


def get(name):
    """The counts of the kernel called ``name`` (see ``COUNTS``).

    Examples
    --------
    >>> get("copy").bytes_moved(2**20, dtype="float64") / 2**20
    16.0
    """
    if name not in COUNTS:
        raise ValueError(f"name must be one of {', '.join(sorted(COUNTS))}; got {name!r}")
    return COUNTS[name]


# --- one CUDA block: a shared-memory tree reduction and two inclusive scans (exercises 09 and 10) ---

SCANS = ("hillis_steele", "blelloch")   # the two inclusive scans of one block, as ``scan_work_span`` names them


def _power_of_two(name, value):
    value = positive_int(name, value)
    if value & (value - 1):
        raise ValueError(f"{name} must be a power of two (1, 2, 4, ..., 1024); got {value}")
    return value


def block_tree_barriers(threads_per_block):
    """Barriers one block of a shared-memory tree reduction passes: ``log2(threads_per_block) + 1``.

    One ``cuda.syncthreads()`` after every thread has stored its element, then one after each
    halving step (stride ``threads_per_block / 2``, then ``/ 4``, ... down to 1).

    Examples
    --------
    >>> block_tree_barriers(64), block_tree_barriers(1)
    (7, 1)
    """
    return log2_ceil(_power_of_two("threads_per_block", threads_per_block)) + 1


def scan_work_span(kind, n):
    """``(additions, span in levels)`` of an inclusive scan of ``n`` numbers in one block.

    - ``"hillis_steele"``: one round per offset ``d = 1, 2, 4, ... < n``; in round ``d`` every
      element ``i >= d`` adds element ``i - d``: ``n - d`` additions. Span: ``ceil(log2 n)`` rounds.
    - ``"blelloch"``: padded with zeros to ``m``, the next power of two ``>= n``; the up-sweep does
      ``m - 1`` additions in ``log2 m`` levels, the down-sweep (exclusive) another ``m - 1`` in
      ``log2 m`` levels, and shifting the exclusive result by one place adds nothing:
      ``2 (m - 1)`` additions, span ``2 log2 m``. Additions on padding count: the block does them.

    Examples
    --------
    >>> scan_work_span("hillis_steele", 8), scan_work_span("blelloch", 8)
    ((17, 3), (14, 6))
    >>> scan_work_span("blelloch", 5)     # padded to 8
    (14, 6)
    """
    choice("kind", kind, SCANS)
    n = positive_int("n", n)
    if kind == "hillis_steele":
        return sum(n - d for d in scan_offsets(n)), log2_ceil(n)
    levels = log2_ceil(n)
    return 2 * (2**levels - 1), 2 * levels


__all__ += ["SCANS", "block_tree_barriers", "scan_work_span"]


# --- grid-stride triads, coalesced and strided: the 32-byte sectors warps move (exercise 11) ---

SECTOR_BYTES = 32   # GPU memory moves whole sectors of 32 bytes between DRAM, L2 and L1
WARP_SIZE = 32      # threads that issue one load instruction together


def _request_sectors(request, index, itemsize):
    """Distinct ``(request, sector)`` pairs: element ``index[k]``, loaded by request ``request[k]``, moves
    every sector its bytes ``[index * itemsize, (index + 1) * itemsize)`` overlap."""
    first = index * itemsize // SECTOR_BYTES
    last = (index * itemsize + itemsize - 1) // SECTOR_BYTES
    width = int(last.max()) + 1 if index.size else 1
    keys = [(request * width + first + d)[first + d <= last] for d in range(-(-itemsize // SECTOR_BYTES) + 1)]
    return int(np.unique(np.concatenate(keys)).size)


def warp_sectors(stride, itemsize):
    """Distinct 32-byte sectors one warp's 32 loads touch when lane ``k`` loads element ``k * stride``.

    The array starts on a sector boundary and element ``i`` holds bytes ``[i * itemsize, (i + 1) *
    itemsize)``; each sector any of them lies in moves whole. Neighbouring float64 elements: 256 bytes,
    8 sectors. From ``stride * itemsize >= 32`` on, every lane needs a sector of its own.

    Examples
    --------
    >>> warp_sectors(1, 8), warp_sectors(2, 8), warp_sectors(4, 8), warp_sectors(100, 4)
    (8, 16, 32, 32)
    >>> warp_sectors(1, 1), warp_sectors(1, 64)    # 32 bytes in all; 64 bytes per element
    (1, 64)
    """
    stride, itemsize = positive_int("stride", stride), positive_int("itemsize", itemsize)
    return _request_sectors(np.zeros(WARP_SIZE, dtype=np.int64), np.arange(WARP_SIZE) * stride, itemsize)


def chunked_sweep_sectors(n, itemsize, stride=1):
    """Sectors moved by one pass over ``n`` elements when every thread takes chunks of ``stride`` of them.

    Chunk ``q`` holds elements ``q * stride`` to ``q * stride + stride - 1``; the threads of a warp take
    32 consecutive chunks (in every round of a grid-stride loop over chunks, for any grid whose blocks
    are whole warps) and walk them together: at step ``j`` lane ``k`` loads element ``(q0 + k) * stride
    + j``, so neighbouring lanes are ``stride`` elements apart. Each such warp request moves the
    distinct sectors of its lanes that are still below ``n``; nothing is reused between requests (no
    cache). ``stride = 1`` is the coalesced grid-stride loop: the bytes rounded up to whole sectors.

    Examples
    --------
    >>> chunked_sweep_sectors(100, 8)              # 800 bytes: 25 sectors, every byte used
    25
    >>> chunked_sweep_sectors(256, 8, stride=8)    # 8 requests of 32 lanes, a sector each: 4x the bytes
    256
    """
    n, itemsize, stride = (positive_int(k, v) for k, v in (("n", n), ("itemsize", itemsize), ("stride", stride)))
    index = np.arange(n, dtype=np.int64)
    request = (index // stride // WARP_SIZE) * stride + index % stride
    return _request_sectors(request, index, itemsize)


def triad_sector_bytes(n, itemsize, stride=1):
    """Bytes a triad ``a = b + q * c`` moves in whole sectors: :func:`chunked_sweep_sectors` for b, c and a.

    Examples
    --------
    >>> triad_sector_bytes(100, 8), 3 * 100 * 8       # coalesced: the useful bytes
    (2400, 2400)
    >>> triad_sector_bytes(256, 8, stride=8) / (3 * 256 * 8)
    4.0
    """
    return 3 * SECTOR_BYTES * chunked_sweep_sectors(n, itemsize, stride)


__all__ += ["SECTOR_BYTES", "WARP_SIZE", "warp_sectors", "chunked_sweep_sectors", "triad_sector_bytes"]
