"""A real server inside one Python process: a load generator, a queue and a batching worker.

Two threads and a queue, nothing on the network:

- the **load generator** is open loop: it sends requests at Poisson times fixed in advance,
  whether or not earlier ones have been answered (real users do not wait for each other);
- the **worker** takes a batch from the queue (dynamic batching: up to ``max_batch``
  requests, holding the batch open at most ``max_wait`` seconds), runs the service function
  on it, and stamps every request with its start and finish time.

The result is a :class:`~perfcourse.queueing.simtrace.Trace` on the ``time.perf_counter`` clock
(zero when the run starts), the same record a simulation returns, so measured and simulated
queues are read with the same tools: percentiles, throughput, and Little's law
(:func:`~perfcourse.queueing.simtrace.little_check`).
"""

from __future__ import annotations

import queue
import threading
import time

import numpy as np

from .._check import positive_int, real
from .._lang import _
from ..measure import backend as _backend
from ..measure import timing
from ..queueing.simtrace import Trace

__all__ = ["dense_service", "serve", "batch_timing", "largest_repeated", "most_common"]


def dense_service(d=1024, *, max_batch=64, dtype="float32", seed=0):
    """A service function running the dense layer ``X[:b] @ W[d, d]`` on the current backend.

    Inputs are made once (on the GPU with CuPy, else in NumPy); each call runs one batch and
    synchronises, so it returns only when the work is done.

    Examples
    --------
    >>> run = dense_service(64, max_batch=8)
    >>> run(8) is None, run.d, run.max_batch
    (True, 64, 8)
    """
    from ..measure import backend, kernels

    d = positive_int("d", d)
    max_batch = positive_int("max_batch", max_batch)
    b = backend.get()
    x, w = kernels.dense.make_inputs(max_batch, d, dtype=dtype, seed=seed)

    def run(batch):
        if not 1 <= batch <= max_batch:
            raise ValueError(f"batch must be in [1, {max_batch}] (the inputs made for this service); got {batch}")
        kernels.dense.run(x[:batch], w)
        b.synchronize()

    run.d, run.max_batch, run.dtype = d, max_batch, dtype
    return run


def _generate(requests, schedule, t0, stop):
    """Put ``(id, arrival)`` on the queue at the scheduled times, then ``None`` to end the stream."""
    try:
        for i, t in enumerate(schedule):
            delay = t0 + t - time.perf_counter()
            if delay > 0 and stop.wait(delay):
                break
            if stop.is_set():
                break
            requests.put((i, time.perf_counter() - t0))
    finally:
        requests.put(None)


def _next_batch(requests, max_batch, max_wait, t0):
    """Block for one request, then gather more until full or the oldest has waited ``max_wait``."""
    first = requests.get()
    if first is None:
        return [], True
    batch, deadline = [first], first[1] + max_wait
    while len(batch) < max_batch:
        left = deadline - (time.perf_counter() - t0)
        try:
            item = requests.get(timeout=left) if left > 0 else requests.get_nowait()
        except queue.Empty:
            break
        if item is None:
            return batch, True
        batch.append(item)
    return batch, False


def _work(service, requests, max_batch, max_wait, t0, stop, records, errors):
    try:
        ended, k = False, 0
        while not ended and not stop.is_set():
            batch, ended = _next_batch(requests, max_batch, max_wait, t0)
            if not batch:
                break
            start = time.perf_counter() - t0
            service(len(batch))
            finish = time.perf_counter() - t0
            records.extend((i, arrived, start, finish, k, len(batch)) for i, arrived in batch)
            k += 1
    except BaseException as err:  # noqa: BLE001 - handed to the caller's thread, which re-raises it
        errors.append(err)
        stop.set()


def serve(service, *, arrival_rate, n=1000, duration=5.0, max_batch=1, max_wait=0.0, seed=None, timeout=30.0):
    """Drive ``service(batch_size)`` with open-loop Poisson load; return the measured trace.

    Parameters
    ----------
    service : callable
        ``service(b)`` does the work for a batch of ``b`` requests and returns when it is done.
    arrival_rate : float, > 0
        Requests per second sent by the load generator.
    n : int
        Most requests sent; the generator also stops once ``duration`` seconds have passed.
    duration : float, > 0
        Seconds during which requests are sent.
    max_batch, max_wait : int, float
        The worker's dynamic batching (``max_batch=1``: one request at a time, FCFS).
    seed : int or None
        Seed of the arrival schedule.
    timeout : float, > 0
        Seconds allowed after ``duration`` for the queue to drain; past it the run is stopped
        and ``RuntimeError`` raised (the load was beyond what the service can carry).

    Examples
    --------
    >>> tr = serve(lambda b: None, arrival_rate=2000.0, n=50, seed=0)
    >>> len(tr), bool((tr.finish >= tr.start).all() and (tr.start >= tr.arrival).all())
    (50, True)
    """
    if not callable(service):
        raise TypeError(f"service must be a function of the batch size; got {service!r}")
    rate = real("arrival_rate", arrival_rate, low=0, low_open=True)
    n = positive_int("n", n)
    duration = real("duration", duration, low=0, low_open=True)
    max_batch = positive_int("max_batch", max_batch)
    max_wait = real("max_wait", max_wait, low=0)
    timeout = real("timeout", timeout, low=0, low_open=True)
    schedule = np.cumsum(np.random.default_rng(seed).exponential(1.0 / rate, n))
    schedule = schedule[schedule <= duration].tolist()
    if not schedule:
        raise ValueError(f"no request falls inside duration={duration:g} s at arrival_rate={rate:g}/s; "
                         "raise one of them")
    requests, stop, records, errors = queue.Queue(), threading.Event(), [], []
    t0 = time.perf_counter()
    threads = [threading.Thread(target=_generate, name="perfcourse-load-generator", daemon=True,
                                args=(requests, schedule, t0, stop)),
               threading.Thread(target=_work, name="perfcourse-worker", daemon=True,
                                args=(service, requests, max_batch, max_wait, t0, stop, records, errors))]
    for t in threads:
        t.start()
    threads[1].join(duration + timeout)
    stop.set()
    for t in threads:
        t.join(5.0)
    if errors:
        raise errors[0]
    if any(t.is_alive() for t in threads) or len(records) < len(schedule):
        raise RuntimeError(f"the server did not drain {len(schedule)} requests within duration + timeout = "
                           f"{duration + timeout:g} s ({len(records)} done): the load is beyond its capacity")
    _, arrival, start, finish, batch, size = (np.array(col) for col in zip(*sorted(records), strict=True))
    return Trace(arrival, start, finish, batch, size, "server")


def batch_timing(trace, *, repeats=5):
    """The run times of one batch size in a served ``trace``, as a Timing: the served run's own spread.

    Batches of one size do the same work, so how much their run times vary is the machine's doing
    (other programs taking the cores during the run). The largest size that ran at least ``repeats``
    times is taken; without one, the most common size.

    Examples
    --------
    >>> tr = serve(lambda b: time.sleep(0.001 * b), arrival_rate=400.0, n=60, max_batch=4, seed=1)
    >>> t = batch_timing(tr)
    >>> t.n >= 5, t.name.startswith("served batches of")
    (True, True)
    """
    if not isinstance(trace, Trace) or trace.policy != "server":
        raise TypeError(f"batch_timing reads a trace that serve() returned; got {type(trace).__name__}")
    repeats = positive_int("repeats", repeats)
    _ids, first = np.unique(trace.batch, return_index=True)
    sizes, seconds = trace.batch_size[first], (trace.finish - trace.start)[first]
    k = largest_repeated(sizes, repeats)
    k = most_common(sizes) if k is None else k
    b = _backend.get()
    return timing.Timing.from_samples(seconds[sizes == k], name=_("served batches of {k} requests").format(k=k),
                                      backend=b.name, device=b.device)


def largest_repeated(sizes, repeats):
    """The largest of ``sizes`` that occurs at least ``repeats`` times (the fullest steady group), else None.

    Examples
    --------
    >>> largest_repeated([2, 2, 2, 4, 4], 3), largest_repeated([2, 4], 2)
    (2, None)
    """
    found, counts = np.unique(np.asarray(sizes), return_counts=True)
    return int(found[counts >= repeats].max()) if (counts >= repeats).any() else None


def most_common(sizes):
    """The value ``sizes`` holds most often (the smallest of a tie).

    Examples
    --------
    >>> most_common([4, 2, 4, 2, 8])
    2
    """
    found, counts = np.unique(np.asarray(sizes), return_counts=True)
    return int(found[np.argmax(counts)])
