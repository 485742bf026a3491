"""Every CUDA C source of the course compiles with nvcc, for Hopper and for an older architecture.

No GPU is needed: ``nvcc -cubin`` only compiles. Skipped where nvcc is not on PATH.
"""

import re
import shutil
import subprocess

import pytest

from perfcourse.measure.kernels import _cuda

NVCC = shutil.which("nvcc")
ARCHS = ("sm_90", "sm_80")

# the kernels the Python side asks for, per file (a renamed kernel must fail here, not on the GPU)
USED = {
    "stream.cu": [f"{k}_{s}" for k in ("copy", "scale", "add", "triad") for s in ("f32", "f64")],
    "reduction.cu": ["sum_serial_f32", "sum_serial_f64", "sum_blocks_f32", "sum_blocks_f64", "sum_partials"],
    "recurrence.cu": [f"{k}_{s}" for k in ("recurrence_serial", "scan_step", "scan_finish") for s in ("f32", "f64")],
    "gridstride.cu": ["grid_stride_f32", "grid_stride_f64"],
    "spin.cu": ["spin", "noop"],
    "access.cu": ["strided_read_f32"],
    "fma.cu": [f"fma_chains_{c}" for c in (1, 2, 4, 8)],
}


def test_every_source_is_listed():
    assert sorted(USED) == _cuda.sources()


def test_used_kernels_are_declared_extern_c():
    for filename, names in USED.items():
        declared = set(re.findall(r"__global__\s+void\s+(\w+)\s*\(", _cuda.source(filename)))
        assert set(names) <= declared, f"{filename} lacks {set(names) - declared}"
        assert 'extern "C"' in _cuda.source(filename)


@pytest.mark.skipif(NVCC is None, reason="nvcc is not on PATH")
@pytest.mark.parametrize("arch", ARCHS)
@pytest.mark.parametrize("filename", sorted(USED))
def test_compiles(filename, arch, tmp_path):
    src = tmp_path / filename
    src.write_text(_cuda.source(filename), encoding="utf-8")
    cubin = tmp_path / f"{filename}.{arch}.cubin"
    proc = subprocess.run([NVCC, f"-arch={arch}", "-cubin", "-std=c++17", "-Werror", "all-warnings",
                           "-o", str(cubin), str(src)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    image = cubin.read_bytes()
    for name in USED[filename]:
        assert name.encode() in image, f"{name} missing from the {arch} cubin of {filename}"
