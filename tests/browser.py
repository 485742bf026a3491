"""Helpers for the browser tests: a Debian Chromium driven by Playwright, and servers on loopback.

Chromium comes from the system (``apt-get install chromium``); Playwright never downloads a
browser of its own. Without Chromium or Playwright the browser tests skip, unless
``PERFCOURSE_REQUIRE_BROWSER=1`` (set by CI), where they fail instead.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic"]


def need_browser():
    """Skip (or fail under CI's PERFCOURSE_REQUIRE_BROWSER=1) when Chromium or Playwright is missing."""
    missing = []
    if not chromium_path():
        missing.append("chromium (apt-get install chromium)")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        missing.append("playwright (pip install playwright)")
    if missing:
        message = "browser tests need " + " and ".join(missing)
        if os.environ.get("PERFCOURSE_REQUIRE_BROWSER") == "1":
            pytest.fail(message)
        pytest.skip(message)


def chromium_path():
    return shutil.which("chromium") or shutil.which("chromium-browser")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# Every wait below is long enough for a loaded 2-core machine: a slow run costs time, never a failure.
SERVER_START_S = 240
PAGE_TIMEOUT_MS = 180_000


def wait_for_http(url, proc, timeout=SERVER_START_S, *, any_status=False):
    """Poll ``url`` until it answers 200 (any HTTP status with ``any_status``); fail if ``proc`` exits first.

    Each request gets 10 s: a slow answer is waited for, not piled up behind new requests.
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc is not None and proc.poll() is not None:
            raise RuntimeError(f"server exited early with code {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=10) as r:
                if r.status == 200:
                    return
        except urllib.error.HTTPError as err:
            if any_status:
                return
            err.close()
        except OSError:
            pass
        time.sleep(0.5)
    raise TimeoutError(f"{url} did not answer within {timeout} s")


def answers_http(port, timeout=5):
    """True when something on 127.0.0.1:``port`` answers an HTTP request (any status)."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=timeout):
            return True
    except urllib.error.HTTPError:
        return True
    except OSError:
        return False


def stays_local(url):
    """True for a URL that cannot leave this machine: a file, inline data, or a loopback server."""
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    return parts.scheme in ("file", "data", "blob", "about") or (
        parts.scheme in ("http", "https", "ws", "wss") and parts.hostname in ("127.0.0.1", "localhost", "::1"))


@contextlib.contextmanager
def network_blocked(page):
    """Abort every request of ``page`` that would leave this machine; yield the list of aborted URLs."""
    aborted = []

    def handle(route):
        url = route.request.url
        if stays_local(url):
            route.continue_()
        else:
            aborted.append(url)
            route.abort("internetdisconnected")

    page.context.route("**/*", handle)
    try:
        yield aborted
    finally:
        page.context.unroute("**/*", handle)


def _lab_settings(folder):
    """User settings: render every cell (no virtualisation) and fetch no news."""
    for plugin, values in {
        "@jupyterlab/notebook-extension/tracker": {"windowingMode": "none"},
        "@jupyterlab/apputils-extension/notification": {"fetchNews": "false", "checkForUpdates": False},
    }.items():
        package, name = plugin.rsplit("/", 1)
        target = Path(folder) / package / f"{name}.jupyterlab-settings"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(values))


@contextlib.contextmanager
def server(cmd, url_path, *, cwd, token=None, timeout=SERVER_START_S, any_status=False, extra_env=None):
    """Start a Jupyter-family server on a free loopback port; yield its base URL; always stop it.

    ``url_path`` is polled until it answers (see :func:`wait_for_http`); it must be cheap to serve.
    """
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, JUPYTER_CONFIG_DIR=f"{tmp}/config", JUPYTER_RUNTIME_DIR=f"{tmp}/runtime",
                   JUPYTERLAB_SETTINGS_DIR=f"{tmp}/settings", JUPYTERLAB_WORKSPACES_DIR=f"{tmp}/ws",
                   PERFCOURSE_BACKEND=os.environ.get("PERFCOURSE_BACKEND", "numpy"),
                   # the lessons' measurements on a twentieth of their time budget, as under nbval (see conftest.py)
                   PERFCOURSE_TIME_SCALE=os.environ.get("PERFCOURSE_TIME_SCALE", "0.05"), **(extra_env or {}))
        _lab_settings(f"{tmp}/settings")
        args = [a.format(port=port, token=token or "") for a in cmd]
        log = open(Path(tmp) / "server.log", "w")  # noqa: SIM115 - closed below
        proc = subprocess.Popen(args, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
        base = f"http://127.0.0.1:{port}"
        try:
            wait_for_http(f"{base}{url_path.format(token=token or '')}", proc, timeout, any_status=any_status)
            yield base
        except Exception:
            log.flush()
            sys.stderr.write((Path(tmp) / "server.log").read_text()[-4000:])
            raise
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, 15)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, 9)
                proc.wait()
            log.close()


def jupyterlab(cwd, token="perfcourse-test-token"):
    cmd = [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root", "--ip=127.0.0.1",
           "--port={port}", "--ServerApp.token={token}", "--ServerApp.password=", f"--ServerApp.root_dir={cwd}",
           "--ServerApp.open_browser=False"]
    from perfcourse.cli.lab import lab_command

    # the kernel transport `perfcourse lab` uses (local sockets on Linux), so that the lessons run over it here
    cmd += [a for a in lab_command(cwd) if a.startswith("--KernelManager.")]
    return server(cmd, "/api/status?token={token}", cwd=cwd, token=token)


@contextlib.contextmanager
def chromium_page():
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as profile, sync_playwright() as pw:
        browser = pw.chromium.launch_persistent_context(profile, executable_path=chromium_path(),
                                                        args=CHROMIUM_ARGS, headless=True,
                                                        viewport={"width": 1400, "height": 1000})
        try:
            page = browser.pages[0] if browser.pages else browser.new_page()
            page.set_default_timeout(PAGE_TIMEOUT_MS)
            page.set_default_navigation_timeout(PAGE_TIMEOUT_MS)
            yield page
        finally:
            browser.close()


def screenshot(page, name):
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=False)
