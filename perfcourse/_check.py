"""Argument checking shared by every public function.

Each formula in the course accepts a plain number or a NumPy array. ``real`` turns
either into a float (scalar in) or a float array (array in) after checking that every
value is finite and inside the allowed range, so that a bad value is reported by the
name the learner typed rather than by a traceback from deep inside NumPy.
"""

from __future__ import annotations

import numbers

import numpy as np


def _describe(low, high, low_open, high_open, integer):
    kind = "a whole number" if integer else "a finite number"
    if low is not None and high is not None:
        left = "(" if low_open else "["
        right = ")" if high_open else "]"
        return f"{kind} in {left}{low:g}, {high:g}{right}"
    if low is not None:
        return f"{kind} {'>' if low_open else '>='} {low:g}"
    if high is not None:
        return f"{kind} {'<' if high_open else '<='} {high:g}"
    return kind


def real(name, value, *, low=None, high=None, low_open=False, high_open=False, integer=False):
    """Check ``value`` and return it as a float, or as a float array for array input.

    Raises ``TypeError`` for anything that is not a real number (booleans, strings,
    complex numbers, None) and ``ValueError`` for NaN, infinity or a value outside the
    allowed range. The message names the argument, the offending value and the range.

    Examples
    --------
    >>> real("n", 4, low=1)
    4.0
    >>> real("s", 1.5, low=0, high=1)
    Traceback (most recent call last):
    ...
    ValueError: s must be a finite number in [0, 1]; got 1.5
    """
    allowed = _describe(low, high, low_open, high_open, integer)
    if isinstance(value, (bool, np.bool_)) or value is None or isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be {allowed}; got {value!r} of type {type(value).__name__}")
    is_array = isinstance(value, (np.ndarray, list, tuple))
    if not is_array and not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be {allowed}; got {value!r} of type {type(value).__name__}")
    arr = np.asarray(value)
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be {allowed}; got an array of dtype {arr.dtype}")
    arr = arr.astype(np.float64)
    bad = ~np.isfinite(arr)
    if low is not None:
        bad |= (arr <= low) if low_open else (arr < low)
    if high is not None:
        bad |= (arr >= high) if high_open else (arr > high)
    if integer:
        bad |= np.isfinite(arr) & (arr != np.round(arr))
    if bad.any():
        got = f"{arr.size} values, first bad one {arr[bad].flat[0]!r}" if arr.ndim else repr(value)
        raise ValueError(f"{name} must be {allowed}; got {got}")
    return arr if is_array else float(arr)


def out(result):
    """Return a plain float for a 0-d result and an array otherwise."""
    result = np.asarray(result, dtype=np.float64)
    return float(result) if result.ndim == 0 else result


def choice(name, value, allowed):
    """Check that ``value`` is one of ``allowed`` (compared as given).

    Examples
    --------
    >>> choice("mode", "cold", ("cold", "warm"))
    'cold'
    """
    if value not in allowed:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, allowed))}; got {value!r}")
    return value


def positive_int(name, value, *, low=1):
    """Check that ``value`` is an int >= ``low`` and return it.

    Examples
    --------
    >>> positive_int("repeat", 3)
    3
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Integral,)):
        raise TypeError(f"{name} must be an integer >= {low}; got {value!r} of type {type(value).__name__}")
    if value < low:
        raise ValueError(f"{name} must be an integer >= {low}; got {value}")
    return int(value)
