import numpy as np
import pytest

import perfcourse as pc
from perfcourse import serialwork, workers


def test_records_parse_to_their_mean():
    records = serialwork.make_records(500, seed=3)
    values = [float(r.split("scale=")[1]) for r in records]
    assert serialwork.parse_records(records) == pytest.approx(np.mean(values))
    assert records != serialwork.make_records(500, seed=4)
    with pytest.raises(ValueError, match="records must be a non-empty list"):
        serialwork.parse_records([])
    with pytest.raises(ValueError, match="count must be"):
        serialwork.make_records(0)


@pytest.mark.parametrize("n_workers", [1, 2, 3])
def test_pipeline_matches_reference_on_any_worker_count(n_workers):
    pipe = serialwork.Pipeline(200, 10_000, 8, xp=np, seed=5)
    assert pipe.error(n_workers) < 1e-5


def test_pipeline_device_step_uses_the_host_result():
    pipe = serialwork.Pipeline(100, 1000, 4, xp=np, seed=1)
    first = pipe(1).copy()
    pipe.records = serialwork.make_records(100, seed=2)
    assert not np.allclose(first, pipe(1))
    with pytest.raises(ValueError, match="workers must be"):
        pipe.device_step(pipe.host_step(), 0)


def test_call_count_versions_agree_and_count_calls():
    c = serialwork.CallCount(16, 8, 3, xp=np, seed=2)
    assert c.calls("per_row") == 16 * 7 and c.calls("whole") == c.calls("one_row") == 7
    c.y.fill(0)
    c.one_row()
    assert np.any(c.y[0] != 0) and np.all(c.y[1:] == 0)
    for version in ("per_row", "whole", "fused"):
        assert c.error(version) < 1e-5
    np.testing.assert_allclose(c.per_row().copy(), c.whole())
    with pytest.raises(ValueError, match="version must be"):
        c.calls("graph")
    with pytest.raises(ValueError, match="rows must be"):
        serialwork.CallCount(0, 8, 3, xp=np)


def test_many_tiny_calls_cost_more_than_few_big_ones():
    c = serialwork.CallCount(256, 64, 4, xp=np)
    per_row = pc.timing.measure(c.per_row, repeat=5, warmup_s=0.02, max_duration_s=2).p50
    whole = pc.timing.measure(c.whole, repeat=5, warmup_s=0.02, max_duration_s=2).p50
    assert per_row > 5 * whole  # 256x more calls; the fixed cost per call dominates


def test_cuda_graph_refuses_without_gpu():
    if pc.backend.get().on_gpu:
        pytest.skip("this machine has a GPU")
    with pytest.raises(RuntimeError, match="CUDA graphs need the GPU backend"):
        serialwork.cuda_graph(lambda: None)
    with pytest.raises(TypeError, match="fn must be callable"):
        serialwork.cuda_graph(3)


@pytest.mark.gpu
def test_cuda_graph_replays_the_per_row_launches():
    import cupy

    c = serialwork.CallCount(64, 32, 3, xp=cupy, seed=4)
    replay = serialwork.cuda_graph(c.per_row)
    c.y.fill(0)
    replay()
    cupy.cuda.Device().synchronize()
    want = pc.kernels.grid_stride.expected(c.x, c.y, c.a, c.b, c.steps)
    assert pc.kernels.relative_error(c.y, want) < 1e-5
    assert c.error("fused") < 1e-5 and c.calls("fused") == 1


def test_worker_counts_and_sizes():
    assert workers.worker_counts(most=1) == [1]
    assert workers.worker_counts(most=12) == [1, 2, 4, 8]
    assert workers.worker_counts()[0] == 1
    assert workers.concurrency() >= 1
    assert workers.sizes("weak", 10, [1, 3]) == [10, 30]
    with pytest.raises(ValueError, match="kind must be"):
        workers.sizes("medium", 10, [1])


def test_sweep_builds_tables_and_checks_shared_inputs():
    strong = workers.sweep("strong", 4096, 2, [1, 2], repeat=2, max_duration_s=0.5, progress=False)
    weak = workers.sweep("weak", 4096, 2, [1, 2], repeat=2, max_duration_s=0.5, progress=False)
    assert strong.table.kind == "strong" and weak.table.kind == "weak"
    assert strong.table.speedup[0] == 1.0 and len(strong.timings) == 2
    assert "per worker" in weak.label and "4,096 elements" in str(strong)
    x, y = pc.kernels.grid_stride.make_inputs(5000, 1, xp=np, seed=0)[:2]
    shared = workers.sweep("strong", 4096, 1, [1, 2], repeat=2, progress=False, inputs=(x, y))
    assert shared.dtype == "float32"
    with pytest.raises(ValueError, match="at least 8,192 elements"):
        workers.sweep("weak", 4096, 1, [1, 2], repeat=2, progress=False, inputs=(x, y))


def test_a_sweep_reuses_a_one_worker_timing_taken_before_it():
    first = pc.timing.Timing.from_samples([2e-3, 2.1e-3, 2.2e-3], name="one worker, timed before")
    reused = workers.sweep("strong", 4096, 2, [1, 2], repeat=2, max_duration_s=0.5, progress=False, first=first)
    assert reused.timings[0] is first and reused.table.seconds[0] == first.p50
    assert reused.timings[1] is not first and len(reused.timings) == 2
    with pytest.raises(TypeError, match="first must be a Timing"):
        workers.sweep("strong", 4096, 2, [1, 2], progress=False, first=2e-3)


def test_sweeps_sharing_a_dict_time_each_configuration_once():
    shared = {}
    strong = workers.sweep("strong", 4096, 2, [1, 2, 4], repeat=2, max_duration_s=0.3, progress=False, measured=shared)
    weak = workers.sweep("weak", 2048, 2, [1, 2], repeat=2, max_duration_s=0.3, progress=False, measured=shared)
    assert weak.timings[1] is strong.timings[1]          # 2 workers on 4,096 elements: one run, one number
    assert weak.timings[0] is not strong.timings[0]      # 1 worker on 2,048 is another run
    assert len(shared) == 4
    with pytest.raises(TypeError, match="measured must be a dict"):
        workers.sweep("weak", 2048, 2, [1, 2], progress=False, measured=[])


def test_overheads_are_small_next_to_real_work():
    counts = [1, 2]
    o = workers.overheads(counts, repeat=3, max_duration_s=0.3)
    assert len(o) == 2 and all(t > 0 for t in o)
    # the same kernel on the same number of workers, with 2**22 elements of 16 steps to share:
    # the near-empty run's cost is a small part of it (typically under 3%), measured in the same run
    k = pc.kernels.grid_stride
    args = k.make_inputs(2**22, 16, xp=np, seed=0)
    for w, overhead in zip(counts, o, strict=True):
        work = pc.timing.measure(k.run, *args, kwargs={"blocks": w}, repeat=3, warmup_s=0.02, max_duration_s=2).p50
        assert overhead < 0.5 * work, f"{w} workers: overhead {overhead * 1e6:.0f} us, real work {work * 1e6:.0f} us"
