"""The ``perfcourse`` command: one sub-command per module of this package, imported only when used.

Each command module defines ``add_arguments(parser)`` and ``run(args) -> int``. An expected
failure raises :class:`CommandError`, which ``main`` prints as one line,
``perfcourse <command>: <reason>``, on stderr before exiting non-zero (2 for a usage error,
1 for any other failure); it never shows a traceback for one.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

__all__ = ["COMMANDS", "CommandError", "build_parser", "main"]

# name -> (module that defines add_arguments(parser) and run(args) -> int, one-line help)
COMMANDS = {
    "doctor": ("perfcourse.cli.doctor", "print Python, package versions, backend, CPU and where the lessons are"),
    "lab": ("perfcourse.cli.lab", "open the course in JupyterLab at notebooks/00_start_here.ipynb"),
    "bench": ("perfcourse.cli.bench", "measure this machine's ceilings against its datasheet"),
    "gpu-check": ("perfcourse.cli.gpu_check", "run the GPU tests, ceilings and harness checks; write a JSON report"),
    "make-exercises": ("perfcourse.cli.make_exercises", "write exercises/ from solutions/ (or --check it is current)"),
    "grade": ("perfcourse.cli.grade", "grade submitted exercise notebooks and print a score table"),
    "glossary": ("perfcourse.cli.glossary", "look up a term in English or Chinese"),
    "site": ("perfcourse.cli.site", "render every lesson to a static HTML site"),
    "present": ("perfcourse.cli.present", "show one lesson's widgets with Voila, code hidden"),
    "predictions": ("perfcourse.cli.predictions", "your guesses across the course beside the models', and your trend"),
}


class CommandError(Exception):
    """An expected failure of a command: ``main`` prints the message as one line and exits with ``code``."""

    def __init__(self, message, code=1):
        super().__init__(message)
        self.code = code


def build_parser(command=None):
    """The argument parser; only ``command``'s module is imported (to add its arguments)."""
    parser = argparse.ArgumentParser(
        prog="perfcourse",
        description="Fundamentals of GPU and parallel performance: predict, then measure.")
    parser.add_argument("--version", action="version", version=f"perfcourse {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, helptext) in COMMANDS.items():
        p = sub.add_parser(name, help=helptext, description=helptext)
        p.set_defaults(_module=module)
        if name == command:
            importlib.import_module(module).add_arguments(p)
    return parser


def _version():
    from .. import __version__

    return __version__


def main(argv=None):
    """Run ``perfcourse`` with ``argv`` (default: the command line); the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    command = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser(command if command in COMMANDS else None)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    try:
        return int(importlib.import_module(args._module).run(args) or 0)
    except CommandError as err:
        print(f"perfcourse {args.command}: {err}", file=sys.stderr)
        return err.code
    except KeyboardInterrupt:
        print(f"perfcourse {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into e.g. `head`, which stopped reading
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
