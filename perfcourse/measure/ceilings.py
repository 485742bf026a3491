"""Measured ceilings: the bandwidth, compute rate and launch cost this device really reaches.

Bandwidth is counted as BabelStream counts it: copy moves 2 n elements, triad 3 n, whatever
extra traffic an implementation adds (NumPy's triad makes two passes). Matmul rates are
2 n^3 FLOPs over the median time of a square product per dtype. On the GPU the launch cost is
the time per launch of an empty kernel issued back to back, and the round trip of one launch
plus a synchronisation; on the CPU it is the cost of one NumPy call on a one-element array.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import asdict, dataclass, field

import numpy as np

from .._lang import N_, _
from . import backend as _backend
from . import kernels, timing
from .kernels import sizes
from .samples import Timing

__all__ = ["Ceilings", "measure_ceilings", "MATMUL_SIZES"]

# square matmul size per dtype: (GPU, CPU); quick mode uses QUICK_MATMUL
MATMUL_SIZES = {"bfloat16": (8192, None), "float16": (8192, None), "float32": (8192, 2048),
                "float64": (4096, 1536)}
QUICK_MATMUL = 256
_CACHE: dict = {}


@dataclass(frozen=True)
class Ceilings:
    """What :func:`measure_ceilings` found, in SI units (bytes/s, FLOP/s, seconds)."""

    device: str
    backend: str
    date: str
    copy_bandwidth: float
    triad_bandwidth: float
    stream_elements: int
    stream_dtype: str
    matmul_flops: dict = field(default_factory=dict)
    matmul_sizes: dict = field(default_factory=dict)
    launch_s: float | None = None
    launch_sync_s: float | None = None
    cache_bytes: int | None = None
    timings: dict = field(default_factory=dict)
    notes: tuple = ()

    @property
    def when(self):
        """When these ceilings were measured, to the minute in UTC ("2026-01-02 03:04 UTC"); the stored date as it
        is when it names no time of day (a recorded run's "2026-01-01") or is no ISO date.

        Examples
        --------
        >>> Ceilings("a CPU", "numpy", "2026-01-02T03:04:05+00:00", 2e10, 1e10, 1024, "float32").when
        '2026-01-02 03:04 UTC'
        >>> Ceilings("a GPU", "cupy", "2026-01-01", 2e12, 2e12, 1024, "float32").when
        '2026-01-01'
        """
        if len(self.date) <= 10:
            return self.date
        try:
            return _dt.datetime.fromisoformat(self.date).astimezone(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        except ValueError:
            return self.date

    @property
    def bandwidth(self):
        """The best measured memory bandwidth (bytes/s): the larger of copy and triad."""
        return max(self.copy_bandwidth, self.triad_bandwidth)

    def peak_flops(self, dtype="float32"):
        """Measured matmul FLOP/s for ``dtype``; ValueError if it was not measured here."""
        if dtype not in self.matmul_flops:
            raise ValueError(f"dtype must be one measured here: {', '.join(self.matmul_flops) or 'none'}; "
                             f"got {dtype!r}")
        return self.matmul_flops[dtype]

    def timing(self, name):
        """The :class:`~perfcourse.measure.samples.Timing` behind ceiling ``name`` (``"copy"``, ``"triad"``,
        ``"matmul_float32"``, ...), rebuilt from its kept samples; ValueError if none were kept for it."""
        kept = {k: v for k, v in self.timings.items() if isinstance(v, dict) and v.get("samples")}
        if name not in kept:
            raise ValueError(f"name must be a ceiling whose samples were kept: {', '.join(kept) or 'none'}; "
                             f"got {name!r}")
        t = kept[name]
        return Timing.from_samples(t["samples"], name=str(t.get("name", name)), backend=self.backend,
                                   device=self.device, l2=str(t.get("l2", "warm")), batch=int(t.get("batch", 1)),
                                   repeat=int(t.get("repeat", 0)), stopped_early=bool(t.get("stopped_early")))

    def kept(self, *names):
        """The :class:`~perfcourse.measure.samples.Timing` of each ceiling in ``names``, ``None`` where its samples
        were not kept (a recorded run): what a verdict read against these ceilings depends on.

        A verdict against a ceiling is only as steady as the ceiling's own timing, so lessons pass these
        to :func:`perfcourse.teach.verdicts.judged` beside the timing being judged.
        """
        have = {k for k, v in self.timings.items() if isinstance(v, dict) and v.get("samples")}
        return [self.timing(n) if n in have else None for n in names]

    def to_dict(self):
        """A JSON-ready dict (``from_dict`` reads it back)."""
        d = asdict(self)
        d["notes"] = list(self.notes)
        return d

    @classmethod
    def from_dict(cls, d):
        """Rebuild from :meth:`to_dict` output, e.g. a recorded GPU run's ``"ceilings"``."""
        known = {k: v for k, v in d.items() if k in cls.__dataclass_fields__}
        known["notes"] = tuple(known.get("notes", ()))
        return cls(**known)


def _summary(t):
    return {"p50_s": t.p50, "p95_s": t.p95, "p99_s": t.p99, "n": t.n, "batch": t.batch, "noisy": t.noisy,
            "name": t.name, "l2": t.l2, "repeat": t.repeat, "stopped_early": t.stopped_early,
            "samples": [float(v) for v in t.samples]}


def _settings(quick, on_gpu):
    if quick:
        return {"repeat": 5, "warmup_s": 0.01, "max_duration_s": 1.0}
    if on_gpu:
        return {"repeat": 20, "warmup_s": 0.2, "max_duration_s": 4.0}
    return {"repeat": 10, "warmup_s": 0.05, "max_duration_s": 2.0}


def _stream(b, quick, settings, record):
    n = sizes.stream_elements(b, quick=quick)
    n, (x, y, z, q) = sizes.fit(lambda m: kernels.triad.make_inputs(m, dtype="float32", xp=b.xp, seed=1), n,
                                minimum=2**16, what="STREAM arrays")
    t_copy = timing.measure(kernels.copy.run, x, z, name="copy", backend=b, **settings)
    t_triad = timing.measure(kernels.triad.run, x, y, z, q, name="triad", backend=b, **settings)
    record["timings"].update(copy=_summary(t_copy), triad=_summary(t_triad))
    record.update(copy_bandwidth=kernels.copy.bytes_moved(n) / t_copy.p50,
                  triad_bandwidth=kernels.triad.bytes_moved(n) / t_triad.p50, stream_elements=n,
                  stream_dtype="float32")


def _matmul(b, dtype, quick, settings, record):
    size = MATMUL_SIZES[dtype][0 if b.on_gpu else 1]
    if size is None:
        return
    size = QUICK_MATMUL if quick else size
    k = kernels.matmul
    size, (A, B) = sizes.fit(lambda s: k.make_inputs(s, s, s, dtype=dtype, xp=b.xp, seed=2), size,
                             minimum=256, what=f"{dtype} matrices")
    t = timing.measure(k.run, A, B, name=f"matmul {dtype}", backend=b, **settings)
    record["timings"][f"matmul_{dtype}"] = _summary(t)
    record["matmul_flops"][dtype] = k.flops(size, size, size) / t.p50
    record["matmul_sizes"][dtype] = size


def _launch(b, settings, record):
    if b.on_gpu:
        from .kernels import _cuda

        noop = _cuda.function("spin.cu", "noop")
        t = timing.measure(noop, (1,), (1,), (), name=N_("empty kernel launch"), backend=b, **settings)
        host = _backend.Backend("numpy", np, False, b.device, "host clock around launch + synchronize")

        def round_trip():
            noop((1,), (1,), ())
            b.synchronize()

        t_sync = timing.measure(round_trip, name=N_("launch + synchronize"), backend=host, batch=1, **settings)
        record["timings"].update(launch=_summary(t), launch_sync=_summary(t_sync))
        record.update(launch_s=t.p50, launch_sync_s=t_sync.p50)
    else:
        one = np.ones(1, dtype=np.float32)
        t = timing.measure(np.add, one, one, kwargs={"out": one.copy()}, name=N_("one small NumPy call"),
                           backend=b, **settings)
        record["timings"]["call"] = _summary(t)
        record["launch_s"] = t.p50


def _steps(b):
    dtypes = [d for d, (gpu, cpu) in MATMUL_SIZES.items() if (gpu if b.on_gpu else cpu)]
    return [("STREAM copy and triad", "stream", None)] + \
           [(f"matmul {d}", "matmul", d) for d in dtypes] + [("launch cost", "launch", None)]


def measure_ceilings(*, quick=False, backend=None, progress=True, cached=True):
    """Measure bandwidth (copy, triad), matmul rate per dtype and launch/call cost; return :class:`Ceilings`.

    Parameters
    ----------
    quick : bool
        Small sizes and few repeats (seconds, for tests): the figures are then only indicative.
    backend : Backend, optional
        Defaults to :func:`perfcourse.measure.backend.get`.
    progress : bool
        Show a tqdm progress bar.
    cached : bool
        Reuse this process's earlier result for the same device and ``quick``.

    A step that fails (an unsupported dtype, a library error) is left out and explained in
    ``notes`` instead of stopping the others.
    """
    if not isinstance(quick, bool) or not isinstance(progress, bool) or not isinstance(cached, bool):
        raise TypeError("quick, progress and cached must be True or False")
    b = backend or _backend.get()
    key = (b.name, b.device, quick)
    if cached and key in _CACHE:
        return _CACHE[key]
    from tqdm.auto import tqdm

    settings = _settings(quick, b.on_gpu)
    record = {"device": b.device, "backend": b.name, "date": _dt.datetime.now(_dt.timezone.utc).isoformat(),
              "cache_bytes": b.cache_bytes, "matmul_flops": {}, "matmul_sizes": {}, "timings": {}, "notes": []}
    for label, step, dtype in tqdm(_steps(b), desc=_("measuring ceilings"), disable=not progress, leave=False):
        try:
            if step == "stream":
                _stream(b, quick, settings, record)
            elif step == "matmul":
                _matmul(b, dtype, quick, settings, record)
            else:
                _launch(b, settings, record)
        except Exception as err:  # noqa: BLE001 - one failed step must not hide the others
            if step == "stream":
                raise
            record["notes"].append(f"{label}: not measured ({type(err).__name__}: {err})")
    record["notes"] = tuple(record["notes"])
    result = Ceilings(**record)
    _CACHE[key] = result
    return result
