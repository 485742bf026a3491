"""Shared test set-up: tests marked ``gpu`` run only where CuPy sees a usable GPU."""

import pytest


def _gpu_usable():
    from perfcourse.measure.backend import probe_cupy  # the course's one GPU probe

    return probe_cupy()[0] is not None


def pytest_collection_modifyitems(config, items):
    if _gpu_usable():
        return
    skip = pytest.mark.skip(reason="needs a usable NVIDIA GPU with CuPy")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
