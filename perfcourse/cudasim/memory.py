"""Memory as a simulated thread sees it: every element read and write recorded, with its thread and interval.

This package imports nothing of perfcourse (see :mod:`perfcourse.cudasim`).
"""

from __future__ import annotations

import sys

import numpy as np

__all__ = ["KERNEL_FILE", "NEVER", "SEVERAL", "Mem", "kernel_line"]

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


class _Track:
    """The bookkeeping of one allocation: who last wrote and read each element, and when."""

    def __init__(self, size):
        self.writer = np.full(size, NEVER, np.int64)
        self.wstamp = np.full(size, NEVER, np.int64)
        self.reader = np.full(size, NEVER, np.int64)
        self.rstamp = np.full(size, NEVER, np.int64)
        self.writers = np.full(size, NEVER, np.int64)   # the one thread that wrote it, or SEVERAL
        self.atomics = np.zeros(size, np.int64)


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
        return self._data[key]

    def __setitem__(self, key, value):
        slot = self._where(key, "wrote")
        if isinstance(slot, np.ndarray):
            for one in slot.ravel():
                self._launch.write(self, int(one))
        else:
            self._launch.write(self, int(slot))
        self._data[key] = value

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


