"""The grader's answers to exercise 14: the TTFT of every request of a deployment of continuous-batching
replicas, and what a problem's replayed requests give under a choice.

Requests go to the replicas round robin (request ``i`` to replica ``i % replicas``), each replica its own
queue, simulated with the course's :func:`~perfcourse.queueing.continuous.continuous_batch` (withheld from the
graded kernel). Read by the grader at grading time (never part of the package a learner installs); see
:mod:`perfcourse.grading.checks._answers`.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from perfcourse.queueing.continuous import continuous_batch, token_requests
from perfcourse.queueing.servicetime import affine


def ttft(requests, step_s, replicas, max_batch, token_budget):
    """Every request's TTFT (s), in request order.

    A max batch above a replica's number of requests, or a budget above ``max_batch`` of its longest prompts,
    never binds (no step can process more): they are lowered to that, so that a huge choice costs nothing.

    Examples
    --------
    >>> two = {"arrival": [0.0, 0.0], "prompt_tokens": [10, 10], "output_tokens": [3, 1]}
    >>> [ttft(two, (0.010, 0.001), *d).round(6).tolist() for d in [(1, 4, 100), (1, 1, 100), (2, 4, 100)]]
    [[0.03, 0.03], [0.02, 0.062], [0.02, 0.02]]
    """
    arrival = np.asarray(requests["arrival"], dtype=np.float64)
    prompts, answers = (np.asarray(requests[k], dtype=np.int64) for k in ("prompt_tokens", "output_tokens"))
    out = np.full(arrival.size, np.nan)
    for first in range(min(replicas, arrival.size)):
        mine = slice(first, None, replicas)
        most = min(max_batch, prompts[mine].size)
        out[mine] = continuous_batch(arrival[mine], affine(*step_s), prompt_tokens=prompts[mine],
                                     output_tokens=answers[mine], max_batch=most,
                                     token_budget=min(token_budget, most * int(prompts[mine].max()))).ttft
    return out


@lru_cache(maxsize=32)
def _drawn(n, rate, prompt, answer_mean, answer_max, seed):
    r = token_requests(n, rate, prompt=prompt, answer_mean=answer_mean, answer_max=answer_max, seed=seed)
    return {"arrival": r.arrival, "prompt_tokens": r.prompt_tokens, "output_tokens": r.output_tokens}


def requests(load):
    """The requests a problem names (its ``n``, ``rate``, ``prompt``, ``answer_mean``, ``answer_max``, ``seed``),
    drawn as the learner's notebook draws them."""
    return _drawn(load["n"], load["rate"], tuple(load["prompt"]), load["answer_mean"], load["answer_max"],
                  load["seed"])


def means(load):
    """The mean prompt and the mean answer, in tokens, of a problem's requests."""
    drawn = requests(load)
    return float(np.mean(drawn["prompt_tokens"])), float(np.mean(drawn["output_tokens"]))


def p99(load, replicas, max_batch, token_budget):
    """The p99 TTFT (s) of a problem's requests on ``replicas`` replicas with that max batch and token budget."""
    got = ttft(requests(load), (load["t0_s"], load["t1_s"]), replicas, max_batch, token_budget)
    return float(np.percentile(got, 99))
