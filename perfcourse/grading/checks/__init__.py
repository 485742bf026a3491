"""Graded checks: one module ``exNN_slug`` per exercise, one ``@part`` function per part.

:func:`grade_namespace` runs every part of an exercise against a notebook's namespace
(``globals()`` after the notebook ran). A function still raising ``NotImplementedError``
scores 0 with the feedback "not implemented"; one that raises anything else, runs longer
than :data:`PART_TIMEOUT_S` or returns a wrong answer scores 0 for that part only.

The grader calls :func:`report` in the learner's kernel; learners call
:func:`self_check` in their notebook to see the same checks with fresh random inputs.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import numbers
import pkgutil
import re
import secrets
import signal
import threading
from collections.abc import Mapping

import numpy as np

from ..._check import choice, positive_int, real
from ._tools import Part, close, part, run_cases, short

__all__ = ["PART_TIMEOUT_S", "MIME", "Part", "part", "close", "run_cases", "short", "exercises",
           "parts", "grade_namespace", "report", "self_check"]

PART_TIMEOUT_S = 10.0
MIME = "application/vnd.perfcourse.grade+json"
_MODULE = re.compile(r"^(ex\d\d)_\w+$")


def exercises():
    """Exercise ids and the module holding their checks, e.g. ``{"ex01": "ex01_latency_throughput"}``.

    Examples
    --------
    >>> exercises()["ex02"]
    'ex02_work_span'
    """
    found = {}
    for info in pkgutil.iter_modules(__path__):
        match = _MODULE.match(info.name)
        if match:
            found[match.group(1)] = info.name
    return dict(sorted(found.items()))


def parts(exercise):
    """The graded parts of ``exercise`` in the order the notebook asks for them.

    Examples
    --------
    >>> [p.needs for p in parts("ex07")]
    [('fit_alpha_beta',), ('ring_allreduce_time',), ('data_parallel_step',)]
    """
    known = exercises()
    choice("exercise", exercise, tuple(known))
    module = importlib.import_module(f"{__name__}.{known[exercise]}")
    return [obj.part for obj in vars(module).values() if isinstance(getattr(obj, "part", None), Part)]


class PartTimeout(BaseException):
    """Raised inside a part that ran too long (a BaseException so ``except Exception`` misses it)."""


@contextlib.contextmanager
def _time_limit(seconds):
    """Interrupt the block after ``seconds`` with PartTimeout (main thread on Unix only)."""
    if threading.current_thread() is not threading.main_thread() or not hasattr(signal, "setitimer"):
        yield
        return

    def stop(signum, frame):
        raise PartTimeout

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


class _Discard(io.TextIOBase):
    """A stream that drops what the learner's code prints while it is being checked."""

    def write(self, text):
        return len(text)


def _score_part(index, p, namespace, seed, part_timeout):
    missing = [name for name in p.needs if not callable(namespace.get(name))]
    if missing:
        return 0.0, f"{missing[0]} is not defined: define it as in the exercise and run its cell"
    rng = np.random.default_rng([seed, index])
    try:
        with contextlib.redirect_stdout(_Discard()), contextlib.redirect_stderr(_Discard()):
            with _time_limit(part_timeout):
                points, max_points, feedback = p.check(*(namespace[n] for n in p.needs), rng=rng)
    except NotImplementedError:
        return 0.0, "not implemented"
    except PartTimeout:
        return 0.0, f"took longer than {part_timeout:g} s on the test inputs (endless loop?)"
    except (Exception, SystemExit) as err:  # noqa: BLE001 - the learner's code failed, not the grader
        return 0.0, f"raised {type(err).__name__}: {short(str(err), 200)}"
    if not isinstance(points, numbers.Real) or max_points != p.points:
        raise RuntimeError(f"check {p.title!r} returned {points!r}/{max_points!r}; expected up to {p.points}")
    return float(min(max(points, 0.0), p.points)), str(feedback)


def grade_namespace(exercise, namespace, *, seed, part_timeout=PART_TIMEOUT_S):
    """Score every part of ``exercise`` against ``namespace``; a list of result dicts.

    Each dict has ``part``, ``points``, ``max_points`` and ``feedback``.

    Examples
    --------
    >>> def work_and_span(edges, cost):
    ...     raise NotImplementedError()
    >>> grade_namespace("ex02", {"work_and_span": work_and_span}, seed=1)[0]["feedback"]
    'not implemented'
    """
    if not isinstance(namespace, Mapping):
        raise TypeError(f"namespace must be a mapping such as globals(); got {type(namespace).__name__}")
    seed = positive_int("seed", seed, low=0)
    part_timeout = real("part_timeout", part_timeout, low=0, low_open=True)
    results = []
    for index, p in enumerate(parts(exercise)):
        points, feedback = _score_part(index, p, namespace, seed, part_timeout)
        results.append({"part": p.title, "points": points, "max_points": p.points, "feedback": feedback})
    return results


def report(exercise, namespace, *, seed, token, part_timeout=PART_TIMEOUT_S):
    """Grade ``namespace`` and publish the result as display data the grader collects.

    The grader runs this in the learner's kernel after the notebook; ``token`` is a fresh
    random string that output printed by the notebook itself cannot know in advance.
    """
    from IPython.display import publish_display_data

    results = grade_namespace(exercise, namespace, seed=seed, part_timeout=part_timeout)
    payload = {"token": str(token), "exercise": exercise, "seed": seed, "parts": results}
    publish_display_data({MIME: payload, "text/plain": f"{exercise}: {len(results)} parts checked"})


def self_check(exercise, namespace, *, seed=None):
    """Print the grader's verdict on this notebook's functions, with fresh random inputs.

    Call it as ``self_check("ex01", globals())`` at the end of an exercise notebook.
    Returns nothing; the points printed are what the grader would give.
    """
    seed = secrets.randbits(32) if seed is None else seed
    results = grade_namespace(exercise, namespace, seed=seed)
    for r in results:
        print(f"{r['part']:<48} {r['points']:g}/{r['max_points']:g}  {r['feedback']}")
    got = sum(r["points"] for r in results)
    total = sum(r["max_points"] for r in results)
    print(f"{'total':<48} {got:g}/{total:g}")
