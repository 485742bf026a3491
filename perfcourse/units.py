"""The one place the course formats times, rates and sizes.

Every duration the course prints goes through :func:`format_seconds` (s, ms, µs, ns), every
rate through :func:`si` (k, M, G, T, P prefixes: GB/s, TFLOP/s, req/s) and every memory size
through :func:`format_bytes` (KiB, MiB, GiB: powers of two, as caches and memories are sized).
Three significant digits unless asked otherwise. A table's column fixes its unit and decimals
(``format_seconds(t, unit="ms", decimals=1)``, ``si(rate, "GB/s", decimals=1)``), a plot's axis
takes its numbers from :func:`in_unit`, and a value a learner types in a unit (a slider in µs)
becomes seconds or bytes with :func:`from_unit`.

Examples
--------
>>> format_seconds(2.5e-6), si(32e9, "B/s"), format_bytes(192 * 2**20)
('2.5 µs', '32 GB/s', '192 MiB')
>>> in_unit(0.0125, "ms"), in_unit(3.2e12, "TB/s"), from_unit(20, "µs")
(12.5, 3.2, 2e-05)
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ._check import choice, positive_int, real

__all__ = ["format_seconds", "time_scale", "per_second", "si", "format_bytes", "in_unit", "from_unit", "unit_size",
           "TIME_UNITS", "PREFIXES"]

_TIME_UNITS = (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9))
TIME_UNITS = tuple(unit for unit, _ in _TIME_UNITS)     # the one spelling of each: "µs", never "us"
_PER_SECOND = {"s": 1.0, "ms": 1e3, "µs": 1e6, "ns": 1e9}
_PREFIXES = ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""))
_BINARY = (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10))
PREFIXES = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "P": 1e15}


def time_scale(seconds):
    """The unit a duration reads best in, and its size in seconds: ``("ms", 1e-3)`` ...

    Use it to print several related durations (a worked answer) in one unit.

    Examples
    --------
    >>> time_scale(0.0123), time_scale(4.2e-6), time_scale(0.0)
    (('ms', 0.001), ('µs', 1e-06), ('ns', 1e-09))
    """
    seconds = abs(real("seconds", seconds))
    for unit, scale in _TIME_UNITS[:-1]:
        if seconds >= scale:
            return unit, scale
    return _TIME_UNITS[-1]


def per_second(unit):
    """How many of ``unit`` make a second: the factor that puts durations on an axis in that unit.

    Examples
    --------
    >>> per_second("ms"), per_second("µs"), per_second("s")
    (1000.0, 1000000.0, 1.0)
    """
    return _PER_SECOND[choice("unit", unit, TIME_UNITS)]


def format_seconds(seconds, digits=3, *, unit=None, decimals=None):
    """A duration with the unit chosen for it (s, ms, µs or ns) and ``digits`` significant digits.

    For a table's column, ``unit`` fixes the unit and ``decimals`` the digits after the point.

    Examples
    --------
    >>> format_seconds(0.0123), format_seconds(4.2e-6), format_seconds(2.5), format_seconds(7e-9)
    ('12.3 ms', '4.2 µs', '2.5 s', '7 ns')
    >>> format_seconds(1 / 3, digits=5)
    '333.33 ms'
    >>> format_seconds(0.0123, unit="µs"), format_seconds(2.5e-5, unit="ms", decimals=3)
    ('1.23e+04 µs', '0.025 ms')
    """
    seconds = real("seconds", seconds)
    digits = positive_int("digits", digits)
    if unit is None:
        unit, scale = time_scale(seconds)
        value = seconds / scale
    else:
        value = seconds * per_second(unit)
    if decimals is not None:
        return f"{value:.{positive_int('decimals', decimals, low=0)}f} {unit}"
    return f"{value:.{digits}g} {unit}"


def si(value, unit, digits=3, *, decimals=None):
    """A rate or count with an SI prefix; ``unit="s"`` formats a duration; None or NaN gives ``"-"``.

    A unit that carries its prefix already (``"GB/s"``, ``"TFLOP/s"``, ``"MiB"``, or a time unit
    such as ``"ms"``) is kept as given, for a table's column; ``decimals`` then fixes the digits
    after the point.

    Examples
    --------
    >>> si(None, "B/s"), si(2.5e-3, "s"), si(32e9, "B/s"), si(989e12, "FLOP/s"), si(0.5, "req/s")
    ('-', '2.5 ms', '32 GB/s', '989 TFLOP/s', '0.5 req/s')
    >>> si(4.8e12, "GB/s", decimals=1), si(2.5e8, "MFLOP"), si(0.0123, "ms", decimals=2)
    ('4800.0 GB/s', '250 MFLOP', '12.30 ms')
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if not isinstance(unit, str):
        raise TypeError(f"unit must be a string such as 'B/s' or 'FLOP/s'; got {type(unit).__name__}")
    if unit == "s" or unit in _PER_SECOND:
        return format_seconds(value, digits, unit=None if unit == "s" and decimals is None else unit,
                              decimals=decimals)
    value = real("value", value)
    digits = positive_int("digits", digits)
    if _prefix(unit):
        shown = value / unit_size(unit)
        if decimals is not None:
            return f"{shown:.{positive_int('decimals', decimals, low=0)}f} {unit}"
        return f"{shown:.{digits}g} {unit}"
    for scale, prefix in _PREFIXES:
        if abs(value) >= scale:
            return f"{value / scale:.{digits}g} {prefix}{unit}"
    return f"{value:.{digits}g} {unit}"


def _prefix(unit):
    """The SI or binary prefix ``unit`` starts with (``"G"`` of ``"GB/s"``, ``"Mi"`` of ``"MiB"``), else ``""``."""
    for prefix in sorted(PREFIXES, key=len, reverse=True):
        if unit.startswith(prefix) and len(unit) > len(prefix):
            return prefix
    return ""


def unit_size(unit):
    """What one ``unit`` is in the base unit: seconds for ``"ms"``, ``"µs"``..., else its prefix's size.

    Examples
    --------
    >>> unit_size("ms"), unit_size("GB/s"), unit_size("MiB"), unit_size("TFLOP/s"), unit_size("req/s")
    (0.001, 1000000000.0, 1048576, 1000000000000.0, 1.0)
    """
    if not isinstance(unit, str) or not unit:
        raise TypeError(f"unit must be a non-empty string such as 'ms', 'GB/s' or 'MiB'; got {unit!r}")
    if unit in _PER_SECOND:
        return dict(_TIME_UNITS)[unit]
    prefix = _prefix(unit)
    return PREFIXES[prefix] if prefix else 1.0


def _numbers(name, values):
    if isinstance(values, (bool, np.bool_, str, bytes)) or values is None:
        raise TypeError(f"{name} must be a number or an array of numbers; got {values!r}")
    if isinstance(values, numbers.Real):
        return float(values)
    arr = np.asarray(values, dtype=np.float64) if isinstance(values, (list, tuple)) else values
    if not hasattr(arr, "dtype") or arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be a number or an array of numbers; got {type(values).__name__}")
    return arr


def in_unit(values, unit):
    """``values`` (seconds, bytes, FLOP, per second...) counted in ``unit``: the numbers for a plot's axis.

    A time unit multiplies by :func:`per_second`; a prefixed unit divides by its prefix. Arrays
    stay arrays (a list becomes one); NaN stays NaN.

    Examples
    --------
    >>> in_unit(0.0123, "ms"), in_unit([1e-6, 2e-6], "µs").tolist(), in_unit(2 * 2**20, "MiB")
    (12.3, [1.0, 2.0], 2.0)
    """
    values = _numbers("values", values)
    if unit in _PER_SECOND:
        return values * _PER_SECOND[unit]
    return values / unit_size(unit)


def from_unit(values, unit):
    """``values`` given in ``unit`` (a slider in µs, a size in MiB) in the base unit: seconds, bytes...

    Examples
    --------
    >>> from_unit(5, "ms"), from_unit(2, "GB/s"), from_unit(1.5, "MiB")
    (0.005, 2000000000.0, 1572864.0)
    """
    values = _numbers("values", values)
    if unit in _PER_SECOND:
        return values / _PER_SECOND[unit]
    return values * unit_size(unit)


def format_bytes(n, digits=3):
    """A memory size in KiB, MiB or GiB (binary prefixes), bytes below 1 KiB.

    Examples
    --------
    >>> format_bytes(512), format_bytes(32 * 2**20), format_bytes(1.5 * 2**30)
    ('512 B', '32 MiB', '1.5 GiB')
    """
    n = real("n", n, low=0)
    digits = positive_int("digits", digits)
    for unit, scale in _BINARY:
        if n >= scale:
            return f"{n / scale:.{digits}g} {unit}"
    return f"{n:.{digits}g} B"
