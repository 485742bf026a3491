"""A CUDA simulator that records what every thread did: the grader's, and the self-check's.

Kernel parts are graded by what the learner's kernel did when the grader launched it, not by
what a host function returns. :func:`simulate` is that launch. It runs a ``@cuda.jit``
kernel's Python function with a ``cuda`` of its own (:class:`FakeCuda`), in which:

- the threads of a block take turns, one at a time, from one barrier to the next
  (:mod:`.launch`), so a run is the same every time;
- every element a thread reads or writes, in the launch's arrays and in shared memory, is
  recorded with the thread and the barrier interval, and shared arrays start as NaN
  (:mod:`.memory`);
- a read of shared memory that no thread wrote, two threads touching one element between the
  same two barriers (one of them writing), and threads of one block that pass different
  barriers are each recorded with the line that did it;
- each thread's element reads and the kernel lines it runs are counted (a tree reads about
  ``2 log2 T``; a serial thread 0 reads all ``T``);
- every float a thread reads carries the operations behind it, and a write keeps them, so the
  depth of each result is its critical path (``log2 T`` for a tree, ``T`` for a chain).

It simulates what compiles for a GPU; the grader compiles each kernel first
(:mod:`perfcourse.cudacompile`), so a kernel can neither run NumPy on the host nor reach the
simulator. This package imports nothing of perfcourse: the grader's probe loads it in a
sandbox that never ran the learner's notebook.

Examples
--------
>>> import numpy as np
>>> source = "@cuda.jit\\ndef double(x):\\n    x[cuda.grid(1)] *= 2.0"
>>> kernels, cuda = kernels_of(source)
>>> run = simulate(kernels["double"], cuda, 1, 4, [np.arange(4.0)])
>>> run["arrays"][0].tolist(), run["writers"][0].tolist()
([0.0, 2.0, 4.0, 6.0], [0, 1, 2, 3])
"""

from .fakecuda import FakeCuda, Kernel, kernels_of, simulate
from .launch import MAX_BLOCK, LaunchTimeout
from .memory import KERNEL_FILE

__all__ = ["FakeCuda", "Kernel", "kernels_of", "simulate", "LaunchTimeout", "MAX_BLOCK", "KERNEL_FILE"]
