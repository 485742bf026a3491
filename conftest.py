"""The whole test run's set-up: the lessons measure on a tenth of their time budget.

nbval runs every lesson with its stored timing outputs ignored, so its measurements need not take the time a
learner's run takes: ``PERFCOURSE_TIME_SCALE`` is set while a notebook's cells run (its kernel starts with it)
and removed for every other test and doctest, which measure with the whole budget. It lives here, at the root,
because a conftest's hooks reach only the tests below it, and the lessons are in notebooks/.
"""

import os

import pytest

from perfcourse.measure.timing import TIME_SCALE_ENV

NOTEBOOK_TIME_SCALE = "0.1"


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    if item.nodeid.split("::", 1)[0].endswith(".ipynb"):
        os.environ[TIME_SCALE_ENV] = NOTEBOOK_TIME_SCALE
    else:
        os.environ.pop(TIME_SCALE_ENV, None)
