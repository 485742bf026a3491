"""``perfcourse lab``: open the course in JupyterLab at the first lesson."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

FIRST = "00_start_here.ipynb"


def notebooks_dir(start=None):
    """The course's ``notebooks/`` folder: under the current folder, or beside the package."""
    here = Path(start or os.getcwd()).resolve()
    for root in (here, *here.parents, Path(__file__).resolve().parent.parent):
        if (root / "notebooks" / FIRST).is_file():
            return root / "notebooks"
    raise FileNotFoundError(f"cannot find notebooks/{FIRST}: run perfcourse lab inside the course's folder "
                            "(the one with README.md and notebooks/)")


def headless():
    """True when no screen is attached (then the URL is printed for the learner to open)."""
    if sys.platform.startswith("linux"):
        return not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return False


def lab_command(nbdir, *, port=None, no_browser=False):
    cmd = [sys.executable, "-m", "jupyterlab", f"--ServerApp.root_dir={nbdir}",
           f"--LabApp.default_url=/lab/tree/{FIRST}"]
    if no_browser:
        cmd.append("--no-browser")
    if port:
        cmd.append(f"--port={port}")
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        cmd.append("--allow-root")
    return cmd


def add_arguments(parser):
    parser.add_argument("--port", type=int, default=None, help="port to serve on (default: Jupyter's)")
    parser.add_argument("--no-browser", action="store_true", help="do not try to open a browser")
    parser.add_argument("--dry-run", action="store_true", help="print the command instead of running it")


def run(args):
    nbdir = notebooks_dir()
    no_browser = args.no_browser or headless()
    cmd = lab_command(nbdir, port=args.port, no_browser=no_browser)
    if args.dry_run:
        print(" ".join(cmd))
        return 0
    if no_browser:
        print("No screen found: JupyterLab will print a URL with a token below. Open it in a browser "
              f"(forward the port if this is a remote machine) and start with {FIRST}.", flush=True)
    if shutil.which("jupyter") is None and not _has_jupyterlab():
        print("JupyterLab is not installed: run  python -m pip install -e .", file=sys.stderr)
        return 1
    return subprocess.call(cmd, cwd=nbdir)


def _has_jupyterlab():
    import importlib.util

    return importlib.util.find_spec("jupyterlab") is not None
