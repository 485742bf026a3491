"""``perfcourse present NN``: one lesson's widgets and outputs on a projector, code hidden (Voila).

The lesson is read where it is (the checkout, or the copy packaged with perfcourse), or from
the course folder given with ``--dir``; nothing is copied. ``--lang zh`` (or, without ``--lang``,
``PERFCOURSE_LANG=zh``) presents the Chinese edition's lesson (``notebooks/zh/``) with its kernel in
Chinese.
``--lecture`` shows the lesson for a lecture hall (see :mod:`perfcourse.cli.lecture`): headings,
widgets and results without the prose or the self-test, larger figures, and the class's guesses
given with ``--guess NAME=VALUE``.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from .._lang import ENV, _
from ..teach import lessons
from ..teach.predictions import ENV_RECORD
from . import CommandError, course
from .lab import add_lang_argument, lang_of
from .serving import add_server_arguments, choose_port, headless, installed, serve

VOILA_PORT = 8866   # Voila's own default


def find_lesson(number, nbdir):
    """The notebook of lesson ``number`` in the folder of lesson notebooks ``nbdir``."""
    found = Path(nbdir) / lessons.lesson(number).notebook
    if not found.is_file():
        raise ValueError(_("lesson {number:02d} has no notebook {name} in {folder!r}").format(
            number=number, name=found.name, folder=str(nbdir)))
    return found


def voila_command(path, *, port=None, no_browser=False):
    """The Voila command that shows ``path`` with its code hidden."""
    cmd = [sys.executable, "-m", "voila", str(path), "--Voila.ip=127.0.0.1", "--strip_sources=True"]
    if port:
        cmd.append(f"--port={port}")
    if no_browser:
        cmd.append("--no-browser")
    return cmd


def add_arguments(parser):
    parser.add_argument("lesson", type=int, help=_("lesson number, e.g. 3 for 03_amdahl"))
    add_server_arguments(parser, dir_help=_("course folder to read the lesson from, the one holding notebooks/ "
                                            "(default: the course that came with perfcourse)"))
    add_lang_argument(parser)
    parser.add_argument("--lecture", action="store_true",
                        help=_("for a lecture: headings, widgets and results, no prose or self-test, larger figures"))
    parser.add_argument("--guess", action="append", metavar="NAME=VALUE",
                        help=_("with --lecture: the class's guess for the lesson's my_guess_NAME (repeat for each)"))


def _lecture_copy(path, guesses, folder):
    """Write the lecture version of the lesson at ``path`` into ``folder``; its path."""
    import nbformat

    from .lecture import guess_names, lecture_notebook, parse_guesses

    nb = nbformat.read(path, as_version=4)
    try:
        chosen = parse_guesses(guesses, guess_names(nb))
    except ValueError as err:
        raise CommandError(str(err), code=2) from None
    target = Path(folder) / path.name
    nbformat.write(lecture_notebook(nb, chosen), target)
    return target


def run(args):
    lang = lang_of(args)
    try:
        nbdir = Path(args.dir) / "notebooks" if args.dir else course.lessons_dir()
        path = find_lesson(args.lesson, nbdir if lang == "en" else nbdir / course.EDITION)
    except (ValueError, TypeError, FileNotFoundError) as err:
        raise CommandError(str(err), code=2 if isinstance(err, (ValueError, TypeError)) else 1) from None
    if args.guess and not args.lecture:
        raise CommandError(_("--guess sets the class's guesses of a lecture; add --lecture"), code=2)
    if args.lecture:
        with tempfile.TemporaryDirectory(prefix="perfcourse-lecture-") as folder:
            return _present(args, _lecture_copy(path, args.guess, folder), lang, cwd=path.parent)
    return _present(args, path, lang, cwd=path.parent)


def _present(args, path, lang, cwd):
    chosen = args.port if args.dry_run else choose_port(args.port, VOILA_PORT, server="Voila")
    cmd = voila_command(path, port=chosen, no_browser=args.no_browser or headless())
    if args.dry_run:
        print(" ".join(cmd))
        return 0
    if not installed("voila"):
        raise CommandError(_("Voila is not installed; install it with  python -m pip install voila"))
    print(_("Presenting {name} with code hidden; stop with Ctrl-C.").format(name=path.name), flush=True)
    env = {ENV_RECORD: "0"}      # a presentation shows guesses and measurements but writes no learner's record
    if lang != "en":             # the kernels print in the lesson's language
        env[ENV] = lang
    return serve(cmd, cwd=cwd, env=env)
