"""The CuPy versions of the course kernels, on the device, against their float64 references.

Marked ``gpu``: skipped (by conftest) where CuPy sees no usable GPU; run by ``perfcourse gpu-check``.
"""

import numpy as np
import pytest

from perfcourse import kernels
from perfcourse.measure.kernels import sizes

pytestmark = pytest.mark.gpu

SIZES = {
    "copy": (1_000_003,), "scale": (1_000_003,), "add": (1_000_003,), "triad": (1_000_003,),
    "sum_serial": (100_003,), "sum_tree": (3_000_017,), "sum_library": (3_000_017,),
    "recurrence_serial": (20_001,), "recurrence_scan": (1_000_003,),
    "dense": (7, 1024), "matmul": (257, 129, 511), "grid_stride": (1_000_003, 16), "spin": (1000,),
    "strided_read": (2**20,), "fma_chains": (10_000, 256),
}

CASES = [(name, dtype) for name, k in kernels.ALL.items() for dtype in k.dtypes]


@pytest.mark.parametrize("name,dtype", CASES)
def test_gpu_version_matches_reference(name, dtype):
    import cupy

    err = kernels.get(name).check(*SIZES[name], dtype=dtype, xp=cupy)
    assert err >= 0


@pytest.mark.parametrize("blocks", [1, 7, 132, None])
def test_grid_stride_any_number_of_blocks(blocks):
    import cupy

    kernels.grid_stride.check(1_000_003, 8, xp=cupy, blocks=blocks, threads_per_block=128)


@pytest.mark.parametrize("chains", [1, 2, 4, 8])
@pytest.mark.parametrize("block", [32, 256, 1024])
def test_fma_chains_and_block_sizes(chains, block):
    import cupy

    kernels.fma_chains.check(10_001, 64, xp=cupy, chains=chains, threads_per_block=block)


@pytest.mark.parametrize("stride", [1, 8, 32, 1024])
def test_strided_reads(stride):
    import cupy

    kernels.strided_read.check(2**20, xp=cupy, stride=stride)


def test_gpu_and_cpu_agree_on_the_same_input():
    import cupy

    host = kernels.recurrence_scan.make_inputs(100_000, dtype="float64", xp=np, seed=5)
    dev = tuple(cupy.asarray(a) if isinstance(a, np.ndarray) else a for a in host)
    assert np.allclose(kernels.recurrence_scan.run(*dev).get(), kernels.recurrence_scan.run(*host), rtol=1e-12)


def test_spin_keeps_the_gpu_busy_for_the_time_asked():
    import cupy

    from perfcourse import timing

    out, = kernels.spin.make_inputs(32, xp=cupy)
    t = timing.measure(kernels.spin.run, out, kwargs={"seconds": 0.005}, repeat=5, warmup_s=0)
    assert 0.005 <= t.p50 < 0.02


def test_out_of_memory_becomes_a_smaller_size(capsys):
    import cupy

    free = cupy.cuda.runtime.memGetInfo()[0]
    too_many = 2 ** int(np.ceil(np.log2(free)))     # float32 elements: at least four times the free bytes
    try:
        n, (x,) = sizes.fit(lambda m: (cupy.empty(m, dtype=cupy.float32),), too_many, what="a test array")
        assert n < too_many and x.size == n
        assert "Out of memory for a test array" in capsys.readouterr().out
    finally:
        x = None
        cupy.get_default_memory_pool().free_all_blocks()   # give the memory back to the next tests


def test_ceilings_on_the_gpu_are_plausible():
    from perfcourse import hardware

    c = hardware.measure_ceilings(quick=True, progress=False, cached=False)
    assert c.backend == "cupy" and c.copy_bandwidth > 1e11 and c.triad_bandwidth > 1e11
    assert c.matmul_flops["float32"] > 1e11 and 0 < c.launch_s < 1e-3 and c.launch_sync_s >= c.launch_s
