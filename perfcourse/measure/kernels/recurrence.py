"""The linear recurrence ``x[t+1] = a[t] * x[t] + b[t]``: a serial loop against an associative scan.

It looks hopelessly serial, yet each step is an affine map f_t(x) = a[t] x + b[t], and two
affine maps compose into one: (a2, b2) after (a1, b1) = (a2 a1, a2 b1 + b2). Composition is
associative, so all prefixes can be built by log-step doubling in ceil(log2 n) rounds. The
price is work: about 3 n log2 n FLOPs against 2 n for the loop, and log2 n passes over memory.
``a`` is drawn in [0.5, 1), so the recurrence contracts and float32 stays accurate.

Examples
--------
>>> recurrence_serial.span(2**20), recurrence_scan.span(2**20)
(1048576.0, 21.0)
>>> recurrence_serial.flops(8), recurrence_scan.flops(8)
(16.0, 67.0)
"""

from __future__ import annotations

import numpy as np

from ...models.counts import scan_offsets
from . import _cuda
from ._base import Kernel, uniform

__all__ = ["recurrence_serial", "recurrence_scan", "X0"]

X0 = 1.0  # the starting value x[0]


def _inputs(n, *, dtype, xp, rng):
    return uniform(xp, rng, n, dtype, low=0.5, high=1.0), uniform(xp, rng, n, dtype), X0


def _serial_cpu(a, b, x0):
    """The loop as written: each step needs the one before it."""
    x, out = x0, []
    for at, bt in zip(a.tolist(), b.tolist(), strict=True):
        x = at * x + bt
        out.append(x)
    return np.asarray(out, dtype=a.dtype)


def _scan_cpu(a, b, x0):
    """Log-step doubling on the pairs (A, B); then x[t+1] = A[t] x0 + B[t]."""
    A, B = a.copy(), b.copy()
    for k in scan_offsets(a.size):
        B[k:] = A[k:] * B[:-k] + B[k:]   # uses A before this round's update
        A[k:] = A[k:] * A[:-k]
    return A * a.dtype.type(x0) + B


def _serial_gpu(a, b, x0):
    import cupy

    x = cupy.empty_like(a)
    kernel = _cuda.function("recurrence.cu", f"recurrence_serial_{_cuda.suffix(a.dtype)}")
    kernel((1,), (1,), (a, b, x, a.dtype.type(x0), np.int64(a.size)))
    return x


def _scan_gpu(a, b, x0):
    import cupy

    sfx, n = _cuda.suffix(a.dtype), np.int64(a.size)
    A, B = a.copy(), b.copy()
    A2, B2 = cupy.empty_like(a), cupy.empty_like(b)
    step = _cuda.function("recurrence.cu", f"scan_step_{sfx}")
    for k in scan_offsets(a.size):
        _cuda.launch_1d(step, n, (A, B, A2, B2, n, np.int64(k)))
        A, B, A2, B2 = A2, B2, A, B
    x = cupy.empty_like(a)
    _cuda.launch_1d(_cuda.function("recurrence.cu", f"scan_finish_{sfx}"), n, (A, B, x, a.dtype.type(x0), n))
    return x


def _reference(a, b, x0):
    return _serial_cpu(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64), x0)


recurrence_serial = Kernel(
    "recurrence_serial", "x[t+1] = a[t] x[t] + b[t], one step after another",
    inputs_fn=_inputs, cpu=_serial_cpu, gpu=_serial_gpu, reference=_reference)

recurrence_scan = Kernel(
    "recurrence_scan", "the same recurrence as an associative scan (log-step doubling)",
    inputs_fn=_inputs, cpu=_scan_cpu, gpu=_scan_gpu, reference=_reference)
