"""The record every self-test question is written as."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

__all__ = ["Question"]


@dataclass(frozen=True)
class Question:
    """One self-test question.

    A numeric question has ``reference`` (a function returning the answer) and a relative
    tolerance ``rtol``; a multiple-choice question has ``choices`` and the letter of the
    ``correct`` one. ``why`` is the one-sentence explanation shown after an answer.
    """

    qid: str
    lesson: int
    prompt: str
    why: str
    reference: Callable[[], float] | None = None
    rtol: float = 0.01
    unit: str = ""
    choices: tuple[str, ...] = field(default_factory=tuple)
    correct: str | None = None

    @property
    def kind(self):
        return "number" if self.reference is not None else "choice"

    def letters(self):
        return tuple("abcdefghij"[: len(self.choices)])
