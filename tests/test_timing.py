import functools
import gc
import time
import timeit

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from perfcourse import backend, timing, units
from perfcourse.measure.timing import Timing, measure


def _sized_op(target_s=2e-3):
    """A single-threaded NumPy operation that takes about ``target_s`` on this machine."""
    n = 1 << 16
    while True:
        op = functools.partial(np.cumsum, np.random.default_rng(0).random(n))
        t = min(timeit.repeat(op, number=1, repeat=5))
        if t >= target_s or n >= 1 << 26:
            return op, t
        n *= 2


def test_samples_are_the_calls_own_time_and_agree_with_timeit():
    op, _ = _sized_op()
    inside = []

    def timed_op():                            # the call times itself, on the same clock
        t0 = time.perf_counter_ns()
        op()
        inside.append((time.perf_counter_ns() - t0) * 1e-9)

    t = measure(timed_op, repeat=25, warmup_s=0.05, name="cumsum")
    assert t.batch == 1 and t.n == 25 and len(inside) == t.warmup_calls + 25
    own = np.array(inside[-25:])               # the sampled calls come after the warm-up
    # sample by sample: the call's own time plus the harness's few microseconds. This holds on a
    # busy machine too, where the duration of the call itself jumps by whole time slices; so
    # each harness is compared with the calls it timed, not with calls made at another moment.
    assert np.all(t.samples >= own)
    ours = float(np.median(t.samples / own))
    inside.clear()
    theirs = float(np.median(np.array(timeit.repeat(timed_op, number=1, repeat=25)) / np.array(inside)))
    assert 1 <= ours < 1.05 and 1 <= theirs < 1.05, (ours, theirs)
    assert abs(ours / theirs - 1) < 0.10


samples = st.lists(st.floats(min_value=0, max_value=1e3, allow_nan=False, allow_infinity=False), min_size=1,
                   max_size=60)


@given(samples)
def test_percentiles_are_ordered_and_match_numpy(values):
    t = Timing.from_samples(values)
    assert t.min <= t.p50 <= t.p95 <= t.p99 <= max(values)
    for q in (0, 25, 50, 95, 99, 100):
        assert t.percentile(q) == pytest.approx(np.percentile(values, q), rel=1e-12, abs=1e-300)


@given(samples, st.floats(0, 100), st.floats(0, 100))
def test_percentile_never_decreases(values, q1, q2):
    t = Timing.from_samples(values)
    lo, hi = sorted((q1, q2))
    assert t.percentile(lo) <= t.percentile(hi)


def test_summary_statistics_and_noise_flag():
    tight = Timing.from_samples([1.00e-3, 1.01e-3, 1.02e-3, 0.99e-3], name="tight")
    assert not tight.noisy and tight.mean == pytest.approx(1.005e-3)
    spread = Timing.from_samples([1e-3, 2e-3, 3e-3, 4e-3], name="spread")
    assert spread.iqr_over_median == pytest.approx((3.25e-3 - 1.75e-3) / 2.5e-3)
    assert spread.noisy and "NOISY" in str(spread) and "NOISY" not in str(tight)
    assert "ms" in str(tight) and "warm L2" in str(tight)
    assert spread.per_second(1e6) == pytest.approx(1e6 / 2.5e-3)
    d = spread.to_dict()
    assert d["p50_s"] == spread.p50 and d["samples_s"] == [1e-3, 2e-3, 3e-3, 4e-3]
    with pytest.raises(ValueError, match="at least one"):
        Timing.from_samples([])
    with pytest.raises(ValueError, match="finite"):
        Timing.from_samples([1.0, -1.0])
    with pytest.raises(ValueError, match="q must be"):
        spread.percentile(101)


@pytest.mark.parametrize("kwargs, error, words", [
    ({"repeat": 0}, ValueError, "repeat"),
    ({"repeat": 2.5}, TypeError, "repeat"),
    ({"warmup_s": -1}, ValueError, "warmup_s"),
    ({"max_duration_s": 0}, ValueError, "max_duration_s"),
    ({"l2": "hot"}, ValueError, "l2"),
    ({"kwargs": [1]}, TypeError, "kwargs"),
    ({"name": 3}, TypeError, "name"),
    ({"batch": 0}, ValueError, "batch"),
    ({"l2": "cold", "batch": 4}, ValueError, "batch"),
    ({"min_samples": 0}, ValueError, "min_samples"),
    ({"backend": "numpy"}, TypeError, "backend"),
])
def test_argument_checks(kwargs, error, words):
    with pytest.raises(error, match=words):
        measure(lambda: None, **kwargs)


def test_fn_must_be_callable():
    with pytest.raises(TypeError, match="fn must be callable"):
        measure(42)
    with pytest.raises(TypeError, match="fn must be callable"):
        timing.time_without_sync("np.copy")


def test_short_calls_are_batched_and_counted():
    calls = []

    def tiny():
        calls.append(None)

    t = measure(tiny, repeat=10, warmup_s=0.01)
    assert t.batch > 1 and t.n == 10
    assert len(calls) == t.warmup_calls + t.batch * t.n
    assert f"of {t.batch} calls" in str(t)
    # a sample is reported per call: close to timeit's time per call, not that of a whole batch
    # (a batch holds at least BATCH_SAMPLE_S / SHORT_CALL_S = 10 calls)
    per_call = min(timeit.repeat(tiny, number=t.batch, repeat=5)) / t.batch
    assert 0.2 < t.p50 / per_call < 5, (t.p50, per_call, t.batch)


def test_long_calls_are_not_batched():
    short = measure(time.sleep, 3e-3, repeat=5, warmup_s=0.0)
    long = measure(time.sleep, 30e-3, repeat=5, warmup_s=0.0)
    assert short.batch == 1 and long.batch == 1
    assert short.min > 2.9e-3 and long.min > 29e-3     # sleeping never returns early, whatever the load
    # one call per sample: 10x the sleep, about 10x the time. A busy machine adds the same wake-up
    # delay to both, which pulls the ratio down: the bounds hold up to ~15 ms of added delay.
    assert 2.5 < long.min / short.min < 15, (short.min, long.min)


def test_arguments_and_kwargs_reach_fn():
    seen = []
    measure(lambda a, b=0: seen.append((a, b)), 1, kwargs={"b": 2}, repeat=2, warmup_s=0, batch=1)
    assert set(seen) == {(1, 2)}


def test_hard_cap_stops_early_and_keeps_minimum():
    cap = 0.3
    begin = time.perf_counter()
    t = measure(time.sleep, 0.02, repeat=1000, warmup_s=0.0, max_duration_s=cap, min_samples=5)
    elapsed = time.perf_counter() - begin
    assert t.stopped_early and t.repeat == 1000 and t.n < t.repeat and t.total_s <= elapsed
    # fewer than min_samples only if the cap itself was reached first
    assert t.n >= 5 or t.total_s >= cap
    # it stops at the cap, in units of this run's own samples: not a sample before it (it skips
    # only a sample that would cross it), and at most about one sample past it
    longest = float(t.samples.max())
    assert cap - longest < t.total_s < cap + 2 * longest, (t.total_s, longest)
    assert "cut to" in str(t)
    slow = measure(time.sleep, 0.1, repeat=10, warmup_s=0.0, max_duration_s=0.25)
    assert slow.stopped_early and 1 <= slow.n <= 2


def test_gc_is_off_while_timing_and_restored():
    states = []
    t = measure(lambda: states.append(gc.isenabled()), repeat=3, warmup_s=0.0, batch=1)
    assert states[0] and not any(states[t.warmup_calls:])  # warm-up may collect; samples may not
    assert gc.isenabled()
    gc.disable()
    try:
        measure(lambda: None, repeat=2, warmup_s=0)
        assert not gc.isenabled()
    finally:
        gc.enable()

    def boom():
        if not gc.isenabled():
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        measure(boom, repeat=2, warmup_s=0.0)
    assert gc.isenabled()


def test_cold_mode_flushes_twice_the_cache():
    small = backend.Backend("numpy", np, False, "test CPU", "test", cache_bytes=2**20)
    assert timing.flush_bytes(small) == 2 * 2**20
    unknown = backend.Backend("numpy", np, False, "test CPU", "test", cache_bytes=None)
    assert timing.flush_bytes(unknown) == 2 * backend.FALLBACK_CACHE_BYTES
    t = measure(np.copy, np.ones(1000), repeat=4, warmup_s=0, l2="cold", backend=small)
    assert t.l2 == "cold" and t.batch == 1 and "cold L2" in str(t) and t.device == "test CPU"


def test_time_without_sync_is_a_plain_host_time():
    short = min(timing.time_without_sync(time.sleep, 3e-3) for _ in range(5))
    long = min(timing.time_without_sync(time.sleep, 30e-3) for _ in range(3))
    assert short > 2.9e-3 and long > 29e-3            # sleeping never returns early, whatever the load
    assert 2.5 < long / short < 15, (short, long)     # one call's time: 10x the sleep, about 10x the time
    with pytest.raises(TypeError, match="warmup"):
        timing.time_without_sync(time.sleep, 0, warmup=1)


def test_format_seconds_units():
    assert units.format_seconds(1.5e-3) == "1.5 ms"
    assert units.format_seconds(0) == "0 ns"
    with pytest.raises(TypeError, match="seconds"):
        units.format_seconds("1 ms")


@pytest.mark.gpu
def test_gpu_harness_agrees_with_cupyx_benchmark():
    import cupy
    from cupyx.profiler import benchmark

    b = backend.get(refresh=True)
    x = cupy.random.random(2**28, dtype=cupy.float32)

    def scale():
        return x * 2.0

    reference = float(np.median(benchmark(scale, n_repeat=50, n_warmup=10).gpu_times[0]))
    t = measure(scale, repeat=50, backend=b)
    assert t.backend == "cupy" and t.batch == 1
    from perfcourse.measure.gpucheck import HARNESS_TOLERANCE

    assert abs(t.p50 / reference - 1) < HARNESS_TOLERANCE
    assert timing.time_without_sync(scale) < 0.5 * t.p50  # the launch returns before the kernel ends
    cold = measure(scale, repeat=5, l2="cold", backend=b)
    assert cold.l2 == "cold" and cold.n == 5
    tiny = measure(lambda: x[:16] * 2.0, repeat=5, backend=b)
    assert tiny.batch > 1
