"""What a sandbox shows of this machine: the Python folders, and the package copy without its grading checks."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

__all__ = ["STUB_CHECKS", "package_dir"]

STUB_CHECKS = '''"""Stand-in for the grading checks while a notebook is graded: the grader checks it from outside."""


def self_check(exercise, namespace, part=None):
    """Print a note instead of checking: the grader runs the checks in its own process."""
    print("self_check: skipped while grading; the grader checks your functions itself")
'''


def package_dir():
    import perfcourse

    return Path(perfcourse.__file__).resolve().parent


def _python_dirs():
    import site

    dirs = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
            os.path.dirname(os.path.realpath(sys.executable)), *site.getsitepackages()}
    real = sorted({os.path.realpath(d) for d in dirs if os.path.isdir(d)} | {os.path.abspath(sys.prefix)})
    return [d for d in real if not any(d != o and d.startswith(o.rstrip("/") + "/") for o in real)]


def _inside(path, folder):
    path, folder = str(path), str(folder).rstrip("/")
    return path == folder or path.startswith(folder + "/")


def _copy_package(dest):
    """A copy of the package without ``grading/`` (a stand-in ``self_check`` instead) or ``course/``."""
    source = package_dir()
    shutil.copytree(source, dest, symlinks=True,
                    ignore=lambda d, names: [n for n in names if Path(d) == source and n in ("grading", "course")])
    checks = dest / "grading" / "checks"
    checks.mkdir(parents=True)
    (dest / "grading" / "__init__.py").write_text('"""Not available while grading."""\n', encoding="utf-8")
    (checks / "__init__.py").write_text(STUB_CHECKS, encoding="utf-8")
