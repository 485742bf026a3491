"""Learners' kernels on Numba's CUDA simulator: the mode choice and the barrier counts, here and in the grader."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from perfcourse import _syncs
from perfcourse.grading.checks import _tools

from .kernelcases import TREE

# One process per test run: numba.cuda chooses the simulator once, at its first import.
KERNELS = textwrap.dedent('''
    import numpy as np
    import perfcourse as pc

    cuda = pc.simt.numba_cuda()
    TPB = MAX_THREADS = 32

    @cuda.jit
    def linear(x, out):
        s = cuda.shared.array(TPB, dtype=np.float64)
        t = cuda.threadIdx.x
        i = cuda.grid(1)
        s[t] = x[i] if i < x.size else 0.0
        cuda.syncthreads()
        for k in range(1, TPB):
            if t == 0:
                s[0] += s[k]
            cuda.syncthreads()
        if t == 0:
            out[cuda.blockIdx.x] = s[0]

    def block_sums(x, kernel=None):
        kernel = kernel or tree
        x = np.asarray(x, dtype=np.float64)
        blocks = (x.size + TPB - 1) // TPB
        d, out = cuda.to_device(x), cuda.device_array(blocks)
        kernel[blocks, TPB](d, out)
        return out.copy_to_host()
''') + TREE.replace("def block_tree(", "def tree(")


def _run(code):
    done = subprocess.run([sys.executable, "-c", KERNELS + textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=240, env={"PATH": "/usr/bin:/bin", "PERFCOURSE_BACKEND": "numpy"})
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_kernels_run_on_the_simulator_and_barriers_are_counted_per_block():
    out = json.loads(_run('''
        import json
        x = np.arange(70.0)
        sums, steps = pc.simt.count_syncs(block_sums, x)
        _, linear_steps = pc.simt.count_syncs(block_sums, x, linear)
        from numba import cuda as again
        print(json.dumps({"mode": pc.simt.mode(), "sums": sums.tolist(), "steps": steps,
                          "linear": linear_steps, "same": again is cuda, "line": pc.simt.describe()}))
    ''').strip().splitlines()[-1])
    assert out["mode"] == "simulator" and out["same"]
    assert out["sums"] == [sum(range(0, 32)), sum(range(32, 64)), sum(range(64, 70))]
    assert out["steps"] == 1 + 5               # the load, then log2(32) halvings
    assert out["linear"] == 1 + 31             # one element a step: linear in the block
    assert "simulator" in out["line"]


def test_numba_imported_for_the_gpu_first_is_refused_with_a_restart_hint():
    code = '''
        import sys, perfcourse as pc
        sys.modules["numba.cuda"] = object()      # as if numba.cuda had been imported for a GPU
        try:
            pc.simt.numba_cuda()
        except RuntimeError as err:
            print("refused:", err)
    '''
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=120,
                          env={"PATH": "/usr/bin:/bin", "PERFCOURSE_BACKEND": "numpy"})
    assert "refused:" in done.stdout and "restart the kernel" in done.stdout, done.stderr[-1000:]


def test_counting_without_the_simulator_gives_none_and_checks_its_argument():
    if _syncs.simulator_loaded():
        pytest.skip("the simulator is loaded in this test process")
    assert _syncs.count_syncs(lambda a, b: a + b, 2, 3) == (5, None)
    with pytest.raises(TypeError, match="launch must be a function"):
        _syncs.count_syncs(3)
    with pytest.raises(RuntimeError, match="simulator is not loaded"), _syncs.SyncCounter():
        pass


def test_a_part_may_ask_for_more_time_and_says_what_is_allowed():
    @_tools.part("A: slow kernel", points=2, needs=("f",), timeout_s=60)
    def check(f, rng):
        return 2, 2, "ok"

    assert check.part.timeout_s == 60.0
    with pytest.raises(ValueError, match="timeout_s must be None or a number"):
        _tools.part("B", points=1, needs=("f",), timeout_s=0)
