"""GPU utilization as NVML reports it: the share of time *some* kernel was running.

Read through ``pynvml`` when it is installed, otherwise through ``nvidia-smi``; where neither
exists (any machine without an NVIDIA driver) the readings are None. A reading of 100% says
the GPU was busy, not that it did useful work: see the spin kernel in lesson 05.

Examples
--------
>>> summarize([None, None]) is None
True
>>> summarize([100.0, 96.0, 100.0])
{'readings': 3, 'mean_percent': 98.66666666666667, 'max_percent': 100.0}
"""

from __future__ import annotations

import shutil
import subprocess
import time

__all__ = ["utilization", "sample", "summarize", "source"]


def _bus_id():
    """PCI bus id of the CuPy device in use (so NVML reads the same GPU), or None."""
    try:
        import sys

        cupy = sys.modules.get("cupy")
        return cupy.cuda.Device().pci_bus_id if cupy is not None else None
    except Exception:  # noqa: BLE001 - no device, no id
        return None


def _pynvml_reading(bus_id):
    try:
        import pynvml
    except ImportError:
        return None
    try:
        pynvml.nvmlInit()
        handle = (pynvml.nvmlDeviceGetHandleByPciBusId(bus_id) if bus_id
                  else pynvml.nvmlDeviceGetHandleByIndex(0))
        return float(pynvml.nvmlDeviceGetUtilizationRates(handle).gpu)
    except Exception:  # noqa: BLE001 - NVML present but unusable
        return None


def _smi_reading(bus_id):
    smi = shutil.which("nvidia-smi")
    if smi is None:
        return None
    cmd = [smi, "--query-gpu=utilization.gpu", "--format=csv,noheader,nounits"]
    if bus_id:
        cmd.append(f"--id={bus_id}")
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=10)
        return float(out.stdout.strip().splitlines()[0]) if out.returncode == 0 else None
    except (OSError, ValueError, IndexError, subprocess.SubprocessError):
        return None


def source():
    """Where readings come from: ``"pynvml"``, ``"nvidia-smi"`` or None."""
    try:
        import pynvml  # noqa: F401

        return "pynvml"
    except ImportError:
        return "nvidia-smi" if shutil.which("nvidia-smi") else None


def utilization():
    """The GPU's current utilization in percent (NVML's last sampling window), or None."""
    bus_id = _bus_id()
    reading = _pynvml_reading(bus_id)
    return reading if reading is not None else _smi_reading(bus_id)


def sample(duration_s, interval_s=0.2):
    """Readings taken every ``interval_s`` seconds for ``duration_s`` seconds (None where unreadable)."""
    if not 0 < interval_s <= duration_s <= 60:
        raise ValueError(f"need 0 < interval_s <= duration_s <= 60; got interval_s={interval_s}, "
                         f"duration_s={duration_s}")
    readings, end = [], time.perf_counter() + duration_s
    while time.perf_counter() < end:
        readings.append(utilization())
        if readings[-1] is None:
            break
        time.sleep(interval_s)
    return readings


def summarize(readings):
    """Count, mean and max of the readings that exist; None when there are none."""
    values = [r for r in readings if r is not None]
    if not values:
        return None
    return {"readings": len(values), "mean_percent": sum(values) / len(values), "max_percent": max(values)}
