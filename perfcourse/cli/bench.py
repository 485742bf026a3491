"""``perfcourse bench``: this machine's measured ceilings beside its datasheet."""

from __future__ import annotations

import json

from .._lang import _
from . import CommandError
from ._output import output_file


def add_arguments(parser):
    parser.add_argument("--quick", action="store_true", help=_("small sizes and few repeats (a few seconds)"))
    parser.add_argument("--json", metavar="FILE", help=_("also write the measured figures to FILE as JSON"))


def chosen_backend():
    """The backend ``PERFCOURSE_BACKEND`` asks for; a :class:`CommandError` when it cannot be had.

    A value other than numpy or cupy is a usage error (exit 2); CuPy forced where it cannot run, a failure.
    """
    from ..measure import backend

    try:
        return backend.get(refresh=True)
    except ValueError as err:
        raise CommandError(str(err), code=2) from err
    except RuntimeError as err:
        raise CommandError(str(err)) from err


def run(args):
    from ..measure import hardware
    from ..measure.bench import report

    if args.json:
        output_file("--json", args.json)
    b = chosen_backend()
    print(f"perfcourse bench: {b.describe()}")
    sheet = hardware.device_datasheet(b)
    if not b.on_gpu:
        print(_("Measured figures only."))
    ceilings = hardware.measure_ceilings(quick=bool(args.quick), backend=b, progress=False)
    print(report(ceilings, sheet))
    if args.json:
        try:
            with open(args.json, "w", encoding="utf-8") as f:
                json.dump({"ceilings": ceilings.to_dict(), "datasheet": sheet.__dict__ if sheet else None}, f,
                          indent=1, default=list)
        except OSError as err:
            raise CommandError(_("cannot write --json {path}: {reason}").format(path=args.json,
                                                                                  reason=err.strerror or err)) from None
        print(_("wrote {path}").format(path=args.json))
    return 0
