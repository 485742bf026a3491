"""The :class:`Kernel` record every course kernel is described by, and its shared helpers."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ..._check import choice
from ...models.counts import COUNTS, DTYPES, Counts, itemsize
from ...models.counts import dtype_name as _name
from .. import backend
from ..backend import is_gpu_array, to_numpy
from .bf16 import from_bfloat16, to_bfloat16

__all__ = ["Kernel", "DTYPES", "itemsize", "is_gpu_array", "array_module", "uniform", "to_numpy",
           "relative_error"]

# accepted normwise relative error against the float64 reference, per dtype
TOLERANCE = {"float16": 2e-2, "bfloat16": 5e-2, "float32": 2e-4, "float64": 1e-10}


def array_module(*inputs):
    """``cupy`` if any input is a CuPy array, else ``numpy``."""
    for a in inputs:
        if is_gpu_array(a):
            import cupy

            return cupy
    return np


def _resolve_xp(xp):
    if xp is None:
        return backend.get().xp
    if isinstance(xp, str):
        xp = choice("xp", xp, ("numpy", "cupy"))
        if xp == "numpy":
            return np
        import cupy

        return cupy
    if getattr(xp, "__name__", None) not in ("numpy", "cupy"):
        raise TypeError(f"xp must be numpy, cupy, their names or None; got {xp!r}")
    return xp


def uniform(xp, rng, shape, dtype, low=0.5, high=1.5):
    """Random numbers in [low, high) of a course dtype on ``xp`` (never zeros for low > 0).

    ``rng`` is a :class:`numpy.random.Generator`. On the GPU the numbers are drawn on the device
    from a seed ``rng`` supplies (large inputs would take seconds to draw on the host).
    bfloat16 comes back as uint16 bit patterns.
    """
    if xp is not np:
        try:
            device = xp.random.default_rng(int(rng.integers(2**62))).random(shape)
            values = low + (high - low) * device
            if _name(dtype) == "bfloat16":
                return to_bfloat16(values, xp=xp)
            return values.astype(_name(dtype))
        except (AttributeError, TypeError, NotImplementedError):
            pass  # an older CuPy without the Generator API: draw on the host below
    if _name(dtype) in ("float32", "float64"):    # drawn in the dtype itself: no float64 copy of a large input
        host = rng.random(shape, dtype=np.dtype(_name(dtype)))
        host *= high - low
        host += low
        return xp.asarray(host)
    host = low + (high - low) * rng.random(shape)
    if _name(dtype) == "bfloat16":
        return xp.asarray(to_bfloat16(host))
    return xp.asarray(host.astype(_name(dtype)))


def relative_error(result, expected):
    """Normwise relative error ``max|result - expected| / max|expected|`` (both as float64).

    A uint16 ``result`` is read as bfloat16 bit patterns.

    Examples
    --------
    >>> relative_error(np.array([1.0, 2.0]), np.array([1.0, 2.5]))
    0.2
    """
    r = to_numpy(result)
    if r.dtype == np.uint16:  # bfloat16 bit patterns
        r = from_bfloat16(r)
    r = np.asarray(r, dtype=np.float64)
    e = np.asarray(expected, dtype=np.float64)
    if r.shape != e.shape:
        raise ValueError(f"result has shape {r.shape}, reference has shape {e.shape}")
    scale = float(np.max(np.abs(e))) if e.size else 0.0
    return float(np.max(np.abs(r - e))) / (scale if scale > 0 else 1.0) if e.size else 0.0


@dataclass(frozen=True)
class Kernel:
    """One of the course's kernels: its counts, its inputs, its reference and two implementations.

    Every size-taking function receives the same size arguments, named in ``sizes``
    (``("n",)`` for a vector kernel, ``("b", "d")`` for the dense layer...).

    Attributes
    ----------
    name, summary : str
        Short name (``"triad"``) and one line saying what it computes.
    counts : Counts
        Its FLOP, byte and span counts, from :mod:`perfcourse.models.counts` (looked up by name);
        ``sizes`` names their size arguments.
    inputs_fn : callable
        ``inputs_fn(*sizes, dtype, xp, rng)`` -> tuple of arguments for :meth:`run`.
    cpu, gpu : callable
        The NumPy and the CuPy implementation: ``impl(*inputs, **options)`` -> result.
    reference : callable
        ``reference(*inputs, **options)`` -> the expected result as a float64 NumPy array.
    options : dict
        Run-time knobs and their defaults (blocks, chains, stride...): same result, different speed.
    dtypes : tuple of str
        Supported dtypes; ``gpu_only_dtypes`` need the GPU (NumPy has no bfloat16).
    """

    name: str
    summary: str
    inputs_fn: Callable[..., tuple]
    cpu: Callable
    gpu: Callable | None
    reference: Callable
    options: dict = field(default_factory=dict)
    dtypes: tuple[str, ...] = ("float32", "float64")
    gpu_only_dtypes: tuple[str, ...] = ()

    @property
    def counts(self) -> Counts:
        """This kernel's counts (:mod:`perfcourse.models.counts`)."""
        return COUNTS[self.name]

    @property
    def sizes(self):
        """Names of the size arguments, e.g. ``("n",)`` or ``("b", "d")``."""
        return self.counts.sizes

    def flops(self, *sizes):
        """Useful floating-point operations for these sizes (an FMA counts 2), in FLOP."""
        return self.counts.flops(*sizes)

    def bytes_moved(self, *sizes, dtype="float32"):
        """Bytes a perfect implementation reads plus writes in DRAM for these sizes and dtype."""
        return self.counts.bytes_moved(*sizes, dtype=dtype)

    def span(self, *sizes):
        """Length of the critical path in dependent steps; None where the kernel does not teach it."""
        return self.counts.span(*sizes)

    def make_inputs(self, *sizes, dtype="float32", xp=None, seed=None):
        """Fresh random inputs for ``run`` (never zeros) on ``xp`` (default: the current backend).

        ``seed`` (int or None) makes them repeatable; None draws fresh entropy.
        """
        self._check_sizes(sizes)
        dtype = choice("dtype", _name(dtype), self.dtypes)
        xp = _resolve_xp(xp)
        if dtype in self.gpu_only_dtypes and xp is np:
            raise ValueError(f"{self.name} in {dtype} needs the GPU backend: NumPy has no {dtype}; "
                             f"use one of {', '.join(d for d in self.dtypes if d not in self.gpu_only_dtypes)}")
        return self.inputs_fn(*sizes, dtype=dtype, xp=xp, rng=np.random.default_rng(seed))

    def run(self, *inputs, **options):
        """Run on the inputs' device: the CuPy version for CuPy arrays, the NumPy one otherwise."""
        opts = self._options(options)
        if array_module(*inputs) is np:
            return self.cpu(*inputs, **opts)
        if self.gpu is None:
            raise NotImplementedError(f"{self.name} has no GPU version")
        return self.gpu(*inputs, **opts)

    def expected(self, *inputs, **options):
        """The float64 NumPy reference result for these inputs."""
        host = tuple(to_numpy(a) if is_gpu_array(a) else a for a in inputs)
        return self.reference(*host, **self._options(options))

    def intensity(self, *sizes, dtype="float32"):
        """Arithmetic intensity ``flops / bytes_moved`` in FLOP/byte."""
        return self.counts.intensity(*sizes, dtype=dtype)

    def check(self, *sizes, dtype="float32", xp=None, seed=None, rtol=None, **options):
        """Run once on fresh random inputs and compare with the reference; return the error.

        Raises ``AssertionError`` (naming kernel, sizes, dtype, seed and error) beyond ``rtol``
        (default: a per-dtype tolerance).
        """
        seed = int(np.random.SeedSequence().entropy % 2**32) if seed is None else seed
        inputs = self.make_inputs(*sizes, dtype=dtype, xp=xp, seed=seed)
        err = relative_error(self.run(*inputs, **options), self.expected(*inputs, **options))
        tol = TOLERANCE[_name(dtype)] if rtol is None else rtol
        if not err <= tol:
            raise AssertionError(f"{self.name}{sizes} {dtype} options={options} seed={seed}: "
                                 f"relative error {err:.3g} > {tol:.3g}")
        return err

    def _options(self, given):
        unknown = set(given) - set(self.options)
        if unknown:
            raise TypeError(f"{self.name} has no option {sorted(unknown)}; its options are "
                            f"{sorted(self.options) or 'none'}")
        return {**self.options, **given}

    def _check_sizes(self, sizes):
        self.counts.check_sizes(sizes)

    def __repr__(self):
        return f"Kernel({self.name!r}: {self.summary}; sizes {self.sizes})"
