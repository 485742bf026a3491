"""``perfcourse doctor``: what this machine brings to the course, and where the lessons are.

The whole report is always printed, a wrong set-up included: a finding that stops the course
(a ``PERFCOURSE_BACKEND`` that cannot be honoured, a package without its lessons) is one line
of the report marked ``PROBLEM``, and after the report ``doctor`` names the problems in one
line on stderr and exits 1.
"""

from __future__ import annotations

import importlib.metadata
import os
import platform
import sys

from .._lang import _, ngettext
from ..measure import backend
from ..measure.backend import cpu_model
from . import CommandError, course, language

PACKAGES = ("perfcourse", "numpy", "matplotlib", "ipywidgets", "jupyterlab", "tqdm", "cupy-cuda12x",
            "cupy-cuda13x", "nbval", "pytest", "voila", "jupyter-server-mathjax")
PROBLEM = "PROBLEM: "      # the mark of a finding that stops the course, in every language


def _packages():
    lines = []
    for name in PACKAGES:
        try:
            lines.append(f"{name}: {importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            if not name.startswith("cupy"):
                lines.append(f"{name}: " + _("not installed"))
    return lines


def _backend():
    """``(line, problem or None)``: the backend chosen and why, or why the setting cannot be honoured."""
    try:
        return f"backend: {backend.get(refresh=True).describe()}", None
    except (ValueError, RuntimeError) as err:
        return f"backend: {PROBLEM}{err}", str(err)


def _lessons():
    where = course.describe()
    if course.checkout_root() or course.packaged_root():
        return f"lessons: {where}", None
    return f"lessons: {PROBLEM}{where}", _("lessons {where}").format(where=where)


def _language():
    """``(line, problem or None)``: the language the lessons and commands speak, or why the setting is wrong."""
    from .._lang import ENV, resolve

    chosen = os.environ.get(ENV, "").strip()
    if not chosen:
        return f"{ENV}: " + _("not set (English; Chinese for a notebook in a zh/ folder)"), None
    try:
        return f"{ENV}: {chosen} ({resolve(chosen)})", None
    except ValueError as err:
        return f"{ENV}: {PROBLEM}{err}", f"{ENV}: {err}"


def examine():
    """``(lines, problems)``: the report's ``name: value`` lines and the fatal findings among them."""
    from .._lang import ENV

    lines = [f"python: {sys.version.split()[0]} ({sys.executable})", f"platform: {platform.platform()}"]
    language_line, problem = _language()
    problems = [problem] if problem else []
    if problem:      # the rest of the report in English, so that the language is not filed under another line
        saved = os.environ.pop(ENV)
        try:
            lines, problems = _rest(lines + _packages(), problems)
        finally:
            os.environ[ENV] = saved
    else:
        lines, problems = _rest(lines + _packages(), problems)
    lines.insert(-1, language_line)
    return lines, problems


def _rest(lines, problems):
    setting = os.environ.get(backend.ENV_VAR)
    lines.append(f"{backend.ENV_VAR}: " + (_("not set (CuPy on a usable GPU, else NumPy)") if setting is None
                                            else setting))
    backend_line, problem = _backend()
    lines.append(backend_line)
    problems += [problem] if problem else []
    lines.append("cpu: " + _("{model}, {n} logical cores").format(model=cpu_model(), n=os.cpu_count()))
    lessons_line, problem = _lessons()
    lines.append(lessons_line)
    problems += [problem] if problem else []
    return lines, problems


def report():
    """Lines of ``name: value`` describing Python, packages, backend, CPU and the course's lessons."""
    return examine()[0]


def add_arguments(parser):
    pass


def run(args):
    lines, problems = examine()
    print("\n".join(lines), flush=True)
    if problems:     # in English when the language setting is the problem
        found = ngettext("{n} problem found: {problems}", "{n} problems found: {problems}", len(problems), language())
        raise CommandError(found.format(n=len(problems), problems="; ".join(problems)))
    return 0
