"""Which array library the course runs on: CuPy on a usable NVIDIA GPU, otherwise NumPy.

Since CuPy 13, ``import cupy`` succeeds on a machine with no GPU or no driver; the first
device call then raises ``cupy.cuda.runtime.CUDARuntimeError``. So the choice is made by
asking CuPy whether a device is usable (``cupy.cuda.is_available()``), never by whether the
import works. ``PERFCOURSE_BACKEND=numpy`` or ``=cupy`` forces a choice; forcing CuPy where
no GPU is usable is an error that says why.

The choice is made once, on first use, and cached; ``get(refresh=True)`` makes it again
(tests and notebooks that change the environment variable use this). Importing this module
touches no GPU and changes no global state.

Examples
--------
>>> b = get()
>>> b.name in ("numpy", "cupy")
True
>>> float(b.to_numpy(b.xp.arange(4.0)).sum())
6.0
"""

from __future__ import annotations

import os
import platform
from dataclasses import dataclass, field
from types import ModuleType

import numpy as np

from .._lang import N_, _, lookup
from ..units import format_bytes

__all__ = ["Backend", "get", "describe", "announce", "cpu_model", "cpu_cache_bytes", "probe_cupy", "is_gpu_array",
           "to_numpy", "ENV_VAR", "CHOICES", "NOT_INSTALLED", "INSTALL_CUPY"]


def is_gpu_array(a):
    """True when ``a`` is a CuPy array (checked without importing CuPy).

    Examples
    --------
    >>> is_gpu_array(np.zeros(2)), is_gpu_array([1.0])
    (False, False)
    """
    return type(a).__module__.split(".")[0] == "cupy"


def to_numpy(a):
    """A NumPy array of ``a`` on the host (copied from the GPU when it is a CuPy array).

    Examples
    --------
    >>> to_numpy([1, 2]).tolist()
    [1, 2]
    """
    return a.get() if is_gpu_array(a) else np.asarray(a)

ENV_VAR = "PERFCOURSE_BACKEND"
CHOICES = ("numpy", "cupy")
NOT_INSTALLED = N_("CuPy not installed")
# how to get CuPy, for the messages that refuse to run without it
INSTALL_CUPY = N_('install CuPy with  python -m pip install -e ".[gpu]"  in the course\'s folder (CUDA 12 drivers; '
                  "for CUDA 13 drivers:  python -m pip install cupy-cuda13x)")

_CACHED: Backend | None = None
# assumed last-level cache when the device does not report one: the L3 of a typical desktop CPU,
# larger than any GPU's L2 before Hopper's 50 MiB, so a sweep sized from it still leaves the cache
FALLBACK_CACHE_BYTES = 32 * 2**20


@dataclass(frozen=True)
class Backend:
    """The array library the course measures with, and the device it runs on.

    Attributes
    ----------
    name : str
        ``"cupy"`` or ``"numpy"``.
    xp : module
        The array module (``cupy`` or ``numpy``): write ``xp.ones(...)`` once, run on either.
    on_gpu : bool
        True when arrays live on an NVIDIA GPU.
    device : str
        The device's name: the GPU's (``"NVIDIA H200"``) or the CPU's model.
    reason : str
        Why this backend was chosen, in words.
    cache_bytes : int or None
        The last-level cache in bytes (the GPU's L2, or the CPU's largest cache); None if unknown.
    info : dict
        Further facts, as text for display (SM count, compute capability, versions, core count).
    sms, threads_per_sm : int or None
        The GPU's multiprocessor count and resident threads per multiprocessor, read from the
        device (None on the CPU).
    """

    name: str
    xp: ModuleType
    on_gpu: bool
    device: str
    reason: str
    cache_bytes: int | None = None
    info: dict = field(default_factory=dict)
    sms: int | None = None
    threads_per_sm: int | None = None

    @property
    def last_level_cache(self):
        """``cache_bytes``, or ``FALLBACK_CACHE_BYTES`` when the device did not report it."""
        return int(self.cache_bytes or FALLBACK_CACHE_BYTES)

    @property
    def why(self):
        """``reason`` in the learner's language (see :mod:`perfcourse._lang`)."""
        return lookup(self.reason)

    def synchronize(self):
        """Wait until all queued device work has finished (nothing to wait for on the CPU)."""
        if self.on_gpu:
            self.xp.cuda.Device().synchronize()

    def to_numpy(self, a):
        """Return ``a`` as a NumPy array on the host (copies from the GPU when needed)."""
        return to_numpy(a)

    def random(self, shape, dtype="float32", seed=0):
        """Fresh uniform random numbers in [0, 1) on this backend (seeded; never zeros).

        Examples
        --------
        >>> b = get()
        >>> a = b.to_numpy(b.random((2, 3), seed=1))
        >>> a.shape, str(a.dtype), bool((a >= 0).all() and (a < 1).all())
        ((2, 3), 'float32', True)
        """
        host = np.random.default_rng(seed).random(shape, dtype=np.float64).astype(dtype)
        return self.xp.asarray(host)

    def describe(self):
        """One line: backend, device, and on the CPU the reason there is no GPU."""
        if self.on_gpu:
            extra = ", ".join(f"{v}" for v in (self.info.get("sms"), self.info.get("cache")) if v)
            return _("cupy on the GPU {device}{extra}: {reason}").format(
                device=self.device, extra=f" ({extra})" if extra else "", reason=lookup(self.reason))
        cores = self.info.get("cores")
        return _("numpy on the CPU ({device}{cores}), not a GPU: {reason}").format(
            device=self.device, cores=_(", {cores} logical cores").format(cores=cores) if cores else "",
            reason=lookup(self.reason))


def get(refresh=False):
    """The backend in use: chosen on first call, then cached.

    Parameters
    ----------
    refresh : bool
        Choose again (re-reading ``PERFCOURSE_BACKEND``) instead of returning the cached choice.

    Raises
    ------
    ValueError
        If ``PERFCOURSE_BACKEND`` holds something other than ``numpy``, ``cupy`` or nothing.
    RuntimeError
        If ``PERFCOURSE_BACKEND=cupy`` but CuPy is missing or sees no usable GPU.
    """
    global _CACHED
    if not isinstance(refresh, bool):
        raise TypeError(f"refresh must be True or False; got {refresh!r}")
    if _CACHED is None or refresh:
        _CACHED = _choose(os.environ.get(ENV_VAR, "").strip().lower())
    return _CACHED


def describe():
    """One line saying which backend and device the course measures on, and why."""
    return get().describe()


def announce():
    """Print :func:`describe`'s line (every lesson that measures calls this first)."""
    b = get()
    line = describe()
    if not b.on_gpu:
        line += _(". Timings in this notebook are CPU timings; on a GPU the same cells run with CuPy.")
    print(line)


def _choose(forced):
    if forced not in ("", "auto") + CHOICES:
        raise ValueError(_("{variable} must be one of 'numpy', 'cupy' or unset; got {value!r}").format(
            variable=ENV_VAR, value=forced))
    if forced == "numpy":
        return _numpy_backend(N_("PERFCOURSE_BACKEND=numpy forces NumPy"))
    cupy, why = probe_cupy()
    if cupy is not None:
        return _cupy_backend(cupy, f"{ENV_VAR}=cupy" if forced == "cupy" else N_("cupy.cuda.is_available() is true"))
    if forced == "cupy":
        hint = f"; {lookup(INSTALL_CUPY)}" if why == NOT_INSTALLED else ""
        raise RuntimeError(_("{variable}=cupy, but the GPU backend cannot be used: {why}{hint}. Unset {variable} or "
                             "set it to numpy to run on the CPU.").format(variable=ENV_VAR, why=lookup(why), hint=hint))
    return _numpy_backend(why)


def probe_cupy():
    """``(cupy module, "")`` when CuPy can use a GPU, else ``(None, the reason in words)``.

    The course's one GPU probe: the backend, the tests' ``gpu`` marker and the MPI step's device
    choice all ask it. It touches a device (its compute capability) only where CuPy imports.
    """
    try:
        import cupy
    except ModuleNotFoundError as err:
        if err.name == "cupy":
            return None, NOT_INSTALLED
        return None, f"CuPy installed but it failed to import: {type(err).__name__}: {err}"
    except Exception as err:  # noqa: BLE001 - a broken install raises other errors at import
        return None, f"CuPy installed but it failed to import: {type(err).__name__}: {err}"
    try:
        if not cupy.cuda.is_available():
            cupy.cuda.runtime.getDeviceCount()  # raises with the driver's own explanation
            return None, N_("CuPy installed but no usable GPU: no CUDA device found")
        cupy.cuda.Device(0).compute_capability  # noqa: B018 - a real device call
    except Exception as err:  # noqa: BLE001 - any driver error means no usable GPU; its text says why
        return None, f"CuPy installed but no usable GPU: {type(err).__name__}: {err}"
    return cupy, ""


def _numpy_backend(reason):
    cache = cpu_cache_bytes()
    info = {"cores": os.cpu_count(), "numpy": np.__version__}
    if cache:
        info["cache"] = f"{format_bytes(cache)} last-level cache"
    return Backend("numpy", np, False, cpu_model(), reason, cache, info)


def _cupy_backend(cupy, reason):
    dev = cupy.cuda.Device()
    props = cupy.cuda.runtime.getDeviceProperties(dev.id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    l2 = int(dev.attributes.get("L2CacheSize", 0)) or None
    sms = int(dev.attributes["MultiProcessorCount"])
    info = {"sms": f"{sms} SMs",
            "compute_capability": dev.compute_capability,
            "cupy": cupy.__version__,
            "cuda_runtime": cupy.cuda.runtime.runtimeGetVersion(),
            "driver": cupy.cuda.runtime.driverGetVersion(),
            "memory_bytes": int(props.get("totalGlobalMem", 0))}
    if l2:
        info["cache"] = f"{format_bytes(l2)} L2"
    return Backend("cupy", cupy, True, name, reason, l2, info, sms=sms,
                   threads_per_sm=int(dev.attributes["MaxThreadsPerMultiProcessor"]))


def cpu_model():
    """The CPU's model name from /proc/cpuinfo, or what ``platform`` knows."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def cpu_cache_bytes(root="/sys/devices/system/cpu/cpu0/cache"):
    """The CPU's last-level (highest-level data or unified) cache in bytes; None if unreadable.

    Examples
    --------
    >>> cpu_cache_bytes(root="/nonexistent") is None
    True
    """
    best = (0, 0)
    try:
        entries = sorted(os.listdir(root))
    except OSError:
        return None
    for entry in entries:
        if not entry.startswith("index"):
            continue
        try:
            level = int(_read(root, entry, "level"))
            kind = _read(root, entry, "type")
            size = _parse_size(_read(root, entry, "size"))
        except (OSError, ValueError):
            continue
        if kind != "Instruction" and (level, size) > best:
            best = (level, size)
    return best[1] or None


def _read(root, entry, name):
    with open(os.path.join(root, entry, name), encoding="utf-8") as f:
        return f.read().strip()


def _parse_size(text):
    """Parse sysfs sizes such as ``32768K`` or ``1M`` into bytes.

    Examples
    --------
    >>> _parse_size("32768K"), _parse_size("1M"), _parse_size("512")
    (33554432, 1048576, 512)
    """
    units = {"K": 2**10, "M": 2**20, "G": 2**30}
    text = text.strip().upper()
    if text and text[-1] in units:
        return int(text[:-1]) * units[text[-1]]
    return int(text)
