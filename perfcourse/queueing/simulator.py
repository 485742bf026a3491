"""A discrete-event simulator of one server with a batching policy, or of FCFS servers sharing a queue.

Give it an arrival process (a :class:`~perfcourse.queueing.servicetime.Poisson` process or measured
arrival times), a service time that depends on the batch size (see :mod:`perfcourse.queueing.servicetime`:
``affine``, a ``table`` of measured latencies, ``exponential``, or any function of the batch
size) and a policy:

- ``"fcfs"``: one request at a time, first come first served; ``servers=c`` servers may share
  the one queue (M/M/c with exponential service times);
- ``"static"``: wait until exactly ``batch_size`` requests are queued, then serve them;
- ``"dynamic"``: serve up to ``max_batch`` requests, waiting at most ``max_wait`` seconds
  for the batch to fill once the server is free;
- ``"continuous"``: token generation, sequences join and leave a running batch between
  steps (see :mod:`perfcourse.queueing.continuous`).

Each returns a :class:`~perfcourse.queueing.simtrace.Trace`: per-request arrival, start, finish.

The FCFS queue looks serial (each request waits for the one before) but it is a scan.
Lindley's recursion ``w[n+1] = max(0, w[n] + s[n] - (a[n+1] - a[n]))`` is the same as
``start[n] = max(a[n], start[n-1] + s[n-1])``; subtract the prefix sum ``S[n]`` of the
service times and it becomes a running maximum, ``start - S = maximum.accumulate(a - S)``:
one vectorised pass, like the prefix sums of lesson 02. With ``c`` servers behind one queue
the next start is the earliest of ``c`` finish times, no longer a running maximum: a heap of
the servers' free times, one step per request (:func:`shared_queue_starts`).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from heapq import heapreplace

import numpy as np

from .._check import choice, positive_int, real
from .servicetime import Poisson, affine, arrival_times, as_service, exponential, rng_from
from .simtrace import Trace

__all__ = ["lindley_starts", "shared_queue_starts", "fcfs", "static_batch", "dynamic_batch", "simulate", "sweep",
           "POLICIES", "Poisson", "affine", "exponential"]

POLICIES = ("fcfs", "static", "dynamic", "continuous")


def lindley_starts(ready, service_times):
    """Start times of jobs served one after another: ``start[k] = max(ready[k], finish[k-1])``.

    Computed as a scan: with ``S`` the exclusive prefix sum of the service times,
    ``start = S + maximum.accumulate(ready - S)``.

    Examples
    --------
    >>> lindley_starts(np.array([0.0, 0.5, 3.0]), np.array([1.0, 1.0, 1.0])).tolist()
    [0.0, 1.0, 3.0]
    """
    ready = real("ready", np.asarray(ready))
    service_times = real("service_times", np.asarray(service_times), low=0)
    if ready.ndim != 1 or ready.shape != service_times.shape or ready.size == 0:
        raise ValueError(f"ready and service_times must be non-empty 1-D arrays of one shape; "
                         f"got {ready.shape} and {service_times.shape}")
    s_before = np.concatenate(([0.0], np.cumsum(service_times)[:-1]))
    start = s_before + np.maximum.accumulate(ready - s_before)
    return np.maximum(start, ready)  # the subtraction may round a no-wait start one ulp early


def shared_queue_starts(ready, service_times, servers):
    """Start times of jobs taken in the order given by the first of ``servers`` servers to free up.

    Job ``k`` starts at ``max(ready[k], earliest free time of a server)`` and keeps that
    server busy for ``service_times[k]``: a first-come-first-served queue in front of
    ``servers`` identical servers when ``ready`` is in arrival order. One server gives
    :func:`lindley_starts`, step by step instead of as a scan.

    Examples
    --------
    >>> shared_queue_starts(np.array([0.0, 0.0, 0.0, 0.5]), np.array([1.0, 2.0, 3.0, 1.0]), 2).tolist()
    [0.0, 0.0, 1.0, 2.0]
    """
    ready = real("ready", np.asarray(ready))
    service_times = real("service_times", np.asarray(service_times), low=0)
    c = positive_int("servers", servers)
    if ready.ndim != 1 or ready.shape != service_times.shape or ready.size == 0:
        raise ValueError(f"ready and service_times must be non-empty 1-D arrays of one shape; "
                         f"got {ready.shape} and {service_times.shape}")
    free = [-math.inf] * c  # a heap: when each server is next free
    start = []
    put = start.append
    for r, s in zip(ready.tolist(), service_times.tolist(), strict=True):
        t = free[0]
        if r > t:
            t = r
        put(t)
        heapreplace(free, t + s)
    return np.array(start)


def _per_request_times(service, a, rng):
    if isinstance(service, (np.ndarray, list, tuple)):
        s = real("service", np.asarray(service), low=0)
        if s.shape != a.shape:
            raise ValueError(f"per-request service times must have one entry per request ({a.size}); "
                             f"got shape {s.shape}")
        return s
    return as_service(service).sample(np.ones(a.size, dtype=np.int64), rng)


def fcfs(arrivals, service, *, servers=1, seed=None):
    """One request at a time per server, first come first served; ``servers`` servers share the queue.

    ``service`` may also be an array of per-request service times (seconds). With several
    servers each request, in arrival order, goes to the server that frees up first: Poisson
    arrivals and ``exponential`` service make M/M/c (:func:`~perfcourse.queueing.formulas.mmc`).

    Examples
    --------
    >>> tr = fcfs([0.0, 0.5, 3.0], 1.0)
    >>> tr.start.tolist(), tr.wait.tolist()
    ([0.0, 1.0, 3.0], [0.0, 0.5, 0.0])
    >>> fcfs([0.0, 0.5, 3.0], 1.0, servers=2).wait.tolist()
    [0.0, 0.0, 0.0]
    """
    rng = rng_from(seed)
    a = arrival_times(arrivals, rng)
    c = positive_int("servers", servers)
    s = _per_request_times(service, a, rng)
    start = lindley_starts(a, s) if c == 1 else shared_queue_starts(a, s, c)
    ones = np.ones(a.size, dtype=np.int64)
    return Trace(a, start, start + s, np.arange(a.size), ones, "fcfs")


def _batched_trace(a, starts, durations, sizes, policy):
    batch = np.repeat(np.arange(sizes.size), sizes)
    start = starts[batch]
    return Trace(a, start, start + durations[batch], batch, sizes[batch], policy)


def static_batch(arrivals, service, *, batch_size, seed=None):
    """Serve requests in batches of exactly ``batch_size``, each starting once its last member arrives.

    The last, possibly smaller batch is served when the final request arrives
    (the stream has ended). Batches are served one at a time, so their starts are a scan too.

    Examples
    --------
    >>> tr = static_batch([0.0, 1.0, 1.5, 2.0], affine(1.0), batch_size=2)
    >>> tr.start.tolist(), tr.batch.tolist()
    ([1.0, 1.0, 2.0, 2.0], [0, 0, 1, 1])
    """
    rng = rng_from(seed)
    a = arrival_times(arrivals, rng)
    b = positive_int("batch_size", batch_size)
    firsts = np.arange(0, a.size, b)
    sizes = np.minimum(b, a.size - firsts)
    ready = a[firsts + sizes - 1]
    durations = as_service(service).sample(sizes, rng)
    return _batched_trace(a, lindley_starts(ready, durations), durations, sizes, "static")


def dynamic_batch(arrivals, service, *, max_batch, max_wait, seed=None):
    """Serve up to ``max_batch`` requests at once, holding a batch open at most ``max_wait`` seconds.

    When the server is free and a request is queued, the batch starts as soon as it is
    full or as soon as its oldest request has waited ``max_wait``, whichever comes first;
    if the server was busy past that point, it starts the moment the server frees up.
    The loop runs once per batch, not once per request.

    Examples
    --------
    >>> tr = dynamic_batch([0.0, 0.1, 0.2, 5.0], affine(1.0), max_batch=2, max_wait=0.5)
    >>> tr.start.tolist(), tr.batch_size.tolist()
    ([0.1, 0.1, 1.1, 5.5], [2, 2, 1, 1])
    """
    rng = rng_from(seed)
    a = arrival_times(arrivals, rng)
    m = positive_int("max_batch", max_batch)
    wait = real("max_wait", max_wait, low=0)
    svc = as_service(service)
    mean_by_size = svc(np.arange(1, m + 1)).tolist()
    noise = rng.standard_exponential(a.size).tolist() if svc.random else [1.0] * a.size
    starts, sizes, durations = _dynamic_loop(a.tolist(), mean_by_size, noise, m, wait)
    return _batched_trace(a, np.array(starts), np.array(durations), np.array(sizes, dtype=np.int64), "dynamic")


def _dynamic_loop(a, mean_by_size, noise, m, max_wait):
    n, i, free, k = len(a), 0, -np.inf, 0
    starts, sizes, durations = [], [], []
    while i < n:
        hi = min(n, i + m)
        full_at = a[hi - 1] if hi - i == m else np.inf
        start = max(free, min(a[i] + max_wait, full_at))
        size = bisect_right(a, start, i, hi) - i
        duration = mean_by_size[size - 1] * noise[k]
        starts.append(start)
        sizes.append(size)
        durations.append(duration)
        free = start + duration
        i += size
        k += 1
    return starts, sizes, durations


def simulate(policy, arrivals, service, *, seed=None, **options):
    """Run one policy: ``simulate("fcfs" | "static" | "dynamic" | "continuous", arrivals, service, ...)``.

    ``options`` are the policy's own keywords (``servers``; ``batch_size``; ``max_batch`` and
    ``max_wait``; ``prompt_tokens``, ``output_tokens``, ``max_batch``, ``token_budget``).
    The same ``seed`` gives the same trace.

    Examples
    --------
    >>> tr = simulate("fcfs", Poisson(8.0, 1000), exponential(0.1), seed=1)
    >>> len(tr), bool((tr.start >= tr.arrival).all())
    (1000, True)
    """
    choice("policy", policy, POLICIES)
    if policy == "continuous":
        from .continuous import continuous_batch

        return continuous_batch(arrivals, service, seed=seed, **options)
    run = {"fcfs": fcfs, "static": static_batch, "dynamic": dynamic_batch}[policy]
    return run(arrivals, service, seed=seed, **options)


def sweep(policy, arrivals, service, *, vary, values, of="latency", qs=(50, 95, 99), seed=0, **options):
    """Run ``policy`` once per value of the option ``vary``; return ``{value: summary}``.

    Each summary is a dict of the percentiles ``qs`` of ``of`` (``"p50"``...), its ``"mean"``
    (seconds) and the ``"throughput"`` (requests/s). Every run draws the same arrivals (same
    seed), so the differences come from the option alone.

    Examples
    --------
    >>> res = sweep("static", Poisson(100.0, 2000), affine(0.01, 0.001), vary="batch_size", values=[2, 4])
    >>> sorted(res), sorted(res[4])
    ([2, 4], ['mean', 'p50', 'p95', 'p99', 'throughput'])
    """
    if not isinstance(vary, str) or vary in ("arrivals", "service", "seed"):
        raise ValueError(f"vary must name one keyword option of the policy (e.g. 'batch_size'); got {vary!r}")
    values = list(values)
    if not values:
        raise ValueError("values must hold at least one value to try; got none")
    result = {}
    for v in values:
        tr = simulate(policy, arrivals, service, seed=seed, **{**options, vary: v})
        summary = tr.percentiles(of, qs)
        summary.update(mean=float(np.nanmean(getattr(tr, of))), throughput=tr.throughput())
        result[v] = summary
    return result
