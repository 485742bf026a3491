"""The ``perfcourse`` command: one sub-command per module of this package, imported only when used.

Each command module defines ``add_arguments(parser)`` and ``run(args) -> int``. The error policy,
kept here for every command:

- an expected failure raises :class:`CommandError`; ``main`` prints it as one line,
  ``perfcourse <command>: <reason>``, on stderr and exits 2 for a usage error, 1 for any other;
- a wrong argument is a usage error too: one line naming the argument, exit 2;
- anything else is a bug: ``main`` prints the traceback and a line asking to report it, exit 1;
- ``--debug`` (before or after the command) or ``PERFCOURSE_DEBUG=1`` adds the traceback to an
  expected failure as well.

Every line a command prints is in the learner's language (``PERFCOURSE_LANG``, see
:mod:`perfcourse._lang`), the ``perfcourse <command>:`` of an error line included only as a prefix:
the reason is translated. Under Chinese, argparse's own words (usage errors, the headings of
``--help``) come from the message catalog too; the help of each option stays English.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
import traceback

from .._lang import ENV, N_, _, current, lookup

__all__ = ["COMMANDS", "CommandError", "DEBUG_ENV", "REPORT", "build_parser", "language", "main"]

DEBUG_ENV = "PERFCOURSE_DEBUG"
REPORT = N_("this is a bug in perfcourse; please report it with the command you ran and the traceback above "
            "to the course's issue tracker")

# name -> (module that defines add_arguments(parser) and run(args) -> int, one-line help)
COMMANDS = {
    "doctor": ("perfcourse.cli.doctor", N_("print Python, package versions, backend, CPU and where the lessons are")),
    "lab": ("perfcourse.cli.lab", N_("open the course in JupyterLab at notebooks/00_start_here.ipynb")),
    "bench": ("perfcourse.cli.bench", N_("measure this machine's ceilings against its datasheet")),
    "gpu-check": ("perfcourse.cli.gpu_check",
                  N_("run the GPU tests, ceilings and harness checks; write a JSON report")),
    "make-exercises": ("perfcourse.cli.make_exercises",
                       N_("write exercises/ from solutions/ (or --check it is current)")),
    "grade": ("perfcourse.cli.grade", N_("grade submitted exercise notebooks and print a score table")),
    "release": ("perfcourse.cli.release", N_("write the handout: lessons and exercises, no solutions, with a README")),
    "glossary": ("perfcourse.cli.glossary", N_("look up a term in English or Chinese")),
    "site": ("perfcourse.cli.site", N_("render every lesson to a static HTML site")),
    "present": ("perfcourse.cli.present", N_("show one lesson's widgets with Voila, code hidden")),
    "predictions": ("perfcourse.cli.predictions",
                    N_("your guesses across the course beside the models', and your trend")),
    "translate": ("perfcourse.cli.translate",
                  N_("update the Chinese edition's catalogs and notebooks (or --check them)")),
}

# argparse's own words (its usage errors and the headings of --help), marked for the message catalog: under
# Chinese, argparse reads them through the catalog while a command line is parsed (see _argparse_speaks)
ARGPARSE_WORDS = (
    N_("usage: "), N_("positional arguments"), N_("options"), N_("show this help message and exit"),
    N_("argument %(argument_name)s: %(message)s"), N_("the following arguments are required: %s"),
    N_("unrecognized arguments: %s"), N_("expected one argument"), N_("expected at most one argument"),
    N_("expected at least one argument"), N_("invalid %(type)s value: %(value)r"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"), N_("not allowed with argument %s"),
    N_("ignored explicit argument %r"), N_("one of the arguments %s is required"),
    N_("ambiguous option: %(option)s could match %(matches)s"), N_("show program's version number and exit"),
)


def language():
    """The language the commands speak: ``PERFCOURSE_LANG``'s, else English when that setting is wrong.

    (A wrong setting is itself reported, in English, by :func:`main`.)
    """
    try:
        return current()
    except ValueError:
        return "en"


@contextlib.contextmanager
def _argparse_speaks(lang):
    """Within the block argparse words its messages in ``lang`` (its ``_`` looked up in the message catalog)."""
    if lang == "en":
        yield
        return
    saved = argparse._
    argparse._ = lambda message: lookup(message, lang) if isinstance(message, str) else message
    try:
        yield
    finally:
        argparse._ = saved


@contextlib.contextmanager
def _valid_setting(lang):
    """Within the block ``PERFCOURSE_LANG`` holds a language: ``lang`` in place of a wrong setting.

    A command's help texts are looked up in the learner's language while its arguments are added;
    a wrong setting is reported by :func:`main` once the arguments are read, in English.
    """
    try:
        current()
        wrong = None
    except ValueError:
        wrong = os.environ[ENV]
        os.environ[ENV] = lang
    try:
        yield
    finally:
        if wrong is not None:
            os.environ[ENV] = wrong


class CommandError(Exception):
    """An expected failure of a command: ``main`` prints the message as one line and exits with ``code``."""

    def __init__(self, message, code=1):
        super().__init__(message)
        self.code = code


class _Parser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line: ``perfcourse <command>: <what is wrong>``."""

    def error(self, message):
        see = _(" (see `{prog} --help`)", language()).format(prog=self.prog)
        self.exit(2, f"{self.prog}: {message}{see}\n")


def build_parser(command=None):
    """The argument parser; only ``command``'s module is imported (to add its arguments)."""
    lang = language()
    parser = _Parser(prog="perfcourse", allow_abbrev=False,
                     description=_("Fundamentals of GPU and parallel performance: predict, then measure.", lang))
    parser.add_argument("--version", action="version", version=f"perfcourse {_version()}",
                        help=_("show program's version number and exit", lang))
    parser.add_argument("--debug", action="store_true", help=_("show the traceback of any failure (or set "
                        "{variable}=1)", lang).format(variable=DEBUG_ENV))
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, (module, helptext) in COMMANDS.items():
        helptext = lookup(helptext, lang)
        p = sub.add_parser(name, help=helptext, description=helptext, allow_abbrev=False)
        p.set_defaults(_module=module)
        p.add_argument("--debug", action="store_true", default=argparse.SUPPRESS,
                       help=_("show the traceback of any failure", lang))
        if name == command:
            with _valid_setting(lang):
                importlib.import_module(module).add_arguments(p)
    return parser


def _version():
    from .. import __version__

    return __version__


def _debugging(args):
    return bool(getattr(args, "debug", False)) or os.environ.get(DEBUG_ENV, "").strip() not in ("", "0")


def _command_name(argv):
    """The command named in ``argv``: its first word that is not an option."""
    return next((a for a in argv if not a.startswith("-")), None)


def _paths_not_options(argv, command, takes_paths):
    """For a command that takes paths (``grade``): a word after the command that looks like an option but
    names a file or folder here (a learner's folder ``--unsafe`` or ``--part-timeout=1e-9`` from a shell
    glob) is taken as that path (``./--unsafe``), and said so on stderr. Options are never abbreviated."""
    if not takes_paths:
        return argv
    at = argv.index(command) + 1
    end = argv.index("--", at) if "--" in argv[at:] else len(argv)
    out = list(argv)
    for i in range(at, end):
        word = argv[i]
        if word.startswith("-") and word != "-" and os.path.lexists(word):
            shown = word.encode("ascii", "backslashreplace").decode()[:80]
            took = _("took {shown!r} as the path ./{path}, not as an option: a file or folder here has that name",
                     language())
            print(f"perfcourse {command}: " + took.format(shown=shown, path=shown), file=sys.stderr)
            out[i] = os.path.join(".", word)
    return out


def main(argv=None):
    """Run ``perfcourse`` with ``argv`` (default: the command line); the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    command = _command_name(argv)
    if command in COMMANDS:
        argv = _paths_not_options(argv, command, getattr(importlib.import_module(COMMANDS[command][0]),
                                                         "TAKES_PATHS", False))
    with _argparse_speaks(language()):
        parser = build_parser(command if command in COMMANDS else None)
        args = parser.parse_args(argv)
        if args.command is None:
            parser.print_help()
            return 0
    return _run(args, _debugging(args))


def _check_environment():
    """The course's environment variables that every command reads: a bad one is a usage error, in one line."""
    from .._lang import ENV, resolve

    chosen = os.environ.get(ENV, "").strip()
    if chosen:
        try:
            resolve(chosen)
        except ValueError as err:
            raise CommandError(f"{ENV}: {err} (or leave it unset)", code=2) from None
    home = os.environ.get("PERFCOURSE_HOME", "").strip()
    if home and os.path.exists(os.path.expanduser(home)) and not os.path.isdir(os.path.expanduser(home)):
        raise CommandError(_("PERFCOURSE_HOME must name a folder (where your records are kept); {home!r} is a "
                             "file").format(home=home), code=2)


def _run(args, debug):
    """Run the parsed command under the error policy (see the module's docstring); the exit status."""
    where = f"perfcourse {args.command}"
    try:
        if args.command != "doctor":          # the doctor reports a bad setting in its report instead
            _check_environment()
        return int(importlib.import_module(args._module).run(args) or 0)
    except CommandError as err:
        if debug:  # also the failure behind it, which `raise ... from None` hides
            if err.__suppress_context__ and err.__context__ is not None:
                traceback.print_exception(err.__context__, file=sys.stderr)
            traceback.print_exception(err, file=sys.stderr)
        print(f"{where}: {err}", file=sys.stderr)
        return err.code
    except KeyboardInterrupt:
        print(f"{where}: " + _("interrupted", language()), file=sys.stderr)
        return 130
    except BrokenPipeError:  # output piped into e.g. `head`, which stopped reading
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as err:  # noqa: BLE001 - the last resort: a bug, shown with its traceback
        traceback.print_exception(err, file=sys.stderr)
        print(f"{where}: {type(err).__name__}: {err}; {lookup(REPORT, language())}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
