"""The CuPy versions of the course kernels, on the device, against their float64 references.

Marked ``gpu``: skipped (by conftest) where CuPy sees no usable GPU; run by ``perfcourse gpu-check``.
"""

import dataclasses

import numpy as np
import pytest

from perfcourse import kernels
from perfcourse.measure.kernels import sizes
from perfcourse.measure.kernels._base import TOLERANCE, to_numpy

pytestmark = pytest.mark.gpu

SIZES = {
    "copy": (1_000_003,), "scale": (1_000_003,), "add": (1_000_003,), "triad": (1_000_003,),
    "sum_serial": (100_003,), "sum_tree": (3_000_017,), "sum_library": (3_000_017,),
    "recurrence_serial": (20_001,), "recurrence_scan": (1_000_003,),
    "dense": (7, 1024), "matmul": (257, 129, 511), "grid_stride": (1_000_003, 16), "spin": (1000,),
    "strided_read": (2**20,), "fma_chains": (10_000, 256),
}

CASES = [(name, dtype) for name, k in kernels.ALL.items() for dtype in k.dtypes]


def _as_float64(result):
    host = to_numpy(result)
    if host.dtype == np.uint16:                          # bfloat16 bit patterns
        host = kernels.from_bfloat16(host)
    return np.array(host, dtype=np.float64)


@pytest.mark.parametrize("name,dtype", CASES)
def test_gpu_version_matches_reference(name, dtype):
    import cupy

    k = kernels.get(name)
    seed = int(np.random.SeedSequence().entropy % 2**32)   # fresh input each run; the seed is in any failure
    inputs = k.make_inputs(*SIZES[name], dtype=dtype, xp=cupy, seed=seed)
    got = _as_float64(k.run(*inputs))
    want = np.asarray(k.expected(*inputs), dtype=np.float64)
    assert got.shape == want.shape
    # the normwise relative error, worked out here rather than by the helper under test
    err = float(np.max(np.abs(got - want))) / float(np.max(np.abs(want)))
    assert err <= TOLERANCE[dtype], f"{name} {dtype} seed={seed}: relative error {err:.3g} > {TOLERANCE[dtype]}"
    # check() on the same seed sees the same input; a GPU reduction may add in another order
    again = k.check(*SIZES[name], dtype=dtype, xp=cupy, seed=seed)
    assert again <= TOLERANCE[dtype] and again == pytest.approx(err, rel=0.5, abs=TOLERANCE[dtype] / 100)


@pytest.mark.parametrize("name,dtype", CASES)
def test_a_perturbed_gpu_result_is_caught(name, dtype):
    import cupy

    k = kernels.get(name)
    tol = TOLERANCE[dtype]

    def wrong(*inputs, **options):                    # one element off by 10x the tolerance
        r = _as_float64(k.gpu(*inputs, **options))
        flat = r.reshape(-1)
        flat[flat.size // 2] += 10 * tol * float(np.max(np.abs(r)))
        return cupy.asarray(r)

    with pytest.raises(AssertionError, match=f"{name}.*{dtype}.*relative error"):
        dataclasses.replace(k, gpu=wrong).check(*SIZES[name], dtype=dtype, xp=cupy)


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
    short = timing.measure(kernels.spin.run, out, kwargs={"seconds": 0.005}, repeat=5, warmup_s=0)
    long = timing.measure(kernels.spin.run, out, kwargs={"seconds": 0.02}, repeat=5, warmup_s=0)
    assert short.p50 >= 0.005 and long.p50 >= 0.02     # the device clock never ends a spin early
    assert 3 < long.p50 / short.p50 < 5                 # and it spins for the time asked, not a fixed time


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
