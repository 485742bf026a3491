"""``perfcourse make-exercises [--check]``: write ``exercises/`` from ``solutions/``, or check it is current.

See :mod:`perfcourse.grading.make` for how an exercise is made from its solution.
"""

from __future__ import annotations

import sys

from . import CommandError


def add_arguments(parser):
    parser.add_argument("--solutions", default="solutions", metavar="DIR",
                        help="folder of solution notebooks NN_*.ipynb (default: solutions)")
    parser.add_argument("--exercises", default="exercises", metavar="DIR",
                        help="folder to write the exercise notebooks to (default: exercises)")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 listing the notebooks that are stale, missing or extra")


def run(args):
    import nbformat

    from ..grading.make import check, plan, write

    try:
        wanted = plan(args.solutions, args.exercises)
    except (ValueError, OSError, nbformat.ValidationError) as err:
        raise CommandError(str(err).splitlines()[0] if str(err) else type(err).__name__, code=2) from None
    if args.check:
        problems = check(wanted, args.exercises)
        if problems:
            print("\n".join(problems), file=sys.stderr)
            raise CommandError(f"{len(problems)} exercise notebook{'s' * (len(problems) != 1)} out of date; run "
                               "`perfcourse make-exercises` and delete the extra files")
        print(f"{args.exercises}: {len(wanted)} exercise notebooks, all current")
        return 0
    try:
        written = write(wanted)
    except OSError as err:
        raise CommandError(f"cannot write {args.exercises}: {err}") from None
    print(f"{args.exercises}: wrote {written}, {len(wanted) - written} already current")
    for line in check(wanted, args.exercises):
        print(f"warning: {line}; delete it if it is no longer wanted", file=sys.stderr)
    return 0
