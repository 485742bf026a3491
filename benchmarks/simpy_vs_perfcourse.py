"""The same queues through SimPy and through perfcourse.queueing: same answers, how much faster?

Every workload is drawn once (arrival times, service times) and fed to both simulators, so
their waits must agree request by request, not just on average. The script prints, per
policy, both run times (median of the timed runs, after one warm-up run), their ratio, and
the mean waits against theory where it exists.

    python benchmarks/simpy_vs_perfcourse.py            # about half a minute on 2 cores
    python benchmarks/simpy_vs_perfcourse.py --scale 0.1  # a quick look

Needs SimPy (``pip install simpy``). Not a test: timings depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import platform
from collections import deque

import numpy as np

import perfcourse as pc
from perfcourse import queueing as q


def seconds(fn, repeat):
    """Median time of ``fn()`` over ``repeat`` timed runs after one warm-up run, and its result."""
    box = {}

    def call():
        box["result"] = fn()

    t = pc.timing.measure(call, repeat=repeat, warmup_s=0.0, max_duration_s=600.0, min_samples=1)
    return t.p50, box["result"]


class Stream:
    """Arrivals pushed into a queue by a SimPy process; the server sleeps on ``wake`` when idle."""

    def __init__(self, env, arrivals):
        self.env, self.queue, self.ended, self.wake = env, deque(), False, None
        env.process(self._source(arrivals))

    def _source(self, arrivals):
        for i, t in enumerate(arrivals):
            yield self.env.timeout(t - self.env.now)
            self.queue.append((i, self.env.now))
            self.poke()
        self.ended = True
        self.poke()

    def poke(self):
        if self.wake is not None and not self.wake.triggered:
            self.wake.succeed()

    def sleep(self, timeout=None):
        self.wake = self.env.event()
        return self.wake if timeout is None else self.wake | self.env.timeout(timeout)


def simpy_mm1(arrivals, service):
    """The textbook SimPy M/M/1: one process per customer and a Resource of capacity 1."""
    import simpy

    env, waits = simpy.Environment(), np.empty(arrivals.size)
    server = simpy.Resource(env, capacity=1)

    def customer(i):
        arrived = env.now
        with server.request() as req:
            yield req
            waits[i] = env.now - arrived
            yield env.timeout(service[i])

    def source():
        for i, t in enumerate(arrivals):
            yield env.timeout(t - env.now)
            env.process(customer(i))

    env.process(source())
    env.run()
    return waits


def simpy_batching(arrivals, batch_time, max_batch, max_wait):
    """Dynamic batching in SimPy (``max_wait=None``: static batches of exactly ``max_batch``)."""
    import simpy

    env, waits = simpy.Environment(), np.empty(arrivals.size)
    stream = Stream(env, arrivals)

    def server():
        while not (stream.ended and not stream.queue):
            if not stream.queue:
                yield stream.sleep()
                continue
            deadline = np.inf if max_wait is None else stream.queue[0][1] + max_wait
            while len(stream.queue) < max_batch and env.now < deadline and not stream.ended:
                yield stream.sleep(None if max_wait is None else deadline - env.now)
            batch = [stream.queue.popleft() for _ in range(min(max_batch, len(stream.queue)))]
            for i, t in batch:
                waits[i] = env.now - t
            yield env.timeout(batch_time[len(batch)])

    env.process(server())
    env.run()
    return waits


def simpy_continuous(arrivals, prompt, out, step_time, max_batch, budget):
    """Continuous batching in SimPy: one event per generation step."""
    import simpy

    env, ttft = simpy.Environment(), np.empty(arrivals.size)
    stream, left = Stream(env, arrivals), {}

    def server():
        while not (stream.ended and not stream.queue and not left):
            if not left and not stream.queue:
                yield stream.sleep()
                continue
            tokens, joined, queue = len(left), [], stream.queue
            while queue and len(left) + len(joined) < max_batch and tokens + prompt[queue[0][0]] <= budget:
                i, t = queue.popleft()
                tokens += prompt[i]
                joined.append((i, t))
            yield env.timeout(step_time(tokens))
            for r in list(left):
                left[r] -= 1
                if left[r] == 0:
                    del left[r]
            for i, t in joined:
                ttft[i] = env.now - t
                if out[i] > 1:
                    left[i] = out[i] - 1

    env.process(server())
    env.run()
    return ttft


def report(name, n, t_simpy, t_pc, simpy_mean, pc_mean, theory=None, what="mean wait"):
    th = f", theory {theory * 1e3:.4g} ms" if theory is not None else ""
    print(f"{name}: {n} requests. SimPy {t_simpy:.3g} s, perfcourse {t_pc * 1e3:.3g} ms: "
          f"{t_simpy / t_pc:.0f}x faster. {what}: SimPy {simpy_mean * 1e3:.4g} ms, "
          f"perfcourse {pc_mean * 1e3:.4g} ms{th}")


def bench_mm1(n, rng):
    arrivals = np.cumsum(rng.exponential(1 / 8.0, n))
    service = rng.exponential(0.1, n)
    t_simpy, w_simpy = seconds(lambda: simpy_mm1(arrivals, service), 1)
    t_pc, tr = seconds(lambda: q.fcfs(arrivals, service), 5)
    assert np.allclose(w_simpy, tr.wait, atol=1e-9), "SimPy and perfcourse disagree"
    report("M/M/1 FCFS, lambda 8/s, mu 10/s (rho 0.8)", n, t_simpy, t_pc, w_simpy.mean(), tr.wait.mean(),
           q.mm1(8.0, 10.0).mean_wait)
    t_draw, _ = seconds(lambda: q.simulate("fcfs", q.Poisson(8.0, 10**6), q.exponential(0.1), seed=0), 3)
    print(f"  10^6 M/M/1 requests, drawing included: {t_draw * 1e3:.3g} ms")


def bench_batching(n, rng, max_wait):
    arrivals = np.cumsum(rng.exponential(1 / 800.0, n))
    svc = q.affine(0.002, 0.001)
    batch_time = svc(np.arange(17)).tolist()
    t_simpy, w_simpy = seconds(lambda: simpy_batching(arrivals, batch_time, 16, max_wait), 1)
    if max_wait is None:
        t_pc, tr = seconds(lambda: q.static_batch(arrivals, svc, batch_size=16), 5)
        name = "static batch of 16"
    else:
        t_pc, tr = seconds(lambda: q.dynamic_batch(arrivals, svc, max_batch=16, max_wait=max_wait), 3)
        name = f"dynamic batch, max 16, max wait {max_wait * 1e3:g} ms"
    assert np.allclose(w_simpy, tr.wait, atol=1e-9), "SimPy and perfcourse disagree"
    report(f"{name}, lambda 800/s, t(b) = 2 ms + 1 ms x b", n, t_simpy, t_pc, w_simpy.mean(), tr.wait.mean())
    print(f"  mean batch {tr.batch_size.mean():.3g}, p99 latency {tr.percentiles()['p99'] * 1e3:.4g} ms")


def bench_continuous(n, rng):
    arrivals = np.cumsum(rng.exponential(1 / 20.0, n))
    prompt, out = rng.integers(16, 512, n), rng.integers(1, 200, n)
    svc = q.affine(0.008, 2e-5)

    def step(tokens):
        return 0.008 + 2e-5 * tokens

    t_simpy, ttft = seconds(lambda: simpy_continuous(arrivals, prompt, out, step, 32, 2048), 1)
    kw = dict(prompt_tokens=prompt, output_tokens=out, max_batch=32, token_budget=2048)
    t_pc, tr = seconds(lambda: q.continuous_batch(arrivals, svc, **kw), 3)
    assert np.allclose(ttft, tr.ttft, rtol=1e-6), "SimPy and perfcourse disagree"
    report("continuous batching, lambda 20/s, max 32 sequences, 2048-token budget", n, t_simpy, t_pc,
           ttft.mean(), tr.ttft.mean(), what="mean TTFT")


def main():
    import simpy

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every request count (default 1)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(args.seed)
    n = max(1000, int(200_000 * args.scale))
    print(f"SimPy {simpy.__version__}, NumPy {np.__version__}, Python {platform.python_version()}, "
          f"{pc.backend.cpu_model()}")
    bench_mm1(n, rng)
    bench_batching(n, rng, 0.002)
    bench_batching(n, rng, None)
    bench_continuous(max(500, int(20_000 * args.scale)), rng)


if __name__ == "__main__":
    main()
