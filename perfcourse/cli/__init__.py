"""The ``perfcourse`` command: one sub-command per module, imported only when used."""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys

# name -> (module that defines add_arguments(parser) and run(args) -> int, one-line help)
COMMANDS = {
    "doctor": ("perfcourse.doctor", "print Python, package versions, backend and CPU; exit 0"),
    "lab": ("perfcourse.lab", "open the course in JupyterLab at notebooks/00_start_here.ipynb"),
    "bench": ("perfcourse.measure.bench", "measure this machine's ceilings against its datasheet"),
    "gpu-check": ("perfcourse.measure.gpucheck", "run the GPU tests, ceilings and harness checks; write a JSON report"),
    "make-exercises": ("perfcourse.grading.make", "write exercises/ from solutions/ (or --check it is current)"),
    "grade": ("perfcourse.grading.grade", "grade submitted exercise notebooks and print a score table"),
    "glossary": ("perfcourse.teach.glossary", "look up a term in English or Chinese"),
    "site": ("perfcourse.site", "render every lesson to a static HTML site"),
    "present": ("perfcourse.present", "show one lesson's widgets with Voila, code hidden"),
}


def build_parser(command=None):
    """The argument parser; only ``command``'s module is imported (to add its arguments)."""
    parser = argparse.ArgumentParser(
        prog="perfcourse",
        description="Fundamentals of GPU and parallel performance: predict, then measure.")
    parser.add_argument("--version", action="version", version=f"perfcourse {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, helptext) in COMMANDS.items():
        if not _exists(module):
            continue
        p = sub.add_parser(name, help=helptext, description=helptext)
        p.set_defaults(_module=module)
        if name == command:
            importlib.import_module(module).add_arguments(p)
    return parser


def _exists(module):
    """True when a command's module is part of this version of the package."""
    try:
        return importlib.util.find_spec(module) is not None
    except ModuleNotFoundError:
        return False


def _version():
    from .. import __version__

    return __version__


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    command = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser(command if command in COMMANDS else None)
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    try:
        return int(importlib.import_module(args._module).run(args) or 0)
    except BrokenPipeError:  # output piped into e.g. `head`, which stopped reading
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    sys.exit(main())
