"""``perfcourse grade PATH...``: grade submitted exercise notebooks and print a score table.

Exit status: 0 when grading completed, whatever the scores; 1 when the total is below
``--fail-under``; 2 when the grader itself failed (a path that does not exist, nothing to
grade, a kernel that would not start). See :mod:`perfcourse.grading.grade`.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from . import CommandError


def add_arguments(parser):
    parser.add_argument("paths", nargs="+", metavar="PATH", help="notebooks, or folders of them (searched recursively)")
    parser.add_argument("--json", metavar="FILE", help="also write the scores as JSON (a gradebook)")
    parser.add_argument("--timeout", type=float, default=60.0, metavar="S",
                        help="seconds each notebook may run, all cells together (default 60)")
    parser.add_argument("--memory", type=float, default=2048, metavar="MIB",
                        help="memory each notebook may allocate, MiB (default 2048)")
    parser.add_argument("--fail-under", type=float, default=None, metavar="PCT",
                        help="exit 1 when the total score is below PCT percent")
    parser.add_argument("--jobs", type=int, default=1, metavar="N", help="notebooks graded at once (default 1)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the random test inputs (default: fresh)")


def run(args):
    from ..grading.grade import grade
    from ..grading.report import percent, table

    try:
        book = grade(args.paths, timeout_s=args.timeout, memory_mb=args.memory, seed=args.seed, jobs=args.jobs)
    except (ValueError, TypeError) as err:
        raise CommandError(str(err), code=2) from None
    print(f"perfcourse grade: seed {book['seed']}, time limit {book['timeout_s']:g} s per notebook")
    print(table(book["submissions"]))
    if args.json:
        try:
            Path(args.json).write_text(json.dumps(book, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        except OSError as err:
            raise CommandError(f"cannot write --json {args.json}: {err.strerror or err}", code=2) from None
        print(f"wrote {args.json}")
    for error in book["errors"]:
        print(error, file=sys.stderr)
    if book["errors"] or not book["submissions"]:
        raise CommandError("grader failures above" if book["errors"] else "no notebooks found", code=2)
    if args.fail_under is not None and percent(book["points"], book["max_points"]) < args.fail_under:
        raise CommandError(f"total {book['percent']:.1f}% is below --fail-under {args.fail_under:g}%")
    return 0
