"""Self-test questions, checked in code.

The bank lives in ``perfcourse/teach/questions/``: one module per lesson (``lesson03.py``...)
plus ``lecture.py`` for the lecture's own questions and worked calculations. Each defines
``QUESTIONS``, a list of :class:`Question`. Numeric reference answers are computed by
``perfcourse`` functions when asked for, never typed in.
"""

from __future__ import annotations

import dataclasses
import difflib
import importlib
import math
import pkgutil

from .._check import real
from .._lang import N_, _, current, listing, lookup, text
from . import questions
from .question import Question

__all__ = ["Question", "Checked", "bank", "get", "shown", "check", "answer", "ask", "score"]


class Checked:
    """What :func:`check` returns: true when the answer was right, and shown as nothing in a notebook.

    The sentence :func:`check` prints is the verdict; a bare ``True`` or ``False`` under it, as
    JupyterLab shows a cell's last value, would only repeat it. It compares equal to the bool.

    Examples
    --------
    >>> bool(Checked(True)), Checked(False) == False, Checked(True)
    (True, True, True)
    """

    __slots__ = ("right",)

    def __init__(self, right):
        self.right = bool(right)

    def __bool__(self):
        return self.right

    def __eq__(self, other):
        return self.right == other if isinstance(other, (bool, Checked)) else NotImplemented

    def __hash__(self):
        return hash(self.right)

    def __repr__(self):
        return repr(self.right)

    def _ipython_display_(self):
        """Nothing: the printed sentence is what the learner reads."""


_BANK: dict[str, Question] | None = None


def bank():
    """All questions, keyed by id, in lesson order."""
    global _BANK
    if _BANK is None:
        found: dict[str, Question] = {}
        for mod in sorted(m.name for m in pkgutil.iter_modules(questions.__path__)):
            for q in importlib.import_module(f"{questions.__name__}.{mod}").QUESTIONS:
                if q.qid in found:
                    raise RuntimeError(f"duplicate self-test question id {q.qid!r} in questions/{mod}.py")
                found[q.qid] = q
        _BANK = dict(sorted(found.items(), key=lambda kv: kv[1].lesson))
    return _BANK


def get(qid):
    """The :class:`Question` with id ``qid``.

    An unknown id is a ``ValueError`` that suggests the ids closest to it, or else lists the ids that
    share its prefix (its lesson's, such as ``l03-``).

    Examples
    --------
    >>> get("l03-limit-5pc")
    Traceback (most recent call last):
    ...
    ValueError: no self-test question 'l03-limit-5pc'; did you mean l03-limit-5pct?
    """
    if not isinstance(qid, str):
        raise TypeError(f"qid must be a question id string; got {qid!r}")
    questions = bank()
    if qid not in questions:
        raise ValueError(f"no self-test question {qid!r}; {_suggest(qid, list(questions))}")
    return questions[qid]


def _suggest(qid, ids):
    """What to say about an unknown ``qid``: close ids, else its lesson's ids, else where to look.

    An id whose prefix is a lesson's (``l03-``) is compared with that lesson's ids only, and those are
    listed when none is close; any other id is compared with all (difflib, or ids that contain it).
    """
    qid = qid.strip()
    prefix = qid.split("-")[0] + "-"
    same = [k for k in ids if k.startswith(prefix)] if "-" in qid else []
    pool = same or ids
    close = difflib.get_close_matches(qid, pool, n=3, cutoff=0.75)
    close = close or ([k for k in pool if qid in k][:3] if len(qid) >= 5 else [])
    if close:
        return f"did you mean {', '.join(close)}?"
    if same:
        return f"the {prefix} questions are {', '.join(same)}"
    prefixes = sorted({k.split("-")[0] + "-" for k in ids})
    return f"question ids start with one of {', '.join(prefixes)}; perfcourse.teach.selftest.bank() lists them all"


def shown(q):
    """Question ``q`` as the learner reads it: prompt, explanation and choices in their language.

    The translations come from ``perfcourse/locale/zh/LC_MESSAGES/questions.po`` (see :mod:`perfcourse._lang`);
    a text not translated yet stays English.
    """
    if current() == "en":
        return q

    def tr(field, english):
        return text("questions", english, f"{q.qid}#{field}")

    return dataclasses.replace(q, prompt=tr("prompt", q.prompt), why=tr("why", q.why), choices=tuple(
        tr(f"choice-{letter}", c) for letter, c in zip(q.letters(), q.choices, strict=True)))


# the units answers are given in that are words, for the message catalog (the others are symbols: ms, x, GB/s)
UNIT_WORDS = (N_("requests"), N_("steps"), N_("rows"), N_("rows/s"), N_("sequences"), N_("adds"), N_("devices"),
              N_("(fraction)"), N_("bytes"))


def ask(qid):
    """Print a question's prompt (and its choices); return the question."""
    q = get(qid)
    shows = shown(q)
    print(f"[{q.qid}] {shows.prompt}" + (_("  (answer in {unit})").format(unit=lookup(q.unit)) if q.unit else ""))
    for letter, choice in zip(q.letters(), shows.choices, strict=True):
        print(f"  ({letter}) {choice}")
    return q


def _reference_text(q):
    if q.kind == "number":
        return f"{q.reference():.6g}{' ' + q.unit if q.unit else ''}"
    return f"({q.correct}) {q.choices[q.letters().index(q.correct)]}"


def _number(q, given):
    """A numeric answer as a float; a string such as ``"100"`` or ``" 2.5e3 "`` is read as the number it spells."""
    if isinstance(given, str):
        try:
            given = float(given.strip().replace("_", ""))
        except ValueError:
            unit = f" (unit: {q.unit})" if q.unit else ""
            raise ValueError(f"answer to {q.qid} must be a number{unit}; got {given!r}") from None
    if isinstance(given, (list, tuple, dict, set)) or getattr(given, "ndim", 0):
        raise TypeError(f"answer to {q.qid} must be one number; got {given!r}")
    return real(f"answer to {q.qid}", given)


def _is_right(q, given):
    if q.kind == "number":
        value = _number(q, given)
        ref = q.reference()
        return math.isclose(value, ref, rel_tol=q.rtol, abs_tol=1e-12)
    if not isinstance(given, str):
        raise TypeError(f"answer to {q.qid} must be one of the letters {', '.join(q.letters())}; got {given!r}")
    letter = given.strip().lower().strip("()")
    if letter not in q.letters():
        raise ValueError(f"answer to {q.qid} must be one of the letters {', '.join(q.letters())}; got {given!r}")
    return letter == q.correct


def check(qid, answer, *, quiet=False):
    """Check an answer; print right/wrong with the reason; a :class:`Checked`, true when right.

    Numbers are accepted within the question's relative tolerance, also written as a string (``"100"``);
    choices by letter.
    ``None`` (the placeholder the lessons ship with) prints a reminder and returns False.

    Examples
    --------
    >>> check("lecture-amdahl-1pct", 100)
    Right. [lecture-amdahl-1pct] With s = 0.01 the speedup can never pass 1/s = 100, however many workers.
    True
    """
    q = get(qid)
    if answer is None:
        if not quiet:
            print(f"[{q.qid}] " + _("No answer yet: put your answer in place of None and run this cell again."))
        return Checked(False)
    right = _is_right(q, answer)
    if not quiet:
        q = shown(q)
        if right:
            print(_("Right. [{qid}] {why}").format(qid=q.qid, why=q.why))
        else:
            tol = _(" (accepted within {rtol:.0%})").format(rtol=q.rtol) if q.kind == "number" else ""
            print(_("Not quite. [{qid}] You gave {given}; the answer is {reference}{tol}. {why}").format(
                qid=q.qid, given=repr(answer), reference=_reference_text(q), tol=tol, why=q.why))
    return Checked(right)


def answer(qid):
    """Print and return the reference answer (a number or the correct letter).

    Examples
    --------
    >>> answer("lecture-ex3-little")
    [lecture-ex3-little] 10 requests. Little's law: L = lambda W = 200/s x 0.05 s = 10 requests in flight.
    10.0
    """
    q = shown(get(qid))
    print(f"[{q.qid}] {_reference_text(q)}. {q.why}")
    return q.reference() if q.kind == "number" else q.correct


def score(answers):
    """Check a dict of answers ``{qid: answer}`` quietly; print a summary; return ``(right, total)``.

    ``None`` counts as not answered yet; an answer of the wrong form (a word for a
    number, an unknown letter) counts as wrong and is listed with the reason.

    Examples
    --------
    >>> score({"lecture-amdahl-1pct": 100, "lecture-ex3-little": 12, "lecture-ex4-speedup": None})
    Score: 1/3 right (33%).
      not quite: lecture-ex3-little
      no answer yet: lecture-ex4-speedup
    (1, 3)
    """
    if not isinstance(answers, dict):
        raise TypeError(f"answers must be a dict {{question id: answer}}; got {type(answers).__name__}")
    if not answers:
        raise ValueError("answers must hold at least one {question id: answer} pair; got an empty dict")
    right, wrong, blank, unreadable = [], [], [], []
    for qid, given in answers.items():
        get(qid)
        if given is None:
            blank.append(qid)
            continue
        try:
            (right if check(qid, given, quiet=True) else wrong).append(qid)
        except (TypeError, ValueError) as err:
            unreadable.append(f"{qid} ({err})")
    total = len(answers)
    print(_("Score: {right}/{total} right ({share:.0%}).").format(right=len(right), total=total,
                                                                  share=len(right) / total))
    for label, ids in ((_("not quite"), wrong), (_("no answer yet"), blank), (_("could not read"), unreadable)):
        if ids:
            print(_("  {label}: {ids}").format(label=label, ids=listing(ids)))
    return len(right), total
