"""Counts of the lesson-08 pipeline, and what making one part faster can give (Amdahl).

The pipeline (``pc.pipeline``) normalises each request's rows, multiplies them by ``W``,
adds a bias, applies tanh and pools the rows: these functions count its FLOPs, the bytes it
cannot avoid, the bytes an unfused chain of array operations moves, and the rows a padded
batch computes. :func:`what_if` applies Amdahl's law to a measured breakdown.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._check import choice, positive_int, real
from ..units import format_seconds
from . import laws

__all__ = ["PASSES", "KERNELS_PER_PASS", "COPY_IN_BYTES", "COPY_OUT_BYTES", "flops", "min_bytes", "unfused_bytes",
           "padded_rows", "copy_bytes", "WhatIf", "what_if"]

PASSES = 14            # passes over the rows made by the unfused float32 chain (see unfused_bytes)
KERNELS_PER_PASS = 8   # array operations applied to a block of rows: seven in the layer, one pooling
COPY_IN_BYTES = 8 + 4 + 2 * 4   # per input element: float64 read, float32 written, then copied (read + write)
COPY_OUT_BYTES = 2 * 4          # per output element: float32 copied back (read + write)


def flops(lengths, d):
    """FLOPs of the pipeline: ``R (2 d^2 + 8 d)`` for ``R`` rows in all (a tanh counted as one).

    Examples
    --------
    >>> flops([16] * 128, 64)
    17825792
    """
    rows = float(np.sum(real("lengths", lengths, low=1, integer=True)))
    d = positive_int("d", d)
    return int(rows * (2 * d * d + 8 * d))


def min_bytes(lengths, d, itemsize=4, input_itemsize=None):
    """Bytes the pipeline cannot avoid moving: read every row and ``W`` once, write the outputs.

    ``itemsize`` is the bytes per element of ``W``, the bias and the outputs; ``input_itemsize``
    that of the input rows (default: ``itemsize``). The case study's requests arrive as float64
    (8 bytes) and are computed in float32 (4 bytes): ``min_bytes(lengths, d, 4, input_itemsize=8)``.

    Examples
    --------
    >>> min_bytes([16] * 128, 64)
    573696
    >>> min_bytes([16] * 128, 64, input_itemsize=8) - min_bytes([16] * 128, 64)   # 2048 rows x 64 x 4 more bytes
    524288
    """
    lengths = np.atleast_1d(real("lengths", lengths, low=1, integer=True))
    d, itemsize = positive_int("d", d), positive_int("itemsize", itemsize)
    input_itemsize = itemsize if input_itemsize is None else positive_int("input_itemsize", input_itemsize)
    return int(lengths.sum() * d * input_itemsize + (d * d + d + lengths.size * d) * itemsize)


def unfused_bytes(lengths, d, itemsize=4, input_itemsize=None):
    """Bytes moved when each of the eight kernels reads and writes whole arrays (``PASSES`` passes).

    The passes over the rows: mean 1, center 2, variance 2, normalize 2, matmul 2, bias 2,
    tanh 2, pooling 1: 14 (each pass reads or writes ``rows x d`` elements of ``itemsize``
    bytes), on top of :func:`min_bytes` (with the same ``input_itemsize``).

    Examples
    --------
    >>> unfused_bytes([16] * 128, 64) // min_bytes([16] * 128, 64)
    13
    >>> unfused_bytes([16] * 128, 64, itemsize=8) == 2 * unfused_bytes([16] * 128, 64)
    True
    """
    rows = float(np.sum(real("lengths", lengths, low=1, integer=True)))
    passes = int(PASSES * rows * positive_int("d", d) * positive_int("itemsize", itemsize))
    return passes + min_bytes(lengths, d, itemsize, input_itemsize)


def padded_rows(lengths):
    """Rows the padded version computes: ``n * max(L)`` (the real rows are ``sum(L)``).

    Examples
    --------
    >>> padded_rows([1, 1, 8])
    24
    """
    lengths = np.atleast_1d(real("lengths", lengths, low=1, integer=True))
    return int(lengths.size * lengths.max())


@dataclass(frozen=True)
class WhatIf:
    """A wall-time breakdown before and after making one ``item`` ``factor`` times faster."""

    item: str
    factor: float
    before: dict
    after: dict

    @property
    def fraction(self):
        """The item's share of the time before the change."""
        return self.before[self.item] / sum(self.before.values())

    @property
    def speedup(self):
        """End-to-end speedup, Amdahl's law with the rest of the time as the serial part."""
        return laws.amdahl_speedup(1 - self.fraction, self.factor)

    @property
    def limit(self):
        """The most any speedup of this item can give: ``1 / (1 - fraction)``."""
        return laws.amdahl_limit(1 - self.fraction)

    def __str__(self):
        top = max(self.before, key=self.before.get)
        limit = "no limit" if np.isinf(self.limit) else f"at most {self.limit:.2f}x"
        return (f"'{self.item}' ({self.fraction:.0%} of the time) {self.factor:.3g}x faster: "
                f"{format_seconds(sum(self.before.values()))} -> {format_seconds(sum(self.after.values()))} per batch, "
                f"{self.speedup:.2f}x end to end; removing '{self.item}' entirely: {limit}. Largest item: '{top}' "
                f"({self.before[top] / sum(self.before.values()):.0%})")


def what_if(breakdown, item, factor):
    """Make one item of a breakdown ``factor`` times faster; Amdahl's law gives the end-to-end effect.

    Parameters
    ----------
    breakdown : dict
        Seconds per item, e.g. ``Profile.breakdown()`` from ``pc.profiler``.
    item : str
        A key of ``breakdown``.
    factor : float, >= 1
        How many times faster that item becomes.

    Examples
    --------
    >>> w = what_if({"kernel": 0.006, "copy": 0.003, "other": 0.001}, "kernel", 3)
    >>> round(w.speedup, 2), round(w.limit, 2)      # 1 / (0.4 + 0.6 / 3) and 1 / 0.4
    (1.67, 2.5)
    >>> print(str(w).split(";")[0])
    'kernel' (60% of the time) 3x faster: 10 ms -> 6 ms per batch, 1.67x end to end
    """
    if not isinstance(breakdown, dict) or not breakdown:
        raise ValueError(f"breakdown must be a non-empty dict item -> seconds; got {breakdown!r}")
    before = {k: float(real(f"breakdown[{k!r}]", v, low=0)) for k, v in breakdown.items()}
    if sum(before.values()) <= 0:
        raise ValueError(f"breakdown must hold some time; got {breakdown!r}")
    choice("item", item, tuple(before))
    factor = float(real("factor", factor, low=1))
    return WhatIf(item, factor, before, {**before, item: before[item] / factor})


def copy_bytes(lengths, d):
    """Bytes the batched copies move: ``COPY_IN_BYTES`` per input element, ``COPY_OUT_BYTES`` per output.

    Each float64 input element is read (8 B), written as float32 (4 B) and copied to the device
    (4 B read + 4 B written); each output (one row of ``d`` per request) is copied back in float32.

    Examples
    --------
    >>> copy_bytes([16] * 128, 64)
    2686976
    """
    lengths = np.atleast_1d(real("lengths", lengths, low=1, integer=True))
    d = positive_int("d", d)
    return int(lengths.sum() * d * COPY_IN_BYTES + lengths.size * d * COPY_OUT_BYTES)
