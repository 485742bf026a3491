"""The ``perfcourse`` command: one sub-command per module, imported only when used."""

from __future__ import annotations

import argparse
import importlib
import sys

# name -> (module that defines add_arguments(parser) and run(args) -> int, one-line help)
COMMANDS = {
    "doctor": ("perfcourse.doctor", "print Python, package versions, backend and CPU; exit 0"),
    "lab": ("perfcourse.lab", "open the course in JupyterLab at notebooks/00_start_here.ipynb"),
}


def build_parser():
    parser = argparse.ArgumentParser(
        prog="perfcourse",
        description="Fundamentals of GPU and parallel performance: predict, then measure.")
    parser.add_argument("--version", action="version", version=f"perfcourse {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, helptext) in COMMANDS.items():
        p = sub.add_parser(name, help=helptext, description=helptext)
        p.set_defaults(_module=module)
        importlib.import_module(module).add_arguments(p)
    return parser


def _version():
    from . import __version__

    return __version__


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    return int(importlib.import_module(args._module).run(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
