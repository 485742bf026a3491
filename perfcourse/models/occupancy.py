"""Occupancy: how many warps a kernel keeps resident on one SM, and which resource stops it there.

An SM holds at most so many threads and blocks, and shares its registers and shared memory
among the blocks it runs. A kernel's registers per thread and shared bytes per block decide how
many of its blocks fit at once; occupancy is the resident warps over the SM's maximum. The rules
are CUDA's own (the occupancy calculator, ``cuda_occupancy.h``): registers go to warps in units
of 256 and each of the SM's 4 sub-partitions holds whole warps; shared memory goes to blocks in
units of 128 bytes (256 below compute capability 8.0), plus 1 KB the system reserves per block
(compute capability 8.0 and up).
The limits per compute capability are those of the CUDA C++ programming guide's table.

Examples
--------
>>> e = estimate(threads_per_block=256, registers_per_thread=32)
>>> e.blocks_per_sm, e.active_warps, e.occupancy, e.limit
(8, 64, 1.0, 'threads')
>>> estimate(threads_per_block=256, registers_per_thread=64).limit
'registers'
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .._check import positive_int
from .datasheets import datasheet, names

__all__ = ["SMLimits", "LIMITS", "Occupancy", "limits", "estimate"]

KB = 1024
WARP = 32


@dataclass(frozen=True)
class SMLimits:
    """What one SM of a compute capability holds (CUDA C++ programming guide, compute capabilities table)."""

    threads: int                    # resident threads per SM
    blocks: int                     # resident blocks per SM
    shared_bytes: int               # shared memory per SM (the largest carveout)
    shared_per_block: int           # shared memory one block may use (opting in above 48 KB)
    reserved_per_block: int         # shared memory the system keeps per block
    registers: int = 65536          # 32-bit registers per SM, and per block
    max_registers_per_thread: int = 255
    register_unit: int = 256        # registers go to a warp in multiples of this
    shared_unit: int = 128          # shared memory goes to a block in multiples of this
    sub_partitions: int = 4         # each holds whole warps and a quarter of the registers

    @property
    def warps(self):
        return self.threads // WARP


LIMITS = {
    (7, 0): SMLimits(threads=2048, blocks=32, shared_bytes=96 * KB, shared_per_block=96 * KB, reserved_per_block=0,
                     shared_unit=256),
    (7, 5): SMLimits(threads=1024, blocks=16, shared_bytes=64 * KB, shared_per_block=64 * KB, reserved_per_block=0,
                     shared_unit=256),
    (8, 0): SMLimits(threads=2048, blocks=32, shared_bytes=164 * KB, shared_per_block=163 * KB,
                     reserved_per_block=KB),
    (8, 6): SMLimits(threads=1536, blocks=16, shared_bytes=100 * KB, shared_per_block=99 * KB,
                     reserved_per_block=KB),
    (8, 9): SMLimits(threads=1536, blocks=24, shared_bytes=100 * KB, shared_per_block=99 * KB,
                     reserved_per_block=KB),
    (9, 0): SMLimits(threads=2048, blocks=32, shared_bytes=228 * KB, shared_per_block=227 * KB,
                     reserved_per_block=KB),
}


@dataclass(frozen=True)
class Occupancy:
    """One kernel's residency on one SM: blocks, warps, the fraction of the SM's warps, the binding limit."""

    blocks_per_sm: int
    active_warps: int
    occupancy: float
    limit: str                      # "threads", "blocks", "registers" or "shared memory"
    by_limit: dict                  # blocks each resource alone would allow


def _round_up(x, unit):
    return -(-x // unit) * unit


def limits(device="H200"):
    """The :class:`SMLimits` of a GPU in the datasheet table, or of a compute capability ``(major, minor)``.

    Examples
    --------
    >>> limits("H200").threads, limits((8, 6)).threads, limits("NVIDIA A100-SXM4-80GB").shared_per_block // 1024
    (2048, 1536, 163)
    """
    if isinstance(device, tuple):
        cc = device
    elif isinstance(device, str):
        sheet = datasheet(device, quiet=True)
        if sheet is None or sheet.compute_capability is None:
            raise ValueError(f"device must be a GPU of the datasheet table ({', '.join(names())}) or a compute "
                             f"capability such as (9, 0); got {device!r}")
        cc = sheet.compute_capability
    else:
        raise TypeError(f"device must be a GPU name or a (major, minor) compute capability; got {device!r}")
    if cc not in LIMITS:
        raise ValueError(f"compute capability {cc} is not in the table; known: {', '.join(map(str, LIMITS))}")
    return LIMITS[cc]


def estimate(*, threads_per_block, registers_per_thread, shared_bytes_per_block=0, device="H200"):
    """Blocks and warps of one kernel resident on one SM of ``device``, and what limits them.

    ``shared_bytes_per_block``: static plus dynamic shared memory of one block, in bytes.
    Raises ``ValueError`` naming the reason when a block cannot run at all (too many threads,
    registers or shared bytes for one block).

    Examples
    --------
    Each limit in turn binds on an H200 (compute capability 9.0):

    >>> estimate(threads_per_block=1024, registers_per_thread=32).limit               # 2 blocks: 2,048 threads
    'threads'
    >>> e = estimate(threads_per_block=32, registers_per_thread=32)                   # 32 blocks of one warp
    >>> e.blocks_per_sm, e.occupancy, e.limit
    (32, 0.5, 'blocks')
    >>> e = estimate(threads_per_block=128, registers_per_thread=128)                 # 4,096 registers a warp
    >>> e.blocks_per_sm, e.active_warps, e.limit
    (4, 16, 'registers')
    >>> e = estimate(threads_per_block=256, registers_per_thread=32, shared_bytes_per_block=48 * 1024)
    >>> e.blocks_per_sm, e.limit                                                      # 49 KB each of 228 KB
    (4, 'shared memory')
    >>> estimate(threads_per_block=1024, registers_per_thread=65)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: a block of 1024 threads at 65 registers each needs 73728 registers (65 x 32 rounded up to ...
    """
    sm = limits(device)
    cc = device if isinstance(device, tuple) else datasheet(device, quiet=True).compute_capability
    threads = positive_int("threads_per_block", threads_per_block)
    regs = positive_int("registers_per_thread", registers_per_thread)
    shared = positive_int("shared_bytes_per_block", shared_bytes_per_block, low=0)
    if threads > 1024:
        raise ValueError(f"threads_per_block must be at most 1024 (a block's limit); got {threads}")
    if regs > sm.max_registers_per_thread:
        raise ValueError(f"registers_per_thread must be at most {sm.max_registers_per_thread}; got {regs}")
    warps = math.ceil(threads / WARP)
    per_warp = _round_up(regs * WARP, sm.register_unit)
    if per_warp * _round_up(warps, sm.sub_partitions) > sm.registers:
        raise ValueError(f"a block of {threads} threads at {regs} registers each needs "
                         f"{per_warp * _round_up(warps, sm.sub_partitions)} registers ({regs} x {WARP} rounded up to "
                         f"{per_warp} a warp, {_round_up(warps, sm.sub_partitions)} warps), more than the "
                         f"{sm.registers} one block may have on compute capability {cc}")
    if shared > sm.shared_per_block:
        raise ValueError(f"shared_bytes_per_block must be at most {sm.shared_per_block} on compute capability "
                         f"{cc}; got {shared}")
    block_shared = _round_up(shared + sm.reserved_per_block, sm.shared_unit)
    by_limit = {
        "threads": sm.warps // warps,
        "blocks": sm.blocks,
        "registers": sm.sub_partitions * ((sm.registers // sm.sub_partitions) // per_warp) // warps,
        "shared memory": sm.shared_bytes // block_shared if block_shared else sm.blocks,
    }
    blocks = min(by_limit.values())
    limit = next(name for name, n in by_limit.items() if n == blocks)
    return Occupancy(blocks, blocks * warps, blocks * warps / sm.warps, limit, by_limit)
