"""``perfcourse predictions``: your guesses across the course beside the models', and your trend."""

from __future__ import annotations

from pathlib import Path

from ..teach import predictions
from . import CommandError


def add_arguments(parser):
    parser.add_argument("--log", default=None, metavar="FILE",
                        help=f"the log to read (default: predictions.jsonl in ${predictions.ENV_HOME} or the "
                             "user's data folder)")
    parser.add_argument("--plot", default=None, metavar="PNG", help="also save the calibration plot to this file")


def run(args):
    path = args.log if args.log else predictions.log_path()
    if args.log and not Path(args.log).is_file():
        raise CommandError(f"no prediction log at {args.log}: give the file that lessons wrote to")
    cal = predictions.calibration(predictions.load(path))
    print(f"predictions recorded in {path}")
    if cal.rows:
        print(cal.table())
    print(cal.summary())
    if args.plot and cal.rows:
        import matplotlib

        matplotlib.use("Agg")
        from ..viz import plot_calibration

        ax = plot_calibration(cal.rows, title="your predictions across the course")
        ax.figure.tight_layout()
        ax.figure.savefig(args.plot, dpi=120)
        print(f"plot written to {args.plot}")
    return 0
