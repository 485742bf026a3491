"""The whole test run's set-up: the lessons measure on a twentieth of their time budget, in a records folder apart.

nbval runs every lesson with its stored timing outputs ignored, so its measurements need not take the time a
learner's run takes: ``PERFCOURSE_TIME_SCALE`` is set while a notebook's cells run (its kernel starts with it)
and removed for every other test and doctest, which measure with the whole budget. The lessons' records (their
predictions, and the machine's ceilings the first lesson measures and the others read) go to one temporary
folder for the run, ``PERFCOURSE_HOME``, never to the user's own. It lives here, at the root, because a
conftest's hooks reach only the tests below it, and the lessons are in notebooks/.

The Chinese edition's lessons (``notebooks/zh/``) run the English lessons' own code, copied by
``perfcourse translate`` (whose ``--check`` proves the copy current), so the plain ``pytest`` leaves them out
and ``pytest notebooks/zh`` (or ``--chinese-lessons``) runs them under nbval: CI runs it as a step of its own.
"""

import os
import tempfile

import pytest

from perfcourse.measure.timing import TIME_SCALE_ENV

NOTEBOOK_TIME_SCALE = "0.05"
_HOME = {}
CHINESE_LESSONS = os.path.join("notebooks", "zh")


def pytest_addoption(parser):
    parser.addoption("--chinese-lessons", action="store_true",
                     help="also run the Chinese edition's lessons (notebooks/zh/) under nbval")


def pytest_ignore_collect(collection_path, config):
    """Leave notebooks/zh/ out unless it is named on the command line or --chinese-lessons is given."""
    if str(collection_path).endswith(CHINESE_LESSONS) and collection_path.is_dir():
        named = any(os.path.abspath(str(arg).split("::")[0]).startswith(str(collection_path))
                    for arg in config.args)
        return None if named or config.getoption("--chinese-lessons") else True
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    if item.nodeid.split("::", 1)[0].endswith(".ipynb"):
        os.environ[TIME_SCALE_ENV] = NOTEBOOK_TIME_SCALE
        if "folder" not in _HOME:
            _HOME["before"] = os.environ.get("PERFCOURSE_HOME")
            _HOME["folder"] = tempfile.TemporaryDirectory(prefix="perfcourse-lessons-")
        os.environ["PERFCOURSE_HOME"] = _HOME["folder"].name
    else:
        os.environ.pop(TIME_SCALE_ENV, None)
        if "folder" in _HOME:
            if _HOME["before"] is None:
                os.environ.pop("PERFCOURSE_HOME", None)
            else:
                os.environ["PERFCOURSE_HOME"] = _HOME["before"]


def pytest_sessionfinish(session):
    if "folder" in _HOME:
        _HOME["folder"].cleanup()
