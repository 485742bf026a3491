"""The result of a measurement: every sample, its percentiles, and how it was taken.

A :class:`Timing` keeps the raw samples in seconds per call (never only a mean), with the
backend, device, batch and cache state they were taken under, so that a claim can name them.
Percentiles are percents (50 for the median, 99 for p99), as everywhere in the course.

Examples
--------
>>> t = Timing.from_samples([1e-3, 2e-3, 3e-3, 4e-3], name="demo")
>>> t.p50, t.percentile(99) == t.p99
(0.0025, True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .._check import real
from .._lang import _
from ..models.percentiles import sorted_percentile
from ..units import format_seconds

__all__ = ["Timing", "NOISY_IQR"]

NOISY_IQR = 0.1   # an IQR above this fraction of the median marks a timing noisy


@dataclass(frozen=True, eq=False)
class Timing:
    """The result of :func:`measure`: raw samples in seconds per call, plus how they were taken.

    ``samples`` holds one value per timed sample, already divided by ``batch`` (calls per
    sample). ``l2`` is ``"warm"`` or ``"cold"``; ``stopped_early`` says the duration cap cut
    the run short of ``repeat`` samples.
    """

    samples: np.ndarray
    name: str = "call"
    backend: str = "numpy"
    device: str = "unknown device"
    l2: str = "warm"
    batch: int = 1
    repeat: int = 0
    warmup_calls: int = 0
    stopped_early: bool = False
    total_s: float = 0.0
    _sorted: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        s = np.asarray(self.samples, dtype=np.float64).ravel()
        if s.size == 0:
            raise ValueError("samples must hold at least one duration; got none")
        if not np.all(np.isfinite(s)) or np.any(s < 0):
            raise ValueError("samples must be finite durations >= 0 seconds")
        s.setflags(write=False)
        object.__setattr__(self, "samples", s)
        object.__setattr__(self, "_sorted", np.sort(s))
        if self.repeat == 0:
            object.__setattr__(self, "repeat", int(s.size))

    @classmethod
    def from_samples(cls, samples, **fields):
        """Build a Timing from durations in seconds (for examples, tests and recorded runs)."""
        return cls(np.asarray(samples, dtype=np.float64), **fields)

    @property
    def n(self):
        """Number of samples."""
        return int(self.samples.size)

    def percentile(self, q):
        """The q-th percentile of the samples in seconds (linear interpolation), 0 <= q <= 100."""
        return sorted_percentile(self._sorted, real("q", q, low=0, high=100))

    @property
    def mean(self):
        return float(self.samples.mean())

    @property
    def p50(self):
        return self.percentile(50)

    median = p50

    @property
    def p95(self):
        return self.percentile(95)

    @property
    def p99(self):
        return self.percentile(99)

    @property
    def min(self):
        return float(self._sorted[0])

    @property
    def iqr_over_median(self):
        """(p75 - p25) / p50: spread relative to the typical value; above 0.1 is flagged noisy."""
        iqr = self.percentile(75) - self.percentile(25)
        if self.p50 == 0:
            return 0.0 if iqr == 0 else math.inf
        return iqr / self.p50

    @property
    def noisy(self):
        return self.iqr_over_median > NOISY_IQR

    def spread_text(self):
        """IQR/median as printed: two decimals, or as many as it takes to show it above the NOISY limit.

        Examples
        --------
        >>> Timing.from_samples([0.9, 0.96, 1.0, 1.01, 1.1]).spread_text()
        '0.05'
        >>> Timing.from_samples([0.9, 0.95, 1.0, 1.0503, 1.1]).spread_text()    # 0.1003: noisy, and shown so
        '0.1003'
        """
        value = self.iqr_over_median
        text = f"{value:.2f}"
        if value > NOISY_IQR and float(text) <= NOISY_IQR:
            text = f"{value:.4f}"
        return text

    def per_second(self, amount, q=50):
        """``amount`` (bytes, FLOPs, items...) divided by the q-th percentile time.

        Examples
        --------
        >>> Timing.from_samples([0.5, 0.5]).per_second(1e9)
        2000000000.0
        """
        t = self.percentile(q)
        return real("amount", amount, low=0) / t if t > 0 else math.inf

    def to_dict(self):
        """Plain JSON-ready summary (samples included)."""
        return {"name": self.name, "backend": self.backend, "device": self.device, "l2": self.l2,
                "batch": self.batch, "repeat": self.repeat, "n": self.n, "stopped_early": self.stopped_early,
                "mean_s": self.mean, "p50_s": self.p50, "p95_s": self.p95, "p99_s": self.p99,
                "iqr_over_median": self.iqr_over_median, "samples_s": self.samples.tolist()}

    def __str__(self):
        if self.batch > 1:
            how = _("{n} samples of {batch} calls").format(n=self.n, batch=self.batch)
        else:
            how = _("{n} samples").format(n=self.n)
        if self.stopped_early:
            how += _(" (cut to {n} of {repeat} by the time cap)").format(n=self.n, repeat=self.repeat)
        cache = {"warm": _("warm L2"), "cold": _("cold L2")}.get(self.l2, f"{self.l2} L2")
        text = _("{name}: p50 {p50}, p95 {p95}, p99 {p99}, mean {mean} per call; {how}, {cache}, {backend} on "
                 "{device}").format(name=self.name, p50=format_seconds(self.p50), p95=format_seconds(self.p95),
                                    p99=format_seconds(self.p99), mean=format_seconds(self.mean), how=how,
                                    cache=cache, backend=self.backend, device=self.device)
        if self.noisy:
            text += _("; NOISY: IQR/median {spread} > {limit}").format(spread=self.spread_text(), limit=NOISY_IQR)
        return text
