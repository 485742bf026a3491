"""Options and helpers shared by the commands that start a local server (``lab``, ``present``).

:func:`serve` runs the server in a process group (a session) of its own, so that no signal
meant for the terminal reaches it half-way, and stops it when this command is asked to stop
(SIGINT, that is Ctrl-C, SIGTERM or SIGHUP): SIGTERM to the whole group, which lets JupyterLab
and Voila shut their kernels down, then SIGKILL to whatever is left after a grace period,
kernels included (they run in sessions of their own). No process the server started outlives
the command.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import signal
import subprocess
import sys

from .._lang import _
from . import CommandError, language

__all__ = ["add_server_arguments", "port", "choose_port", "headless", "installed", "serve", "stop", "STOP_SIGNALS",
           "GRACE_S"]

STOP_SIGNALS = tuple(  # the requests to stop that a terminal or a service manager sends
    getattr(signal, name) for name in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, name))
GRACE_S = 10.0   # how long the server may take to stop its kernels before it is killed


def port(text):
    """An argparse type: a TCP port number from 1 to 65535."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if not 1 <= value <= 65535:
        raise argparse.ArgumentTypeError(_("must be a whole number from 1 to 65535; got {text!r}", language()).format(
            text=text))
    return value


def _busy(number):
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.1", number))
        except OSError:
            return True
    return False


def choose_port(requested, default, *, server, tries=50):
    """The port to serve on: ``requested`` if it is free (else a one-line failure), or the first free one from
    ``default`` up, said in one line when it is not ``default`` (a server left running holds it)."""
    hint = _("`jupyter server list` shows the JupyterLabs still running")
    if requested:
        if _busy(requested):
            raise CommandError(_("--port {port} is in use ({hint}); choose another port").format(port=requested,
                                                                                                 hint=hint))
        return requested
    for number in range(default, default + tries):
        if not _busy(number):
            if number != default:
                print(_("port {default} is in use ({hint}); {server} serves on port {port} instead").format(
                    default=default, hint=hint, server=server, port=number), flush=True)
            return number
    raise CommandError(_("ports {first} to {last} are all in use ({hint}); choose one with --port").format(
        first=default, last=default + tries - 1, hint=hint))


def add_server_arguments(parser, *, dir_help):
    """Add ``--port``, ``--no-browser``, ``--dry-run`` and ``--dir`` (described by ``dir_help``)."""
    parser.add_argument("--port", type=port, default=None, help=_("port to serve on (default: the server's own)"))
    parser.add_argument("--no-browser", action="store_true", help=_("do not try to open a browser"))
    parser.add_argument("--dry-run", action="store_true", help=_("print what would be done and the server "
                        "command, and start nothing"))
    parser.add_argument("--dir", default=None, metavar="DIR", help=dir_help)


def headless():
    """True when no screen is attached (then the URL is printed for the learner to open)."""
    if sys.platform.startswith("linux"):
        return not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return False


def installed(module):
    """True when ``module`` (e.g. ``"jupyterlab"``) can be imported."""
    return importlib.util.find_spec(module) is not None


def serve(cmd, cwd, *, grace=GRACE_S, env=None):
    """Run a server command until it exits or this process is asked to stop; the exit status.

    ``env``: variables to add to this process's environment for the server and its kernels. Their
    deprecation warnings (the servers' own, of no use to a learner) are not shown unless
    ``PYTHONWARNINGS`` asks for them.

    Stopped by SIGINT (Ctrl-C), the status is 0; by SIGTERM or SIGHUP, 128 + the signal's number. A
    server that exits non-zero by itself is a :class:`CommandError` (its own messages are above).
    """
    if not isinstance(cmd, (list, tuple)) or not cmd or not all(isinstance(c, str) for c in cmd):
        raise TypeError(f"cmd must be a non-empty list of strings; got {cmd!r}")
    received = []
    previous = {s: signal.signal(s, lambda signum, frame: received.append(signum)) for s in STOP_SIGNALS}
    try:
        quiet = {} if "PYTHONWARNINGS" in os.environ else {"PYTHONWARNINGS": "ignore::DeprecationWarning"}
        proc = subprocess.Popen(list(cmd), cwd=cwd, env={**os.environ, **quiet, **(env or {})},
                                stdin=subprocess.DEVNULL,
                                start_new_session=True)
        while proc.poll() is None and not received:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=0.25)
        if received:
            stop(proc, grace=grace)
            return 0 if received[0] == signal.SIGINT else 128 + received[0]
        stop(proc, grace=grace)       # the server is gone; its kernels may not be
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)
    if proc.returncode:
        name = cmd[2] if len(cmd) > 2 and cmd[1] == "-m" else os.path.basename(cmd[0])
        raise CommandError(_("the server ({name}) exited with status {status}; its messages are above").format(
            name=name, status=proc.returncode))
    return 0


def _signal_group(proc, signum):
    """Send ``signum`` to the process group led by ``proc`` (to ``proc`` alone where there are no groups)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        if hasattr(os, "killpg"):
            os.killpg(proc.pid, signum)
        elif proc.poll() is None:
            proc.terminate() if signum == signal.SIGTERM else proc.kill()


def _descendants(pid):
    """The processes below ``pid`` (children, their children...), as ``psutil.Process`` objects."""
    import psutil

    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return []


def stop(proc, *, grace=GRACE_S):
    """Stop the server ``proc`` (started in a session of its own) and every process below it.

    SIGTERM to its process group, ``grace`` seconds for a clean shutdown, then SIGKILL to the group
    and to any process below it that is still there (kernels run in sessions of their own).
    """
    import psutil

    below = _descendants(proc.pid)
    _signal_group(proc, signal.SIGTERM)
    try:
        proc.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        _signal_group(proc, signal.SIGKILL)
        proc.wait()
    _, alive = psutil.wait_procs(below, timeout=grace)
    for p in alive:
        with contextlib.suppress(psutil.Error):
            p.kill()
    psutil.wait_procs(alive, timeout=grace)
