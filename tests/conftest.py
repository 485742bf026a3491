"""Shared test set-up: tests marked ``gpu`` run only where CuPy sees a usable GPU."""

import pytest


def _gpu_usable():
    try:
        import cupy
    except Exception:  # noqa: BLE001 - a broken CuPy install means no GPU tests
        return False
    try:
        return bool(cupy.cuda.is_available())
    except Exception:  # noqa: BLE001 - any driver error means no GPU tests
        return False


def pytest_collection_modifyitems(config, items):
    if _gpu_usable():
        return
    skip = pytest.mark.skip(reason="needs a usable NVIDIA GPU with CuPy")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)
