"""``perfcourse predictions``: your guesses across the course beside the models', and your trend."""

from __future__ import annotations

from pathlib import Path

from .._lang import _
from ..teach import predictions
from . import CommandError
from ._output import output_file


def add_arguments(parser):
    parser.add_argument("--log", default=None, metavar="FILE",
                        help=_("the log to read (default: predictions.jsonl in ${variable} or the user's data "
                               "folder)").format(variable=predictions.ENV_HOME))
    parser.add_argument("--plot", default=None, metavar="PNG", help=_("also save the calibration plot to this file"))


def _plot_target(plot):
    """Check before reading anything that the plot can be written: its folder, and a format matplotlib writes."""
    from matplotlib.figure import Figure

    formats = sorted(Figure().canvas.get_supported_filetypes())
    return output_file("--plot", plot, suffixes=["." + f for f in formats])


def run(args):
    if args.plot:
        _plot_target(args.plot)
    try:
        path = args.log if args.log else predictions.log_path()
        if args.log and not Path(args.log).is_file():
            raise CommandError(_("no prediction log at {path}: give the file that lessons wrote to").format(
                path=args.log))
        entries = predictions.load(path, strict=True)
    except ValueError as err:
        raise CommandError(str(err)) from None
    cal = predictions.calibration(entries)
    print(_("predictions recorded in {path}").format(path=path))
    if cal.rows:
        print(cal.table())
    print(cal.summary())
    if args.plot and cal.rows:
        import matplotlib

        matplotlib.use("Agg")
        from ..viz import plot_calibration

        ax = plot_calibration(cal.rows, title=_("your predictions across the course"))
        ax.figure.tight_layout()
        ax.figure.savefig(args.plot, dpi=120, bbox_inches="tight")   # the y label stays in
        print(_("plot written to {path}").format(path=args.plot))
    return 0
