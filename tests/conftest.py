"""Shared test set-up: tests marked ``gpu`` run only where CuPy sees a usable GPU."""

import pytest


def _gpu_usable():
    try:
        import cupy
    except Exception:
        return False
    try:
        return bool(cupy.cuda.is_available())
    except Exception:
        return False


def pytest_collection_modifyitems(config, items):
    if _gpu_usable():
        return
    skip = pytest.mark.skip(reason="needs a usable NVIDIA GPU with CuPy")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
