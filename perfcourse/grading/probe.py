"""The grader's run of a submission's kernels: compile each for a GPU, then simulate the launches asked for.

Started as a script (``python -I probe.py``) inside the grader's sandbox, beside :mod:`wire`
and :mod:`runner` (whose limits and channel it uses). It never runs the learner's notebook:
the grader sends the kernels' source, taken from the notebook in its own process
(:mod:`perfcourse.grading.kernelsource`), and then the launches. When asked, it first
compiles each kernel for compute capability 9.0 with numba-cuda (:mod:`perfcourse.cudacompile`),
in this process, before anything is simulated: only what compiles is simulated
(:mod:`perfcourse.cudasim`), so a kernel can neither run NumPy on the host nor reach the
simulator or this script.

Messages: the probe says ``hello`` (with ``compiler``: None, or why it cannot compile); the
grader sends ``load`` (the module, the kernels' signatures, whether to compile, the limits)
and gets ``loaded`` (each kernel's compiler message, or None); then each ``launch`` (a
kernel, grid, block and plain-data arguments) gets ``launched`` with the record of what
every thread did (:func:`perfcourse.cudasim.simulate`).
"""

from __future__ import annotations

import math
import sys

import numpy as np


def _beside(name):
    import importlib.util
    import os

    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location(name, os.path.join(here, f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _compile_all(compiler, module_text, signatures):
    """``{kernel: the compiler's first message, or None}`` for each kernel, built against the real numba.cuda."""
    import linecache

    from numba import cuda

    from perfcourse.cudasim import KERNEL_FILE

    linecache.cache[KERNEL_FILE] = (len(module_text), None, module_text.splitlines(True), KERNEL_FILE)
    namespace = {"__name__": "learner_kernels", "cuda": cuda, "np": np, "numpy": np, "math": math,
                 **compiler.numba_names()}
    exec(compile(module_text, KERNEL_FILE, "exec"), namespace)   # noqa: S102 - a module the grader checked
    errors = {}
    for name, signature in signatures.items():
        try:
            compiler.compile_ptx(namespace[name].py_func, signature)
            errors[name] = None
        except compiler.CompileError as err:
            errors[name] = str(err)
    return errors


def main():
    runner, wire = _beside("runner"), _beside("wire")
    from perfcourse import cudacompile as compiler
    from perfcourse.cudasim import kernels_of, simulate

    channel = runner.Channel(wire)
    sys.stdout = sys.stderr = runner.Sink()
    channel.send({"op": "hello", "compiler": compiler.missing()})
    load = channel.receive()
    module_text = str(load["module"])
    if load.get("compile") is True:
        from numba import cuda  # noqa: F401 - NVVM and LLVM mapped before the memory limit
    tasks = load.get("tasks")
    runner.limit_resources(int(load["memory_bytes"]), int(tasks) if tasks is not None else None)
    try:
        errors = _compile_all(compiler, module_text, dict(load["kernels"])) if load.get("compile") is True else {}
    except RuntimeError as err:       # the compiler itself could not run here: the grader's set-up, not the kernel
        channel.send({"op": "loaded", "setup": str(err)[:300]})
        return
    except BaseException as err:  # noqa: BLE001 - a module that does not load is reported, not trusted
        channel.send({"op": "loaded", "failed": f"{type(err).__name__}: {str(err)[:300]}"})
        return
    try:
        kernels, cuda = kernels_of(module_text)
        channel.send({"op": "loaded", "errors": errors})
    except BaseException as err:  # noqa: BLE001 - a module that does not load is reported, not trusted
        channel.send({"op": "loaded", "failed": f"{type(err).__name__}: {str(err)[:300]}"})
        return
    while True:
        message = channel.receive()
        args = wire.decode(message["args"])
        try:
            record = simulate(kernels[str(message["kernel"])], cuda, wire.decode(message["grid"]),
                              wire.decode(message["block"]), args, timeout_s=float(message["timeout_s"]))
            channel.send({"op": "launched", "id": message["id"], "record": wire.encode(record)})
        except BaseException as err:  # noqa: BLE001 - reported to the grader, which decides
            channel.send({"op": "launched", "id": message["id"], "failed": f"{type(err).__name__}: {str(err)[:300]}"})


if __name__ == "__main__":
    main()
