"""bfloat16 without a NumPy dtype: values kept as uint16 bit patterns, converted both ways.

Examples
--------
>>> import numpy as np
>>> bits = to_bfloat16(np.array([1.0, 3.140625, -2.5]))
>>> from_bfloat16(bits).tolist()
[1.0, 3.140625, -2.5]
"""

from __future__ import annotations

import numpy as np

__all__ = ["to_bfloat16", "from_bfloat16"]


def to_bfloat16(x, xp=np):
    """Round float values to bfloat16 (nearest, ties to even); return the uint16 bit patterns."""
    bits = xp.asarray(x, dtype=xp.float32).view(xp.uint32)
    rounded = bits + xp.uint32(0x7FFF) + ((bits >> xp.uint32(16)) & xp.uint32(1))
    return (rounded >> xp.uint32(16)).astype(xp.uint16)


def from_bfloat16(bits, xp=np):
    """float32 values of bfloat16 bit patterns (uint16)."""
    return (xp.asarray(bits, dtype=xp.uint16).astype(xp.uint32) << xp.uint32(16)).view(xp.float32)
