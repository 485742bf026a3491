"""The commands' one way to run a notebook: in its own folder, with a few variables set, outputs kept.

``perfcourse site --execute`` and ``perfcourse translate --execute`` both run lessons through
:func:`execute_notebook` under :func:`environment` (the kernels started inside inherit it).
"""

from __future__ import annotations

import contextlib
import os

__all__ = ["environment", "execute_notebook"]


@contextlib.contextmanager
def environment(**values):
    """Set ``values`` in this process's environment for the block; restore what was there after.

    Examples
    --------
    >>> with environment(PERFCOURSE_DOCTEST_VALUE="1"):
    ...     os.environ["PERFCOURSE_DOCTEST_VALUE"]
    '1'
    >>> "PERFCOURSE_DOCTEST_VALUE" in os.environ
    False
    """
    before = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for k, v in before.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def execute_notebook(nb, folder, timeout):
    """Run every cell of ``nb`` (an nbformat notebook) with its working folder ``folder``; outputs stored in it."""
    from nbclient import NotebookClient

    NotebookClient(nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": str(folder)}}).execute()
    return nb
