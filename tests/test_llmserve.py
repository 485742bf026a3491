"""The served language model: every request gets its tokens in order, within its limits, and Little's law holds."""

import numpy as np
import pytest

from perfcourse import queueing as q
from perfcourse.labs import llm, llmserve
from perfcourse.measure import backend


def _requests(n=24, rate=400.0, seed=3):
    return q.token_requests(n, rate, prompt=(3, 6), answer_mean=4, answer_max=10, seed=seed)


def test_a_moved_sequence_continues_as_if_it_had_stayed():
    stay, moved = llm.Model("tiny", slots=4, seed=1), llm.Model("tiny", slots=4, seed=1)
    stay.prefill([[5, 6, 7]], [0])
    moved.prefill([[5, 6, 7]], [3])
    moved.move(3, 0)
    assert moved.lengths.tolist() == [3, 0, 0, 0]
    after_move, stayed = (backend.to_numpy(m.decode_step([9], [0])) for m in (moved, stay))
    np.testing.assert_allclose(after_move, stayed, rtol=1e-6)
    with pytest.raises(ValueError, match="slots must be distinct"):
        moved.move(4, 0)


@pytest.mark.parametrize("max_batch, budget", [(1, None), (3, None), (4, 8)])
def test_every_request_gets_its_tokens_within_the_batch_and_the_budget(max_batch, budget):
    reqs = _requests()
    run = llmserve.serve(llm.Model("tiny", slots=4, seed=0), reqs, max_batch=max_batch, token_budget=budget)
    tr = run.trace
    assert (tr.start >= tr.arrival).all() and (tr.first_token > tr.start).all() and (tr.finish >= tr.first_token).all()
    assert (tr.batch_size <= max_batch).all()
    # tokens after the first come one per step: the step log's gaps add up to every answer's remaining tokens
    assert tr.steps.gaps.sum() == (reqs.output_tokens - 1).sum()
    assert (tr.steps.gaps <= max_batch).all() and (np.diff(tr.steps.start) > 0).all()
    if budget is not None:
        assert run.step_tokens.max() <= budget
    # first come, first served: requests start in arrival order
    assert (np.diff(tr.start) >= 0).all()
    # the time each spent decoding is at least one step per token after its first
    assert (tr.finish - tr.first_token >= (reqs.output_tokens - 1) * tr.steps.seconds.min() - 1e-9).all()


def test_littles_law_holds_on_a_served_run():
    reqs = _requests(n=60, rate=300.0, seed=5)
    tr = llmserve.serve(llm.Model("tiny", slots=4, seed=0), reqs, max_batch=4).trace
    t0, t1 = 0.0, float(tr.finish.max())
    grid = np.linspace(t0, t1, 200_001)
    in_system = tr.in_system(grid).mean()              # L, sampled on a fine grid
    rate, w = len(tr) / (t1 - t0), tr.latency.mean()    # lambda over the whole run, W
    assert in_system == pytest.approx(rate * w, rel=0.02)
    assert q.little_check(tr, t0, t1).ratio == pytest.approx(1.0, rel=1e-9)


def test_a_step_time_line_is_fitted_through_the_steps():
    svc = llmserve.fit_step_time([1, 2, 4, 8], [0.003, 0.004, 0.006, 0.010])
    assert svc([16]).round(6).tolist() == [0.018]
    for bad, match in [(([1, 1], [0.1, 0.2]), "two different token counts"), (([1, 2], [0.1]), "one length")]:
        with pytest.raises(ValueError, match=match):
            llmserve.fit_step_time(*bad)


def test_serve_and_the_timers_name_what_is_wrong():
    model, reqs = llm.Model("tiny", slots=2, seed=0), _requests(n=4)
    with pytest.raises(ValueError, match="max_batch must be <= the model's 2"):
        llmserve.serve(model, reqs, max_batch=3)
    with pytest.raises(ValueError, match="token_budget must be >= max_batch"):
        llmserve.serve(model, reqs, max_batch=2, token_budget=1)
    with pytest.raises(TypeError, match="requests must be perfcourse.queueing.Requests"):
        llmserve.serve(model, [0.0, 1.0], max_batch=1)
    long = q.token_requests(2, 10.0, prompt=(32, 32), answer_mean=8, answer_max=8, seed=0)
    with pytest.raises(ValueError, match="must fit the model's max_context 32"):
        llmserve.serve(model, long, max_batch=1)
    with pytest.raises(ValueError, match="batch must be <= the model's 2 slots"):
        llmserve.decode_timing(model, 3, 8)
    with pytest.raises(TypeError, match="model must be a perfcourse.labs.llm.Model"):
        llmserve.prefill_timing("tiny", 8)


def test_a_duration_serves_the_requests_that_arrive_within_it(monkeypatch):
    reqs = q.token_requests(40, 200.0, prompt=(3, 6), answer_mean=3, answer_max=6, seed=2)
    model = llm.Model("tiny", slots=4, seed=0)
    half = float(reqs.arrival[19])
    run = llmserve.serve(model, reqs, max_batch=4, duration=half)
    assert len(run.trace) == 20 and np.array_equal(run.requests.arrival, reqs.arrival[:20])
    monkeypatch.setenv("PERFCOURSE_TIME_SCALE", "0.5")
    assert len(llmserve.serve(model, reqs, max_batch=4, duration=2 * half).trace) == 20


def test_a_served_run_reports_how_steady_its_fullest_decode_steps_were():
    reqs = _requests(n=30, rate=300.0, seed=4)
    run = llmserve.serve(llm.Model("tiny", slots=4, seed=0), reqs, max_batch=4)
    pure = run.step_tokens == run.trace.steps.gaps
    sizes, counts = np.unique(run.step_tokens[pure], return_counts=True)
    for repeats in (1, 2, 3):
        if (counts >= repeats).any():
            k = sizes[counts >= repeats].max()
            t = run.step_timing(repeats)
            assert t.name == f"served steps of {k} tokens" and t.n == counts[sizes == k][0]
            assert set(t.samples) <= set(run.step_seconds[pure])
    everything, n = np.unique(run.step_tokens, return_counts=True)
    assert run.step_timing(10_000).n == n.max()
