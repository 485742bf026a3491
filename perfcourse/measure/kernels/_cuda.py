"""Load the CUDA C sources that sit beside this module (``*.cu``) with ``cupy.RawModule``.

Every kernel is declared ``extern "C"`` with a dtype suffix (``triad_f32``), so the same
file compiles unchanged with ``nvcc -cubin`` in the tests and with NVRTC inside CuPy.
"""

from __future__ import annotations

import functools
from importlib import resources

import numpy as np

__all__ = ["source", "sources", "function", "device_occupancy", "suffix", "launch_1d", "THREADS"]

THREADS = 256  # threads per block unless a kernel says otherwise

_SUFFIX = {"float32": "f32", "float64": "f64"}


def sources():
    """Names of the ``.cu`` files shipped with the package, e.g. ``["access.cu", ...]``."""
    return sorted(p.name for p in resources.files(__package__).iterdir() if p.name.endswith(".cu"))


def source(filename):
    """The text of one ``.cu`` file of this package."""
    if filename not in sources():
        raise ValueError(f"filename must be one of {sources()}; got {filename!r}")
    return resources.files(__package__).joinpath(filename).read_text(encoding="utf-8")


@functools.cache
def _module(filename):
    import cupy

    return cupy.RawModule(code=source(filename), options=("-std=c++17",))


def function(filename, name):
    """The compiled kernel ``name`` from ``filename`` (compiled once per process, on first use)."""
    return _module(filename).get_function(name)


def device_occupancy(filename, name, threads):
    """``(blocks, registers)``: the resident blocks per SM the device itself reports for kernel ``name`` of
    ``filename`` in blocks of ``threads`` (``cuOccupancyMaxActiveBlocksPerMultiprocessor``), and the registers
    per thread its driver gave the kernel. Needs CuPy on an NVIDIA GPU."""
    from cupy.cuda import driver

    func = function(filename, name)
    blocks = driver.occupancyMaxActiveBlocksPerMultiprocessor(func.ptr, int(threads), 0)
    return int(blocks), int(driver.funcGetAttribute(driver.CU_FUNC_ATTRIBUTE_NUM_REGS, func.ptr))


def suffix(dtype):
    """Kernel-name suffix for a NumPy/CuPy dtype: ``float32`` -> ``f32``.

    Examples
    --------
    >>> suffix(np.float32), suffix("float64")
    ('f32', 'f64')
    """
    name = np.dtype(dtype).name
    if name not in _SUFFIX:
        raise ValueError(f"dtype must be float32 or float64 for the CUDA kernels; got {name}")
    return _SUFFIX[name]


def launch_1d(kernel, n, args, threads=THREADS):
    """Launch ``kernel`` with one thread per element of ``n`` (blocks rounded up)."""
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or not 1 <= threads <= 1024:
        raise ValueError(f"threads_per_block must be an integer in [1, 1024]; got {threads!r}")
    blocks = (int(n) + threads - 1) // threads
    kernel((blocks,), (threads,), args)
