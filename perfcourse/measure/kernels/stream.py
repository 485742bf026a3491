"""STREAM-style copy, scale, add and triad: the memory-bandwidth ceiling.

Bytes are counted as BabelStream counts them: copy and scale move 2 arrays of n elements,
add and triad 3. Their FLOPs are 0, n, n and 2n, so all four sit far left on a roofline.
On the CPU, NumPy writes the triad as two passes (a multiply, then an add), so its real
traffic is 5n elements although it is credited with 3n: the same rule the GPU is held to.

Examples
--------
>>> triad.flops(1000), triad.bytes_moved(1000, dtype="float32")
(2000.0, 12000.0)
>>> copy.bytes_moved(2**20, dtype="float64") / 2**20
16.0
"""

from __future__ import annotations

import numpy as np

from . import _cuda
from ._base import Kernel, uniform

__all__ = ["copy", "scale", "add", "triad", "SCALAR"]

SCALAR = 0.4  # BabelStream's scalar


def _vectors(count, with_scalar):
    def make(n, *, dtype, xp, rng):
        arrays = tuple(uniform(xp, rng, n, dtype) for _ in range(count))
        return arrays + ((SCALAR,) if with_scalar else ())

    return make


def _launch(name, out, arrays, scalars=()):
    n = out.size
    sfx = _cuda.suffix(out.dtype)
    args = tuple(arrays) + tuple(out.dtype.type(s) for s in scalars) + (np.int64(n),)
    _cuda.launch_1d(_cuda.function("stream.cu", f"{name}_{sfx}"), n, args)
    return out


def _triad_cpu(b, c, a, q):
    np.multiply(c, q, out=a)
    np.add(a, b, out=a)
    return a


copy = Kernel(
    "copy", "c = a",
    inputs_fn=_vectors(2, False),
    cpu=lambda a, c: np.copyto(c, a) or c,
    gpu=lambda a, c: _launch("copy", c, (a, c)),
    reference=lambda a, c: np.asarray(a, dtype=np.float64))

scale = Kernel(
    "scale", "b = q * c",
    inputs_fn=_vectors(2, True),
    cpu=lambda c, b, q: np.multiply(c, q, out=b),
    gpu=lambda c, b, q: _launch("scale", b, (c, b), (q,)),
    reference=lambda c, b, q: q * np.asarray(c, dtype=np.float64))

add = Kernel(
    "add", "c = a + b",
    inputs_fn=_vectors(3, False),
    cpu=lambda a, b, c: np.add(a, b, out=c),
    gpu=lambda a, b, c: _launch("add", c, (a, b, c)),
    reference=lambda a, b, c: np.asarray(a, dtype=np.float64) + b)

triad = Kernel(
    "triad", "a = b + q * c",
    inputs_fn=_vectors(3, True),
    cpu=_triad_cpu,
    gpu=lambda b, c, a, q: _launch("triad", a, (b, c, a), (q,)),
    reference=lambda b, c, a, q: np.asarray(b, dtype=np.float64) + q * np.asarray(c, dtype=np.float64))
