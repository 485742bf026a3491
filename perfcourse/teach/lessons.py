"""The course's lessons, in order: the one list the commands, the glossary and the tests read.

Each :class:`Lesson` names its notebook in ``notebooks/`` and, for lessons 01-08, its graded
exercise in ``exercises/`` (generated from ``solutions/`` by ``perfcourse make-exercises``).
A notebook's first heading is ``NN · title``; a test checks that this list and the
``notebooks/`` folder agree.

Examples
--------
>>> lesson(3).notebook, lesson(3).exercise
('03_amdahl.ipynb', '03_amdahl.ipynb')
>>> lesson(3).heading
"03 · Amdahl's law: the serial part sets the ceiling"
>>> lesson(0).exercise is None
True
>>> [x.number for x in LESSONS if x.exercise][:3]
[1, 2, 3]
"""

from __future__ import annotations

from dataclasses import dataclass

from .._lang import _

__all__ = ["Lesson", "LESSONS", "FIRST", "lesson", "numbers"]


@dataclass(frozen=True)
class Lesson:
    """One lesson: its number, slug, title, notebook file name and exercise file name (or None)."""

    number: int
    slug: str
    title: str
    notebook: str
    exercise: str | None = None
    more: tuple[str, ...] = ()

    @property
    def exercises(self):
        """Every graded exercise of the lesson: its own first, then the kernel and report exercises."""
        return ((self.exercise,) if self.exercise else ()) + self.more

    @property
    def stem(self):
        """The notebook's name without ``.ipynb``, e.g. ``03_amdahl``."""
        return self.notebook.removesuffix(".ipynb")

    @property
    def heading(self):
        """The notebook's first heading without the ``#``: ``NN · title``."""
        return f"{self.number:02d} · {self.title}"


def _lesson(number, slug, title, graded, more=()):
    notebook = f"{number:02d}_{slug}.ipynb"
    return Lesson(number, slug, title, notebook, notebook if graded else None, tuple(more))


LESSONS = (
    _lesson(0, "start_here", "Start here", graded=False),
    _lesson(1, "latency_throughput", "Latency and throughput", graded=True, more=("12_claim_card.ipynb",)),
    _lesson(2, "work_span", "Work and span", graded=True, more=("09_tree_reduction.ipynb", "10_scan.ipynb")),
    _lesson(3, "amdahl", "Amdahl's law: the serial part sets the ceiling", graded=True),
    _lesson(4, "gustafson", "Gustafson's law: strong and weak scaling", graded=True),
    _lesson(5, "roofline", "The roofline", graded=True, more=("11_grid_stride.ipynb",)),
    # exercise 14 sizes a deployment for the capstone, lesson 11; until that lesson is in notebooks/ it is
    # listed here, with the serving queues it builds on
    _lesson(6, "littles_law", "Little's law and serving queues", graded=True),
    _lesson(7, "scaling_efficiency", "Scaling efficiency", graded=True),
    _lesson(8, "optimization_order", "The order of optimization", graded=True, more=("13_read_a_profile.ipynb",)),
    _lesson(9, "hand_calculations", "Hand calculations", graded=False),
    _lesson(10, "self_test", "Self-test", graded=False),
    _lesson(11, "serve_a_model", "Capstone: serve a small language model end to end", graded=False,
            more=("14_size_a_deployment.ipynb",)),
)

FIRST = LESSONS[0]


def numbers():
    """The lesson numbers, in order, e.g. ``(0, 1, ..., 11)``."""
    return tuple(x.number for x in LESSONS)


def lesson(number):
    """The :class:`Lesson` numbered ``number`` (a whole number such as 3 for ``03_amdahl``).

    Examples
    --------
    >>> lesson(5).slug
    'roofline'
    >>> lesson(42)
    Traceback (most recent call last):
    ...
    ValueError: no lesson 42; the lessons are numbered 00 to 11
    """
    if isinstance(number, bool) or not isinstance(number, int):
        raise TypeError(f"lesson number must be a whole number from {LESSONS[0].number} to "
                        f"{LESSONS[-1].number}; got {number!r} of type {type(number).__name__}")
    for x in LESSONS:
        if x.number == number:
            return x
    raise ValueError(_("no lesson {number:02d}; the lessons are numbered {first:02d} to {last:02d}").format(
        number=number, first=LESSONS[0].number, last=LESSONS[-1].number))
