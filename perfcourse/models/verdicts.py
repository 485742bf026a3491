"""What a verdict decides, as data: the course's one meaning of "close", and where a measurement fell.

No sentence is made here (models know no language): :mod:`perfcourse.teach.verdicts` and
:mod:`perfcourse.teach.explain` turn these outcomes into the sentences a lesson prints.
"""

from __future__ import annotations

import numpy as np

from .._check import real

__all__ = ["CLOSE_RATIO", "NEAR_ONE", "is_close", "speedup_outcome", "nearest_bound"]

# The course's one meaning of "close": two positive numbers whose ratio lies within 1/1.25 and 1.25
# (0.8x to 1.25x). Lesson 00 introduces it; every verdict uses it.
CLOSE_RATIO = 1.25
# A speedup within 10% of 1x reads "no faster than one worker" (or "barely faster"), not slower or faster:
# the run-to-run spread of one timing on a loaded machine is of that order (lesson 00's repeats).
NEAR_ONE = 0.1


def is_close(value, reference, band=CLOSE_RATIO):
    """True when ``value / reference`` lies in ``[1/band, band]`` (both > 0).

    Examples
    --------
    >>> is_close(1.2, 1.0), is_close(0.79, 1.0), is_close(2.0, 1.0, band=2)
    (True, False, True)
    """
    v = real("value", value, low=0, low_open=True)
    r = real("reference", reference, low=0, low_open=True)
    band = real("band", band, low=1)
    return 1 / band <= v / r <= band


def speedup_outcome(measured, predicted, *, band=CLOSE_RATIO):
    """Which way a measured speedup came out against the prediction.

    Returns ``"close"`` (measured/predicted within ``band``: the course's "close"), ``"slower"``
    (more workers took longer than one: speedup below 1x), ``"short"`` (faster than one
    worker but below the prediction) or ``"above"`` (above it). Measured speedups change
    from machine to machine and run to run, so lessons print the case that happened.

    Parameters
    ----------
    measured, predicted : float, > 0, speedups ``T1 / T_N`` (x)
    band : float >= 1, the ratio still counted as close (default ``CLOSE_RATIO``, 1.25)

    Examples
    --------
    >>> [speedup_outcome(m, 1.7) for m in (0.8, 1.2, 1.6, 2.2)]
    ['slower', 'short', 'close', 'above']
    """
    m, p = _scalar("measured", measured), _scalar("predicted", predicted)
    if is_close(m, p, band):
        return "close"
    if m < 1:
        return "slower"
    return "short" if m < p else "above"


def _scalar(name, value):
    if np.ndim(value) != 0:
        raise TypeError(f"{name} must be a single speedup > 0 (x), not a sequence; got {value!r}")
    return real(name, value, low=0, low_open=True)


def _time(name, value):
    return _scalar(name, value) if np.ndim(value) == 0 else real(name, value, low=0, low_open=True)


def nearest_bound(seconds, uses):
    """The ceiling a run came nearest: ``(resource, achieved / ceiling)``.

    ``uses`` holds ``(resource, amount, ceiling, unit)`` per resource: the amount one run
    needs (FLOPs, bytes) and the measured ceiling (FLOP/s, bytes/s).

    Examples
    --------
    >>> nearest_bound(1e-3, [("compute", 1e6, 100e9, "FLOP/s"), ("memory", 8e6, 20e9, "B/s")])
    ('memory', 0.4)
    """
    t = _time("seconds", seconds)
    if not uses:
        raise ValueError("uses must list at least one (resource, amount, ceiling, unit)")
    best = None
    for resource, amount, ceiling, _unit in uses:
        fraction = real(f"amount of {resource}", amount, low=0) / t / real(f"ceiling of {resource}", ceiling,
                                                                             low=0, low_open=True)
        if best is None or fraction > best[1]:
            best = (resource, float(fraction))
    return best
