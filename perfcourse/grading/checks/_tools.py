"""What every check module uses: the ``part`` decorator and answer comparison.

A graded part is a function that receives the learner's function(s), a random generator
and ``ref`` (where the answers come from, :mod:`._answers`), tries the functions on random
inputs whose answers it asks ``ref`` for, and returns ``(points, max_points, feedback)``.
Random inputs mean that an answer typed in by hand (or fitted to the self-check's stored
cases) scores nothing.
"""

from __future__ import annotations

import copy
import numbers
import sys
from dataclasses import dataclass

import numpy as np

__all__ = ["Part", "part", "close", "counting", "cpu_clock", "run_cases", "short"]


@dataclass(frozen=True)
class Part:
    """One graded part: its title, its points and the names it needs from the notebook."""

    title: str
    points: float
    needs: tuple[str, ...]
    check: object
    timeout_s: float | None = None
    kernels: tuple = ()          # ((name, numba signature), ...): needs that are kernels the grader launches
    given: tuple = ()            # needs the exercise defines: the grader takes the course's own, not the learner's


def part(title, *, points, needs, timeout_s=None, kernels=None, given=()):
    """Mark a check function as a graded part worth ``points`` that needs ``needs``.

    ``timeout_s``: the time this part may take when it needs more than the grader's usual
    per-part limit (simulated kernels are slow). ``kernels``: ``{name: signature}`` for the
    needs that are ``@cuda.jit`` kernels: the check gets a launcher for each
    (:mod:`perfcourse.grading.checks._kernels`), compiled with that numba signature first.
    ``given``: the needs that the exercise itself defines for the learner to use; the grader calls
    the course's own definitions (:mod:`perfcourse.grading.given`), never the submission's.

    Examples
    --------
    >>> @part("A: double it", points=2, needs=("double",))
    ... def check_double(double, rng, ref):
    ...     return run_cases(double, [((3,), 6)], 2)
    >>> check_double.part.points, check_double.part.needs
    (2.0, ('double',))
    """
    if isinstance(needs, str) or not all(isinstance(n, str) for n in needs):
        raise TypeError(f"needs must be a tuple of names; got {needs!r}")
    if not isinstance(points, numbers.Real) or points <= 0:
        raise ValueError(f"points must be a number > 0; got {points!r}")
    if timeout_s is not None and (not isinstance(timeout_s, numbers.Real) or timeout_s <= 0):
        raise ValueError(f"timeout_s must be None or a number of seconds > 0; got {timeout_s!r}")
    kernels = dict(kernels or {})
    if isinstance(given, str) or not set(given) <= set(needs) or set(given) & set(kernels):
        raise ValueError(f"given must be a tuple of some of needs {needs!r} that are not kernels; got {given!r}")
    if not set(kernels) <= set(needs) or not all(isinstance(s, str) for s in kernels.values()):
        raise ValueError(f"kernels must map some of needs {needs!r} to numba signatures; got {kernels!r}")

    def register(func):
        func.part = Part(title, float(points), tuple(needs), func, None if timeout_s is None else float(timeout_s),
                         tuple(kernels.items()), tuple(given))
        return func

    return register


def cpu_clock(function):
    """A clock of the CPU seconds used by the process ``function`` runs in: the learner's kernel for the grader's
    stand-in of a learner's function, this process (``time.process_time``) for a function defined here."""
    import time

    return getattr(function, "cpu_clock", time.process_time)


def counting(function, watch):
    """``function()`` and the calls it made to each function ``watch`` names (``{name: [argument names]}``) on
    exactly those arguments: ``(result, {name: (calls, [seconds of each of its last calls])})``. The grader's
    stand-in of a learner's function counts in the learner's kernel; a function defined here counts through
    its module's globals (:func:`perfcourse.grading.runner.watched`). ``None`` in place of the calls where it
    cannot count (a function whose globals do not define those names)."""
    from ..runner import summary, watched

    if hasattr(function, "counting"):
        return function.counting(dict(watch))
    user = getattr(function, "__globals__", None)
    if user is None or not all(callable(user.get(n)) for n in watch):
        return function(), None
    record, restore = watched(user, dict(watch), sync=sys.modules.get("cupy") is not None)   # the learner's own run
    try:
        result = function()
    finally:
        restore()
    return result, {n: tuple(c) for n, c in summary(record).items()}


def short(value, limit=120):
    """A compact, bounded text form of a value for feedback.

    Examples
    --------
    >>> short(0.1 + 0.2)
    '0.3'
    >>> short({"a": 1.23456789})
    "{'a': 1.23457}"
    """
    if isinstance(value, (bool, np.bool_)) or value is None:
        text = repr(value)
    elif isinstance(value, numbers.Integral):
        text = str(int(value))
    elif isinstance(value, numbers.Real):
        text = f"{float(value):.6g}"
    elif isinstance(value, np.ndarray):
        text = np.array2string(value, precision=6, threshold=8)
    elif isinstance(value, dict):
        text = "{" + ", ".join(f"{k!r}: {short(v)}" for k, v in value.items()) + "}"
    elif isinstance(value, (list, tuple)):
        inner = ", ".join(short(v) for v in value[:8]) + (", ..." if len(value) > 8 else "")
        text = f"({inner})" if isinstance(value, tuple) else f"[{inner}]"
    else:
        text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def close(got, expected, *, rtol=1e-6, atol=0.0):
    """True when ``got`` matches ``expected``: numbers within tolerance, the rest equal.

    Whole numbers must match exactly; dicts need the same keys; tuples and lists match
    element by element; arrays need the same shape.

    Examples
    --------
    >>> close((7.0, 5), (7.0000001, 5))
    True
    >>> close({"memory": "a"}, {"compute": "a"})
    False
    >>> close(3.0, 3)
    True
    """
    try:
        return _close(got, expected, rtol, atol)
    except (TypeError, ValueError, OverflowError):
        return False


def _close(got, expected, rtol, atol):
    if isinstance(expected, dict):
        return (isinstance(got, dict) and set(got) == set(expected)
                and all(_close(got[k], v, rtol, atol) for k, v in expected.items()))
    if expected is None or isinstance(expected, (str, bool)):
        return got == expected and type(got) is type(expected)
    if isinstance(expected, (tuple, list)):
        return (isinstance(got, (tuple, list, np.ndarray)) and len(got) == len(expected)
                and all(_close(g, e, rtol, atol) for g, e in zip(got, expected, strict=True)))
    if isinstance(got, (str, bytes, bool, np.bool_)) or got is None:
        return False
    if isinstance(expected, numbers.Integral):
        return isinstance(got, numbers.Real) and float(got) == float(expected)
    got_arr = np.asarray(got, dtype=np.float64)
    exp_arr = np.asarray(expected, dtype=np.float64)
    if got_arr.shape != exp_arr.shape:
        return False
    return bool(np.allclose(got_arr, exp_arr, rtol=rtol, atol=atol, equal_nan=False))


def run_cases(func, cases, points, *, rtol=1e-6, atol=0.0):
    """Call ``func(*args)`` for each ``(args, expected)`` case; all must match for the points.

    The learner's function gets a copy of each input, so changing it in place cannot
    change the next case. Feedback names the first failing case.

    Examples
    --------
    >>> run_cases(lambda x: 2 * x, [((1,), 2), ((4,), 8)], 3)
    (3, 3, 'correct on 2 random cases')
    >>> run_cases(lambda x: x + x + 1, [((1,), 2)], 3)[2]
    'wrong for <lambda>(1): expected 2, got 3'
    """
    name = getattr(func, "__name__", "your function")
    for args, expected in cases:
        got = func(*copy.deepcopy(args))
        if not close(got, expected, rtol=rtol, atol=atol):
            call = f"{name}({', '.join(short(a, 60) for a in args)})"
            return 0, points, f"wrong for {call}: expected {short(expected)}, got {short(got)}"
    return points, points, f"correct on {len(cases)} random cases"
