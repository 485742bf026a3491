"""``perfcourse make-exercises [--check]``: write ``exercises/`` from ``solutions/``, or check it is current.

It also keeps the self-check's stored answers current (:mod:`perfcourse.grading.cases`): a cases
file whose checks or references (``solutions/references/``) changed is recorded again, by running
that solution notebook here; ``--check`` only compares their stamps.

The course is found like the other commands find it: ``--root DIR``, else the checkout this
``perfcourse`` runs from (an editable install); ``--solutions`` and ``--exercises`` default to
the folders of that name in it. See :mod:`perfcourse.grading.make` for how an exercise is
made from its solution.
"""

from __future__ import annotations

import sys
from pathlib import Path

from .._lang import _, ngettext
from . import CommandError


def add_arguments(parser):
    parser.add_argument("--root", metavar="DIR", default=None,
                        help=_("the course folder holding solutions/ and exercises/ (default: the checkout this "
                             "perfcourse runs from)"))
    parser.add_argument("--solutions", default=None, metavar="DIR",
                        help=_("folder of solution notebooks NN_*.ipynb (default: ROOT/solutions)"))
    parser.add_argument("--exercises", default=None, metavar="DIR",
                        help=_("folder to write the exercise notebooks to (default: ROOT/exercises)"))
    parser.add_argument("--check", action="store_true",
                        help=_("write nothing; exit 1 listing the notebooks and stored self-check cases that are "
                             "stale, missing or extra"))


def _folders(args):
    """(solutions, exercises) folders from the arguments and the course's root."""
    if args.root is not None:
        root = Path(args.root)
        if not (root / "solutions").is_dir():
            raise CommandError(_("--root must be a course folder holding solutions/; {root!r} is not").format(
                root=args.root), code=2)
    elif args.solutions is None or args.exercises is None:
        from .course import checkout_root

        root = checkout_root()
        if root is None:
            raise CommandError(_("make-exercises needs the course's repository (its solutions/ folder), and this "
                                 "perfcourse is not installed from one: give --root DIR"), code=2)
    else:
        root = None
    solutions = Path(args.solutions) if args.solutions is not None else root / "solutions"
    exercises = Path(args.exercises) if args.exercises is not None else root / "exercises"
    return solutions, exercises


def run(args):
    import nbformat

    from ..grading import cases
    from ..grading.make import check, plan, write

    solutions, exercises = _folders(args)
    references = solutions / "references"       # where there are none (a course of other exercises): no cases
    try:
        wanted = plan(solutions, exercises)
        old_cases = cases.stale(references) if references.is_dir() else {}
    except (ValueError, OSError, nbformat.ValidationError) as err:
        raise CommandError(str(err).splitlines()[0] if str(err) else type(err).__name__, code=2) from None
    if args.check:
        problems = check(wanted, exercises) + list(old_cases.values())
        if problems:
            print("\n".join(problems), file=sys.stderr)
            raise CommandError(ngettext("{n} file out of date; run `perfcourse make-exercises` and delete the extra "
                                        "files", "{n} files out of date; run `perfcourse make-exercises` and delete "
                                        "the extra files", len(problems)).format(n=len(problems)))
        also = _("; the stored self-check cases too") if references.is_dir() else ""
        print(_("{folder}: {n} exercise notebooks, all current{also}").format(folder=exercises, n=len(wanted),
                                                                              also=also))
        return 0
    try:
        written = write(wanted)
    except OSError as err:
        raise CommandError(_("cannot write {folder}: {reason}").format(folder=exercises, reason=err)) from None
    print(_("{folder}: wrote {written}, {current} already current").format(folder=exercises, written=written,
                                                                           current=len(wanted) - written))
    try:
        recorded = cases.refresh(solutions, references) if references.is_dir() else []
    except (ValueError, OSError) as err:
        raise CommandError(_("cannot record the self-check's cases: {reason}").format(
            reason=str(err).splitlines()[0])) from None
    if recorded:
        print(_("recorded the self-check's answers for {names}").format(names=", ".join(recorded)))
    for line in check(wanted, exercises):
        print(_("warning: {problem}; delete it if it is no longer wanted").format(problem=line), file=sys.stderr)
    return 0
