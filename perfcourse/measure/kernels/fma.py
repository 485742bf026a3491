"""Fused multiply-adds in C independent dependency chains per thread, in blocks of a chosen size.

Every thread does ``fmas`` FMAs (2 FLOPs each) whatever the options, so FLOPs and bytes are
fixed and only the rate changes. ``chains`` (1, 2, 4 or 8) splits them into independent
chains of ``fmas / chains`` steps: with one chain each FMA waits for the one before (the
span is ``fmas`` steps), with eight the scheduler always has independent work. The block
size ``threads_per_block`` changes occupancy: an SM holds a limited number of blocks, so
very small blocks leave it with too few warps to hide latency. On the CPU NumPy already
works on whole arrays of independent elements, so ``chains`` changes almost nothing there:
this experiment is about the GPU's schedulers.

Examples
--------
>>> fma_chains.flops(1024, 4096), fma_chains.bytes_moved(1024, 4096, dtype="float32")
(8388608.0, 8192.0)
>>> dependent_steps(4096, chains=1), dependent_steps(4096, chains=8)
(4096, 512)
"""

from __future__ import annotations

import numpy as np

from ...models.counts import FMA_CHAINS as CHAINS
from ...models.counts import dependent_steps
from . import _cuda
from ._base import Kernel, uniform

__all__ = ["fma_chains", "dependent_steps", "device_occupancy", "CHAINS", "A", "B"]

A, B = 0.99, 0.01   # v -> A v + B contracts towards 1: no overflow however many steps


def device_occupancy(chains, threads_per_block):
    """What the GPU itself says of ``fma_chains_<chains>`` in blocks of ``threads_per_block``: ``(resident blocks
    per SM, registers per thread, compute capability as (major, minor))``. Needs CuPy on an NVIDIA GPU."""
    import cupy

    if chains not in CHAINS:
        raise ValueError(f"chains must be one of {CHAINS}; got {chains!r}")
    blocks, registers = _cuda.device_occupancy("fma.cu", f"fma_chains_{chains}", threads_per_block)
    cc = cupy.cuda.Device().compute_capability
    return blocks, registers, (int(cc[:-1]), int(cc[-1]))


def _inputs(n, fmas, *, dtype, xp, rng):
    return uniform(xp, rng, n, dtype), uniform(xp, rng, n, dtype), A, B, fmas


def _cpu(x, out, a, b, fmas, chains=1, threads_per_block=_cuda.THREADS):
    steps = dependent_steps(fmas, chains)
    v = x[None, :] + np.arange(chains, dtype=x.dtype)[:, None]
    a, b = x.dtype.type(a), x.dtype.type(b)
    for _ in range(steps):
        np.multiply(v, a, out=v)
        np.add(v, b, out=v)
    return np.sum(v, axis=0, out=out)


def _gpu(x, out, a, b, fmas, chains=1, threads_per_block=_cuda.THREADS):
    steps = dependent_steps(fmas, chains)
    kernel = _cuda.function("fma.cu", f"fma_chains_{chains}")
    _cuda.launch_1d(kernel, x.size, (x, out, np.float32(a), np.float32(b), np.int32(steps), np.int64(x.size)),
                    threads=int(threads_per_block))
    return out


def _reference(x, out, a, b, fmas, chains=1, threads_per_block=None):
    steps = dependent_steps(fmas, chains)
    p = a ** steps
    starts = np.asarray(x, dtype=np.float64)[None, :] + np.arange(chains)[:, None]
    return (p * starts + b * (1 - p) / (1 - a)).sum(axis=0)


fma_chains = Kernel(
    "fma_chains", "`fmas` FMAs per thread in `chains` independent chains",
    inputs_fn=_inputs, cpu=_cpu, gpu=_gpu, reference=_reference,
    options={"chains": 1, "threads_per_block": _cuda.THREADS}, dtypes=("float32",))
