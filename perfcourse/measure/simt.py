"""Kernels the learner writes: ``numba.cuda`` on a usable GPU, Numba's CUDA simulator elsewhere.

:func:`numba_cuda` returns the ``numba.cuda`` module to write ``@cuda.jit`` kernels with.
Where the course's backend has no usable GPU it first sets ``NUMBA_ENABLE_CUDASIM=1``, so
the same kernel source runs on the simulator: one Python thread per CUDA thread, shared
memory and ``cuda.syncthreads()`` included, slow (keep sizes to a few thousand elements).
On a GPU the kernels compile for real (``numba-cuda``) and take CuPy arrays.

The choice can be made only before Numba's CUDA module is first imported in this process;
a notebook that imported ``numba.cuda`` itself first gets an error that says to restart.

Examples
--------
>>> cuda = numba_cuda()
>>> mode() in ("simulator", "gpu")
True
"""

from __future__ import annotations

import os
import sys
import threading

from .._lang import _
from .._syncs import THREAD_STACK_BYTES, count_syncs, simulator_loaded
from . import backend

__all__ = ["numba_cuda", "mode", "describe", "announce", "count_syncs", "SIM_ENV"]

SIM_ENV = "NUMBA_ENABLE_CUDASIM"


def _wanted_simulator():
    return not backend.get().on_gpu or os.environ.get(SIM_ENV) == "1"


def numba_cuda():
    """The ``numba.cuda`` module, on the simulator unless the course runs on a usable GPU.

    Raises
    ------
    RuntimeError
        If ``numba.cuda`` was imported before in the other mode (restart the kernel), or if
        Numba is not installed.
    """
    simulate = _wanted_simulator()
    loaded = "numba.cuda" in sys.modules
    if loaded and simulate != simulator_loaded():
        have = "the simulator" if simulator_loaded() else "the GPU"
        raise RuntimeError(f"numba.cuda was imported earlier for {have}; restart the kernel and get it only "
                           "through pc.simt.numba_cuda() (it must choose before numba.cuda is first imported)")
    if simulate and not loaded:
        os.environ[SIM_ENV] = "1"
        if threading.stack_size() == 0:
            threading.stack_size(THREAD_STACK_BYTES)
    try:
        from numba import cuda
    except ModuleNotFoundError as err:
        raise RuntimeError(f"Numba is not installed ({err}); pip install numba (and numba-cuda on a GPU)") from None
    return cuda


def mode():
    """``"simulator"`` or ``"gpu"``: where :func:`numba_cuda`'s kernels run."""
    return "simulator" if _wanted_simulator() else "gpu"


def describe():
    """One sentence saying where the learner's kernels run, for the top of a kernel cell."""
    if mode() == "gpu":
        return _("Your kernels compile with numba-cuda and run on the GPU ({device}).").format(
            device=backend.get().device)
    return _("No usable GPU here, so your kernels run on Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1): "
             "every CUDA thread is a Python thread. Results and barrier counts are real; times are not GPU times.")


def announce():
    """Print :func:`describe`'s sentence."""
    print(describe())
