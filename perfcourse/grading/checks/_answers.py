"""Where a part's expected answers come from: the grader's references, or the self-check's stored cases.

A check never computes an answer itself: it asks ``ref``, e.g. ``ref.fit(n, speedup)``. For the
grader, ``ref`` is :class:`Answers`, the functions of ``solutions/references/exNN.py`` in the course
checkout (read when grading, never part of the package a learner installs). In a learner's
notebook it is :class:`Replay`: the answers stored in ``cases/exNN.json`` for one fixed seed, looked
up by a fingerprint of the arguments, so the self-check has results and no method. ``perfcourse
make-exercises`` writes those files with a :class:`Recorder` while the solutions are checked.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import numbers
from pathlib import Path

import numpy as np

from ..._course import checkout_root

__all__ = ["REFERENCES", "CASES", "NoAnswers", "AnswerMissing", "CaseMissing", "Answers", "Recorder", "Replay",
           "fingerprint", "encode", "decode", "stamp", "references_folder", "case_file", "cases_text",
           "load_cases"]

REFERENCES = Path("solutions", "references")     # in the course checkout
CASES = Path(__file__).resolve().parent / "cases"


class NoAnswers(ValueError):
    """The grader's references are not where the grader looked (a learner's install has none)."""


class AnswerMissing(AttributeError):
    """A check asked for a reference its exercise's file does not define: the grader's own fault."""


class CaseMissing(Exception):
    """The self-check has no stored answer for these arguments."""


def references_folder(folder=None):
    """The folder of ``exNN.py`` references: ``folder``, or the checkout's ``solutions/references``.

    Raises :class:`NoAnswers` naming what to do when there is none (an installed wheel).
    """
    if folder is None:
        root = checkout_root()
        if root is None:
            raise NoAnswers("the grader's answers are not in this install (a learner's package carries none): "
                            f"grade from a checkout of the course, which holds {REFERENCES.as_posix()}/, "
                            "or give the course folder with --root")
        folder = root / REFERENCES
    folder = Path(folder)
    if not folder.is_dir():
        raise NoAnswers(f"the grader's answers should be in {folder}, which is not a folder: give the course "
                        f"folder (the one holding {REFERENCES.as_posix()}/)")
    return folder


class Answers:
    """The grader's references for ``exercise``: the functions of ``<folder>/exNN.py``."""

    def __init__(self, exercise, folder=None):
        self.exercise = str(exercise)
        self.folder = references_folder(folder)
        self.path = self.folder / f"{self.exercise}.py"
        self._module = None
        if self.path.is_file():
            spec = importlib.util.spec_from_file_location(f"_perfcourse_references_{self.exercise}", self.path)
            self._module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(self._module)

    def __getattr__(self, name):
        found = getattr(self.__dict__.get("_module"), name, None) if not name.startswith("_") else None
        if not callable(found):
            raise AnswerMissing(f"{self.__dict__.get('path')} defines no {name}(), which the checks of "
                                f"{self.__dict__.get('exercise')} ask for")
        return found


class Recorder:
    """``answers`` that also keep every answer they give, by the fingerprint of its arguments."""

    def __init__(self, answers):
        self._answers = answers
        self.records = {}

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        func = getattr(self._answers, name)

        def call(*args, **kwargs):
            key = fingerprint(args, kwargs)
            result = func(*args, **kwargs)
            self.records[(name, key)] = encode(result)
            return result

        return call


class Replay:
    """Answers stored for one seed: ``ref.name(*args)`` gives what the reference gave for those arguments."""

    def __init__(self, records):
        self._records = {(name, key): value for name, key, value in records}

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)

        def call(*args, **kwargs):
            try:
                value = self._records[(name, fingerprint(args, kwargs))]
            except KeyError:
                raise CaseMissing(f"the self-check has no stored answer for this case of {name}(); "
                                  "the grader checks it with its own") from None
            return decode(value)

        return call


DIGITS = 10        # a float's fingerprint: 11 significant digits, so that the last bit a CPU's vector math may
                   # change (2.0 ** x, exp) leaves the stored case found on any machine


def _canon(x, out):
    if x is None or isinstance(x, (bool, np.bool_, str, bytes)):
        out.append(repr(bool(x) if isinstance(x, np.bool_) else x))
    elif isinstance(x, numbers.Integral):
        out.append(f"i{int(x)}")
    elif isinstance(x, numbers.Real):
        out.append(f"f{float(x):.{DIGITS}e}")
    elif isinstance(x, np.ndarray):
        data = (",".join(f"{v:.{DIGITS}e}" for v in x.ravel().tolist()).encode() if x.dtype.kind in "fc" else
                np.ascontiguousarray(x).tobytes())
        out.append(f"a{x.dtype.str}{x.shape}:{hashlib.sha256(data).hexdigest()}")
    elif isinstance(x, (list, tuple)):
        out.append("(" if isinstance(x, tuple) else "[")
        for item in x:
            _canon(item, out)
            out.append(",")
        out.append(")")
    elif isinstance(x, dict):
        items = []
        for k, v in x.items():
            key, value = [], []
            _canon(k, key)
            _canon(v, value)
            items.append("".join(key) + ":" + "".join(value))
        out.append("{" + ",".join(sorted(items)) + "}")
    elif isinstance(x, (set, frozenset)):
        out.append("set" + "".join(sorted(fingerprint((item,), {}) for item in x)))
    elif hasattr(x, "__dict__"):
        out.append(type(x).__qualname__)
        _canon(vars(x), out)
    else:
        raise TypeError(f"cannot fingerprint an argument of type {type(x).__name__}")


def fingerprint(args, kwargs):
    """A short digest that is equal for equal arguments (integer arrays by their bytes, floats to 11 digits).

    Examples
    --------
    >>> fingerprint((1, [2.5, np.arange(3)]), {}) == fingerprint((1, [2.5, np.arange(3)]), {})
    True
    >>> fingerprint((1,), {}) == fingerprint((1.0,), {})
    False
    """
    out = []
    _canon(tuple(args), out)
    _canon(dict(kwargs), out)
    return hashlib.sha256("".join(out).encode()).hexdigest()[:24]


def encode(value):
    """``value`` as JSON data that :func:`decode` turns back into an equal value of the same types.

    Examples
    --------
    >>> decode(json.loads(json.dumps(encode({"a": (1, 2.5, None), 3: np.array([1.0, 2.0])}))))
    {'a': (1, 2.5, None), 3: array([1., 2.])}
    """
    if value is None or isinstance(value, (bool, str)):
        return value
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    if isinstance(value, np.ndarray):
        return {"array": [encode(v) for v in value.tolist()], "dtype": value.dtype.str}
    if isinstance(value, tuple):
        return {"tuple": [encode(v) for v in value]}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, dict):
        return {"dict": [[encode(k), encode(v)] for k, v in value.items()]}
    raise TypeError(f"cannot store an answer of type {type(value).__name__}")


def decode(data):
    """The value :func:`encode` stored."""
    if isinstance(data, list):
        return [decode(v) for v in data]
    if isinstance(data, dict):
        if "array" in data:
            return np.array([decode(v) for v in data["array"]], dtype=np.dtype(data["dtype"]))
        if "tuple" in data:
            return tuple(decode(v) for v in data["tuple"])
        return {decode(k): decode(v) for k, v in data["dict"]}
    return data


def stamp(exercise, folder):
    """A digest of what the stored answers of ``exercise`` depend on: its checks, its references and the way
    arguments are fingerprinted (this module)."""
    from . import exercises

    digest = hashlib.sha256()
    here = Path(__file__).resolve()
    for path in (here, here.parent / f"{exercises()[exercise]}.py", Path(folder) / f"{exercise}.py"):
        digest.update(path.read_bytes() if path.is_file() else b"")
    return digest.hexdigest()[:24]


def case_file(exercise):
    """The file of ``exercise``'s stored answers (package data)."""
    return CASES / f"{exercise}.json"


def cases_text(exercise, seed, digest, records):
    """The JSON text of a cases file: the seed, the stamp and each answer (sorted, so the file is stable)."""
    rows = sorted([name, key, value] for (name, key), value in records.items())
    head = json.dumps({"exercise": exercise, "seed": int(seed), "stamp": digest})[:-1]
    lines = ",\n".join(json.dumps(row, allow_nan=True) for row in rows)
    return f'{head}, "answers": [\n{lines}\n]}}\n' if rows else f'{head}, "answers": []}}\n'


def load_cases(exercise):
    """``(seed, stamp, Replay)`` of ``exercise``'s stored answers; ValueError when there are none."""
    path = case_file(exercise)
    if not path.is_file():
        raise ValueError(f"no stored self-check cases for {exercise} ({path.name}): reinstall perfcourse")
    data = json.loads(path.read_text(encoding="utf-8"))
    return int(data["seed"]), str(data["stamp"]), Replay(data["answers"])
