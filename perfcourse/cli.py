"""The ``perfcourse`` command: one sub-command per module, imported only when used."""

from __future__ import annotations

import argparse
import importlib
import sys

# name -> (module that defines add_arguments(parser) and run(args) -> int, one-line help)
COMMANDS = {
    "doctor": ("perfcourse.doctor", "print Python, package versions, backend and CPU; exit 0"),
    "lab": ("perfcourse.lab", "open the course in JupyterLab at notebooks/00_start_here.ipynb"),
    "bench": ("perfcourse.bench", "measure this machine's ceilings against its datasheet"),
    "gpu-check": ("perfcourse.gpucheck", "run the GPU tests, ceilings and harness checks; write a JSON report"),
    "make-exercises": ("perfcourse.grading.make", "write exercises/ from solutions/ (or --check it is current)"),
    "grade": ("perfcourse.grading.grade", "grade submitted exercise notebooks and print a score table"),
    "glossary": ("perfcourse.glossary", "look up a term in English or Chinese"),
    "site": ("perfcourse.site", "render every lesson to a static HTML site"),
    "present": ("perfcourse.present", "show one lesson's widgets with Voila, code hidden"),
}


def build_parser():
    parser = argparse.ArgumentParser(
        prog="perfcourse",
        description="Fundamentals of GPU and parallel performance: predict, then measure.")
    parser.add_argument("--version", action="version", version=f"perfcourse {_version()}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module, helptext) in COMMANDS.items():
        mod = _load(module)
        if mod is None:
            continue
        p = sub.add_parser(name, help=helptext, description=helptext)
        p.set_defaults(_module=module)
        mod.add_arguments(p)
    return parser


def _load(module):
    """Import a command's module; None when that module does not exist in this version."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as err:
        if err.name is not None and module.startswith(err.name):
            return None
        raise


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
