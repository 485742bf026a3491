"""GPU runs recorded by ``perfcourse gpu-check`` and committed with the course.

A lesson run on a laptop can show, beside its own CPU figures, what the same kernels did on
a real GPU: the JSON report of one ``gpu-check`` run, kept under ``perfcourse/measure/data/recorded/``
exactly as it was written. Nothing in these files is typed in or edited by hand.

Examples
--------
>>> label({"device": "NVIDIA H200", "date": "2026-11-30T10:00:00+00:00"})
'recorded on NVIDIA H200, 2026-11-30'
>>> latest(directory="/nonexistent") is None
True
>>> run = {"experiments": [{"group": "fma", "name": "chains=1"}, {"group": "stream", "name": "copy"}]}
>>> [r["name"] for r in experiments(run, "stream")]
['copy']
"""

from __future__ import annotations

import json
import os
from importlib import resources

from .._lang import _

__all__ = ["latest", "label", "all_runs", "folder", "experiments"]


def folder():
    """The folder the recorded runs live in (inside the installed package)."""
    return str(resources.files("perfcourse.measure").joinpath("data", "recorded"))


def all_runs(directory=None):
    """Every recorded run as a dict, oldest first (by the ``date`` inside each file)."""
    where = directory or folder()
    try:
        names = sorted(f for f in os.listdir(where) if f.endswith(".json"))
    except OSError:
        return []
    runs = []
    for name in names:
        with open(os.path.join(where, name), encoding="utf-8") as f:
            run = json.load(f)
        if isinstance(run, dict) and run.get("device") and run.get("date"):
            run.setdefault("_file", name)
            runs.append(run)
    return sorted(runs, key=lambda r: str(r["date"]))


def latest(directory=None):
    """The newest recorded GPU-check report as a dict, or None when none is recorded."""
    runs = all_runs(directory)
    return runs[-1] if runs else None


def label(run):
    """``"recorded on <device>, <date>"`` for a run dict (the date without its time)."""
    if not isinstance(run, dict) or "device" not in run or "date" not in run:
        raise TypeError(f"run must be a recorded-run dict with 'device' and 'date'; got {type(run).__name__}")
    return _("recorded on {device}, {date}").format(device=run["device"], date=str(run["date"])[:10])


def experiments(run, group):
    """The records of one experiment group (``"stream"``, ``"fma"``...) in a run; [] if absent.

    Records that failed on the device (they carry an ``"error"``) are left out.
    """
    if not isinstance(run, dict):
        raise TypeError(f"run must be a recorded-run dict; got {type(run).__name__}")
    return [r for r in run.get("experiments", []) if r.get("group") == group and "error" not in r]
