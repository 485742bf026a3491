"""Busy but useless: a kernel that keeps the device "100% utilized" while computing nothing.

Every thread waits on the clock for ``seconds``, then writes its own index. A utilization
monitor (``nvidia-smi``, NVML) reports the fraction of time *some* kernel was running, so
this one reads as fully utilized even when it runs on a single block of a single SM. On the
CPU the same idea is one core spinning in a loop.

Examples
--------
>>> spin.flops(1024), spin.bytes_moved(1024, dtype="float32")
(0.0, 4096.0)
"""

from __future__ import annotations

import time

import numpy as np

from . import _cuda
from ._base import Kernel, uniform

__all__ = ["spin"]


def _inputs(n, *, dtype, xp, rng):
    return (uniform(xp, rng, n, dtype),)


def _seconds(seconds):
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 <= seconds <= 60:
        raise ValueError(f"seconds must be a number in [0, 60]; got {seconds!r}")
    return float(seconds)


def _cpu(out, seconds=1e-3, threads_per_block=32):
    end = time.perf_counter() + _seconds(seconds)
    while time.perf_counter() < end:
        pass
    out[:] = np.arange(out.size, dtype=out.dtype)
    return out


def _gpu(out, seconds=1e-3, threads_per_block=32):
    ns = np.int64(round(_seconds(seconds) * 1e9))
    _cuda.launch_1d(_cuda.function("spin.cu", "spin"), out.size, (out, ns, np.int64(out.size)),
                    threads=int(threads_per_block))
    return out


spin = Kernel(
    "spin", "every thread waits `seconds` on the clock, then writes its index",
    inputs_fn=_inputs, cpu=_cpu, gpu=_gpu,
    reference=lambda out, **_options: np.arange(np.asarray(out).size, dtype=np.float64),
    options={"seconds": 1e-3, "threads_per_block": 32}, dtypes=("float32",))
