"""What the datasheet promises and what this machine delivers.

The datasheet table lives in :mod:`perfcourse.models.datasheets` (re-exported here:
``datasheet``, ``names``, ``table``, ``Datasheet``); this module adds the device the course
runs on (:func:`device_datasheet`) and, on first use, ``measure_ceilings()`` and ``Ceilings``
from :mod:`perfcourse.measure.ceilings`: STREAM copy and triad bandwidth, matmul rate per
dtype, and the cost of one launch (GPU) or one small call (CPU), measured here; and
``machine_ceilings()`` and ``ceilings_origin()`` from :mod:`perfcourse.measure.machine`: the one
set every lesson uses, measured once and kept.

Examples
--------
>>> import numpy as np
>>> from perfcourse.measure.backend import Backend
>>> device_datasheet(Backend("numpy", np, False, "a CPU", "test"), quiet=True) is None   # no CPU table
True
"""

from __future__ import annotations

from .._lang import _
from ..models.datasheets import Datasheet, datasheet, names, table
from . import backend as _backend

__all__ = ["Datasheet", "table", "datasheet", "device_datasheet", "names"]  # and, lazily, measure_ceilings, Ceilings,
#   machine_ceilings, ceilings_origin


def device_datasheet(backend=None, *, quiet=False):
    """The datasheet of the device the course runs on; None on the CPU (there is no CPU table)."""
    b = backend or _backend.get()
    if not b.on_gpu:
        if not quiet:
            print(_("No datasheet for a CPU ({device}): perfcourse keeps GPU datasheets only; the measured ceilings "
                    "are the reference here.").format(device=b.device))
        return None
    return datasheet(b.device, quiet=quiet)




def __getattr__(name):
    # the ceilings pull in every kernel and the timing harness: only when they are asked for
    if name in ("measure_ceilings", "Ceilings"):
        from . import ceilings

        return getattr(ceilings, name)
    if name in ("machine_ceilings", "ceilings_origin"):
        from . import machine

        return machine.machine_ceilings if name == "machine_ceilings" else machine.origin
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
