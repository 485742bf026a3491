"""Scaling measurements turned into the numbers Amdahl and Gustafson talk about.

A scaling experiment gives a list of worker counts ``n`` and the wall time measured at
each. This module turns those into speedup, efficiency and the serial fraction (Karp-Flatt
per point, and one least-squares fit over all points), and predicts how per-call overhead
adds serial time. Times are in seconds; speedups and fractions are plain ratios.

Strong scaling keeps the total problem fixed (time should fall as ``1/n``); weak scaling
keeps the work per worker fixed (time should stay flat while the problem grows ``n`` times).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._check import choice, out, real
from ..units import format_seconds
from . import laws

__all__ = [
    "serial_fraction", "amdahl_time", "fit_serial_fraction", "call_overhead_time", "model_time",
    "ScalingTable", "strong_scaling", "weak_scaling",
]


def serial_fraction(serial_time, total_time):
    """Fraction of the one-worker time that is serial: ``s = t_serial / t_total``.

    Parameters
    ----------
    serial_time : float or array, seconds, >= 0
        Time spent in the part that cannot run in parallel.
    total_time : float or array, seconds, > 0
        Whole one-worker run (serial part included), so ``serial_time <= total_time``.

    Examples
    --------
    >>> serial_fraction(0.002, 0.020)
    0.1
    """
    ts = real("serial_time", serial_time, low=0)
    tt = real("total_time", total_time, low=0, low_open=True)
    if np.any(np.asarray(ts) > np.asarray(tt)):
        raise ValueError(f"serial_time must be <= total_time (it is part of it); "
                         f"got serial_time={serial_time!r}, total_time={total_time!r}")
    return out(np.asarray(ts) / np.asarray(tt))


def amdahl_time(t1, serial_fraction, n):
    """Predicted wall time on ``n`` workers of a run that took ``t1`` seconds on one.

    ``t_n = t1 * (s + (1 - s) / n)``: the serial part stays, the rest is divided by ``n``.

    Examples
    --------
    >>> round(amdahl_time(2.0, 0.1, 8), 6)  # seconds
    0.425
    """
    t = real("t1", t1, low=0, low_open=True)
    return out(t / np.asarray(laws.amdahl_speedup(serial_fraction, n)))


def fit_serial_fraction(n, speedup):
    """Least-squares Amdahl serial fraction that best explains measured speedups.

    Amdahl gives ``1/speedup - 1/n = s * (1 - 1/n)``, a straight line through the origin
    in ``x = 1 - 1/n``; the fitted slope, clipped to [0, 1], is ``s``. Points at ``n = 1``
    carry no information and are ignored. With one point this is the Karp-Flatt metric.

    Parameters
    ----------
    n : array of worker counts, >= 1, at least one > 1
    speedup : array of measured speedups (same length), > 0

    Examples
    --------
    >>> n = [1, 2, 4, 8]
    >>> round(fit_serial_fraction(n, laws.amdahl_speedup(0.2, n)), 6)
    0.2
    >>> round(fit_serial_fraction([2], [1.6]), 6) == round(laws.karp_flatt(1.6, 2), 6)
    True
    """
    n, psi = _paired(real("n", n, low=1), "n", real("speedup", speedup, low=0, low_open=True), "speedup")
    keep = n > 1
    if not keep.any():
        raise ValueError(f"n needs at least one worker count > 1 to fit a serial fraction; got {n.tolist()}")
    x = 1.0 - 1.0 / n[keep]
    y = 1.0 / psi[keep] - 1.0 / n[keep]
    return float(np.clip(np.dot(x, y) / np.dot(x, x), 0.0, 1.0))


def call_overhead_time(work_time, calls, per_call):
    """Wall time of work split into ``calls`` calls that each cost ``per_call`` seconds extra.

    ``t = work_time + calls * per_call``. The overhead part is serial work: it does not
    shrink when the calls get smaller, so many tiny calls are bound by it.

    Parameters
    ----------
    work_time : float, seconds, >= 0 (the useful work, the same however it is split)
    calls : float or array, >= 1 (number of launches or calls)
    per_call : float, seconds, >= 0 (launch latency or interpreter cost per call)

    Examples
    --------
    >>> round(call_overhead_time(20e-6, 1000, 5e-6) * 1e3, 3)  # ms
    5.02
    """
    w = real("work_time", work_time, low=0)
    c = real("calls", calls, low=1)
    p = real("per_call", per_call, low=0)
    return out(w + c * p)


def model_time(work_time, overhead, n, processors, kind="strong"):
    """Time on ``n`` workers when each call costs ``overhead`` and only ``processors`` run at once.

    Strong scaling splits a fixed ``work_time`` over the workers; weak scaling gives each worker
    ``work_time``. Either way at most ``processors`` workers make progress together, so
    ``t = overhead + work_time * k / min(n, processors)`` with ``k = 1`` (strong) or ``k = n``
    (weak). The overhead (dispatch, launch, synchronisation) does not shrink with ``n``: under
    strong scaling it ends up dominating.

    Parameters
    ----------
    work_time : float, seconds, >= 0 (parallelisable work of one worker's run)
    overhead : float or array, seconds, >= 0 (fixed cost per call, may depend on ``n``)
    n : float or array, >= 1 (workers)
    processors : float, >= 1 (how many workers really run at the same time)
    kind : {"strong", "weak"}

    Examples
    --------
    >>> [round(float(t) * 1e3, 3) for t in model_time(10e-3, 50e-6, np.array([1, 2, 4]), 2)]  # ms
    [10.05, 5.05, 5.05]
    >>> [round(float(t) * 1e3, 3) for t in model_time(10e-3, 50e-6, np.array([1, 2, 4]), 2, "weak")]
    [10.05, 10.05, 20.05]
    """
    w = real("work_time", work_time, low=0)
    o = real("overhead", overhead, low=0)
    n = real("n", n, low=1)
    p = real("processors", processors, low=1)
    k = {"strong": 1.0, "weak": n}[choice("kind", kind, ("strong", "weak"))]
    return out(o + w * k / np.minimum(n, p))


@dataclass(frozen=True)
class ScalingTable:
    """A strong- or weak-scaling measurement with its derived columns.

    ``speedup`` is ``t1 / t_n`` (strong) or the scaled speedup ``n * t1 / t_n`` (weak);
    ``efficiency`` is ``speedup / n``; ``karp_flatt`` is the experimental serial fraction
    per point (NaN at ``n = 1``; meaningful for strong scaling only).
    """

    kind: str
    n: np.ndarray
    seconds: np.ndarray
    speedup: np.ndarray
    efficiency: np.ndarray
    karp_flatt: np.ndarray

    def serial_fraction(self):
        """Least-squares Amdahl serial fraction over all points (strong scaling only)."""
        if self.kind != "strong":
            raise ValueError("serial_fraction() fits Amdahl's law, which needs a strong-scaling table; "
                             f"this one is {self.kind!r}")
        return fit_serial_fraction(self.n, self.speedup)

    def __str__(self):
        head = f"{self.kind} scaling" + ("" if self.kind == "strong" else " (speedup = scaled speedup)")
        rows = [head, f"{'N':>5} {'T_N':>12} {'speedup':>9} {'efficiency':>11} {'Karp-Flatt e':>13}"]
        for n, t, sp, ef, e in zip(self.n, self.seconds, self.speedup, self.efficiency, self.karp_flatt,
                                   strict=True):
            e_text = "-" if np.isnan(e) else f"{e:.3f}"
            rows.append(f"{n:>5g} {format_seconds(t):>12} {sp:>8.2f}x {ef:>10.1%} {e_text:>13}")
        return "\n".join(rows)


def strong_scaling(n, seconds):
    """Strong-scaling table: fixed total problem, time measured on ``n`` workers.

    The first entry must be the baseline (usually ``n = 1``); speedups are relative to it
    and scaled by its worker count, so a baseline at ``n = 2`` is allowed.

    Examples
    --------
    >>> table = strong_scaling([1, 4], [100.0, 30.0])
    >>> print(table)
    strong scaling
        N          T_N   speedup  efficiency  Karp-Flatt e
        1        100 s     1.00x     100.0%             -
        4         30 s     3.33x      83.3%         0.067
    """
    n, t = _table_inputs(n, seconds)
    return _table("strong", n, t, n[0] * t[0] / t)


def weak_scaling(n, seconds):
    """Weak-scaling table: work per worker fixed, so the problem grows with ``n``.

    Scaled speedup is ``(n / n0) * t0 / t_n``: the work done per second relative to the
    baseline run. Flat time means efficiency 100%.

    Examples
    --------
    >>> print(weak_scaling([1, 2, 4], [1.0, 1.0, 1.25]))
    weak scaling (speedup = scaled speedup)
        N          T_N   speedup  efficiency  Karp-Flatt e
        1          1 s     1.00x     100.0%             -
        2          1 s     2.00x     100.0%             -
        4       1.25 s     3.20x      80.0%             -
    """
    n, t = _table_inputs(n, seconds)
    return _table("weak", n, t, n * t[0] / t)


def _table(kind, n, t, psi):
    e = np.full_like(n, np.nan)
    many = n > 1
    if kind == "strong" and many.any():
        e[many] = laws.karp_flatt(psi[many], n[many])
    return ScalingTable(kind, n, t, psi, psi / n, e)


def _table_inputs(n, seconds):
    n, t = _paired(real("n", n, low=1, integer=True), "n", real("seconds", seconds, low=0, low_open=True), "seconds")
    if np.any(np.diff(n) <= 0):
        raise ValueError(f"n must be strictly increasing worker counts; got {n.tolist()}")
    return n, t


def _paired(a, name_a, b, name_b):
    a, b = np.atleast_1d(a), np.atleast_1d(b)
    if a.ndim != 1 or b.ndim != 1 or a.shape != b.shape or a.size == 0:
        raise ValueError(f"{name_a} and {name_b} must be non-empty 1-D sequences of the same length; "
                         f"got shapes {a.shape} and {b.shape}")
    return a, b
