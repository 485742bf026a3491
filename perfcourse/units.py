"""The one place the course formats times, rates and sizes.

Every duration the course prints goes through :func:`format_seconds` (s, ms, µs, ns), every
rate through :func:`si` (k, M, G, T, P prefixes: GB/s, TFLOP/s, req/s) and every memory size
through :func:`format_bytes` (KiB, MiB, GiB: powers of two, as caches and memories are sized).
Three significant digits unless asked otherwise.

Examples
--------
>>> format_seconds(2.5e-6), si(32e9, "B/s"), format_bytes(192 * 2**20)
('2.5 µs', '32 GB/s', '192 MiB')
"""

from __future__ import annotations

import math

from ._check import choice, positive_int, real

__all__ = ["format_seconds", "time_scale", "per_second", "si", "format_bytes", "TIME_UNITS"]

_TIME_UNITS = (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6), ("ns", 1e-9))
TIME_UNITS = tuple(unit for unit, _ in _TIME_UNITS)     # the one spelling of each: "µs", never "us"
_PER_SECOND = {"s": 1.0, "ms": 1e3, "µs": 1e6, "ns": 1e9}
_PREFIXES = ((1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k"), (1.0, ""))
_BINARY = (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10))


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


def si(value, unit, digits=3):
    """A rate or count with an SI prefix; ``unit="s"`` formats a duration; None or NaN gives ``"-"``.

    Examples
    --------
    >>> si(None, "B/s"), si(2.5e-3, "s"), si(32e9, "B/s"), si(989e12, "FLOP/s"), si(0.5, "req/s")
    ('-', '2.5 ms', '32 GB/s', '989 TFLOP/s', '0.5 req/s')
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if not isinstance(unit, str):
        raise TypeError(f"unit must be a string such as 'B/s' or 'FLOP/s'; got {type(unit).__name__}")
    if unit == "s":
        return format_seconds(value, digits)
    value = real("value", value)
    digits = positive_int("digits", digits)
    for scale, prefix in _PREFIXES:
        if abs(value) >= scale:
            return f"{value / scale:.{digits}g} {prefix}{unit}"
    return f"{value:.{digits}g} {unit}"


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
