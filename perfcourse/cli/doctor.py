"""``perfcourse doctor``: what this machine brings to the course, and where the lessons are."""

from __future__ import annotations

import importlib.metadata
import os
import platform
import sys

from ..measure import backend
from ..measure.backend import cpu_model
from . import course

PACKAGES = ("perfcourse", "numpy", "matplotlib", "ipywidgets", "jupyterlab", "tqdm", "cupy-cuda12x",
            "cupy-cuda13x", "nbval", "pytest")


def report():
    """Lines of ``name: value`` describing Python, packages, backend, CPU and the course's lessons."""
    lines = [f"python: {sys.version.split()[0]} ({sys.executable})",
             f"platform: {platform.platform()}"]
    for name in PACKAGES:
        try:
            lines.append(f"{name}: {importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            if not name.startswith("cupy"):
                lines.append(f"{name}: not installed")
    lines.append(f"backend: {backend.describe()}")
    lines.append(f"cpu: {cpu_model()}, {os.cpu_count()} logical cores")
    lines.append(f"lessons: {course.describe()}")
    return lines


def add_arguments(parser):
    pass


def run(args):
    print("\n".join(report()))
    return 0
