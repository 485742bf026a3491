"""``perfcourse gpu-check --out DIR``: everything that needs a GPU, in one run, into one JSON report.

The work is done by :func:`perfcourse.measure.gpucheck.check`. Its GPU tests are those of the
course repository's ``tests/`` folder: in an install without a checkout it says so in one line
and goes on without them. Without a usable GPU it stops at once, non-zero.
"""

from __future__ import annotations


def add_arguments(parser):
    parser.add_argument("--out", required=True, metavar="DIR", help="folder for the JSON report and the log")
    parser.add_argument("--skip-tests", action="store_true", help="do not run pytest -m gpu")
    parser.add_argument("--skip-experiments", action="store_true", help="do not measure the lesson experiments")
    parser.add_argument("--quick", action="store_true", help="small sizes (a smoke test, not a record)")


def run(args):
    from ..measure.gpucheck import check

    return check(args.out, tests=not args.skip_tests, experiments=not args.skip_experiments, quick=args.quick)
