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


def wait_for_http(url, proc, timeout=60):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server exited early with code {proc.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise TimeoutError(f"{url} did not answer within {timeout} s")


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
def server(cmd, url_path, *, cwd, token=None, timeout=90):
    """Start a Jupyter-family server on a free loopback port; yield its base URL; always stop it."""
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, JUPYTER_CONFIG_DIR=f"{tmp}/config", JUPYTER_RUNTIME_DIR=f"{tmp}/runtime",
                   JUPYTERLAB_SETTINGS_DIR=f"{tmp}/settings", JUPYTERLAB_WORKSPACES_DIR=f"{tmp}/ws",
                   PERFCOURSE_BACKEND=os.environ.get("PERFCOURSE_BACKEND", "numpy"))
        _lab_settings(f"{tmp}/settings")
        args = [a.format(port=port, token=token or "") for a in cmd]
        log = open(Path(tmp) / "server.log", "w")  # noqa: SIM115 - closed below
        proc = subprocess.Popen(args, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT,
                                start_new_session=True)
        base = f"http://127.0.0.1:{port}"
        try:
            wait_for_http(f"{base}{url_path.format(token=token or '')}", proc, timeout)
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
            page.set_default_timeout(60_000)
            yield page
        finally:
            browser.close()


def screenshot(page, name):
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=False)
