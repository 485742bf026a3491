"""``perfcourse doctor``: what this machine brings to the course."""

from __future__ import annotations

import importlib.metadata
import os
import platform
import sys

PACKAGES = ("perfcourse", "numpy", "matplotlib", "ipywidgets", "jupyterlab", "tqdm", "cupy-cuda12x",
            "cupy-cuda13x", "nbval", "pytest")


def cpu_model():
    """The CPU's model name, read from /proc/cpuinfo where there is one."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def report():
    """Lines of ``name: value`` describing Python, packages, backend and CPU."""
    lines = [f"python: {sys.version.split()[0]} ({sys.executable})",
             f"platform: {platform.platform()}"]
    for name in PACKAGES:
        try:
            lines.append(f"{name}: {importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            if not name.startswith("cupy"):
                lines.append(f"{name}: not installed")
    lines.append(f"backend: {_backend_line()}")
    lines.append(f"cpu: {cpu_model()}, {os.cpu_count()} logical cores")
    return lines


def _backend_line():
    try:
        from . import backend
    except ImportError:
        return "numpy (CPU)"
    return backend.describe()


def add_arguments(parser):
    pass


def run(args):
    print("\n".join(report()))
    return 0
