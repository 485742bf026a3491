"""``perfcourse present NN``: one lesson's widgets and outputs on a projector, code hidden (Voila)."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

from .._check import positive_int


def find_lesson(number, nbdir):
    """The notebook of lesson ``number`` (0-99) in ``nbdir``."""
    number = positive_int("lesson number", number, low=0)
    from .site import lessons

    for path in lessons(nbdir):
        if path.name.startswith(f"{number:02d}_"):
            return path
    raise ValueError(f"no lesson {number:02d} in {str(nbdir)!r}; lessons are "
                     + ", ".join(p.name[:2] for p in lessons(nbdir)))


def voila_command(path, *, port=None, no_browser=False):
    cmd = [sys.executable, "-m", "voila", str(path), "--Voila.ip=127.0.0.1", "--strip_sources=True"]
    if port:
        cmd.append(f"--port={port}")
    if no_browser:
        cmd.append("--no-browser")
    return cmd


def add_arguments(parser):
    parser.add_argument("lesson", type=int, help="lesson number, e.g. 3 for 03_amdahl")
    parser.add_argument("--port", type=int, default=None, help="port to serve on")
    parser.add_argument("--no-browser", action="store_true", help="do not open a browser")
    parser.add_argument("--dry-run", action="store_true", help="print the command instead of running it")


def run(args):
    from .lab import headless, notebooks_dir

    path = find_lesson(args.lesson, notebooks_dir())
    cmd = voila_command(path, port=args.port, no_browser=args.no_browser or headless())
    if args.dry_run:
        print(" ".join(cmd))
        return 0
    if importlib.util.find_spec("voila") is None:
        print("Voila is not installed: python -m pip install -e '.[present]'", file=sys.stderr)
        return 1
    print(f"Presenting {path.name} with code hidden; stop with Ctrl-C.", flush=True)
    return subprocess.call(cmd, cwd=path.parent, env=dict(os.environ))
