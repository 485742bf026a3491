"""The ``cuda`` a simulated kernel sees, and :func:`simulate`, which launches a kernel and reports what it did."""

from __future__ import annotations

import math
import time

import numpy as np

from .launch import Dim3, Launch, LaunchTimeout
from .memory import KERNEL_FILE, Local, Mem, Traced, depth_of, kernel_line

__all__ = ["FakeCuda", "Kernel", "kernels_of", "simulate"]


class _Shared:
    def __init__(self, cuda):
        self._cuda = cuda

    def array(self, shape, dtype):
        launch = self._cuda.launch
        site = kernel_line()
        made = launch.shared.get(site)
        if made is None:
            dtype = np.dtype(dtype if not hasattr(dtype, "key") else str(dtype))
            shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
            fill = np.nan if dtype.kind in "fc" else (np.iinfo(dtype).min if dtype.kind in "iu" else 0)
            made = Mem(launch, np.full(shape, fill, dtype), f"the shared array of line {site}", True)
            launch.shared[site] = made
        return made


class _Local:
    def array(self, shape, dtype):
        dtype = np.dtype(dtype if not hasattr(dtype, "key") else str(dtype))
        return Local(np.full(shape, np.nan if dtype.kind in "fc" else 0, dtype))


class _Atomic:
    def __init__(self, cuda):
        self._cuda = cuda

    @staticmethod
    def _mem(ary):
        if not isinstance(ary, Mem):
            raise TypeError("an atomic operation needs an array of the launch or a shared array")
        return ary

    def add(self, ary, idx, val):
        return self._mem(ary)._atomic(idx, lambda old: old + val)

    def sub(self, ary, idx, val):
        return self._mem(ary)._atomic(idx, lambda old: old - val)

    def max(self, ary, idx, val):
        return self._mem(ary)._atomic(idx, lambda old: max(old, val))

    def min(self, ary, idx, val):
        return self._mem(ary)._atomic(idx, lambda old: min(old, val))

    def exch(self, ary, idx, val):
        return self._mem(ary)._atomic(idx, lambda old: val)

    def cas(self, ary, idx, old, val):
        return self._mem(ary)._atomic(idx, lambda cur: val if cur == old else cur)


class Kernel:
    """A ``@cuda.jit`` kernel of the simulated module: its Python function."""

    def __init__(self, func):
        self.py_func = func

    def __getitem__(self, config):
        raise RuntimeError("kernels are launched by the grader here, not from another kernel")


class FakeCuda:
    """The ``cuda`` a simulated kernel sees: indexes, barriers, shared memory and atomics of :class:`Launch`."""

    warpsize = 32

    def __init__(self):
        self.launch = None
        self.shared, self.local, self.atomic = _Shared(self), _Local(), _Atomic(self)

    threadIdx = property(lambda self: Launch.me().thread_idx)
    blockIdx = property(lambda self: Dim3(Launch.me().block_idx))
    blockDim = property(lambda self: self.launch.block_dim)
    gridDim = property(lambda self: self.launch.grid_dim)
    laneid = property(lambda self: Launch.me().tid % 32)

    def grid(self, ndim):
        me, dims = Launch.me(), self.launch.block_dim
        at = tuple(me.block_idx[i] * dims[i] + me.thread_idx[i] for i in range(ndim))
        return at[0] if ndim == 1 else at

    def gridsize(self, ndim):
        at = tuple(self.launch.grid_dim[i] * self.launch.block_dim[i] for i in range(ndim))
        return at[0] if ndim == 1 else at

    def syncthreads(self):
        Launch.me().barrier(kernel_line())

    def _vote(self, value, combine):
        me = Launch.me()
        self.launch.block_state[me.tid] = 1 if value else 0
        me.barrier(kernel_line())
        result = combine(self.launch.block_state)
        me.barrier(kernel_line())
        return result

    def syncthreads_count(self, value):
        return self._vote(value, lambda s: int(np.count_nonzero(s)))

    def syncthreads_and(self, value):
        return self._vote(value, lambda s: int(bool(np.all(s))))

    def syncthreads_or(self, value):
        return self._vote(value, lambda s: int(bool(np.any(s))))

    def threadfence(self):
        pass

    threadfence_block = threadfence_system = threadfence

    def __getattr__(self, name):
        raise AttributeError(f"cuda.{name} is not simulated by the grader: write this kernel with shared memory, "
                             "cuda.syncthreads() and atomics")

    def jit(self, func=None, device=False, **options):
        if func is None or isinstance(func, (str, list, tuple)):
            return lambda f: self.jit(f, device=device, **options)
        return func if device else Kernel(func)


def _float(value=0.0):
    """``float`` as a kernel sees it: the value as a float, with the depth it had (see :class:`Traced`)."""
    return Traced(float(value), depth_of(value))


def types_module(types):
    """A stand-in for ``numba`` in a simulated kernel: its type names (``numba.float64``) as NumPy's."""
    import types as _types

    return _types.SimpleNamespace(**types)


class _Math:
    """``math`` as a simulated kernel sees it: a function of a value read from memory keeps the operations behind
    it, plus one (``math.copysign(s, s)`` is not a fresh start); whole-number results raise (see :class:`Traced`)."""

    def __getattr__(self, name):
        real = getattr(math, name)
        if not callable(real):
            return real

        def traced(*args):
            result = real(*args)
            depth = max((depth_of(a) for a in _flat(args) if isinstance(a, Traced)), default=None)
            if depth is None:
                return result
            if isinstance(result, tuple):              # frexp, modf: each float part keeps the history
                return tuple(Traced(r, depth + 1) if isinstance(r, float) else r for r in result)
            return Traced(result, depth + 1) if isinstance(result, float) else result

        return traced


def _flat(args):
    """Every value in ``args``, lists and tuples opened (``math.fsum([a, b])``)."""
    for a in args:
        if isinstance(a, (list, tuple)):
            yield from _flat(a)
        else:
            yield a


def kernels_of(module_text, cuda=None):
    """The kernels of ``module_text`` (the grader's kernel module) run against ``cuda``: ``{name: Kernel}``."""
    cuda = cuda or FakeCuda()
    types = {"float64": np.float64, "float32": np.float32, "int64": np.int64, "int32": np.int32, "uint32": np.uint32,
             "boolean": np.bool_}                 # numba's type names, as NumPy's on the simulator
    namespace = {"__name__": "learner_kernels", "cuda": cuda, "np": np, "numpy": np, "math": _Math(), **types,
                 "numba": types_module(types),
                 "float": _float}                 # float(v) keeps the operations behind v: no fresh start
    exec(compile(module_text, KERNEL_FILE, "exec"), namespace)   # noqa: S102 - a module the grader checked
    namespace["cuda"] = cuda
    return {k: v for k, v in namespace.items() if isinstance(v, Kernel)}, cuda


def _arg_names(func, count):
    code = func.__code__
    names = list(code.co_varnames[:code.co_argcount])
    return (names + [f"argument {i + 1}" for i in range(len(names), count)])[:count]


def simulate(kernel, cuda, grid, block, args, *, timeout_s=60.0):
    """Launch ``kernel`` (a :class:`Kernel` of :func:`kernels_of`) on ``args``; what it did, as plain data.

    Arrays in ``args`` are copied; the result holds their contents after the launch
    (``arrays``, in order), and for each array, who wrote each element (``writers``: the
    global thread index, -1 for none, -2 for several threads), how many atomic updates it took
    (``atomics``) and the depth of each element's value (``depths``: the operations one after
    another behind it, see :class:`perfcourse.cudasim.memory.Traced`). ``barriers``, ``reads``
    and ``steps`` list, per block, each thread's barrier count, element reads and the lines of
    the kernel it executed; ``critical``, per block, the lines on its critical path (see
    :func:`perfcourse.cudasim.launch.critical_lines`). ``race``, ``unwritten``, ``mismatch`` and ``fault`` describe the
    first of each (or are None); ``timeout`` says the
    launch did not finish.
    """
    launch = Launch(grid, block, time.monotonic() + float(timeout_s))
    names = _arg_names(kernel.py_func, len(args))
    wrapped, arrays = [], []
    for name, arg in zip(names, args, strict=True):
        if isinstance(arg, np.ndarray):
            arrays.append(Mem(launch, np.array(arg), name, False))
            wrapped.append(arrays[-1])
        else:
            wrapped.append(arg)
    cuda.launch = launch
    timeout = None
    try:
        for block_idx in np.ndindex(*launch.grid_dim[::-1]):
            if not launch.run_block(Dim3(block_idx[::-1]), kernel.py_func, wrapped):
                break
    except LaunchTimeout as err:
        timeout = str(err)
    finally:
        cuda.launch = None
    return {"arrays": [m._data for m in arrays], "writers": [m._track.writers for m in arrays],
            "atomics": [m._track.atomics for m in arrays], "depths": [m._track.depth for m in arrays],
            "barriers": launch.barriers, "reads": launch.reads, "steps": launch.steps, "race": launch.race,
            "unwritten": launch.unwritten, "mismatch": launch.mismatch, "fault": launch.fault_at, "timeout": timeout,
            "threads_per_block": launch.threads_per_block, "atomic_ops": launch.atomic_ops,
            "critical": launch.critical}


