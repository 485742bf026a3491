"""The real CuPy wheel on a machine with no GPU: the course must choose NumPy, say why, and exit 0.

The wheel is large, so it lives in its own folder (installed with
``pip install --target FOLDER cupy-cuda12x fastrlock cuda-pathfinder --no-deps``) and is put on
PYTHONPATH only for the subprocesses below. ``PERFCOURSE_CUPY_TARGET`` names the folder; without
it the test is skipped, unless ``PERFCOURSE_REQUIRE_CUPY_TEST=1`` asks for it to be mandatory.
"""

import os
import subprocess
import sys

import pytest

TARGET = os.path.abspath(os.environ["PERFCOURSE_CUPY_TARGET"]) if os.environ.get("PERFCOURSE_CUPY_TARGET") else ""
REQUIRED = os.environ.get("PERFCOURSE_REQUIRE_CUPY_TEST") == "1"
WHY = "CuPy installed but no usable GPU"


@pytest.fixture(scope="module")
def env():
    if not TARGET or not os.path.isdir(os.path.join(TARGET, "cupy")):
        if REQUIRED:
            pytest.fail(f"PERFCOURSE_REQUIRE_CUPY_TEST=1 but PERFCOURSE_CUPY_TARGET={TARGET!r} holds no cupy package")
        pytest.skip("set PERFCOURSE_CUPY_TARGET to a folder with the cupy-cuda12x wheel installed")
    env = {k: v for k, v in os.environ.items() if k != "PERFCOURSE_BACKEND"}
    env["PYTHONPATH"] = os.pathsep.join(p for p in (TARGET, env.get("PYTHONPATH", "")) if p)
    probe = _run(["-c", "import cupy; print(cupy.__file__); print(cupy.cuda.is_available())"], env)
    assert probe.returncode == 0, f"the CuPy wheel does not import: {probe.stderr[-2000:]}"
    where, available = probe.stdout.split()
    assert where.startswith(os.path.abspath(TARGET)), f"imported CuPy from {where}, not from {TARGET}"
    if available == "True":
        pytest.skip("this machine has a usable GPU; the fallback cannot be shown here")
    return env


def _run(args, env):
    return subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True, timeout=600)


def _assert_fell_back(result):
    assert result.returncode == 0, result.stderr[-3000:]
    assert "numpy on the CPU" in result.stdout and WHY in result.stdout, result.stdout[-3000:]


def test_doctor_chooses_numpy_and_says_why(env):
    result = _run(["-m", "perfcourse", "doctor"], env)
    _assert_fell_back(result)
    assert "backend: numpy" in result.stdout


def test_lessons_announce_numpy_and_why(env):
    result = _run(["-c", "import perfcourse as pc; pc.backend.announce(); import numpy as np; "
                         "print(pc.timing.measure(np.copy, np.ones(1000), repeat=3, warmup_s=0))"], env)
    _assert_fell_back(result)
    assert "numpy on" in result.stdout.splitlines()[-1]


def test_bench_chooses_numpy_and_says_why(env):
    _assert_fell_back(_run(["-m", "perfcourse", "bench"], env))


def test_forcing_cupy_fails_clearly(env):
    result = _run(["-c", "import perfcourse as pc; pc.backend.get()"], {**env, "PERFCOURSE_BACKEND": "cupy"})
    assert result.returncode != 0
    assert "RuntimeError" in result.stderr and WHY in result.stderr


def test_start_here_notebook_runs_on_numpy_and_says_why(env, tmp_path):
    notebook = os.path.join(os.path.dirname(__file__), os.pardir, "notebooks", "00_start_here.ipynb")
    if not os.path.exists(notebook):
        pytest.skip("notebooks/00_start_here.ipynb not present")
    code = ("import sys, nbformat, nbclient; nb = nbformat.read(sys.argv[1], as_version=4); "
            "nbclient.NotebookClient(nb, timeout=300, kernel_name='python3').execute(); "
            "print(''.join(o.get('text', '') for c in nb.cells if c.cell_type == 'code' for o in c.outputs))")
    result = _run(["-c", code, notebook], env)
    _assert_fell_back(result)
