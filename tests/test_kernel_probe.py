"""The grader's own launch of a learner's kernel: the source it takes, the compiler, the sandboxed probe.

The kernel's source comes from the notebook's text (never from the learner's live objects); only
numbers and ``@cuda.jit`` functions go into it. In the sandbox the probe compiles each kernel for
sm_90 before it simulates anything: what does not compile for a GPU scores nothing.
"""

from __future__ import annotations

import os
import threading
import time

import numpy as np
import pytest

from perfcourse import cudacompile
from perfcourse.cudasim import kernels_of, simulate
from perfcourse.grading.checks._kernels import KernelFailed
from perfcourse.grading.kernelsource import KernelSourceError, kernel_module
from perfcourse.grading.sandbox import bwrap_path

from .kernelcases import TREE

NEEDS_COMPILER = pytest.mark.skipif(cudacompile.missing() is not None and os.environ.get("CI") != "true",
                                    reason="the compile extra (numba-cuda) is not installed")

SIGNATURE = {"block_tree": "void(float64[:], float64[:])"}


# --- the source the grader takes ---------------------------------------------------------------------------

def test_only_numbers_and_kernels_are_taken_from_the_notebook():
    cells = ["import os\nMAX_THREADS = 1024\nLIMIT = 2 * MAX_THREADS\nWHO = os.getcwd()\n",
             "os.system('touch /tmp/owned')\n%time x = 1\n" + TREE,
             "def block_sums(x, t):\n    return x\n", "this is not python ("]
    module = kernel_module(cells, ["block_tree"])
    assert "MAX_THREADS = 1024\nLIMIT = 2048\n" in module.text
    assert "os" not in module.text.replace("cuda.syncthreads", "") and "WHO" not in module.text
    assert "block_sums" not in module.text and module.kernels == ["block_tree"]
    line = next(n for n, (_, _, code) in module.lines.items() if "level[t] += level[t + stride]" in code)
    assert module.where(line) == "block_tree, line 10: level[t] += level[t + stride]"


def test_the_last_definition_wins_and_a_later_plain_def_removes_a_kernel():
    first = TREE.replace("level[0]", "-1.0")
    assert "-1.0" not in kernel_module([first, TREE]).text
    assert kernel_module([TREE, "def block_tree(x, out):\n    pass\n"]).kernels == []


@pytest.mark.parametrize("source, said", [
    ("@cuda.jit\n@other\ndef block_tree(x, out):\n    pass\n", "only decorator"),
    ("@cuda.jit\ndef block_tree(x, out=print('hi')):\n    pass\n", "default arguments must be numbers"),
    ("@cuda.jit\ndef block_tree(x: open('/etc/passwd'), out):\n    pass\n", "take no annotations"),
])
def test_what_would_run_code_at_load_time_is_refused(source, said):
    with pytest.raises(KernelSourceError, match=said):
        kernel_module([source], ["block_tree"])
    assert "block_tree" in kernel_module([source]).refused


def test_decorator_arguments_are_never_evaluated():
    source = TREE.replace("@cuda.jit", "@cuda.jit(__import__('os').system('touch /tmp/owned'))")
    module = kernel_module([source], ["block_tree"])
    assert "__import__" not in module.text and "@cuda.jit\ndef block_tree" in module.text


def test_huge_constants_are_not_evaluated():
    started = time.perf_counter()
    module = kernel_module(["BIG = (((10 ** 64) ** 64) ** 64) ** 64\nN = 10 ** 65\nOK = 2 ** 10\n"])
    assert time.perf_counter() - started < 1
    assert "BIG" not in module.text and "N =" not in module.text and "OK = 1024" in module.text


def test_a_notebook_too_deep_for_the_parser_is_no_kernel_source():
    module = kernel_module(["A = " + "+".join(["1"] * 3000), "B = " + "+".join(["1"] * 20000), TREE])
    assert module.kernels == ["block_tree"] and "A =" not in module.text


def test_what_the_simulator_lacks_is_named():
    kernels, cuda = kernels_of("@cuda.jit\ndef k(x):\n    x[0] = cuda.shfl_down_sync(-1, x[0], 1)\n")
    run = simulate(kernels["k"], cuda, 1, 1, [np.zeros(1)])
    assert "cuda.shfl_down_sync is not simulated by the grader" in run["fault"]["message"]


# --- the simulator's record ----------------------------------------------------------------------------------

def test_the_record_names_each_thread_and_a_launch_is_the_same_every_time():
    kernels, cuda = kernels_of("MAX_THREADS = 1024\n" + TREE)
    x = np.random.default_rng(3).uniform(-1, 1, 100)
    runs = [simulate(kernels["block_tree"], cuda, 2, 64, [x, np.full(2, np.nan)]) for _ in range(2)]
    for run in runs:
        assert np.allclose(run["arrays"][1], [x[:64].sum(), x[64:].sum()])
        assert run["writers"][1].tolist() == [0, 64]             # thread 0 of each block, by global index
        assert run["barriers"] == [[7] * 64, [7] * 64]
        assert max(run["reads"][0]) == 14 and run["race"] is run["unwritten"] is run["mismatch"] is None
    assert runs[0]["reads"] == runs[1]["reads"]


def test_a_kernel_that_never_reaches_its_end_times_out():
    kernels, cuda = kernels_of("@cuda.jit\ndef spin(x):\n    while x[0] < 1.0:\n        x[1] = 0.0\n")
    run = simulate(kernels["spin"], cuda, 1, 2, [np.zeros(2)], timeout_s=0.5)
    assert run["timeout"] and "did not reach a barrier or its end in time" in run["timeout"]
    time.sleep(0.2)
    assert not [t for t in threading.enumerate() if type(t).__name__ == "_Thread"]   # nothing left spinning


# --- the compiler ----------------------------------------------------------------------------------------------

@NEEDS_COMPILER
@pytest.mark.parametrize("body, said", [
    ("    level = cuda.shared.array(cuda.blockDim.x, dtype=np.float64)\n    out[0] = level[0]\n", "shared.array"),
    ("    out[0] = sorted(x)[0]\n", "a GPU thread cannot have"),
    ("    out[0] = total(x)\n", "name 'total' is not defined"),
])
def test_what_is_not_cuda_does_not_compile(body, said):
    import subprocess
    import sys

    code = (f"import numpy as np\nfrom numba import cuda\nfrom perfcourse import cudacompile\n"
            f"def k(x, out):\n{body}\n"
            "try:\n    cudacompile.compile_ptx(k, 'void(float64[:], float64[:])')\n    print('compiled')\n"
            "except cudacompile.CompileError as err:\n    print('refused:', err)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300,
                          env={**os.environ, "NUMBA_ENABLE_CUDASIM": "0"})
    assert "refused:" in done.stdout and said in done.stdout, (done.stdout, done.stderr[-1500:])


def test_without_the_compiler_the_reason_names_the_extra(monkeypatch):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "numba_cuda" else real(name, *a))
    assert "pip install 'perfcourse[compile]'" in cudacompile.missing()


# --- the probe in the sandbox ---------------------------------------------------------------------------------

@pytest.fixture()
def sandbox():
    from perfcourse.grading.sandbox import Sandbox

    if bwrap_path() is None:
        pytest.skip("bubblewrap is not installed")
    box = Sandbox()
    yield box
    box.close()


def _probes(sandbox, source, compile_kernels=True):
    from perfcourse.grading.kernelprobe import Probes

    return Probes(sandbox, ["MAX_THREADS = 1024", source], SIGNATURE, exercise="ex09", memory_bytes=2 << 30,
                  compile=compile_kernels)


@NEEDS_COMPILER
def test_the_probe_compiles_then_launches_in_the_sandbox(sandbox):
    probes = _probes(sandbox, TREE)
    try:
        launch = probes.launcher("block_tree", [time.monotonic() + 120])
        x = np.arange(100.0)
        run = launch(2, 64, x, np.full(2, np.nan))
        assert run.arrays[1].tolist() == [x[:64].sum(), x[64:].sum()] and run.problem() is None
        assert run.barrier_count() == 7 and probes.errors == {"block_tree": None}
    finally:
        probes.kill()


@NEEDS_COMPILER
def test_a_kernel_that_does_not_compile_is_never_launched(sandbox):
    source = TREE.replace("cuda.shared.array(MAX_THREADS,", "cuda.shared.array(cuda.blockDim.x,")
    probes = _probes(sandbox, source)
    try:
        launch = probes.launcher("block_tree", [time.monotonic() + 120])
        with pytest.raises(KernelFailed, match=r"does not compile for a GPU \(numba-cuda, sm_90\)"):
            launch(1, 32, np.ones(32), np.full(1, np.nan))
    finally:
        probes.kill()


@NEEDS_COMPILER
def test_a_grading_compiles_each_kernel_once_and_keeps_its_verdict(sandbox, monkeypatch):
    from perfcourse.grading import kernelprobe

    loads, send = [], kernelprobe.Kernel.send

    def spy(self, message, deadline):
        if message.get("op") == "load":
            loads.append(message["compile"])
        return send(self, message, deadline)

    monkeypatch.setattr(kernelprobe.Kernel, "send", spy)
    broken = TREE.replace("cuda.shared.array(MAX_THREADS,", "cuda.shared.array(cuda.blockDim.x,")
    compiled = kernelprobe.Compiled()
    for source in (TREE, broken, TREE, broken):
        probes = kernelprobe.Probes(sandbox, ["MAX_THREADS = 1024", source], SIGNATURE, exercise="ex09",
                                    memory_bytes=2 << 30, compiled=compiled)
        try:
            launch = probes.launcher("block_tree", [time.monotonic() + 120])
            if source is broken:
                with pytest.raises(KernelFailed, match=r"does not compile for a GPU \(numba-cuda, sm_90\)"):
                    launch(1, 32, np.ones(32), np.full(1, np.nan))
            else:
                assert launch(1, 32, np.ones(32), np.full(1, np.nan)).arrays[1].tolist() == [32.0]
        finally:
            probes.kill()
    assert loads == [True, True, False, False]       # the same kernel again: its verdict, without the compiler
