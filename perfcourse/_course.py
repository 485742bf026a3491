"""Where the course's own files are: the package folder, and the checkout it was imported from.

One rule for every layer: the checkout is the folder above the package when it holds the course's
first lesson (``notebooks/00_start_here.ipynb``), as in an editable install; an installed wheel has
no checkout (its lessons are under ``perfcourse/course/``, see :mod:`perfcourse.cli.course`).
The build (``setup.py``) reads this file too, to know which notebooks a wheel carries: it imports
nothing but the standard library.

Examples
--------
>>> PACKAGE.name
'perfcourse'
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["PACKAGE", "FIRST_LESSON", "FOLDERS", "PACKAGED", "holds_course", "checkout_root", "course_notebooks"]

PACKAGE = Path(__file__).resolve().parent
FIRST_LESSON = "00_start_here.ipynb"    # teach.lessons.FIRST's notebook; a test keeps them equal
FOLDERS = ("notebooks", "exercises")    # the lessons and the graded exercises, each with its edition's folder
PACKAGED = "course"                     # where a wheel carries them: perfcourse/course/notebooks/...


def holds_course(root):
    """True when ``root`` holds the course's lessons (``notebooks/00_start_here.ipynb``)."""
    return (Path(root) / "notebooks" / FIRST_LESSON).is_file()


def checkout_root():
    """The repository checkout this package was imported from (an editable install), or None."""
    root = PACKAGE.parent
    return root if holds_course(root) else None


def course_notebooks(root, edition):
    """``[(notebook, its path relative to the course folder)]``: every lesson and exercise in ``root``.

    Each folder of :data:`FOLDERS` and its ``edition`` folder (``notebooks/zh/``...), in order.
    """
    root = Path(root)
    return [(p, p.relative_to(root)) for folder in FOLDERS for sub in (Path(folder), Path(folder, edition))
            for p in sorted((root / sub).glob("*.ipynb"))]
