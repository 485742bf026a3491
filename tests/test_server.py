import threading
import time

import numpy as np
import pytest

from perfcourse import queueing as q
from perfcourse import server


def _ours_alive():
    names = ("perfcourse-load-generator", "perfcourse-worker")
    return [t.name for t in threading.enumerate() if t.name in names]


@pytest.fixture(scope="module")
def dense_run():
    run = server.dense_service(256, max_batch=8)
    return server.serve(run, arrival_rate=400.0, n=500, duration=3.0, max_batch=8, max_wait=0.002, seed=1)


def test_littles_law_holds_on_the_measured_trace(dense_run):
    tr = dense_run
    assert len(tr) == 500 and tr.policy == "server"
    # a window inside the run: what is cut off at its start and at its end cancels out on average
    check = q.little_check(tr, *np.quantile(tr.arrival, [0.1, 0.9]))
    assert check.ratio == pytest.approx(1.0, abs=0.05)
    assert check.arrival_rate == pytest.approx(400.0, rel=0.25)  # the generator kept to its schedule
    # the in-flight count sampled over time averages to lambda x W as well
    t = np.linspace(check.t0, check.t1, 20_001)
    assert tr.in_system(t).mean() == pytest.approx(check.lambda_w, rel=0.1)


def test_server_records_obey_the_batching_policy(dense_run):
    tr = dense_run
    assert np.all(tr.start >= tr.arrival) and np.all(tr.finish > tr.start)
    assert np.all(np.diff(tr.start) >= 0)  # first in, first served
    assert tr.batch_size.min() >= 1 and tr.batch_size.max() <= 8
    ids, first = np.unique(tr.batch, return_index=True)
    assert np.all(np.bincount(tr.batch)[ids] == tr.batch_size[first])  # each batch holds the size it says
    assert not _ours_alive()


def test_server_stops_by_itself_at_duration():
    t0 = time.perf_counter()
    tr = server.serve(lambda b: time.sleep(1e-4), arrival_rate=1000.0, n=10**6, duration=0.3, seed=2)
    assert time.perf_counter() - t0 < 3.0
    assert 150 < len(tr) < 600 and tr.arrival.max() <= 0.4
    assert not _ours_alive()


def test_service_error_reaches_the_caller_and_stops_the_threads():
    def broken(b):
        raise ZeroDivisionError("service failed")

    with pytest.raises(ZeroDivisionError, match="service failed"):
        server.serve(broken, arrival_rate=200.0, n=50, seed=3)
    assert not _ours_alive()


def test_overload_is_reported():
    with pytest.raises(RuntimeError, match="capacity"):
        server.serve(lambda b: time.sleep(0.02), arrival_rate=500.0, n=200, duration=0.2, timeout=0.3, seed=4)
    time.sleep(0.05)
    assert not _ours_alive()


def test_dense_service_checks_batch():
    run = server.dense_service(32, max_batch=4)
    run(4)
    with pytest.raises(ValueError, match="batch must be in"):
        run(5)


@pytest.mark.parametrize("kwargs, err, match", [
    (dict(arrival_rate=0.0), ValueError, "arrival_rate"),
    (dict(arrival_rate=10.0, n=0), ValueError, "n must be"),
    (dict(arrival_rate=10.0, max_batch=0), ValueError, "max_batch"),
    (dict(arrival_rate=10.0, max_wait=-1.0), ValueError, "max_wait"),
    (dict(arrival_rate=1e-6, duration=0.1), ValueError, "no request"),
])
def test_bad_input(kwargs, err, match):
    with pytest.raises(err, match=match):
        server.serve(lambda b: None, **kwargs)
    with pytest.raises(TypeError, match="service"):
        server.serve("dense", arrival_rate=1.0)


def test_batch_timing_reads_the_largest_batch_size_that_ran_often_enough():
    from perfcourse.labs.server import batch_timing
    from perfcourse.queueing.simtrace import Trace

    # batches 0-5 hold 2 requests (1 ms each), batches 6-7 hold 4 (9 ms): two runs of size 4 are too few
    sizes = [2] * 6 + [4] * 2
    batch = np.repeat(np.arange(8), sizes)
    start = np.repeat(np.arange(8) * 0.1, sizes)
    run = np.repeat([0.001] * 6 + [0.009] * 2, sizes)
    trace = Trace(start, start, start + run, batch, np.repeat(sizes, sizes), "server")
    t = batch_timing(trace)
    assert t.n == 6 and abs(t.p50 - 0.001) < 1e-12 and "2" in t.name
    t = batch_timing(trace, repeats=2)
    assert t.n == 2 and abs(t.p50 - 0.009) < 1e-12 and "4" in t.name
    with pytest.raises(TypeError, match="serve"):
        batch_timing(Trace(start, start, start + run, batch, np.repeat(sizes, sizes), "fcfs"))
