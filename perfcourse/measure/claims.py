"""The claim card: how the course states a performance result.

"3x faster" on its own says almost nothing: faster at what, at which batch size, on which
shapes and data type, at the median or at the tail, on which device? A :class:`Claim` names
all of it, and :func:`compare` only turns two claims into a speedup when they time the same
workload, batch, shape, dtype and percentile, each from more than one sample.

Examples
--------
>>> old = Claim("dense layer", 8, (8, 1024), "float32", "CPU", "numpy", "p50", 3e-3, 30)
>>> new = Claim("dense layer", 8, (8, 1024), "float32", "GPU", "cupy", "p50", 1e-3, 30)
>>> print(old)
dense layer, batch 8, shape 8x1024, float32: p50 3 ms over 30 samples (numpy on CPU)
>>> print(compare(old, new))
3.00x faster: dense layer, batch 8, shape 8x1024, float32, p50 3 ms (numpy on CPU) -> 1 ms (cupy on GPU)
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass, fields

import numpy as np

from .._check import positive_int, real
from .._lang import _, listing
from ..models.claimcheck import MATCH_FIELDS
from ..models.claimcheck import percentile_name as _percentile
from ..units import format_seconds
from .timing import Timing

__all__ = ["Claim", "Comparison", "Card", "compare", "predict_vs_measure", "state_speedup", "MATCH_FIELDS"]


def _shape(value):
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        value = (value,)
    if not isinstance(value, (tuple, list)) or not all(
            isinstance(v, numbers.Integral) and not isinstance(v, bool) and v >= 0 for v in value):
        raise TypeError(f"shape must be a tuple of whole numbers >= 0 (or None); got {value!r}")
    return tuple(int(v) for v in value)


def _dtype(value):
    try:
        return np.dtype(value).name
    except TypeError:
        if isinstance(value, str) and value:
            return value  # e.g. "bfloat16", which NumPy does not know
        raise TypeError(f"dtype must be a NumPy dtype or a dtype name (or None); got {value!r}") from None


def _text(name, value):
    if not isinstance(value, str) or not value.strip():
        raise TypeError(f"{name} must be a non-empty string (or None); got {value!r}")
    return value.strip()


def format_shape(shape):
    """``(8, 1024)`` -> ``"8x1024"``.

    Examples
    --------
    >>> format_shape((8, 1024)), format_shape(()), format_shape(None)
    ('8x1024', 'scalar', '?')
    """
    if shape is None:
        return "?"
    return "x".join(str(s) for s in shape) if shape else "scalar"


@dataclass(frozen=True)
class Claim:
    """One measured result with everything needed to compare it: the course's unit of evidence.

    Every field may be None (an incomplete claim can be written down but not compared).
    ``percentile`` is ``"p50"``, ``"p95"``, ``"p99"``... (a number such as 95 is accepted),
    ``seconds`` the time at that percentile, ``samples`` how many samples it came from.
    """

    workload: str | None = None
    batch: int | None = None
    shape: tuple | None = None
    dtype: str | None = None
    device: str | None = None
    backend: str | None = None
    percentile: str | None = None
    seconds: float | None = None
    samples: int | None = None

    def __post_init__(self):
        checks = {"workload": lambda v: _text("workload", v), "batch": lambda v: positive_int("batch", v),
                  "shape": _shape, "dtype": _dtype, "device": lambda v: _text("device", v),
                  "backend": lambda v: _text("backend", v), "percentile": _percentile,
                  "seconds": lambda v: real("seconds", v, low=0, low_open=True),
                  "samples": lambda v: positive_int("samples", v)}
        for name, check in checks.items():
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, check(value))

    @classmethod
    def from_timing(cls, timing, *, workload, batch, shape, dtype, percentile="p50"):
        """The claim a :class:`~perfcourse.measure.timing.Timing` supports at one percentile."""
        if not isinstance(timing, Timing):
            raise TypeError(f"timing must be a perfcourse.measure.timing.Timing; got {type(timing).__name__}")
        percentile = _percentile(percentile)
        return cls(workload, batch, shape, dtype, timing.device, timing.backend, percentile,
                   timing.percentile(float(percentile[1:])), timing.n)

    def missing(self):
        """Names of the fields left empty."""
        return tuple(f.name for f in fields(self) if getattr(self, f.name) is None)

    def where(self):
        return _("{backend} on {device}").format(backend=self.backend or "?", device=self.device or "?")

    def __str__(self):
        what = _("{workload}, batch {batch}, shape {shape}, {dtype}").format(
            workload=self.workload or _("<no workload>"), batch=self.batch or "?", shape=format_shape(self.shape),
            dtype=self.dtype or _("<no dtype>"))
        seconds = format_seconds(self.seconds) if self.seconds is not None else "?"
        return _("{what}: {percentile} {seconds} over {samples} samples ({where})").format(
            what=what, percentile=self.percentile or _("<no percentile>"), seconds=seconds,
            samples=self.samples or "?", where=self.where())


@dataclass(frozen=True)
class Comparison:
    """A speedup that :func:`compare` allowed: ``baseline.seconds / new.seconds``."""

    baseline: Claim
    new: Claim

    @property
    def speedup(self):
        return self.baseline.seconds / self.new.seconds

    def __float__(self):
        return float(self.speedup)

    def __str__(self):
        b, n = self.baseline, self.new
        verdict = (_("{speedup:.2f}x faster") if self.speedup >= 1 else
                   _("{speedup:.2f}x the speed (slower)")).format(speedup=self.speedup)
        return _("{verdict}: {workload}, batch {batch}, shape {shape}, {dtype}, {percentile} {before} ({before_where}) "
                 "-> {after} ({after_where})").format(
            verdict=verdict, workload=b.workload, batch=b.batch, shape=format_shape(b.shape), dtype=b.dtype,
            percentile=b.percentile, before=format_seconds(b.seconds), before_where=b.where(),
            after=format_seconds(n.seconds), after_where=n.where())


def compare(baseline, new):
    """Speedup of ``new`` over ``baseline``, allowed only between comparable claims.

    Raises ValueError naming every missing field and every field in ``MATCH_FIELDS``
    (workload, batch, shape, dtype, percentile) that differs, and when either claim rests on a
    single sample. Device and backend may differ: that is usually the point.

    Examples
    --------
    >>> a = Claim("sum", 1, (2**20,), "float32", "CPU", "numpy", "p50", 2e-3, 20)
    >>> compare(a, Claim("sum", 1, (2**20,), "float64", "CPU", "numpy", "p99", 1e-3, 20))
    Traceback (most recent call last):
    ...
    ValueError: refusing to compare: dtype differs (float32 vs float64); percentile differs (p50 vs p99)
    """
    for name, c in (("baseline", baseline), ("new", new)):
        if not isinstance(c, Claim):
            raise TypeError(f"{name} must be a perfcourse.measure.claims.Claim; got {type(c).__name__}")
    sides = ((_("baseline"), baseline), (_("new"), new))
    problems = [_("{side} is missing {fields}").format(side=side, fields=listing(c.missing()))
                for side, c in sides if c.missing()]
    for f in MATCH_FIELDS:
        b, n = getattr(baseline, f), getattr(new, f)
        if b is not None and n is not None and b != n:
            show = format_shape if f == "shape" else str
            problems.append(_("{field} differs ({baseline} vs {new})").format(field=f, baseline=show(b), new=show(n)))
    problems += [_("{side} rests on a single sample (a speedup needs at least 2 per side)").format(side=side)
                 for side, c in sides if c.samples == 1]
    if problems:
        raise ValueError(_("refusing to compare: {problems}").format(problems=_("; ").join(problems)))
    return Comparison(baseline, new)


def state_speedup(factor, *, workload=None, batch=None, shape=None, dtype=None, percentile=None):
    """Turn "``factor``x faster" into a statement, refusing it while it names too little.

    Examples
    --------
    >>> state_speedup(3)
    Traceback (most recent call last):
    ...
    ValueError: '3x faster' is refused: it names no workload, batch, shape, dtype, percentile
    >>> state_speedup(3, workload="dense layer", batch=8, shape=(8, 1024), dtype="float32", percentile="p50")
    '3x faster at p50 for dense layer, batch 8, shape 8x1024, float32'
    """
    factor = real("factor", factor, low=0, low_open=True)
    given = {"workload": workload, "batch": batch, "shape": shape, "dtype": dtype, "percentile": percentile}
    lacking = [k for k, v in given.items() if v is None]
    if lacking:
        raise ValueError(_("'{factor:g}x faster' is refused: it names no {fields}").format(
            factor=factor, fields=listing(lacking)))
    c = Claim(workload, batch, shape, dtype, percentile=percentile)
    return _("{factor:g}x faster at {percentile} for {workload}, batch {batch}, shape {shape}, {dtype}").format(
        factor=factor, percentile=c.percentile, workload=c.workload, batch=c.batch, shape=format_shape(c.shape),
        dtype=c.dtype)


@dataclass(frozen=True)
class Card:
    """Prediction against measurement, as one line (see :func:`predict_vs_measure`)."""

    prediction_s: float
    timing: Timing
    workload: str
    batch: int
    shape: tuple
    dtype: str

    @property
    def ratio(self):
        """Measured p50 divided by the prediction: 1 means the model was right."""
        return self.timing.p50 / self.prediction_s

    def claim(self, percentile="p50"):
        return Claim.from_timing(self.timing, workload=self.workload, batch=self.batch, shape=self.shape,
                                 dtype=self.dtype, percentile=percentile)

    def __str__(self):
        t = self.timing
        line = (f"predicted {format_seconds(self.prediction_s)} | measured p50 {format_seconds(t.p50)} "
                f"(p95 {format_seconds(t.p95)}, p99 {format_seconds(t.p99)}) | measured/predicted "
                f"{self.ratio:.2f} | {self.workload}, batch {self.batch}, shape {format_shape(self.shape)}, "
                f"{self.dtype} | {t.backend} on {t.device}, {t.n} samples, {t.l2} L2")
        return line + (" | NOISY" if t.noisy else "")


def predict_vs_measure(prediction_s, timing, *, workload, batch, shape, dtype, show=True):
    """Print the course's one-line card: prediction, measurement, their ratio, and what was run.

    Returns the :class:`Card` (assign it, e.g. ``card = predict_vs_measure(...)``, to avoid a
    second copy of the line in a notebook).

    Examples
    --------
    >>> t = Timing.from_samples([1.0e-3, 1.0e-3, 1.02e-3, 1.04e-3], device="CPU")
    >>> card = predict_vs_measure(1e-3, t, workload="copy", batch=1, shape=(2**20,), dtype="float32")
    predicted 1 ms | measured p50 1.01 ms (p95 1.04 ms, p99 1.04 ms) | measured/predicted 1.01 | copy, batch 1, \
shape 1048576, float32 | numpy on CPU, 4 samples, warm L2
    """
    prediction_s = real("prediction_s", prediction_s, low=0, low_open=True)
    if not isinstance(timing, Timing):
        raise TypeError(f"timing must be a perfcourse.measure.timing.Timing; got {type(timing).__name__}")
    ref = Claim(workload, batch, shape, dtype)
    lacking = [k for k in ("workload", "batch", "shape", "dtype") if getattr(ref, k) is None]
    if lacking:
        raise ValueError(f"a prediction card must name {', '.join(lacking)}")
    if not isinstance(show, bool):
        raise TypeError(f"show must be True or False; got {show!r}")
    card = Card(prediction_s, timing, ref.workload, ref.batch, ref.shape, ref.dtype)
    if show:
        print(card)
    return card
