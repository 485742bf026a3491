import subprocess
import sys
import types

import numpy as np
import pytest

from perfcourse import backend


@pytest.fixture(autouse=True)
def fresh_choice():
    """Each test chooses again; the next user of get() chooses with the real environment."""
    backend._CACHED = None
    yield
    backend._CACHED = None


def _fake_cupy(error):
    """A stand-in for a CuPy install whose device calls fail the way a GPU-less machine's do."""

    def fail(*args):
        raise RuntimeError(error)

    cuda = types.SimpleNamespace(is_available=lambda: False, runtime=types.SimpleNamespace(getDeviceCount=fail))
    return types.SimpleNamespace(cuda=cuda, __version__="0.0-test")


def test_forced_numpy_says_so(monkeypatch):
    monkeypatch.setenv(backend.ENV_VAR, "numpy")
    b = backend.get()
    assert (b.name, b.xp, b.on_gpu) == ("numpy", np, False)
    assert "PERFCOURSE_BACKEND=numpy" in b.reason
    assert "CPU" in backend.describe()


def test_bad_env_value_is_a_clear_error(monkeypatch):
    monkeypatch.setenv(backend.ENV_VAR, "torch")
    with pytest.raises(ValueError, match="PERFCOURSE_BACKEND.*'torch'"):
        backend.get()


def test_no_cupy_falls_back_and_says_why(monkeypatch, capsys):
    monkeypatch.delenv(backend.ENV_VAR, raising=False)
    monkeypatch.setitem(sys.modules, "cupy", None)  # import cupy now raises ModuleNotFoundError
    b = backend.get()
    assert b.name == "numpy" and b.reason == "CuPy not installed"
    backend.announce()
    line = capsys.readouterr().out
    assert line.count("\n") == 1 and "on the CPU" in line and "CuPy not installed" in line


def test_cupy_without_gpu_falls_back_with_the_driver_error(monkeypatch):
    monkeypatch.delenv(backend.ENV_VAR, raising=False)
    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy("cudaErrorNoDevice: no CUDA-capable device"))
    b = backend.get()
    assert b.name == "numpy"
    assert b.reason.startswith("CuPy installed but no usable GPU") and "cudaErrorNoDevice" in b.reason


def test_forcing_cupy_without_gpu_raises_with_reason(monkeypatch):
    monkeypatch.setenv(backend.ENV_VAR, "cupy")
    monkeypatch.setitem(sys.modules, "cupy", _fake_cupy("cudaErrorInsufficientDriver"))
    with pytest.raises(RuntimeError, match="no usable GPU.*cudaErrorInsufficientDriver"):
        backend.get()
    monkeypatch.setitem(sys.modules, "cupy", None)
    with pytest.raises(RuntimeError, match="CuPy not installed"):
        backend.get(refresh=True)


def test_choice_is_cached_until_refresh(monkeypatch):
    monkeypatch.setenv(backend.ENV_VAR, "numpy")
    first = backend.get()
    assert backend.get() is first
    monkeypatch.setitem(sys.modules, "cupy", None)
    monkeypatch.delenv(backend.ENV_VAR)
    assert backend.get() is first
    again = backend.get(refresh=True)
    assert again is not first and again.reason == "CuPy not installed"
    with pytest.raises(TypeError, match="refresh"):
        backend.get(refresh="yes")


def test_numpy_array_functions(monkeypatch):
    monkeypatch.setenv(backend.ENV_VAR, "numpy")
    b = backend.get()
    b.synchronize()
    a = b.random((1000,), dtype="float64", seed=3)
    assert isinstance(b.to_numpy(a), np.ndarray) and a.dtype == np.float64
    assert np.array_equal(a, b.random((1000,), dtype="float64", seed=3))
    assert not np.array_equal(a, b.random((1000,), dtype="float64", seed=4))
    assert np.count_nonzero(a) == a.size and a.std() > 0.2  # fresh random data, not zeros


def test_cpu_cache_from_sysfs(tmp_path):
    for index, (level, kind, size) in enumerate([(1, "Data", "32K"), (1, "Instruction", "32K"),
                                                   (2, "Unified", "1024K"), (3, "Unified", "32768K")]):
        d = tmp_path / f"index{index}"
        d.mkdir()
        (d / "level").write_text(f"{level}\n")
        (d / "type").write_text(f"{kind}\n")
        (d / "size").write_text(f"{size}\n")
    assert backend.cpu_cache_bytes(root=str(tmp_path)) == 32 * 2**20
    (tmp_path / "index3" / "size").write_text("garbage\n")
    assert backend.cpu_cache_bytes(root=str(tmp_path)) == 2**20
    assert backend.cpu_cache_bytes(root=str(tmp_path / "missing")) is None


def test_import_touches_nothing():
    code = ("import os, sys; before = dict(os.environ); import perfcourse.measure.backend; "
            "print('cupy' in sys.modules, dict(os.environ) == before, perfcourse.measure.backend._CACHED is None)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True", "True"]


@pytest.mark.gpu
def test_gpu_backend_round_trip():
    b = backend.get(refresh=True)
    assert b.on_gpu and b.name == "cupy" and b.cache_bytes
    a = b.random((1 << 20,), seed=0)
    assert float(b.to_numpy(a.sum())) == pytest.approx(float(b.to_numpy(a).astype(np.float64).sum()), rel=1e-3)
