import time

import numpy as np
import pytest

from perfcourse import queueing as q

N = 10**6


@pytest.fixture(scope="module")
def mm1_trace():
    return q.simulate("fcfs", q.Poisson(8.0, N), q.exponential(0.1), seed=0)


def test_mm1_matches_theory_and_littles_law(mm1_trace):
    theory = q.mm1(8.0, 10.0)
    assert mm1_trace.wait.mean() == pytest.approx(theory.mean_wait, rel=0.03)
    assert mm1_trace.latency.mean() == pytest.approx(theory.mean_time_in_system, rel=0.03)
    assert np.percentile(mm1_trace.latency, 99) == pytest.approx(theory.time_in_system_percentile(99), rel=0.05)
    check = q.little_check(mm1_trace)
    assert check.ratio == pytest.approx(1.0, abs=0.01)
    assert check.in_flight == pytest.approx(theory.mean_in_system, rel=0.03)


def test_md1_matches_theory_and_is_half_of_mm1():
    tr = q.simulate("fcfs", q.Poisson(8.0, N), 0.1, seed=0)
    assert tr.wait.mean() == pytest.approx(q.md1(8.0, 10.0).mean_wait, rel=0.03)
    assert q.little_check(tr).ratio == pytest.approx(1.0, abs=0.01)
    assert np.all(np.diff(tr.start) >= 0.1 - 1e-9)  # one at a time, each takes exactly 0.1 s


def _lindley_loop(a, s):
    w, waits = 0.0, [0.0]
    for n in range(1, len(a)):
        w = max(0.0, w + s[n - 1] - (a[n] - a[n - 1]))
        waits.append(w)
    return np.array(waits)


def _best_of(runs, fn, *args):
    best = np.inf
    for _ in range(runs):
        t0 = time.perf_counter()
        fn(*args)
        best = min(best, time.perf_counter() - t0)
    return best


def test_fcfs_is_a_scan_not_a_python_loop():
    rng = np.random.default_rng(1)
    n = 100_000
    a = np.cumsum(rng.exponential(0.125, n))
    s = rng.exponential(0.1, n)
    scan = _best_of(3, q.fcfs, a, s)
    loop = _best_of(2, _lindley_loop, a, s)
    # the same requests, timed in the same run: one Python step per request is tens of times slower
    # (typically over 10x); a loaded machine slows both alike
    assert loop > 5 * scan, f"fcfs {scan * 1e3:.1f} ms, Python loop {loop * 1e3:.1f} ms"


def test_fcfs_scan_equals_lindley_recursion():
    rng = np.random.default_rng(3)
    a = np.cumsum(rng.exponential(1.0, 2000))
    s = rng.exponential(0.9, 2000)
    tr = q.fcfs(a, s)
    np.testing.assert_allclose(tr.wait, _lindley_loop(a, s), atol=1e-9)
    assert np.all(tr.start >= tr.arrival) and np.all(np.diff(tr.start) >= 0)  # FCFS order
    assert np.all(tr.start[1:] >= tr.finish[:-1] - 1e-9)  # never two at once


def test_seed_reproducible():
    a = q.simulate("dynamic", q.Poisson(100.0, 5000), q.exponential(0.005), max_batch=4, max_wait=0.01, seed=7)
    b = q.simulate("dynamic", q.Poisson(100.0, 5000), q.exponential(0.005), max_batch=4, max_wait=0.01, seed=7)
    c = q.simulate("dynamic", q.Poisson(100.0, 5000), q.exponential(0.005), max_batch=4, max_wait=0.01, seed=8)
    np.testing.assert_array_equal(a.finish, b.finish)
    assert not np.array_equal(a.finish, c.finish)


def _batches(tr):
    first = np.flatnonzero(np.diff(tr.batch, prepend=-1))
    return first, tr.batch_size[first], tr.start[first], tr.finish[first]


def test_static_batch_invariants():
    tr = q.simulate("static", q.Poisson(500.0, 10_001), q.affine(0.002, 0.001), batch_size=8, seed=2)
    first, size, start, finish = _batches(tr)
    assert np.all(size[:-1] == 8) and size[-1] == 10_001 % 8
    last_member = tr.arrival[first + size - 1]
    np.testing.assert_array_equal(start, np.maximum(start, last_member))
    assert np.all(start[1:] >= finish[:-1] - 1e-12)
    assert q.little_check(tr).ratio == pytest.approx(1.0, abs=0.01)


def test_dynamic_batch_invariants():
    m, max_wait = 8, 0.004
    tr = q.simulate("dynamic", q.Poisson(900.0, 50_000), q.affine(0.002, 0.0008), max_batch=m, max_wait=max_wait,
                    seed=4)
    first, size, start, finish = _batches(tr)
    assert np.all(tr.start >= tr.arrival) and np.all(np.diff(tr.start) >= 0)
    assert size.min() >= 1 and size.max() <= m and np.unique(size).size > 2
    prev_finish = np.concatenate(([-np.inf], finish[:-1]))
    busy = np.isclose(start, prev_finish, rtol=0, atol=1e-12)
    oldest_wait = start - tr.arrival[first]
    assert np.all((oldest_wait <= max_wait + 1e-12) | busy)
    # a batch left partly empty only when nobody else was waiting at its start
    nxt = first + size
    partial = (size < m) & (nxt < len(tr))
    assert np.all(tr.arrival[nxt[partial]] > start[partial])
    # a full batch on an idle server goes the moment its last member arrives
    full_idle = (size == m) & ~busy
    assert full_idle.sum() > 10
    np.testing.assert_array_equal(start[full_idle], tr.arrival[(first + m - 1)[full_idle]])
    assert q.little_check(tr).ratio == pytest.approx(1.0, abs=0.01)


def test_dynamic_batch_limits_agree_with_other_policies():
    a = np.cumsum(np.random.default_rng(5).exponential(0.01, 4000))
    svc = q.affine(0.004, 0.002)
    one = q.dynamic_batch(a, svc, max_batch=1, max_wait=0.05)
    np.testing.assert_allclose(one.finish, q.fcfs(a, svc).finish, rtol=1e-12)
    patient = q.dynamic_batch(a, svc, max_batch=4, max_wait=1e6)
    np.testing.assert_allclose(patient.finish, q.static_batch(a, svc, batch_size=4).finish, rtol=1e-12)


def test_batching_raises_throughput_under_overload_of_fcfs():
    svc = q.affine(0.004, 0.001)  # 1 request: 5 ms (200/s max); 16 requests: 20 ms (800/s max)
    fc = q.simulate("fcfs", q.Poisson(400.0, 20_000), svc, seed=0)
    dyn = q.simulate("dynamic", q.Poisson(400.0, 20_000), svc, max_batch=16, max_wait=0.002, seed=0)
    assert fc.throughput() < 210 and dyn.throughput() == pytest.approx(400, rel=0.05)
    assert dyn.percentiles()["p99"] < 0.1 * fc.percentiles()["p99"]


def _continuous_reference(a, prompt, out, step, m, budget):
    """Step by step, one loop turn per step (slow but obviously right): when each request joined the
    batch, and the time of each of its tokens (the first one ends its prefill step)."""
    n, clock, i = len(a), 0.0, 0
    start, times, left = np.zeros(n), [[] for _ in range(n)], {}
    while i < n or left:
        if not left and a[i] > clock:
            clock = a[i]
        tokens, joined = len(left), []
        while i < n and a[i] <= clock and len(left) + len(joined) < m and tokens + prompt[i] <= budget:
            tokens += prompt[i]
            joined.append(i)
            i += 1
        for r in joined:
            start[r], left[r] = clock, out[r]
        clock += step(tokens)
        for r in list(left):
            times[r].append(clock)
            left[r] -= 1
            if left[r] == 0:
                del left[r]
    return start, times


def test_continuous_batching_matches_step_by_step_reference():
    rng = np.random.default_rng(6)
    n = 400
    a = np.cumsum(rng.exponential(0.05, n))
    prompt, out = rng.integers(1, 300, n), rng.integers(1, 60, n)
    svc = q.affine(0.01, 2e-5)
    tr = q.simulate("continuous", a, svc, prompt_tokens=prompt, output_tokens=out, max_batch=6, token_budget=512)
    start, times = _continuous_reference(a, prompt, out, lambda k: 0.01 + 2e-5 * k, 6, 512)
    first, finish = np.array([t[0] for t in times]), np.array([t[-1] for t in times])
    np.testing.assert_allclose(tr.start, start, rtol=1e-9)
    np.testing.assert_allclose(tr.first_token, first, rtol=1e-9)
    np.testing.assert_allclose(tr.finish, finish, rtol=1e-9)


def test_inter_token_latency_is_every_gap_between_tokens():
    rng = np.random.default_rng(11)
    n = 300
    a = np.cumsum(rng.exponential(0.05, n))
    prompt, out = rng.integers(1, 400, n), rng.integers(1, 50, n)
    tr = q.simulate("continuous", a, q.affine(0.01, 2e-5), prompt_tokens=prompt, output_tokens=out, max_batch=8,
                    token_budget=600)
    _, times = _continuous_reference(a, prompt, out, lambda k: 0.01 + 2e-5 * k, 8, 600)
    gaps = np.concatenate([np.diff(t) for t in times])
    assert tr.itl.size == gaps.size == int((out - 1).sum())
    np.testing.assert_allclose(np.sort(tr.itl), np.sort(gaps), rtol=1e-9)
    worst = np.array([np.diff(t).max() if len(t) > 1 else np.nan for t in times])
    np.testing.assert_allclose(tr.max_itl, worst, rtol=1e-9)
    assert np.isnan(tr.max_itl[out == 1]).all()
    # TPOT is the mean of a request's gaps, so it never exceeds its longest one
    many = out > 1
    assert np.all(tr.tpot[many] <= tr.max_itl[many] * (1 + 1e-12))
    assert set(tr.percentiles("itl", qs=(50, 99.9))) == {"p50", "p99.9"}
    assert "max_itl" in tr.to_records().dtype.names
    with pytest.raises(ValueError, match="continuous batching"):
        q.fcfs([0.0], 1.0).itl  # noqa: B018


def test_a_large_token_budget_stalls_running_answers_on_prefill_bursts():
    """Lesson 06's burst workload: past what the bursts need, a larger budget only adds stalls."""
    reqs = q.token_requests(3000, 8.0, burst=8, seed=1)
    step = q.affine(0.008, 4e-5)
    run = {b: q.simulate("continuous", reqs.arrival, step, max_batch=64, token_budget=b, **reqs.options())
           for b in (1024, 2048, 16384)}
    small, enough, large = run[1024], run[2048], run[16384]

    def p(tr, of, k="p99"):
        return tr.percentiles(of)[k]

    assert p(small, "ttft") > 10 * p(enough, "ttft")              # too small: prompts queue
    assert large.token_throughput() == pytest.approx(enough.token_throughput(), rel=0.01)   # nothing bought
    assert p(large, "max_itl") > 3 * p(enough, "max_itl")         # every running answer pauses far longer
    assert p(large, "itl") > 1.5 * p(enough, "itl")
    assert p(large, "ttft", "p50") > p(enough, "ttft", "p50") and p(large, "ttft") > p(enough, "ttft")
    assert p(large, "tpot") < p(enough, "tpot")                   # while the per-request mean even improves


def test_token_requests_are_seeded_bursts():
    r = q.token_requests(20, 4.0, burst=8, prompt=(10, 12), answer_mean=5, seed=3)
    assert len(r) == 20 and len(np.unique(r.arrival)) == 3 and np.all(np.diff(r.arrival) >= 0)
    assert r.prompt_tokens.min() >= 10 and r.prompt_tokens.max() <= 12 and r.output_tokens.min() >= 1
    again = q.token_requests(20, 4.0, burst=8, prompt=(10, 12), answer_mean=5, seed=3)
    np.testing.assert_array_equal(r.arrival, again.arrival)
    assert len(np.unique(q.token_requests(50, 4.0, seed=0).arrival)) == 50
    with pytest.raises(ValueError, match="prompt"):
        q.token_requests(10, 1.0, prompt=(100, 10))
    with pytest.raises(ValueError, match="rate"):
        q.token_requests(10, 0.0)


def test_continuous_batching_sanity():
    rng = np.random.default_rng(8)
    n = 3000
    out = rng.integers(1, 100, n)
    kw = dict(prompt_tokens=rng.integers(16, 256, n), output_tokens=out, max_batch=16, seed=3)
    tr = q.simulate("continuous", q.Poisson(8.0, n), q.affine(0.01, 5e-5), token_budget=1024, **kw)
    assert np.all(tr.start >= tr.arrival) and np.all(np.diff(tr.start) >= 0)  # admitted in arrival order
    assert np.all(tr.first_token > tr.start) and np.all(tr.finish >= tr.first_token)
    assert np.all(np.isnan(tr.tpot[out == 1])) and np.all(tr.tpot[out > 1] >= 0.01)
    probe = np.sort(np.concatenate((tr.start, tr.finish - 1e-9)))
    running = np.searchsorted(np.sort(tr.start), probe, "right") - np.searchsorted(np.sort(tr.finish), probe, "right")
    assert running.max() <= 16 and tr.batch_size.max() <= 16
    assert tr.token_throughput() == pytest.approx(out.sum() / tr.duration)
    assert q.little_check(tr).ratio == pytest.approx(1.0, abs=0.02)
    tight = q.simulate("continuous", q.Poisson(8.0, n), q.affine(0.01, 5e-5), token_budget=256, **kw)
    assert np.median(tight.ttft) > np.median(tr.ttft)  # a smaller token budget delays admission


def test_trace_methods():
    tr = q.fcfs([0.0, 1.0, 1.5], 1.0)
    assert tr.in_system([0.5, 1.7, 2.5, 4.0]).tolist() == [1, 2, 1, 0]
    assert tr.throughput() == pytest.approx(3 / 3.0)
    assert q.percentiles([1, 2, 3, 4], qs=(50,)) == {"p50": 2.5}
    assert "3 requests" in tr.summary()
    with pytest.raises(ValueError, match="continuous batching"):
        tr.ttft  # noqa: B018
    with pytest.raises(ValueError, match="t1 > t0"):
        q.little_check(tr, 2.0, 1.0)
    with pytest.raises(ValueError, match="of must be"):
        tr.percentiles(of="speed")


@pytest.mark.parametrize("call, err, match", [
    (lambda: q.Poisson(-1.0, 10), ValueError, "rate"),
    (lambda: q.Poisson(1.0, 0), ValueError, "n must be"),
    (lambda: q.fcfs([2.0, 1.0], 1.0), ValueError, "sorted"),
    (lambda: q.fcfs([0.0, -1.0], 1.0), ValueError, "arrivals"),
    (lambda: q.fcfs(5, 1.0), TypeError, "arrivals"),
    (lambda: q.fcfs([0.0, 1.0], [1.0]), ValueError, "one entry per request"),
    (lambda: q.fcfs([0.0, 1.0], "fast"), TypeError, "service"),
    (lambda: q.fcfs([0.0, 1.0], 1.0, seed=1.5), TypeError, "seed"),
    (lambda: q.simulate("lifo", [0.0], 1.0), ValueError, "policy"),
    (lambda: q.static_batch([0.0], 1.0, batch_size=0), ValueError, "batch_size"),
    (lambda: q.dynamic_batch([0.0], 1.0, max_batch=4, max_wait=-1), ValueError, "max_wait"),
    (lambda: q.affine(0.0, 0.0), ValueError, "t0 > 0"),
    (lambda: q.table([4, 1], [0.1, 0.2]), ValueError, "increasing"),
    (lambda: q.fcfs([0.0], lambda b: -1.0 * b), ValueError, ">= 0"),
    (lambda: q.continuous_batch([0.0], 0.01, prompt_tokens=600, output_tokens=5, max_batch=4, token_budget=512),
     ValueError, "token_budget"),
    (lambda: q.continuous_batch([0.0], q.exponential(0.01), prompt_tokens=6, output_tokens=5, max_batch=4),
     ValueError, "deterministic"),
    (lambda: q.continuous_batch([0.0], 0.01, prompt_tokens=6, output_tokens=[5, 1], max_batch=4),
     ValueError, "output_tokens"),
    (lambda: q.continuous_batch([0.0], 0.01, prompt_tokens=2.5, output_tokens=5, max_batch=4),
     ValueError, "prompt_tokens"),
])
def test_bad_input_is_named(call, err, match):
    with pytest.raises(err, match=match):
        call()


def test_sweep_runs_each_value_on_the_same_arrivals():
    svc = q.affine(0.008, 0.0005)
    res = q.sweep("static", q.Poisson(600.0, 20_000), svc, vary="batch_size", values=[8, 16], seed=3)
    one = q.simulate("static", q.Poisson(600.0, 20_000), svc, batch_size=16, seed=3)
    assert res[16]["p99"] == pytest.approx(np.percentile(one.latency, 99))
    assert res[16]["throughput"] == pytest.approx(one.throughput())
    assert res[8]["p50"] < res[16]["p50"]  # bigger batches wait longer to fill at this load
    ttft = q.sweep("continuous", q.Poisson(5.0, 500), svc, vary="max_batch", values=[4], of="ttft", qs=(90,),
                   prompt_tokens=32, output_tokens=20)
    assert set(ttft[4]) == {"p90", "mean", "throughput"}
    with pytest.raises(ValueError, match="vary"):
        q.sweep("static", q.Poisson(600.0, 100), svc, vary="seed", values=[1])
    with pytest.raises(ValueError, match="values"):
        q.sweep("static", q.Poisson(600.0, 100), svc, vary="batch_size", values=[])


def test_lindley_starts_checks_shapes():
    with pytest.raises(ValueError, match="one shape"):
        q.lindley_starts(np.zeros(3), np.ones(2))
    with pytest.raises(ValueError, match="service_times"):
        q.lindley_starts(np.zeros(2), np.array([1.0, -1.0]))


def test_records_hold_every_field():
    tr = q.continuous_batch([0.0, 0.5], 0.01, prompt_tokens=4, output_tokens=[3, 1], max_batch=2)
    rec = tr.to_records()
    assert set(rec.dtype.names) >= {"arrival", "start", "finish", "wait", "batch_size", "ttft", "tpot"}
    np.testing.assert_array_equal(rec["ttft"], tr.ttft)
    assert "ttft" not in q.fcfs([0.0], 1.0).to_records().dtype.names
