"""Count the ``cuda.syncthreads()`` barriers a kernel passes on Numba's CUDA simulator.

The span of a block-level reduction or scan is its number of synchronised steps: the
barriers every thread of the block waits at. On the simulator each CUDA thread is a Python
thread, so a counter on its ``syncthreads`` sees every barrier. :class:`SyncCounter`
installs that counter for the length of a ``with`` block and reports, per block, the most
barriers any of its threads passed.

This module imports nothing of perfcourse and Numba only when a counter starts: the
grader's kernel loads it on its own, beside its runner, to count the barriers of a
learner's kernel (the grader only compares the count with the learner's claim).

Examples
--------
>>> counter = SyncCounter()
>>> counter.steps is None   # nothing ran on the simulator yet
True
"""

from __future__ import annotations

import sys
import threading

__all__ = ["SyncCounter", "simulator_loaded", "count_syncs", "THREAD_STACK_BYTES"]

# Each simulated CUDA thread is an OS thread: a small stack keeps a block of 1024 of them in
# a modest address space (the default is the stack limit, often 8 MiB each).
THREAD_STACK_BYTES = 1 << 20
_SIMULATOR = "numba.cuda.simulator.kernel"


def simulator_loaded():
    """True when Numba's CUDA simulator is loaded in this process (``NUMBA_ENABLE_CUDASIM=1``)."""
    return _SIMULATOR in sys.modules


class SyncCounter:
    """A ``with`` block that counts the barriers each simulated block passes.

    After the block, :attr:`per_block` maps a block index ``(x, y, z)`` to the most
    ``syncthreads`` calls one of its threads made, and :attr:`steps` is the largest of
    them (None when no simulated kernel ran). Not reentrant; one counter at a time.
    """

    _active = None

    def __init__(self):
        self.per_block = {}
        self._per_thread = {}
        self._lock = threading.Lock()
        self._saved = None

    @property
    def steps(self):
        """The most barriers any block passed, or None if no simulated block ran."""
        return max(self.per_block.values()) if self.per_block else None

    def _count(self, thread):
        key = (tuple(thread.blockIdx), thread.thread_id)
        with self._lock:
            self._per_thread[key] = self._per_thread.get(key, 0) + 1

    def __enter__(self):
        if SyncCounter._active is not None:
            raise RuntimeError("a SyncCounter is already counting; nest none")
        module = sys.modules.get(_SIMULATOR)
        if module is None:
            raise RuntimeError("Numba's CUDA simulator is not loaded (NUMBA_ENABLE_CUDASIM=1 before importing numba)")
        block_thread, counter = module.BlockThread, self
        original = block_thread.syncthreads

        def syncthreads(thread):
            counter._count(thread)
            return original(thread)

        self._saved = (block_thread, original)
        block_thread.syncthreads = syncthreads
        SyncCounter._active = self
        return self

    def __exit__(self, *exc):
        block_thread, original = self._saved
        block_thread.syncthreads = original
        SyncCounter._active = None
        per_block = {}
        for (block, _), count in self._per_thread.items():
            per_block[block] = max(per_block.get(block, 0), count)
        self.per_block = per_block
        return False


def count_syncs(launch, *args):
    """Run ``launch(*args)``, counting barriers on the simulator; ``(result, steps)``.

    ``steps`` is the most ``cuda.syncthreads()`` calls any thread of one block made (0 when
    the kernel has none). Where the simulator is not loaded (a real GPU) ``steps`` is None.

    Examples
    --------
    >>> count_syncs(lambda x: x + 1, 1)[0]
    2
    """
    if not callable(launch):
        raise TypeError(f"launch must be a function that runs your kernel; got {type(launch).__name__}")
    if not simulator_loaded():
        return launch(*args), None
    with SyncCounter() as counter:
        result = launch(*args)
    return result, counter.steps or 0
