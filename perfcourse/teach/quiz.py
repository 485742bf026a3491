"""An interactive quiz over the self-test bank: one question at a time and a running score.

:class:`Quiz` holds the state (which question, what was right) and is plain Python;
:func:`quiz_widget` puts buttons around it.

Examples
--------
>>> q = Quiz(["lecture-amdahl-1pct", "lecture-throughput-vs-p99"])
>>> q.submit("100", quiet=True)
True
>>> q.next().qid
'lecture-throughput-vs-p99'
>>> q.submit("a", quiet=True)
False
>>> q.summary()
'1 of 2 right (2 answered)'
"""

from __future__ import annotations

from .._lang import _
from . import selftest

__all__ = ["Quiz", "quiz_widget"]


class Quiz:
    """Questions ``qids`` (every question in the bank when None), asked in order."""

    def __init__(self, qids=None):
        if qids is None:
            qids = list(selftest.bank())
        if isinstance(qids, str) or not isinstance(qids, (list, tuple)):
            raise TypeError(f"qids must be a list of question ids or None; got {qids!r}")
        if not qids:
            raise ValueError("qids must name at least one question; got an empty list")
        self.questions = [selftest.get(qid) for qid in qids]
        self.position = 0
        self.results = {}

    @property
    def question(self):
        return self.questions[self.position]

    def prompt(self):
        """The current question as one line, with where we are in the quiz."""
        q = selftest.shown(self.question)
        unit = _(" (answer in {unit})").format(unit=q.unit) if q.unit else ""
        return _("Question {k} of {n} · lesson {lesson:02d} · {prompt}{unit}").format(
            k=self.position + 1, n=len(self.questions), lesson=q.lesson, prompt=q.prompt, unit=unit)

    def submit(self, given, *, quiet=False):
        """Check ``given`` (a number, a letter, or text typed in a box) for the current question."""
        q = self.question
        if q.kind == "number" and isinstance(given, str):
            try:
                given = float(given)
            except ValueError:
                raise ValueError(f"answer to {q.qid} must be a number{' in ' + q.unit if q.unit else ''}; "
                                 f"got {given!r}") from None
        right = bool(selftest.check(q.qid, given, quiet=quiet))
        self.results[q.qid] = right
        return right

    def next(self):
        """Move to the next question (wrapping round to the first); return it."""
        self.position = (self.position + 1) % len(self.questions)
        return self.question

    def summary(self):
        right = sum(self.results.values())
        return _("{right} of {n} right ({answered} answered)").format(right=right, n=len(self.questions),
                                                                      answered=len(self.results))


def quiz_widget(qids=None):
    """A quiz card: the question, a box or choice list, "Check", "Next" and the running score."""
    import ipywidgets as widgets

    quiz = Quiz(qids)
    title = widgets.HTML()
    choices = widgets.RadioButtons(layout=widgets.Layout(width="auto"))
    box = widgets.Text(description=_("answer"), placeholder=_("a number"))
    area = widgets.VBox()
    check = widgets.Button(description=_("Check"), button_style="primary")
    skip = widgets.Button(description=_("Next"))
    score = widgets.Label()
    out = widgets.Output()

    def show():
        q = selftest.shown(quiz.question)
        title.value = f"<b>{_escape(quiz.prompt())}</b>"
        if q.kind == "choice":
            choices.options = [(f"({k}) {text}", k) for k, text in zip(q.letters(), q.choices, strict=True)]
            choices.value = None
            area.children = [choices]
        else:
            box.value = ""
            area.children = [box]
        score.value = quiz.summary()
        out.clear_output()

    def on_check(_button):
        given = choices.value if quiz.question.kind == "choice" else box.value
        with out:
            out.clear_output()
            if given in (None, ""):
                print(_("Pick or type an answer first."))
                return
            try:
                quiz.submit(given)
            except (TypeError, ValueError) as err:
                print(err)
        score.value = quiz.summary()

    def on_next(_button):
        quiz.next()
        show()

    check.on_click(on_check)
    skip.on_click(on_next)
    show()
    return widgets.VBox([title, area, widgets.HBox([check, skip, score]), out])


def _escape(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
