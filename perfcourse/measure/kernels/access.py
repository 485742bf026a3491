"""Coalesced against strided reads: the same bytes are useful, very different bytes are moved.

``out = x.reshape(rows, stride).T.ravel()``: x is read column after column, so consecutive
reads are ``stride`` elements apart, while out is written in order. Every element is read
once and written once whatever the stride, so the useful traffic is always 2 n elements,
yet memory moves whole 32-byte sectors on a GPU (64-byte lines on a CPU): from a stride of
8 float32 on, each sector fetched brings one useful element. The device is just as busy;
the useful bandwidth falls.

Examples
--------
>>> strided_read.bytes_moved(2**20, dtype="float32") / 2**20
8.0
>>> strided_read.reference(np.arange(6.0), np.zeros(6), stride=3)
array([0., 3., 1., 4., 2., 5.])
"""

from __future__ import annotations

import numpy as np

from . import _cuda
from ._base import Kernel, uniform

__all__ = ["strided_read", "MAX_STRIDE"]

MAX_STRIDE = 65535  # the GPU launch puts one grid row per column (gridDim.y limit)


def _inputs(n, *, dtype, xp, rng):
    return uniform(xp, rng, n, dtype), uniform(xp, rng, n, dtype)


def _rows(x, stride):
    if isinstance(stride, bool) or not isinstance(stride, (int, np.integer)) or not 1 <= stride <= MAX_STRIDE:
        raise ValueError(f"stride must be an integer in [1, {MAX_STRIDE}]; got {stride!r}")
    if x.size % stride:
        raise ValueError(f"stride must divide n = {x.size}; got {stride}")
    return x.size // stride


def _cpu(x, out, stride=1):
    rows = _rows(x, stride)
    np.copyto(out.reshape(stride, rows), x.reshape(rows, stride).T)
    return out


def _gpu(x, out, stride=1):
    rows = _rows(x, stride)
    threads = _cuda.THREADS
    kernel = _cuda.function("access.cu", "strided_read_f32")
    kernel((-(-rows // threads), int(stride)), (threads,), (x, out, np.int64(rows), np.int64(stride)))
    return out


def _reference(x, out, stride=1):
    x = np.asarray(x, dtype=np.float64)
    return x.reshape(_rows(x, stride), stride).T.ravel()


strided_read = Kernel(
    "strided_read", "out = x read column by column with a given stride",
    inputs_fn=_inputs, cpu=_cpu, gpu=_gpu, reference=_reference,
    options={"stride": 1}, dtypes=("float32",))
