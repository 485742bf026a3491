"""perfcourse: the helper package of an interactive course on GPU and parallel performance.

Count the work, the critical path and the bytes moved before you look at the hardware's
peak; a "3x faster" that names no workload, batch, shape and percentile means almost nothing.

Light modules (``laws``, ``roofline``, ``queueing``, ``selftest``) are imported at once;
the rest (``backend``, ``timing``, ``kernels``, ``hardware``, ``widgets`` ...) on first use,
so ``import perfcourse`` stays fast and never touches a GPU.
"""

import importlib

from . import laws, queueing, roofline, selftest

__version__ = "0.1.0"
__all__ = ["laws", "queueing", "roofline", "selftest", "__version__"]


def __getattr__(name):
    if name.startswith("_"):
        raise AttributeError(name)
    try:
        module = importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError as err:
        if err.name != f"{__name__}.{name}":
            raise
        raise AttributeError(f"module 'perfcourse' has no attribute or submodule {name!r}") from None
    globals()[name] = module
    return module
