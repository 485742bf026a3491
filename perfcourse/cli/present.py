"""``perfcourse present NN``: one lesson's widgets and outputs on a projector, code hidden (Voila).

The lesson is read where it is (the checkout, or the copy packaged with perfcourse), or from
the course folder given with ``--dir``; nothing is copied. ``--lang zh`` presents the Chinese
edition's lesson (``notebooks/zh/``) with its kernel in Chinese (``PERFCOURSE_LANG=zh``).
"""

from __future__ import annotations

import sys
from pathlib import Path

from .._lang import ENV
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
        raise ValueError(f"lesson {number:02d} has no notebook {found.name} in {str(nbdir)!r}")
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
    parser.add_argument("lesson", type=int, help="lesson number, e.g. 3 for 03_amdahl")
    add_server_arguments(parser, dir_help="course folder to read the lesson from, the one holding notebooks/ "
                         "(default: the course that came with perfcourse)")
    add_lang_argument(parser)


def run(args):
    lang = lang_of(args)
    try:
        nbdir = Path(args.dir) / "notebooks" if args.dir else course.lessons_dir()
        path = find_lesson(args.lesson, nbdir if lang == "en" else nbdir / course.EDITION)
    except (ValueError, TypeError, FileNotFoundError) as err:
        raise CommandError(str(err), code=2 if isinstance(err, (ValueError, TypeError)) else 1) from None
    chosen = args.port if args.dry_run else choose_port(args.port, VOILA_PORT, server="Voila")
    cmd = voila_command(path, port=chosen, no_browser=args.no_browser or headless())
    if args.dry_run:
        print(" ".join(cmd))
        return 0
    if not installed("voila"):
        raise CommandError("Voila is not installed; install it with  python -m pip install voila")
    print(f"Presenting {path.name} with code hidden; stop with Ctrl-C.", flush=True)
    env = {ENV_RECORD: "0"}      # a presentation shows guesses and measurements but writes no learner's record
    if lang != "en":             # the kernels print in the lesson's language
        env[ENV] = lang
    return serve(cmd, cwd=path.parent, env=env)
