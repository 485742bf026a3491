"""Graded checks: one module ``exNN_slug`` per exercise, one ``@part`` function per part.

A part's check receives the learner's functions, a random generator and ``ref``, calls the
functions on random inputs and compares the results with the answers ``ref`` gives
(:mod:`._answers`: for the grader, the references in the course checkout's
``solutions/references/``, which no learner's install carries). :func:`score_part` runs one part:
a function still raising ``NotImplementedError`` scores 0 with the feedback "not implemented"; one
that raises anything else, runs longer than :data:`PART_TIMEOUT_S` or returns a wrong answer scores 0
for that part only.

The grader (:mod:`perfcourse.grading.session`) runs the checks in its own process and hands
them stand-ins that call the learner's functions in the sandboxed kernel. In a notebook,
:func:`self_check` runs the same checks on the notebook's own ``globals()`` with the answers stored
for one seed (results, not the method); while a notebook is being graded it is a stand-in that
checks nothing.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import numbers
import pkgutil
import re
import signal
import threading
from collections.abc import Mapping

import numpy as np

from ..._check import choice, positive_int, real
from ._answers import AnswerMissing, Answers, CaseMissing, load_cases
from ._kernels import KernelFailed
from ._tools import Part, close, part, run_cases, short

__all__ = ["PART_TIMEOUT_S", "Part", "part", "close", "run_cases", "short", "exercises", "parts",
           "PartTimeout", "CallFailed", "score_part", "grade_namespace", "self_check"]

PART_TIMEOUT_S = 10.0
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
    [('fit_alpha_beta',), ('better_fix',), ('plan_devices',)]
    """
    known = exercises()
    choice("exercise", exercise, tuple(known))
    module = importlib.import_module(f"{__name__}.{known[exercise]}")
    return [obj.part for obj in vars(module).values() if isinstance(getattr(obj, "part", None), Part)]


class PartTimeout(BaseException):
    """Raised inside a part that ran too long (a BaseException so ``except Exception`` misses it)."""


class CallFailed(BaseException):
    """A learner's function failed in a way that ends its part; ``feedback`` says how."""

    def __init__(self, feedback):
        super().__init__(feedback)
        self.feedback = str(feedback)


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


def score_part(p, functions, rng, *, part_timeout, ref, limit=None):
    """``(points, feedback)`` of part ``p`` with ``functions`` (name -> callable), the generator ``rng``
    and the answers ``ref`` (:class:`._answers.Answers` or a stored :class:`._answers.Replay`).

    ``limit``: a context manager that stops the part after ``part_timeout`` seconds by raising
    :class:`PartTimeout` (default: a timer signal, in the main thread of this process).
    """
    if not isinstance(p, Part):
        raise TypeError(f"p must be a graded Part (see parts()); got {type(p).__name__}")
    if not isinstance(functions, Mapping):
        raise TypeError(f"functions must be a mapping of names to callables; got {type(functions).__name__}")
    part_timeout = real("part_timeout", part_timeout, low=0, low_open=True)
    missing = [name for name in p.needs if not callable(functions.get(name))]
    if missing:
        return 0.0, f"{missing[0]} is not defined: define it as in the exercise and run its cell"
    limit = _time_limit(part_timeout) if limit is None else limit
    try:
        with limit:
            points, max_points, feedback = p.check(*(functions[n] for n in p.needs), rng=rng, ref=ref)
    except NotImplementedError:
        return 0.0, "not implemented"
    except PartTimeout:
        return 0.0, f"took longer than {part_timeout:g} s on the test inputs (endless loop?)"
    except CallFailed as err:
        return 0.0, err.feedback
    except KernelFailed as err:
        return 0.0, str(err)
    except CaseMissing as err:
        return 0.0, str(err)
    except AnswerMissing:
        raise                                   # the grader's own references are incomplete: not the learner's fault
    except (Exception, SystemExit) as err:  # noqa: BLE001 - the learner's code failed, not the grader
        return 0.0, f"raised {type(err).__name__}: {short(str(err), 200)}"
    if not isinstance(points, numbers.Real) or max_points != p.points:
        raise RuntimeError(f"check {p.title!r} returned {points!r}/{max_points!r}; expected up to {p.points}")
    return float(min(max(points, 0.0), p.points)), str(feedback)


def part_rng(seed, index):
    """The random generator of part ``index`` for ``seed``: the same inputs for the same seed.

    Examples
    --------
    >>> int(part_rng(1, 0).integers(100)) == int(part_rng(1, 0).integers(100))
    True
    """
    return np.random.default_rng([positive_int("seed", seed, low=0), positive_int("index", index, low=0)])


def grade_namespace(exercise, namespace, *, seed, part_timeout=PART_TIMEOUT_S, ref=None, only=None):
    """Score every part of ``exercise`` against ``namespace``; a list of result dicts.

    Each dict has ``part``, ``points``, ``max_points`` and ``feedback``. ``ref``: where the answers
    come from (default: the grader's references in the course checkout, :class:`._answers.Answers`).
    ``only``: a part's letter (``"B"``) to score that part alone.

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
    letters = [p.title.split(":", 1)[0] for p in parts(exercise)]
    if only is not None:
        choice("part", only, tuple(letters))
    ref = Answers(exercise) if ref is None else ref
    results = []
    for index, p in enumerate(parts(exercise)):
        if only is not None and letters[index] != only:
            continue
        timeout = max(part_timeout, p.timeout_s or 0.0)
        functions = namespace
        if p.kernels:
            from ._kernels import local_launchers

            functions = {**namespace, **local_launchers(namespace, [k for k, _ in p.kernels], timeout_s=timeout)}
        with contextlib.redirect_stdout(_Discard()), contextlib.redirect_stderr(_Discard()):
            points, feedback = score_part(p, functions, part_rng(seed, index), part_timeout=timeout, ref=ref)
        results.append({"part": p.title, "points": points, "max_points": p.points, "feedback": feedback})
    return results


def self_check(exercise, namespace, part=None):
    """Print what the grader would say of this notebook's functions, on the stored cases.

    Call it as ``self_check("ex01", globals())`` at the end of an exercise notebook, or with
    ``part="B"`` under that part's function for its verdict alone (the grader's own message: which
    input, what was expected, which kernel line). The inputs are those of one fixed seed and the
    answers are stored results (the package carries no reference code); the grader draws fresh
    inputs, so code that only fits these cases still scores 0 there. Returns nothing.
    """
    seed, _, replay = load_cases(exercise)
    results = grade_namespace(exercise, namespace, seed=seed, ref=replay, only=part)
    for r in results:
        print(f"{r['part']:<48} {r['points']:g}/{r['max_points']:g}  {r['feedback']}")
    if part is None:
        got = sum(r["points"] for r in results)
        total = sum(r["max_points"] for r in results)
        print(f"{'total':<48} {got:g}/{total:g}")
