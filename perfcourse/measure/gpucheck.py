"""``perfcourse gpu-check --out DIR``: everything that needs a GPU, in one run, into one JSON report.

It runs the GPU tests (``pytest -m gpu``: each CuPy kernel against its reference on the
device), measures the ceilings, compares :func:`perfcourse.measure.timing.measure` with
``cupyx.profiler.benchmark`` on the same kernels, reads utilization while a spin kernel keeps
one block busy, and measures the course's standard experiments. The report (device, driver,
CUDA and CuPy versions, date, every figure) and a log go to DIR; the report can be committed
under ``perfcourse/measure/data/recorded/`` as it is. Without a usable GPU it stops at once, non-zero.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import platform
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

from .. import __version__
from .._course import PACKAGE, checkout_root
from ..units import format_seconds

__all__ = ["check", "HARNESS_MIN_S", "HARNESS_TOLERANCE"]

HARNESS_MIN_S = 50e-6       # the harness must agree with cupyx for kernels at least this long
# relative difference allowed between the course's median and cupyx.profiler.benchmark's for the same kernel
# (the one tolerance: tests/test_timing.py uses it too); both sync and time the same launches, so what is
# left is launch jitter, a few percent for kernels of at least HARNESS_MIN_S
HARNESS_TOLERANCE = 0.10


class _Log:
    """Prints a line and appends it to DIR/gpu-check.log."""

    def __init__(self, path):
        self.path = path
        path.write_text("", encoding="utf-8")

    def __call__(self, line):
        print(line, flush=True)
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(line + "\n")


def _gpu_backend():
    """The CuPy backend, or (None, why not)."""
    from . import backend

    try:
        b = backend.get(refresh=True)
    except (RuntimeError, ValueError) as err:
        return None, str(err)
    return (b, "") if b.on_gpu else (None, b.reason)


def _versions(b):
    cupy = b.xp
    info = {"device": b.device, "python": platform.python_version(), "perfcourse": __version__,
            "numpy": __import__("numpy").__version__, "cupy": cupy.__version__,
            "cuda_runtime": cupy.cuda.runtime.runtimeGetVersion(),
            "cuda_driver_api": cupy.cuda.runtime.driverGetVersion(),
            "compute_capability": b.info.get("compute_capability"), "sms": b.info.get("sms"),
            "l2_bytes": b.cache_bytes, "memory_bytes": b.info.get("memory_bytes"), "driver": None}
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=20)
        info["driver"] = out.stdout.strip().splitlines()[0] if out.returncode == 0 and out.stdout.strip() else None
    except (OSError, subprocess.SubprocessError):
        pass
    return info


def _gpu_test_files():
    """The repository's ``tests/`` folder and its GPU test files; none in an install without a checkout."""
    root = checkout_root()                        # the checkout holding the package, in an editable install
    tests = (root or PACKAGE.parent) / "tests"
    if root is None or not tests.is_dir():
        return tests, []
    return tests, sorted(str(p) for p in tests.glob("test_*.py") if "mark.gpu" in p.read_text(encoding="utf-8"))


def _run_gpu_tests(out, log):
    tests, files = _gpu_test_files()
    if not files:
        log("GPU tests: skipped; they live in the tests/ folder of the course's repository, and this "
            "perfcourse is not installed from a checkout of it")
        return {"ran": False}
    xml = out / "gpu-tests.xml"
    cmd = [sys.executable, "-m", "pytest", "-m", "gpu", "-q", "-o", "addopts=", "-p", "no:cacheprovider",
           f"--junitxml={xml}", "--rootdir", str(tests.parent), *files]
    env = dict(os.environ, PERFCOURSE_BACKEND="cupy")
    log(f"GPU tests: {' '.join(Path(f).name for f in files)}")
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=240, env=env, cwd=tests.parent)
        output, code = proc.stdout + proc.stderr, proc.returncode
    except subprocess.TimeoutExpired as err:
        output, code = f"{err.stdout or ''}{err.stderr or ''}\npytest timed out after 240 s", -1
    (out / "gpu-tests.log").write_text(str(output), encoding="utf-8")
    result = {"ran": True, "exit_code": code, "files": [Path(f).name for f in files], **_junit(xml)}
    log(f"GPU tests: {result.get('passed', 0)} passed, {result.get('failed', 0)} failed, "
        f"{result.get('skipped', 0)} skipped (exit code {code}; details in gpu-tests.log)")
    for name in result.get("failures", []):
        log(f"  FAILED {name}")
    return result


def _junit(path):
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return {}
    counts = {"passed": 0, "failed": 0, "skipped": 0, "failures": []}
    for case in root.iter("testcase"):
        tags = {child.tag for child in case}
        if tags & {"failure", "error"}:
            counts["failed"] += 1
            counts["failures"].append(f"{case.get('classname')}::{case.get('name')}")
        elif "skipped" in tags:
            counts["skipped"] += 1
        else:
            counts["passed"] += 1
    return counts


def _harness_cases(ceilings):
    from . import kernels

    n = ceilings.stream_elements
    return [("triad", kernels.triad, (n,), "float32"),
            ("matmul 4096^3", kernels.matmul, (4096, 4096, 4096), "float32"),
            ("sum_tree 2^26", kernels.sum_tree, (2**26,), "float32"),
            ("recurrence_scan 2^22", kernels.recurrence_scan, (2**22,), "float32"),
            ("copy 2^20", kernels.copy, (2**20,), "float32")]


def _harness_vs_cupyx(b, ceilings, log):
    """Both tools' medians on the same kernels and inputs."""
    import numpy as np
    from cupyx.profiler import benchmark

    from . import timing

    rows = []
    for label, k, size, dtype in _harness_cases(ceilings):
        try:
            args = k.make_inputs(*size, dtype=dtype, xp=b.xp, seed=3)
            ours = timing.measure(k.run, *args, repeat=100, warmup_s=0.2, max_duration_s=10, backend=b)
            theirs = benchmark(k.run, args, n_repeat=100, n_warmup=10, max_duration=10)
            median = float(np.median(theirs.gpu_times[0]))
            ratio = ours.p50 / median
            long_enough = median >= HARNESS_MIN_S
            rows.append({"kernel": label, "harness_p50_s": ours.p50, "harness_batch": ours.batch,
                         "cupyx_median_s": median, "ratio": ratio, "at_least_50us": long_enough,
                         "agrees": (abs(ratio - 1) <= HARNESS_TOLERANCE) if long_enough else None})
            log(f"harness vs cupyx  {label:22s} {format_seconds(ours.p50, unit='µs', decimals=2):>13}  "
                f"{format_seconds(median, unit='µs', decimals=2):>13}  "
                f"ratio {ratio:.3f}{'' if long_enough else '  (< 50 µs: batched launches vs one event pair)'}")
        except Exception as err:  # noqa: BLE001 - keep the other comparisons
            rows.append({"kernel": label, "error": f"{type(err).__name__}: {err}"})
            log(f"harness vs cupyx  {label}: failed: {type(err).__name__}: {err}")
    return rows


def _spin_utilization(b, log):
    """NVML utilization while one block of 32 threads spins for 2 s (busy, useless)."""
    from . import kernels, nvml

    idle = nvml.utilization()
    out, = kernels.spin.make_inputs(32, xp=b.xp, seed=0)
    b.synchronize()
    kernels.spin.run(out, seconds=2.0, threads_per_block=32)
    busy = nvml.sample(1.6, 0.2)
    b.synchronize()
    result = {"source": nvml.source(), "idle_percent": idle, "spin_one_block": nvml.summarize(busy),
              "spin_threads": 32, "spin_seconds": 2.0}
    log(f"utilization ({result['source']}): idle {idle}, while one 32-thread block spins: "
        f"{result['spin_one_block']}")
    return result


def _slug(text):
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def check(out, *, tests=True, experiments=True, quick=False):
    """Run the whole GPU check; write ``gpu-check-<device>-<date>.json`` and ``gpu-check.log`` to ``out``."""
    b, why = _gpu_backend()
    if b is None:
        print(f"perfcourse gpu-check: needs a usable NVIDIA GPU with CuPy; none here: {why}", file=sys.stderr)
        return 1
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    log, begin = _Log(out / "gpu-check.log"), time.perf_counter()
    now = _dt.datetime.now(_dt.timezone.utc)
    report = {"kind": "perfcourse gpu-check", "date": now.isoformat(timespec="seconds"), "quick": quick,
              **_versions(b)}
    log(f"perfcourse gpu-check on {b.device}: CuPy {report['cupy']}, CUDA runtime {report['cuda_runtime']}, "
        f"driver {report['driver']}")
    report["gpu_tests"] = _run_gpu_tests(out, log) if tests else {"ran": False}
    from . import bench, hardware
    from . import experiments as exp

    ceilings = hardware.measure_ceilings(quick=quick, backend=b, progress=False, cached=False)
    sheet = hardware.device_datasheet(b)
    report["ceilings"] = ceilings.to_dict()
    report["datasheet"] = None if sheet is None else {k: v for k, v in sheet.__dict__.items()
                                                     if k not in ("match", "exclude")}
    log(bench.report(ceilings, sheet))
    report["triad_over_best_copy"] = ceilings.triad_bandwidth / ceilings.copy_bandwidth
    log(f"triad / copy bandwidth: {report['triad_over_best_copy']:.3f} (target >= 0.85)")
    report["harness_vs_cupyx"] = _harness_vs_cupyx(b, ceilings, log)
    report["utilization"] = _spin_utilization(b, log)
    if experiments:
        report["experiments"] = exp.run(quick=quick, backend=b, progress=False, log=log)
        log(f"experiments: {len(report['experiments'])} configurations measured")
    report["duration_s"] = time.perf_counter() - begin
    path = out / f"gpu-check-{_slug(b.device)}-{now.strftime('%Y%m%d-%H%M%S')}.json"
    path.write_text(json.dumps(report, indent=1, default=str), encoding="utf-8")
    log(f"wrote {path.name} after {report['duration_s']:.0f} s")
    failed = report["gpu_tests"].get("failed", 0) or report["gpu_tests"].get("exit_code", 0) not in (0, 5)
    return 1 if failed else 0
