"""Continuous batching for token generation, simulated step by step.

A language-model server produces one token per running sequence per step. Between steps
it may admit queued requests (first come, first served) as long as the running batch stays
within ``max_batch`` sequences and the step stays within ``token_budget`` tokens: a request
joining a step brings its whole prompt (its prefill, which also yields its first token),
every running sequence brings one token (its next decode). A request leaves after its last
output token, freeing its place at once: no one waits for the slowest member of a batch.

The step time is a function of the tokens processed in that step, e.g.
``affine(t0, t1)``: a fixed cost per step (reading the weights) plus a cost per token.

Steps between two events (an arrival that can join, a sequence that finishes) are all
alike, so the loop jumps over them in one go: it runs once per event, not once per step.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from heapq import heappop, heappush

import numpy as np

from .._check import positive_int, real
from .servicetime import arrival_times, as_service, rng_from
from .simtrace import StepLog, Trace

__all__ = ["continuous_batch", "Requests", "token_requests"]


def _tokens(name, value, n):
    v = real(name, np.broadcast_to(np.asarray(value), (n,)) if np.ndim(value) == 0 else value,
             low=1, integer=True)
    if v.shape != (n,):
        raise ValueError(f"{name} must be one whole number or one per request ({n}); got shape {v.shape}")
    return v.astype(np.int64)


@dataclass(frozen=True)
class Requests:
    """Token-generation requests: when each arrives, its prompt and its answer length (tokens)."""

    arrival: np.ndarray
    prompt_tokens: np.ndarray
    output_tokens: np.ndarray

    def __len__(self):
        return len(self.arrival)

    def options(self):
        """The keywords :func:`continuous_batch` (or ``simulate("continuous", ...)``) takes for them."""
        return {"prompt_tokens": self.prompt_tokens, "output_tokens": self.output_tokens}


def token_requests(n, rate, *, burst=1, prompt=(64, 1024), answer_mean=200, answer_max=2000, seed=0):
    """``n`` requests at ``rate`` per second on average, arriving ``burst`` at a time.

    Bursts arrive as a Poisson process at ``rate / burst`` per second and all the requests of
    a burst arrive at the same instant (``burst=1``: plain Poisson arrivals). Prompts are
    uniform over ``prompt`` (inclusive, tokens); answers geometric with mean ``answer_mean``,
    capped at ``answer_max``. The same seed gives the same requests.

    A burst of long prompts is the workload where the token budget matters: a large budget
    runs the whole burst's prefill in one long step, which stalls every running answer.

    Examples
    --------
    >>> r = token_requests(16, 8.0, burst=8, seed=1)
    >>> len(r), len(set(r.arrival.tolist())), int(r.prompt_tokens.min()) >= 64
    (16, 2, True)
    """
    n = positive_int("n", n)
    rate = real("rate", rate, low=0, low_open=True)
    burst = positive_int("burst", burst)
    lo, hi = (positive_int("prompt", v) for v in prompt)
    if lo > hi:
        raise ValueError(f"prompt must be (shortest, longest) tokens with shortest <= longest; got {prompt!r}")
    answer_mean = real("answer_mean", answer_mean, low=1)
    answer_max = positive_int("answer_max", answer_max)
    rng = np.random.default_rng(seed)
    starts = np.cumsum(rng.exponential(burst / rate, -(-n // burst)))
    arrival = np.repeat(starts, burst)[:n]
    prompts = rng.integers(lo, hi + 1, n)
    answers = np.minimum(rng.geometric(1 / answer_mean, n), answer_max)
    return Requests(arrival, prompts.astype(np.int64), answers.astype(np.int64))


def continuous_batch(arrivals, service, *, prompt_tokens, output_tokens, max_batch, token_budget=None, seed=None):
    """Simulate continuous batching; the trace has TTFT and time per output token.

    Parameters
    ----------
    arrivals : Poisson or array of arrival times (seconds)
    service : step time as a function of the tokens processed in the step (deterministic)
    prompt_tokens, output_tokens : int or array of int, >= 1 per request
    max_batch : int, most sequences running at once
    token_budget : int or None, most tokens processed in one step (None: no limit);
        must be at least ``max_batch`` and the longest prompt
    seed : int, for the Poisson arrivals

    Examples
    --------
    >>> from perfcourse.queueing.servicetime import affine
    >>> tr = continuous_batch([0.0, 0.0], affine(0.01, 0.001), prompt_tokens=10, output_tokens=[3, 1],
    ...                       max_batch=4)
    >>> tr.ttft.round(4).tolist(), tr.finish.round(4).tolist()
    ([0.03, 0.03], [0.052, 0.03])
    """
    rng = rng_from(seed)
    a = arrival_times(arrivals, rng)
    prompt = _tokens("prompt_tokens", prompt_tokens, a.size)
    out = _tokens("output_tokens", output_tokens, a.size)
    m = positive_int("max_batch", max_batch)
    budget = math.inf if token_budget is None else positive_int("token_budget", token_budget)
    if budget < max(m, int(prompt.max())):
        raise ValueError(f"token_budget must be >= max_batch ({m}) and >= the longest prompt "
                         f"({int(prompt.max())} tokens) so every request can run; got {token_budget}")
    svc = as_service(service)
    if svc.random:
        raise ValueError("continuous batching needs a deterministic step time (affine, table or a function); "
                         f"got {svc.label}")
    cap = int(min(budget, m * (int(prompt.max()) + 1)))  # no step processes more tokens than this
    step = svc(np.arange(cap + 1)).tolist()  # step[tokens]: seconds, looked up rather than recomputed
    rec, log = _run(a.tolist(), prompt.tolist(), out.tolist(), step, m, budget)
    start, first, finish, batch, size = (np.array(x) for x in rec)
    cols = np.fromiter(log, np.float64, len(log)).reshape(-1, 4).T  # gaps: whole numbers < 2**53, exact
    steps = StepLog(cols[0].copy(), cols[1].copy(), cols[2].copy(), cols[3].astype(np.int64))
    return Trace(a, start, finish, batch, size, "continuous", first_token=first, output_tokens=out, steps=steps)


def _run(a, prompt, out, step, m, budget):
    """The simulation itself: each request's start, first token, finish and batch, and the log of its steps."""
    # Once per event, tens of thousands of times: the loop is kept lean. Finished sequences are
    # retired in place, heap functions are local names, an infinite arrival after the last one
    # ends the join loop without an index check, and the step log is one flat list that takes
    # one extend per run of identical steps.
    n = len(a)
    a = a + [math.inf]  # a sentinel: no request "arrives" after the last one
    start, first, finish, batch, size = [0.0] * n, [0.0] * n, [0.0] * n, [0] * n, [0] * n
    log = []  # per run of identical steps: start, end, seconds per step, token gaps it made
    put, push, pop, ceil = log.extend, heappush, heappop, math.ceil
    running, busy = [], 0  # heap of (index of the step that yields the last token, request); its length
    clock, steps, i = 0.0, 0, 0
    while busy or i < n:
        if not busy and a[i] > clock:
            clock = a[i]  # idle until the next arrival
        tokens, joined, last = busy, i, i + m - busy
        while a[i] <= clock and i < last and tokens + prompt[i] <= budget:
            tokens += prompt[i]
            i += 1
        dt = step[tokens]  # one step: prefill of those joining, one decode token for the others
        t1 = clock + dt
        if busy:
            put((clock, t1, dt, busy))  # each sequence already running waits dt for its next token
        if i != joined:
            busy += i - joined
            for r in range(joined, i):
                start[r] = clock
                first[r] = t1
                batch[r] = steps
                size[r] = busy
                push(running, (steps + out[r] - 1, r))
        clock = t1
        steps += 1
        while running and running[0][0] < steps:
            finish[pop(running)[1]] = clock
            busy -= 1
        if not busy:
            continue
        k = running[0][0] - steps + 1  # identical decode steps until the next sequence finishes
        dt = step[busy]
        if i < n and busy < m and busy + prompt[i] <= budget:
            if a[i] <= clock:
                continue  # the next request can join right now
            j = ceil((a[i] - clock) / dt)  # or until it arrives
            if j < k:
                k = j
        t1 = clock + k * dt
        put((clock, t1, dt, k * busy))
        clock = t1
        steps += k
        while running and running[0][0] < steps:
            finish[pop(running)[1]] = clock
            busy -= 1
    return (start, first, finish, batch, size), log
