"""Memory as a simulated thread sees it: every element read and write recorded, with its thread and interval.

This package imports nothing of perfcourse (see :mod:`perfcourse.cudasim`).
"""

from __future__ import annotations

import sys
import threading

import numpy as np

__all__ = ["KERNEL_FILE", "NEVER", "SEVERAL", "Mem", "Local", "Traced", "counted", "depth_of", "kernel_line"]

KERNEL_FILE = "<your kernels>"
NEVER, SEVERAL = -1, -2


def kernel_line():
    """The line of the learner's kernel that is running now (0 when none is on the stack)."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename == KERNEL_FILE:
            return frame.f_lineno
        frame = frame.f_back
    return 0


class Traced(float):
    """A float a kernel read, with ``depth``: the arithmetic operations, one after another, behind its value.

    An input element has depth 0; ``a + b`` has depth ``max(depth(a), depth(b)) + 1``. What a
    kernel writes keeps its depth, so the depth of a result is the length of its critical path:
    about ``log2 T`` for a tree of ``T`` values, ``T`` for a chain. A value made plain again
    (a NumPy call on it, ``str()``, a complex number) would start over at 0, so the grader refuses
    such calls in the kernels it counts (:mod:`perfcourse.grading.kernelrules`); ``math`` keeps the count
    (see :mod:`perfcourse.cudasim.fakecuda`), NumPy scalars defer to these operations, and ``int()`` of one,
    or a store of one into an integer array, raises here.

    Examples
    --------
    >>> a, b = Traced(1.5, 0), Traced(2.0, 3)
    >>> (a + b).depth, (2 * (a + b)).depth, (-(a + b)).depth, a + b
    (4, 5, 4, 3.5)
    """

    __array_ufunc__ = None        # a NumPy scalar or array on the other side defers to these operations

    def __new__(cls, value, depth):
        made = float.__new__(cls, value)
        made.depth = int(depth)
        return made

    def __neg__(self):
        return Traced(-float(self), self.depth)

    def __pos__(self):
        return self

    def __abs__(self):
        return Traced(abs(float(self)), self.depth)

    def _whole(self, *args):
        raise TypeError("the kernel turned a value it read into a whole number (int, round, floor, ceil), which drops "
                        "the additions behind it: keep the values floating point")

    __int__ = __trunc__ = __floor__ = __ceil__ = __round__ = _whole

    real = property(lambda self: self)

    def conjugate(self):
        return self


def depth_of(value):
    """The depth of a value (0 for one that was not read from memory)."""
    return value.depth if isinstance(value, Traced) else 0


_REAL = (int, float, np.integer, np.floating, np.bool_)      # bool is an int: True * x is x, counted


def counted():
    """Count one arithmetic operation on a value read from memory to the simulated thread doing it (its ``ops``):
    a line of the kernel can hold many, and the block's critical path counts each."""
    thread = threading.current_thread()
    if hasattr(thread, "ops"):
        thread.ops += 1


def _operation(name):
    op = getattr(float, f"__{name}__")
    flipped = getattr(float, f"__r{name}__")

    def forward(self, other):
        if not isinstance(other, _REAL):
            return NotImplemented
        counted()
        return Traced(op(float(self), float(other)), max(self.depth, depth_of(other)) + 1)

    def reflected(self, other):
        if not isinstance(other, _REAL):
            return NotImplemented
        counted()
        return Traced(flipped(float(self), float(other)), max(self.depth, depth_of(other)) + 1)

    setattr(Traced, f"__{name}__", forward)
    setattr(Traced, f"__r{name}__", reflected)


for _name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow"):
    _operation(_name)


def _depths(value):
    """The depth of each element a slice store writes: a Mem's own, or that of one value for all."""
    if isinstance(value, Mem):
        return value._track.depth[value._slots]
    if isinstance(value, Local):
        return value._depth
    if isinstance(value, np.ndarray):
        return 0
    if isinstance(value, (list, tuple)):           # a tuple stored into a slice: each keeps its history
        return max((depth_of(v) for v in value), default=0)
    return depth_of(value)


def _stored(array, value):
    """``value``, unless it is a :class:`Traced` value going into an integer array (its history would be lost)."""
    if isinstance(value, Traced) and array.dtype.kind != "f":
        raise TypeError(f"the kernel stored a value it read into an array of {array.dtype}, which drops the additions "
                        "behind it: keep the values in a float array")
    return value


class Local:
    """A thread's own array (``cuda.local.array``): no other thread sees it, and each value keeps its depth."""

    def __init__(self, data, depth=None):
        self._data = data
        self._depth = np.zeros(data.shape, np.int64) if depth is None else depth   # a view's depths are its own

    size = property(lambda self: self._data.size)
    shape = property(lambda self: self._data.shape)
    dtype = property(lambda self: self._data.dtype)

    def __len__(self):
        return len(self._data)

    def __getitem__(self, key):
        value = self._data[key]
        if np.ndim(value):                      # a row or a slice: a view that keeps each element's depth
            return Local(value, self._depth[key])
        return Traced(value, self._depth[key]) if self._data.dtype.kind == "f" else value

    def __setitem__(self, key, value):
        self._data[key] = _stored(self._data, value)
        self._depth[key] = _depths(value)


class _Track:
    """The bookkeeping of one allocation: who last wrote and read each element, and when."""

    def __init__(self, size):
        self.writer = np.full(size, NEVER, np.int64)
        self.wstamp = np.full(size, NEVER, np.int64)
        self.reader = np.full(size, NEVER, np.int64)
        self.rstamp = np.full(size, NEVER, np.int64)
        self.writers = np.full(size, NEVER, np.int64)   # the one thread that wrote it, or SEVERAL
        self.atomics = np.zeros(size, np.int64)
        self.depth = np.zeros(size, np.int64)            # the operations behind each element's value (Traced)


class Mem:
    """An array as a simulated thread sees it: element reads and writes are recorded."""

    def __init__(self, launch, data, name, shared, track=None, slots=None):
        self._launch, self._data, self.name, self.shared = launch, data, name, shared
        self._track = track if track is not None else _Track(data.size)
        self._slots = slots if slots is not None else np.arange(data.size).reshape(data.shape)

    size = property(lambda self: self._data.size)
    shape = property(lambda self: self._data.shape)
    ndim = property(lambda self: self._data.ndim)
    dtype = property(lambda self: self._data.dtype)

    def __len__(self):
        return len(self._data)

    def __iter__(self):                            # a loop over a slice reads each element, then stops
        for i in range(len(self._data)):
            yield self[i]

    def _where(self, key, verb):
        try:
            return self._slots[key]
        except IndexError:
            self._launch.fault(f"{verb} {self.name}[{_key_text(key)}], past its end (shape {self.shape})")
        except (TypeError, ValueError):
            self._launch.fault(f"{verb} {self.name}[{_key_text(key)}]: an index must be an integer")

    def __getitem__(self, key):
        slot = self._where(key, "read")
        if isinstance(slot, np.ndarray):
            return Mem(self._launch, self._data[key], self.name, self.shared, self._track, slot)
        self._launch.read(self, int(slot))
        value = self._data[key]
        return Traced(value, self._track.depth[int(slot)]) if self._data.dtype.kind == "f" else value

    def __setitem__(self, key, value):
        slot = self._where(key, "wrote")
        if isinstance(slot, np.ndarray):
            for one in slot.ravel():
                self._launch.write(self, int(one))
            self._track.depth[slot] = _depths(value)
        else:
            self._launch.write(self, int(slot))
            self._track.depth[int(slot)] = depth_of(value)
        self._data[key] = _stored(self._data, value)

    def __array__(self, dtype=None, copy=None):
        for one in self._slots.ravel():
            self._launch.read(self, int(one))
        return np.array(self._data, dtype=dtype)

    def _atomic(self, key, update):
        slot = self._where(key, "updated")
        old = self._data[key]
        if self._track.wstamp[int(slot)] == self._launch.me().stamp:
            self._track.wstamp[int(slot)] = NEVER     # atomics of one interval never race with each other
        self._launch.atomic(self, int(slot))
        self._data[key] = update(old)
        return old


def _key_text(key):
    return ", ".join(str(k) for k in key) if isinstance(key, tuple) else str(key)


