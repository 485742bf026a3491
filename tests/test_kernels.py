"""The course kernels on the CPU: every one against its float64 reference on fresh random input."""

import dataclasses

import numpy as np
import pytest

from perfcourse import kernels
from perfcourse.measure.kernels import sizes
from perfcourse.measure.kernels._base import TOLERANCE, to_numpy

# small sizes for each kernel (odd where it matters, so no power-of-two luck)
SIZES = {
    "copy": (1001,), "scale": (1001,), "add": (1001,), "triad": (1001,),
    "sum_serial": (200_003,), "sum_tree": (200_003,), "sum_library": (200_003,),
    "recurrence_serial": (3001,), "recurrence_scan": (3001,),
    "dense": (5, 96), "matmul": (33, 47, 65), "grid_stride": (10_001, 20), "spin": (257,),
    "strided_read": (4096,), "fma_chains": (999, 64),
}

CASES = [(name, dtype) for name, k in kernels.ALL.items() for dtype in k.dtypes if dtype not in k.gpu_only_dtypes]


def test_every_kernel_has_sizes_here():
    assert set(SIZES) == set(kernels.ALL)


def _fresh_seed():
    return int(np.random.SeedSequence().entropy % 2**32)


@pytest.mark.parametrize("name,dtype", CASES)
def test_cpu_version_matches_reference(name, dtype):
    k = kernels.get(name)
    seed = _fresh_seed()                                # fresh input each run; the seed is in any failure
    inputs = k.make_inputs(*SIZES[name], dtype=dtype, xp=np, seed=seed)
    got = np.asarray(k.run(*inputs), dtype=np.float64)
    want = np.asarray(k.expected(*inputs), dtype=np.float64)
    assert got.shape == want.shape
    # the normwise relative error, worked out here rather than by the helper under test
    err = float(np.max(np.abs(got - want))) / float(np.max(np.abs(want)))
    assert err <= TOLERANCE[dtype], f"{name} {dtype} seed={seed}: relative error {err:.3g} > {TOLERANCE[dtype]}"
    # check() on the same seed sees the same input, so it must report the same error
    assert k.check(*SIZES[name], dtype=dtype, xp=np, seed=seed) == pytest.approx(err, rel=1e-6, abs=1e-300)


def test_tolerances_tighten_with_precision():
    assert TOLERANCE["float64"] < TOLERANCE["float32"] < TOLERANCE["float16"] < TOLERANCE["bfloat16"] < 0.1


def _off_by(factor, tol, impl):
    """``impl`` with one element of its result moved by ``factor`` x ``tol`` x its largest value."""
    def wrong(*inputs, **options):
        r = np.array(to_numpy(impl(*inputs, **options)), dtype=np.float64)   # a float64 copy
        flat = r.reshape(-1)
        flat[flat.size // 2] += factor * tol * float(np.max(np.abs(r)))
        return r
    return wrong


@pytest.mark.parametrize("name,dtype", CASES)
def test_a_perturbed_result_is_caught(name, dtype):
    k = kernels.get(name)
    broken = dataclasses.replace(k, cpu=_off_by(10, TOLERANCE[dtype], k.cpu))
    with pytest.raises(AssertionError, match=f"{name}.*{dtype}.*relative error"):
        broken.check(*SIZES[name], dtype=dtype, xp=np)


def test_check_draws_the_line_at_the_tolerance():
    k = kernels.copy                                    # exact on its own: the only error is the one added
    tol = TOLERANCE["float32"]
    inside = dataclasses.replace(k, cpu=_off_by(0.5, tol, k.cpu))
    assert inside.check(1001, xp=np) == pytest.approx(0.5 * tol, rel=1e-3)
    outside = dataclasses.replace(k, cpu=_off_by(2.0, tol, k.cpu))
    with pytest.raises(AssertionError, match="relative error"):
        outside.check(1001, xp=np)
    with pytest.raises(AssertionError):
        inside.check(1001, xp=np, rtol=0.25 * tol)      # a tighter rtol is honoured


@pytest.mark.parametrize("options", [{"blocks": 1}, {"blocks": 2}, {"blocks": 7}, {"blocks": None}])
def test_grid_stride_any_number_of_workers(options):
    kernels.grid_stride.check(50_001, 8, dtype="float32", xp=np, **options)


@pytest.mark.parametrize("chains", [1, 2, 4, 8])
def test_fma_chains_give_the_reference(chains):
    kernels.fma_chains.check(1000, 64, xp=np, chains=chains)


@pytest.mark.parametrize("stride", [1, 2, 64, 4096])
def test_strided_read_every_stride(stride):
    kernels.strided_read.check(4096, xp=np, stride=stride)


def test_inputs_are_random_never_zero_and_seeded():
    a = kernels.triad.make_inputs(1000, xp=np, seed=3)
    b = kernels.triad.make_inputs(1000, xp=np, seed=3)
    c = kernels.triad.make_inputs(1000, xp=np)
    assert np.array_equal(a[0], b[0]) and not np.array_equal(a[0], c[0])
    assert all((x != 0).all() for x in a[:3]) and a[0].dtype == np.float32
    assert len(np.unique(a[0])) > 900


def test_counts():
    assert kernels.copy.bytes_moved(100, dtype="float64") == 1600
    assert kernels.triad.flops(100) == 200 and kernels.triad.bytes_moved(100) == 1200
    assert kernels.sum_serial.span(2**20) == 2**20 - 1 and kernels.sum_tree.span(2**20) == 20
    assert kernels.recurrence_scan.span(1024) == 11 and kernels.recurrence_serial.span(1024) == 1024
    assert kernels.recurrence_scan.flops(1024) > 10 * kernels.recurrence_serial.flops(1024)
    assert kernels.dense.flops(8, 1024) == 2 * 8 * 1024**2
    assert kernels.matmul.intensity(4096, 4096, 4096, dtype="float32") == pytest.approx(4096 / 6)
    assert kernels.fma_chains.flops(10, 64) == 1280 and kernels.spin.flops(10) == 0
    assert kernels.copy.span(10) is None


def test_a_wrong_implementation_is_caught():
    broken = dataclasses.replace(kernels.triad, cpu=lambda b, c, a, q: np.add(b, c, out=a))
    with pytest.raises(AssertionError, match="triad.*relative error"):
        broken.check(1000, xp=np)


@pytest.mark.parametrize("call,error", [
    (lambda: kernels.triad.flops(), TypeError),
    (lambda: kernels.triad.flops(0), ValueError),
    (lambda: kernels.triad.flops(2.5), TypeError),
    (lambda: kernels.dense.flops(4), TypeError),
    (lambda: kernels.triad.bytes_moved(10, dtype="int8"), ValueError),
    (lambda: kernels.triad.make_inputs(10, dtype="float16", xp=np), ValueError),
    (lambda: kernels.matmul.make_inputs(4, 4, 4, dtype="bfloat16", xp=np), ValueError),
    (lambda: kernels.triad.make_inputs(10, xp="jax"), ValueError),
    (lambda: kernels.get("nope"), ValueError),
    (lambda: kernels.triad.run(*kernels.triad.make_inputs(10, xp=np), blocks=2), TypeError),
    (lambda: kernels.strided_read.run(*kernels.strided_read.make_inputs(10, xp=np), stride=3), ValueError),
    (lambda: kernels.fma_chains.run(*kernels.fma_chains.make_inputs(10, 64, xp=np), chains=3), ValueError),
    (lambda: kernels.fma_chains.run(*kernels.fma_chains.make_inputs(10, 6, xp=np), chains=4), ValueError),
    (lambda: kernels.spin.run(*kernels.spin.make_inputs(10, xp=np), seconds=-1), ValueError),
    (lambda: kernels.grid_stride.run(*kernels.grid_stride.make_inputs(10, 2, xp=np), blocks=0), ValueError),
])
def test_bad_arguments_are_refused(call, error):
    with pytest.raises(error):
        call()


def test_bfloat16_round_trip():
    x = np.random.default_rng().uniform(-1e3, 1e3, 10_000).astype(np.float32)
    back = kernels.from_bfloat16(kernels.to_bfloat16(x))
    assert back.dtype == np.float32
    assert np.max(np.abs(back - x) / np.abs(x)) <= 2.0**-8
    # round to nearest even: 1 + 2^-8 lies halfway between 1 and 1 + 2^-7 and goes to 1
    assert kernels.from_bfloat16(kernels.to_bfloat16(np.float32(1 + 2**-8)))[()] == 1.0
    assert kernels.relative_error(kernels.to_bfloat16(np.array([2.0, 4.0])), np.array([2.0, 4.0])) == 0


def test_spin_waits_at_least_the_time_asked():
    import time

    out, = kernels.spin.make_inputs(8, xp=np)
    t0 = time.perf_counter()
    kernels.spin.run(out, seconds=0.02)
    assert time.perf_counter() - t0 >= 0.02
    assert np.array_equal(out, np.arange(8))


def test_sweep_sizes_exceed_cache_and_respect_memory():
    mib = 2**20
    n = sizes.sweep_elements(3, "float32", cache=32 * mib, free=64 * 2**30)
    assert 3 * n * 4 >= sizes.CACHE_FACTOR * 32 * mib and n & (n - 1) == 0
    small = sizes.sweep_elements(3, "float32", cache=32 * mib, free=100 * mib, memory_fraction=0.25)
    assert 3 * small * 4 <= 25 * mib
    assert sizes.sweep_elements(2, "float64") >= 1    # the real device
    with pytest.raises(ValueError):
        sizes.sweep_elements(3, "float32", memory_fraction=1.5)


def test_fit_halves_on_out_of_memory_and_passes_other_errors(capsys):
    calls = []

    def make(n):
        calls.append(n)
        if n > 100:
            raise MemoryError("Unable to allocate")
        return "ok"

    assert sizes.fit(make, 800, what="test arrays") == (100, "ok")
    assert calls == [800, 400, 200, 100] and "Out of memory for test arrays at size 800" in capsys.readouterr().out
    with pytest.raises(MemoryError, match="do not fit in memory even at size 200"):
        sizes.fit(make, 200, minimum=150)

    def broken(n):
        raise KeyError("not memory")

    with pytest.raises(KeyError):
        sizes.fit(broken, 10)


def test_out_of_memory_is_recognised_by_name_and_message():
    class OutOfMemoryError(Exception):
        pass

    assert sizes.is_out_of_memory(OutOfMemoryError("Out of memory allocating 1 bytes"))
    assert sizes.is_out_of_memory(RuntimeError("cudaErrorMemoryAllocation: out of memory"))
    assert not sizes.is_out_of_memory(ValueError("shape mismatch"))
