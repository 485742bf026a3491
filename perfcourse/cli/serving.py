"""Options and helpers shared by the commands that start a local server (``lab``, ``present``)."""

from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys

__all__ = ["add_server_arguments", "port", "headless", "installed", "serve"]


def port(text):
    """An argparse type: a TCP port number from 1 to 65535."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be a whole number from 1 to 65535; got {text!r}")
    return value


def add_server_arguments(parser, *, dir_help):
    """Add ``--port``, ``--no-browser``, ``--dry-run`` and ``--dir`` (described by ``dir_help``)."""
    parser.add_argument("--port", type=port, default=None, help="port to serve on (default: the server's own)")
    parser.add_argument("--no-browser", action="store_true", help="do not try to open a browser")
    parser.add_argument("--dry-run", action="store_true", help="print what would be done and the server "
                        "command, and start nothing")
    parser.add_argument("--dir", default=None, metavar="DIR", help=dir_help)


def headless():
    """True when no screen is attached (then the URL is printed for the learner to open)."""
    if sys.platform.startswith("linux"):
        return not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return False


def installed(module):
    """True when ``module`` (e.g. ``"jupyterlab"``) can be imported."""
    return importlib.util.find_spec(module) is not None


def serve(cmd, cwd):
    """Run a server command until it exits; its exit status.

    Ctrl-C reaches the server too, which asks or stops by itself (JupyterLab asks to confirm), so
    it is not allowed to end this process first and leave the server half stopped.
    """
    proc = subprocess.Popen(cmd, cwd=cwd, env=dict(os.environ))
    while True:
        try:
            return proc.wait()
        except KeyboardInterrupt:
            continue
