import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from perfcourse import batches, latency, laws, roofline

CPU = {"peak_flops": 160e9, "peak_bandwidth": 32e9}


def test_memory_bound_at_small_batch_compute_bound_at_large():
    d = 4096
    t = latency.dense_layer_latency(np.array([1, 2, 4]), d, **CPU)
    assert t[2] / t[0] < 1.01  # flat: W's bytes dominate
    assert t[0] == pytest.approx(d * d * 4 / 32e9, rel=0.01)
    big = latency.dense_layer_latency(np.array([512, 1024]), d, **CPU)
    assert big[1] / big[0] == pytest.approx(2.0, rel=1e-9)  # linear in b: FLOPs dominate
    assert big[1] == pytest.approx(2 * 1024 * d * d / 160e9)


def test_overhead_adds_and_scalar_gives_float():
    t = latency.dense_layer_latency(1, 64, **CPU)
    assert type(t) is float
    assert latency.dense_layer_latency(1, 64, overhead=1e-6, **CPU) == pytest.approx(t + 1e-6)


@given(st.integers(16, 20000), st.floats(1e9, 1e15), st.floats(1e9, 1e13),
       st.sampled_from([("bfloat16", 2), ("float32", 4), ("float64", 8)]))
def test_knee_is_where_both_roofs_meet(d, f, b, dtype):
    dtype, s = dtype
    knee = latency.knee_batch(d, peak_flops=f, peak_bandwidth=b, dtype=dtype)
    if math.isinf(knee):
        assert d * b <= s * f
        return
    flops, moved = 2 * knee * d * d, (d * d + 2 * knee * d) * s
    assert flops / f == pytest.approx(moved / b, rel=1e-9)


def test_knee_near_ridge_times_itemsize_over_two_for_wide_layers():
    ridge = roofline.ridge_point(CPU["peak_flops"], CPU["peak_bandwidth"])
    assert latency.knee_batch(2**16, **CPU) == pytest.approx(ridge * 4 / 2, rel=0.01)


def test_largest_batch_under_slo():
    p99 = {1: 0.004, 8: 0.006, 64: 0.021, 256: 0.048, 1024: 0.190}
    assert latency.largest_batch_under_slo(p99, 0.025) == 64
    assert latency.largest_batch_under_slo(p99, 0.048) == 256
    assert latency.largest_batch_under_slo(p99, 1.0) == 1024
    assert latency.largest_batch_under_slo(p99, 0.001) is None
    assert latency.largest_batch_under_slo({np.int64(4): 0.01}, 0.02) == 4


def test_largest_batch_rejects_bad_input():
    with pytest.raises(TypeError, match="non-empty mapping"):
        latency.largest_batch_under_slo({}, 0.01)
    with pytest.raises(TypeError, match="non-empty mapping"):
        latency.largest_batch_under_slo([(1, 0.01)], 0.01)
    with pytest.raises(ValueError, match="keys must be batch sizes"):
        latency.largest_batch_under_slo({0: 0.01}, 0.01)
    with pytest.raises(ValueError, match="slo must be"):
        latency.largest_batch_under_slo({1: 0.01}, 0)
    with pytest.raises(ValueError, match="latency of batch 2"):
        latency.largest_batch_under_slo({2: float("nan")}, 0.01)


def test_lecture_example_one():
    assert laws.batch_throughput(1, 0.020) == pytest.approx(50)
    assert laws.batch_throughput(8, 0.030) == pytest.approx(266.67, rel=1e-4)
    worst = latency.batch_fill_time(8, 100) + 0.030
    assert worst == pytest.approx(0.100)


def test_energy_and_time_to_quality():
    assert latency.energy_per_token(700, 20_000) == pytest.approx(0.035)
    fast_but_more_tokens = latency.time_to_quality(3e9, 150_000)
    slow_but_fewer = latency.time_to_quality(2e9, 120_000)
    assert fast_but_more_tokens > slow_but_fewer
    with pytest.raises(ValueError, match="tokens_per_s"):
        latency.energy_per_token(100, 0)
    with pytest.raises(ValueError, match="batch must be a whole number"):
        latency.batch_fill_time(2.5, 10)


def test_model_rejects_bad_arguments():
    with pytest.raises(ValueError, match="batch"):
        latency.dense_layer_latency(0, 64, **CPU)
    with pytest.raises(TypeError, match="d must be an integer"):
        latency.dense_layer_latency(1, 64.0, **CPU)
    with pytest.raises(ValueError, match="peak_flops"):
        latency.dense_layer_latency(1, 64, peak_flops=-1, peak_bandwidth=1e9)
    with pytest.raises(TypeError, match="dtype must be a dtype name"):
        latency.knee_batch(64, dtype=4, **CPU)
    with pytest.raises(ValueError, match="dtype must be one of"):
        latency.dense_layer_latency(1, 64, dtype="int8", **CPU)


def test_model_uses_the_dense_kernels_counts():
    from perfcourse.measure.kernels.matmul import dense

    t = latency.dense_layer_latency(8, 512, peak_flops=1.0, peak_bandwidth=1e30)
    assert t == pytest.approx(dense.flops(8, 512))
    t = latency.dense_layer_latency(8, 512, peak_flops=1e30, peak_bandwidth=1.0, dtype="bfloat16")
    assert t == pytest.approx(dense.bytes_moved(8, 512, dtype="bfloat16"))


def test_sweep_measures_each_batch():
    made = []

    def make_call(b):
        made.append(b)
        data = np.ones(b * 1000)
        return lambda: data.sum()

    got = batches.sweep_batches(make_call, [1, 16], progress=False, repeat=5, warmup_s=0.0)
    assert made == [1, 16] and sorted(got) == [1, 16]
    assert all(t.n == 5 and t.p50 <= t.p99 for t in got.values())
    with pytest.raises(ValueError, match="at least one batch"):
        batches.sweep_batches(make_call, [], progress=False)
    with pytest.raises(ValueError, match="max_duration_s"):
        batches.sweep_batches(make_call, [1], progress=False, max_duration_s=0)
    with pytest.raises(TypeError, match="make_call"):
        batches.sweep_batches(3, [1], progress=False)


def test_sweep_keeps_min_samples_when_calls_are_slow():
    import time

    def make_call(b):
        # a fixed sleep, not a timing comparison: each call lasts at least 20 ms
        return lambda: time.sleep(0.02)

    got = batches.sweep_batches(make_call, [1], progress=False, repeat=50, max_duration_s=0.01, min_samples=4,
                                warmup_s=0.0)
    assert got[1].n >= 4
