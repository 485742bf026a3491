"""`perfcourse lab` and `perfcourse present` own their server: asked to stop, they leave no process behind.

The first tests drive :func:`perfcourse.cli.serving.serve` with a stand-in server (a Python process that
starts a "kernel" in a session of its own, as Jupyter does); the last start the real JupyterLab and Voila
through the ``perfcourse`` command, wait until they answer HTTP and have started a kernel, send the
command a signal, and check that the port goes quiet and every process below the command is gone.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

import psutil
import pytest

from perfcourse.cli import CommandError, serving

from .browser import ROOT, answers_http, free_port, wait_for_http

# a stand-in server: starts a child in its own session (like a Jupyter kernel), writes both pids, waits
STAND_IN = """
import json, signal, subprocess, sys, time
if sys.argv[2] == "ignore-term":
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
kernel = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"], start_new_session=True)
open(sys.argv[1], "w").write(json.dumps([kernel.pid]))
time.sleep(600)
"""


def _signal_self_when_ready(pidfile, signum, deadline_s=60):
    """In a thread: once ``pidfile`` is written, send ``signum`` to this process (where serve() waits)."""
    def go():
        deadline = time.monotonic() + deadline_s
        while time.monotonic() < deadline and not (pidfile.exists() and pidfile.read_text()):
            time.sleep(0.05)
        os.kill(os.getpid(), signum)

    thread = threading.Thread(target=go, daemon=True)
    thread.start()
    return thread


@pytest.mark.parametrize("signum, status", [(signal.SIGTERM, 128 + signal.SIGTERM), (signal.SIGHUP,
                                            128 + signal.SIGHUP), (signal.SIGINT, 0)])
def test_serve_stops_the_server_and_its_kernels_on_a_signal(tmp_path, signum, status):
    pidfile = tmp_path / "pids.json"
    before = signal.getsignal(signum)
    _signal_self_when_ready(pidfile, signum)
    assert serving.serve([sys.executable, "-c", STAND_IN, str(pidfile), "plain"], cwd=tmp_path, grace=2) == status
    kernel, = json.loads(pidfile.read_text())
    assert not psutil.pid_exists(kernel) or psutil.Process(kernel).status() == psutil.STATUS_ZOMBIE, \
        "the server's kernel outlived the command"
    assert signal.getsignal(signum) == before, "serve() left its signal handler installed"


def test_serve_kills_a_server_that_ignores_sigterm(tmp_path):
    pidfile = tmp_path / "pids.json"
    _signal_self_when_ready(pidfile, signal.SIGTERM)
    start = time.monotonic()
    assert serving.serve([sys.executable, "-c", STAND_IN, str(pidfile), "ignore-term"], cwd=tmp_path, grace=1) == 143
    assert time.monotonic() - start < 30
    kernel, = json.loads(pidfile.read_text())
    assert not psutil.pid_exists(kernel) or psutil.Process(kernel).status() == psutil.STATUS_ZOMBIE


def test_serve_reports_a_server_that_fails(tmp_path):
    with pytest.raises(CommandError, match=r"the server \(python\S*\) exited with status 3; its messages are above"):
        serving.serve([sys.executable, "-c", "raise SystemExit(3)"], cwd=tmp_path)
    assert serving.serve([sys.executable, "-c", "pass"], cwd=tmp_path) == 0
    with pytest.raises(TypeError, match="cmd must be a non-empty list of strings"):
        serving.serve("jupyter lab", cwd=tmp_path)


# --- the real servers, through the perfcourse command ------------------------------------------------------

@contextlib.contextmanager
def _command(argv, env_extra=None):
    """Start ``python -m perfcourse ARGV`` in a session of its own; yield the Popen; always clean up."""
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, JUPYTER_CONFIG_DIR=f"{tmp}/config", JUPYTER_RUNTIME_DIR=f"{tmp}/runtime",
                   JUPYTERLAB_SETTINGS_DIR=f"{tmp}/settings", JUPYTERLAB_WORKSPACES_DIR=f"{tmp}/ws",
                   PERFCOURSE_BACKEND="numpy", **(env_extra or {}))
        log = open(Path(tmp) / "command.log", "w")  # noqa: SIM115 - closed below
        proc = subprocess.Popen([sys.executable, "-m", "perfcourse", *argv], cwd=tmp, env=env, stdout=log,
                                stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        proc.seen = []
        try:
            yield proc
        except BaseException:
            log.flush()
            sys.stderr.write((Path(tmp) / "command.log").read_text()[-4000:])
            raise
        finally:
            for p in [*_below(proc.pid), *proc.seen]:      # a failed test leaves nothing running either
                with contextlib.suppress(psutil.Error):
                    p.kill()
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            log.close()


def _below(pid):
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.Error:
        return []


def _wait_for_kernel(proc, timeout=240):
    """The processes below the command once a kernel runs there (the server and, below it, the kernel)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        below = _below(proc.pid)
        proc.seen.extend(below)
        if any("ipykernel" in " ".join(_cmdline(p)) for p in below):
            return below
        assert proc.poll() is None, f"the command exited early with {proc.returncode}"
        time.sleep(0.5)
    raise TimeoutError(f"no kernel started below the command within {timeout} s")


def _cmdline(p):
    try:
        return p.cmdline()
    except psutil.Error:
        return []


def _stop_and_check(proc, port, below, signum=signal.SIGTERM):
    os.kill(proc.pid, signum)
    assert proc.wait(timeout=120) == (0 if signum == signal.SIGINT else 128 + signum)
    gone, alive = psutil.wait_procs(below, timeout=30)
    assert not alive, f"processes outlived the command: {[(p.pid, _cmdline(p)) for p in alive]}"
    assert not answers_http(port), f"port {port} still answers after the command stopped"


@pytest.mark.slow
def test_present_stops_voila_and_its_kernel_on_sigterm():
    pytest.importorskip("voila")
    port = free_port()
    with _command(["present", "3", "--no-browser", "--port", str(port)]) as proc:
        wait_for_http(f"http://127.0.0.1:{port}/voila/static/ready-check", proc, any_status=True)
        # the page itself makes Voila start a kernel and run the lesson; the request need not finish
        threading.Thread(target=lambda: _quietly_get(f"http://127.0.0.1:{port}/"), daemon=True).start()
        below = _wait_for_kernel(proc)
        _stop_and_check(proc, port, below)


@pytest.mark.slow
def test_lab_serves_the_course_root_and_stops_with_its_kernel_on_sigterm():
    pytest.importorskip("jupyterlab")
    port, token = free_port(), "perfcourse-stop-test"
    with _command(["lab", "--no-browser", "--port", str(port)], {"JUPYTER_TOKEN": token}) as proc:
        base = f"http://127.0.0.1:{port}"
        wait_for_http(f"{base}/api/status?token={token}", proc)
        for folder in ("exercises", "notebooks"):
            listing = json.loads(urllib.request.urlopen(f"{base}/api/contents/{folder}?token={token}",
                                                        timeout=30).read())
            assert listing["type"] == "directory" and any(f["name"].endswith(".ipynb") for f in listing["content"])
        request = urllib.request.Request(f"{base}/api/kernels?token={token}", data=b"{}", method="POST",
                                         headers={"Content-Type": "application/json"})
        assert urllib.request.urlopen(request, timeout=60).status == 201
        below = _wait_for_kernel(proc)
        _stop_and_check(proc, port, below)


def _quietly_get(url):
    with contextlib.suppress(OSError, http.client.HTTPException):   # cut short when the server stops
        urllib.request.urlopen(url, timeout=300).read()


def test_the_checkout_is_the_lab_root():
    """`perfcourse lab` in a checkout roots JupyterLab at the folder that holds notebooks/ and exercises/."""
    from perfcourse.cli import lab

    root, source = lab.course_folders()
    assert root == ROOT and source is None
    assert (root / "exercises").is_dir() and f"--ServerApp.root_dir={ROOT}" in lab.lab_command(root)


def _held_port():
    import socket

    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen()
    return s, s.getsockname()[1]


def test_a_busy_port_is_said_in_one_line(tmp_path, monkeypatch, capsys):
    from perfcourse import cli
    from perfcourse.cli import lab, present

    held, number = _held_port()
    try:
        started = []
        monkeypatch.setattr(lab, "serve", lambda cmd, cwd, env=None: started.append(cmd) or 0)
        monkeypatch.setattr(present, "serve", lambda cmd, cwd, env=None: started.append(cmd) or 0)
        for command in (["lab", "--dir", str(tmp_path / "course")], ["present", "3"]):
            assert cli.main([*command, "--no-browser", "--port", str(number)]) == 1
            err = capsys.readouterr().err.strip().splitlines()
            assert err == [f"perfcourse {command[0]}: --port {number} is in use (`jupyter server list` shows the "
                           "JupyterLabs still running); choose another port"]
        assert started == []
        monkeypatch.setattr(lab, "LAB_PORT", number)        # the default is held: the next free one, said once
        assert cli.main(["lab", "--dir", str(tmp_path / "course"), "--no-browser"]) == 0
        said = [line for line in capsys.readouterr().out.splitlines() if "is in use" in line]
        chosen = int(next(a for a in started[0] if a.startswith("--port=")).split("=")[1])
        assert chosen > number and "--ServerApp.port_retries=0" in started[0]
        assert said == [f"port {number} is in use (`jupyter server list` shows the JupyterLabs still running); "
                        f"JupyterLab serves on port {chosen} instead"]
    finally:
        held.close()


def test_the_servers_deprecation_warnings_are_not_shown(monkeypatch):
    from perfcourse.cli.lab import lab_command

    monkeypatch.delenv("PYTHONWARNINGS", raising=False)
    code = "import warnings; warnings.warn('old', DeprecationWarning); print('ran')"
    out = subprocess.run([sys.executable, "-c", f"from perfcourse.cli.serving import serve; "
                          f"serve([{sys.executable!r}, '-c', {code!r}], '.')"], capture_output=True, text=True,
                         timeout=60)
    assert "ran" in out.stdout and "DeprecationWarning" not in out.stderr, out.stderr
    # Voila's server extension, which JupyterLab does not need, resets that filter for its own warnings
    assert "--ServerApp.jpserver_extensions={'voila.server_extension': False}" in lab_command(".")
    # ipykernel warns of "running over TCP without encryption" on every kernel; local sockets do not need it
    assert ("--KernelManager.transport=ipc" in lab_command(".")) == sys.platform.startswith("linux")
