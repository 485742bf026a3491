"""``perfcourse gpu-check --out DIR``: everything that needs a GPU, in one run, into one JSON report.

The work is done by :func:`perfcourse.measure.gpucheck.check`. Its GPU tests are those of the
course repository's ``tests/`` folder: in an install without a checkout it says so in one line
and goes on without them. Without a usable GPU it stops at once, non-zero, saying why and, when
CuPy is missing, how to install it.
"""

from __future__ import annotations

from pathlib import Path

from .._lang import _, lookup
from . import CommandError
from .bench import chosen_backend


def add_arguments(parser):
    parser.add_argument("--out", required=True, metavar="DIR", help=_("folder for the JSON report and the log"))
    parser.add_argument("--skip-tests", action="store_true", help=_("do not run pytest -m gpu"))
    parser.add_argument("--skip-experiments", action="store_true", help=_("do not measure the lesson experiments"))
    parser.add_argument("--quick", action="store_true", help=_("small sizes (a smoke test, not a record)"))


def require_gpu():
    """Refuse, with the reason and what to do, unless CuPy can use a GPU here."""
    from ..measure.backend import ENV_VAR, INSTALL_CUPY, NOT_INSTALLED

    b = chosen_backend()
    if not b.on_gpu:
        if b.reason == NOT_INSTALLED:
            hint = f"; {lookup(INSTALL_CUPY)}"
        elif b.reason.startswith(ENV_VAR):
            hint = _("; unset {variable} to let perfcourse find the GPU").format(variable=ENV_VAR)
        else:
            hint = _("; run it on a machine with an NVIDIA GPU that `nvidia-smi` lists")
        raise CommandError(_("needs a usable NVIDIA GPU with CuPy; none here: {reason}{hint}").format(
            reason=lookup(b.reason), hint=hint))


def run(args):
    from ..measure.gpucheck import check

    if Path(args.out).exists() and not Path(args.out).is_dir():
        raise CommandError(_("--out must be a folder; {path!r} is a file").format(path=args.out), code=2)
    require_gpu()
    try:
        return check(args.out, tests=not args.skip_tests, experiments=not args.skip_experiments, quick=args.quick)
    except OSError as err:
        raise CommandError(_("cannot write the report to {path}: {reason}").format(path=args.out, reason=err)) from err
