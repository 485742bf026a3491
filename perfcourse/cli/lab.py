"""``perfcourse lab``: open the course in JupyterLab at the first lesson.

In a checkout of the course (an editable install) JupyterLab opens the checkout itself. An
installed package copies its lessons and exercises into a working folder first
(``./perfcourse-course``, or ``--dir``) and opens that; a later run updates the notebooks the
learner has not changed and keeps, and names, the ones they have (see :mod:`.course`).

``--lang zh`` opens the Chinese edition (``notebooks/zh/00_start_here.ipynb``) and sets
``PERFCOURSE_LANG=zh`` for the kernels, so what the package prints is Chinese too. Without
``--lang`` the learner's language decides (``PERFCOURSE_LANG=zh perfcourse lab`` opens the Chinese
edition as well).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from .._lang import _ALLOWED, ENV, _, resolve
from ..teach.lessons import FIRST
from . import CommandError, course
from .serving import add_server_arguments, choose_port, headless, installed, serve

LAB_PORT = 8888     # JupyterLab's own default

START = f"notebooks/{FIRST.notebook}"


def start(lang="en"):
    """The first lesson's path in the course folder, in ``lang``."""
    return START if resolve(lang) == "en" else f"notebooks/{course.EDITION}/{FIRST.notebook}"


def lab_command(root, *, port=None, no_browser=False, lang="en"):
    """The JupyterLab command: rooted at the course folder ``root``, opening the first lesson in ``lang``."""
    cmd = [sys.executable, "-m", "jupyterlab", f"--ServerApp.root_dir={root}",
           f"--LabApp.default_url=/lab/tree/{start(lang)}",
           # Voila's extension (for `perfcourse present`, not JupyterLab) only adds a deprecation warning here
           "--ServerApp.jpserver_extensions={'voila.server_extension': False}"]
    if sys.platform.startswith("linux"):     # kernels over local sockets: no "running over TCP without encryption"
        cmd.append("--KernelManager.transport=ipc")
    if no_browser:
        cmd.append("--no-browser")
    if port:
        cmd += [f"--port={port}", "--ServerApp.port_retries=0"]    # the port chosen, or a failure: never another
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    return cmd


def course_folders(work_dir=None):
    """``(root to open, folder to copy the course from or None)`` for ``perfcourse lab [--dir DIR]``.

    Without ``--dir`` a checkout opens as it is; otherwise the course is copied into the working
    folder (``--dir``, or :func:`course.default_work_dir`) unless that folder is the source itself.
    """
    try:
        source = course.source_root()
    except FileNotFoundError as err:
        raise CommandError(str(err)) from None
    if work_dir is None and course.checkout_root() is not None:
        return source, None
    work = Path(work_dir).expanduser().resolve() if work_dir is not None else course.default_work_dir()
    return (source, None) if work == source else (work, source)


def add_arguments(parser):
    add_server_arguments(parser, dir_help=_("working folder for the course (default: the checkout in an editable "
                                            "install, else ./{folder}); the notebooks are copied into it, never over "
                                            "one you changed").format(folder=course.WORK_DIR))
    add_lang_argument(parser)


def add_lang_argument(parser):
    parser.add_argument("--lang", default=None, metavar="LANG",
                        help=_("the course's language: en or zh, the Chinese edition (default: {variable}, else "
                               "en)").format(variable=ENV))


def lang_of(args):
    """``args.lang`` as ``"en"`` or ``"zh"`` (a usage error for any other); without it, the learner's language."""
    if args.lang is None:
        from . import language

        return language()
    try:
        return resolve(args.lang)
    except ValueError:
        raise CommandError(_("--lang: language must be one of {allowed}; got {value!r}").format(
            allowed=_ALLOWED, value=args.lang), code=2) from None


def _copy(source, root, dry_run):
    try:
        if dry_run:
            p = course.plan(source, root)
            kept = f": {', '.join(p.keep)}" if p.keep else ""
            print(_("dry run: would copy {copy} and update {update} notebooks into {root}, keeping {keep} you "
                    "changed that this version would replace{kept}").format(copy=len(p.copy), update=len(p.update),
                                                                            root=root, keep=len(p.keep), kept=kept))
            return
        p = course.sync(source, root)
    except (OSError, ValueError) as err:
        raise CommandError(_("cannot copy the course into {root}: {reason}").format(root=root, reason=err)) from None
    for line in p.summary() or [_("the course in {root} is up to date").format(root=root)]:
        print(line)


def run(args):
    lang = lang_of(args)
    root, source = course_folders(args.dir)
    if lang != "en" and not (Path(source or root) / start(lang)).is_file():
        raise CommandError(_("this course has no Chinese edition yet ({notebook} is missing); open it in English, "
                             "or generate it with  perfcourse translate").format(notebook=start(lang)))
    no_browser = args.no_browser or headless()
    chosen = args.port if args.dry_run else choose_port(args.port, LAB_PORT, server="JupyterLab")
    cmd = lab_command(root, port=chosen, no_browser=no_browser, lang=lang)
    if not args.dry_run and not installed("jupyterlab"):
        raise CommandError(_("JupyterLab is not installed; install it with  python -m pip install jupyterlab"))
    if source is not None:
        _copy(source, root, args.dry_run)
    if args.dry_run:
        print(" ".join(cmd))
        return 0
    if no_browser:
        print((_("No screen found: ") if headless() else "") + _(
              "JupyterLab will print a URL with a token below. Open it in a browser (forward the port if this is a "
              "remote machine); the course opens at {notebook}.").format(notebook=start(lang)), flush=True)
    print(_("Stop JupyterLab with Ctrl-C; its kernels stop with it."), flush=True)
    if lang != "en":   # the kernels print in the lesson's language
        return serve(cmd, cwd=root, env={ENV: lang})
    return serve(cmd, cwd=root)
