"""What others measured on real GPUs: a table of published figures, each with its source and date.

The course never passes these off as its own: a lesson shows one as "published" beside the
learner's guess and the datasheet's peak, so spec and achieved sit side by side. Each row names
the datasheet figure it is held against (:mod:`perfcourse.models.datasheets`); a published figure
above that peak, or a peak the datasheet lacks, is an error when the table is read. This module
reads a table only: it knows no device and measures nothing.

Examples
--------
>>> triad = figure("H200", "STREAM triad bandwidth")
>>> triad.value / 1e12, triad.peak_value / 1e12, round(triad.share, 3), triad.date
(4.15, 4.8, 0.865, '2024-09-24')
>>> [row.quantity for row in for_device("NVIDIA H200")][:2]
['STREAM triad bandwidth', 'STREAM copy bandwidth']
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources

from .datasheets import datasheet

__all__ = ["Published", "table", "check", "for_device", "figure"]

PEAKS = ("memory_bandwidth", "fp32", "fp16", "bf16", "fp8", "host_bandwidth", "nvlink_bandwidth")


@dataclass(frozen=True)
class Published:
    """One published measurement (SI units), what was run, and who published it where and when."""

    device: str
    quantity: str
    value: float
    unit: str              # the unit a lesson prints it in ("TB/s", "TFLOP/s", "GB/s")
    peak: str              # the datasheet figure it is held against (:data:`PEAKS`)
    what: str
    source: str
    url: str
    date: str              # the day it was published, YYYY-MM-DD
    peak_value: float = 0.0

    @property
    def share(self):
        """The measurement as a fraction of its datasheet peak."""
        return self.value / self.peak_value


def check(rows):
    """``rows`` (dicts of :class:`Published` fields) as :class:`Published`, each with its datasheet peak.

    Raises ``ValueError`` naming the row for a device or peak the datasheet table lacks, and for a
    figure above its peak: a published measurement can only fall short of the datasheet.

    Examples
    --------
    >>> row = dict(device="H200", quantity="triad", value=5.2e12, unit="TB/s", peak="memory_bandwidth",
    ...            what="-", source="-", url="-", date="2026-01-01")
    >>> check([row])
    Traceback (most recent call last):
    ...
    ValueError: published H200 triad: 5.2e+12 is above its datasheet memory_bandwidth, 4.8e+12
    """
    found = []
    for row in rows:
        sheet = datasheet(row["device"], quiet=True)
        name = f"published {row['device']} {row['quantity']}"
        if row["peak"] not in PEAKS:
            raise ValueError(f"{name}: peak must be one of {', '.join(PEAKS)}; got {row['peak']!r}")
        peak = getattr(sheet, row["peak"]) if sheet else None
        if peak is None:
            raise ValueError(f"{name}: the datasheet table has no {row['peak']} for {row['device']}")
        if not row["value"] > 0:
            raise ValueError(f"{name}: a measurement must be a positive number; got {row['value']!r}")
        if row["value"] > peak:
            raise ValueError(f"{name}: {row['value']:.3g} is above its datasheet {row['peak']}, {peak:.3g}")
        found.append(Published(**{**row, "peak_value": float(peak)}))
    return tuple(found)


@functools.cache
def table():
    """Every published measurement, from ``models/data/published.json`` in the package, checked."""
    text = resources.files(__package__).joinpath("data", "published.json").read_text(encoding="utf-8")
    return check(json.loads(text)["measurements"])


def for_device(name):
    """The published measurements of the GPU ``name`` (a datasheet name or the driver's), in the table's order."""
    sheet = datasheet(name, quiet=True)
    return [row for row in table() if sheet is not None and datasheet(row.device).name == sheet.name]


def figure(name, quantity):
    """The one published measurement of ``quantity`` on GPU ``name``; ``ValueError`` listing those known."""
    rows = [row for row in for_device(name) if row.quantity == quantity]
    if not rows:
        known = ", ".join(row.quantity for row in for_device(name)) or "none"
        raise ValueError(f"quantity must be a published measurement of {name} ({known}); got {quantity!r}")
    return rows[0]
