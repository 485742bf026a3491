"""Build step that puts the course into the package: everything else is in pyproject.toml.

A wheel carries the lesson notebooks (``notebooks/*.ipynb``) and the graded exercises
(``exercises/*.ipynb``), each with its Chinese edition (``zh/*.ipynb``), under ``perfcourse/course/``,
so that an installed perfcourse can open, present and render the course without a checkout. They are
copied into the build folder only; the repository holds one copy of each notebook. An editable install
reads them from the checkout instead, so nothing is copied then.
"""

import runpy
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
# The package's own rules for where the course is (standard library only, so read without importing perfcourse).
COURSE = runpy.run_path(str(HERE / "perfcourse" / "_course.py"))
EDITION = runpy.run_path(str(HERE / "perfcourse" / "_lang.py"))["EDITION"]


def course_files():
    """``[(source path, path inside the package)]`` for every course notebook."""
    files = [(p, Path(COURSE["PACKAGED"], rel)) for p, rel in COURSE["course_notebooks"](HERE, EDITION)]
    if not any(dest.parts[1] == "notebooks" for _, dest in files):
        raise SystemExit("notebooks/*.ipynb not found: build perfcourse from a checkout of the course or from an "
                         "sdist that holds notebooks/ and exercises/")
    return files


class build_py_with_course(build_py):
    """``build_py`` that also copies the course notebooks into ``perfcourse/course/`` of the build."""

    def _copies_course(self):
        return not getattr(self, "editable_mode", False)

    def run(self):
        super().run()
        if self._copies_course():
            for src, dest in course_files():
                target = Path(self.build_lib, "perfcourse", dest)
                self.mkpath(str(target.parent))
                self.copy_file(str(src), str(target), preserve_mode=False)

    def get_outputs(self, include_bytecode=1):
        outputs = super().get_outputs(include_bytecode)
        if self._copies_course():
            outputs += [str(Path(self.build_lib, "perfcourse", dest)) for _, dest in course_files()]
        return outputs


if __name__ == "__main__":   # the build runs this file as a script; importing it does nothing
    setup(cmdclass={"build_py": build_py_with_course})
