"""Serving the course's language model for real: step timings and a continuous-batching server.

:func:`decode_timing` and :func:`prefill_timing` time one model step at a chosen batch and
context. The cache's contents do not change the time (the same FLOPs and bytes whatever the
numbers), so a decode step at context ``n`` is timed by setting the slots' lengths to ``n``
rather than by generating ``n`` tokens first.

:func:`serve` runs the server of lesson 11 inside one Python process. Requests arrive at the
times of a :class:`~perfcourse.queueing.continuous.Requests` (open loop: fixed in advance,
whoever is still waiting). Between steps the server admits waiting requests first come, first
served, while the running sequences stay within ``max_batch`` and the step within
``token_budget`` tokens; in each step every running sequence decodes one token and every
request that joined is prefilled (prompts of one length together, in one call), which yields its
first token; a sequence leaves after its
last token and its KV-cache slot is free at once. These are the rules of the course's
simulator (:func:`perfcourse.queueing.continuous_batch`), so a served run and a simulated one
can be set side by side: the result holds the same :class:`~perfcourse.queueing.simtrace.Trace`,
plus each step's tokens and seconds, from which a step-time model is fitted.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from .._check import positive_int, real
from .._lang import _
from ..measure import backend as _backend
from ..measure import timing
from ..models.transformer import Config
from ..queueing.continuous import Requests
from ..queueing.servicetime import affine
from ..queueing.simtrace import StepLog, Trace
from .llm import Model
from .server import largest_repeated, most_common

__all__ = ["decode_timing", "prefill_timing", "host_timing", "fit_step_time", "Served", "serve"]


def _model(model):
    if not isinstance(model, Model):
        raise TypeError(f"model must be a perfcourse.labs.llm.Model; got {type(model).__name__}")
    return model


def decode_timing(model, batch, context, *, repeat=20, max_duration_s=2.0):
    """A :class:`~perfcourse.measure.timing.Timing` of one decode step of ``batch`` sequences at ``context`` tokens.

    Each call sets slots ``0 .. batch-1`` to ``context - 1`` tokens and decodes one more token
    in each, so every sample reads a cache of ``context`` tokens per sequence. A noisy timing is
    taken again, three times at most (:func:`~perfcourse.measure.timing.until_steady`).

    Examples
    --------
    >>> t = decode_timing(Model("tiny", slots=2), 2, 8, repeat=3, max_duration_s=0.5)
    >>> t.n >= 1 and t.p50 > 0
    True
    """
    model = _model(model)
    batch = positive_int("batch", batch)
    context = positive_int("context", context)
    if batch > model.n_slots or context > model.config.max_context:
        raise ValueError(f"batch must be <= the model's {model.n_slots} slots and context <= its max_context "
                         f"{model.config.max_context}; got batch {batch}, context {context}")
    slots, tokens = np.arange(batch), np.ones(batch, dtype=np.int64)

    def step():
        model.lengths[slots] = context - 1
        model.decode_step(tokens, slots)

    name = _("decode step, batch {batch}, context {context}").format(batch=batch, context=context)
    return timing.until_steady(lambda: timing.measure(step, repeat=repeat, max_duration_s=max_duration_s, name=name))


def prefill_timing(model, prompt, *, repeat=10, max_duration_s=2.0):
    """A Timing of the prefill of one prompt of ``prompt`` tokens (its first token included); retaken while noisy."""
    model = _model(model)
    prompt = positive_int("prompt", prompt)
    if prompt > model.config.max_context:
        raise ValueError(f"prompt must be <= the model's max_context {model.config.max_context}; got {prompt}")
    tokens = np.ones((1, prompt), dtype=np.int64)
    name = _("prefill, {prompt} tokens").format(prompt=prompt)
    return timing.until_steady(lambda: timing.measure(model.prefill, tokens, repeat=repeat,
                                                      max_duration_s=max_duration_s, name=name))


def host_timing(model, *, repeat=20, max_duration_s=2.0):
    """A Timing of a decode step of ``model``'s skeleton: the host's own cost per step.

    The skeleton has the model's layers and heads but widths of four numbers per head, a
    vocabulary of 64 and a context of 16: the same array operations, issued by the same
    Python, on next to no data. Its step time is what the host spends per step, whatever the
    device does (retaken while noisy, like :func:`decode_timing`).

    Examples
    --------
    >>> host_timing(Model("tiny"), repeat=3, max_duration_s=0.5).name
    'decode step, batch 1, context 16'
    """
    c = _model(model).config
    skeleton = Config(vocab=64, d_model=4 * c.n_heads, n_layers=c.n_layers, n_heads=c.n_heads,
                      d_ff=8 * c.n_heads, max_context=16, bytes_per_element=c.bytes_per_element)
    return decode_timing(Model(skeleton, slots=1, dtype=model.dtype.__name__), 1, 16, repeat=repeat,
                         max_duration_s=max_duration_s)


def fit_step_time(tokens, seconds):
    """A line ``seconds = t0 + t1 x tokens`` through measured steps, as a simulator service.

    ``tokens`` is what each step processed (a decode batch's size, or prefill tokens plus
    decodes); ``seconds`` its time. Steps with the same token count are taken together at their
    median, and the line is fitted through those medians weighted by how many steps each holds:
    a step stalled by another program counts as one slow sample of its group, not as a point that
    tilts the line. Negative fitted terms are set to 0.

    Examples
    --------
    >>> fit_step_time([1, 2, 4], [0.011, 0.012, 0.014])([1, 10]).round(4).tolist()
    [0.011, 0.02]
    >>> fit_step_time([1, 1, 1, 2, 2, 2], [0.011, 0.011, 0.9, 0.012, 0.012, 0.012])([1, 2]).round(4).tolist()
    [0.011, 0.012]
    """
    x = real("tokens", np.atleast_1d(tokens), low=0).astype(np.float64)
    y = real("seconds", np.atleast_1d(seconds), low=0, low_open=True)
    if x.shape != y.shape or x.ndim != 1 or np.unique(x).size < 2:
        raise ValueError(f"tokens and seconds must be 1-D of one length with at least two different token counts; "
                         f"got {x.tolist()} and shape {y.shape}")
    counts = np.unique(x)
    weights = np.array([np.sum(x == c) for c in counts], dtype=np.float64)
    medians = np.array([np.median(y[x == c]) for c in counts])
    t1, t0 = np.polyfit(counts, medians, 1, w=np.sqrt(weights))
    return affine(max(float(t0), 0.0), max(float(t1), 0.0))


@dataclass(frozen=True)
class Served:
    """A served run: the per-request :class:`Trace`, the requests served, and every step's tokens and seconds."""

    trace: Trace
    requests: Requests
    step_tokens: np.ndarray
    step_seconds: np.ndarray
    max_batch: int
    token_budget: int | None

    def step_timing(self, repeats=5):
        """The decode-only steps of the largest batch that ran at least ``repeats`` times, as a Timing.

        Decode steps of one batch do the same work, and the fullest ones (the largest matrix
        products) vary least from one to the next, so their spread is mostly the machine's: other
        programs taking the cores during the run. Without such a batch, the most common step size
        is taken.
        """
        repeats = positive_int("repeats", repeats)
        pure = self.step_tokens == self.trace.steps.gaps          # decode only: no prefill in the step
        for mask in (pure, np.ones_like(pure)):
            if (k := largest_repeated(self.step_tokens[mask], repeats)) is not None:
                break
        else:
            k = most_common(self.step_tokens)
        chosen = mask & (self.step_tokens == k)
        b = _backend.get()
        return timing.Timing.from_samples(self.step_seconds[chosen], name=_("served steps of {k} tokens").format(k=k),
                                          backend=b.name, device=b.device)

    def step_model(self):
        """The line ``seconds = t0 + t1 x tokens`` through this run's steps (:func:`fit_step_time`)."""
        return fit_step_time(self.step_tokens, self.step_seconds)


def serve(model, requests, *, max_batch, token_budget=None, duration=None, seed=0, timeout=60.0):
    """Serve ``requests`` with real model steps under continuous batching; return a :class:`Served`.

    Parameters
    ----------
    model : Model
        Holds at least ``max_batch`` slots, each long enough for a prompt and its answer.
    requests : perfcourse.queueing.continuous.Requests
        Arrival times (seconds from the start), prompt and answer lengths (tokens).
    max_batch : int
        Most sequences running at once.
    token_budget : int or None
        Most tokens in one step (prefills of those joining plus one per running sequence).
    duration : float or None
        Serve only the requests that arrive in the first ``duration`` seconds, times
        :func:`~perfcourse.measure.timing.time_scale` (the lessons' test run serves a tenth); None: all.
    seed : int
        Seed of the prompts' token ids (their values do not change the time).
    timeout : float
        Seconds after which the run is abandoned with a RuntimeError.

    Examples
    --------
    >>> from perfcourse.queueing import token_requests
    >>> reqs = token_requests(6, 200.0, prompt=(4, 8), answer_mean=3, answer_max=6, seed=1)
    >>> run = serve(Model("tiny", slots=2), reqs, max_batch=2)
    >>> # a step holds at most 2 sequences, each with its prompt (when it joins) or one token
    >>> bool((run.trace.first_token > run.trace.arrival).all()), int(run.step_tokens.max()) <= 2 * 8
    (True, True)
    """
    model = _model(model)
    if not isinstance(requests, Requests):
        raise TypeError("requests must be perfcourse.queueing.Requests (from token_requests); got "
                        f"{type(requests).__name__}")
    m = positive_int("max_batch", max_batch)
    budget = math.inf if token_budget is None else positive_int("token_budget", token_budget)
    timeout = real("timeout", timeout, low=0, low_open=True)
    if duration is not None:
        cut = real("duration", duration, low=0, low_open=True) * timing.time_scale()
        keep = max(int(np.searchsorted(requests.arrival, cut, side="right")), 1)
        requests = Requests(*(x[:keep] for x in (requests.arrival, requests.prompt_tokens, requests.output_tokens)))
    a, prompt, out = requests.arrival, requests.prompt_tokens, requests.output_tokens
    if m > model.n_slots:
        raise ValueError(f"max_batch must be <= the model's {model.n_slots} KV-cache slots; got {m}")
    if int((prompt + out).max()) > model.config.max_context:
        raise ValueError(f"every prompt plus answer must fit the model's max_context {model.config.max_context}; "
                         f"the longest is {int((prompt + out).max())} tokens")
    if budget < max(m, int(prompt.max())):
        raise ValueError(f"token_budget must be >= max_batch ({m}) and >= the longest prompt ({int(prompt.max())}) "
                         f"so every request can run; got {token_budget}")
    rng = np.random.default_rng(seed)
    ids = [rng.integers(0, model.config.vocab, int(p)) for p in prompt]
    n = len(a)
    start, first, finish = np.zeros(n), np.zeros(n), np.zeros(n)
    batch, size, left = np.zeros(n, np.int64), np.zeros(n, np.int64), out.astype(np.int64).copy()
    log = ([], [], [], [], [])      # per step: start, end, seconds, gaps (next tokens made), tokens processed
    running, i, step = [], 0, 0     # running[slot] = [request, its last token]: slots 0 .. k-1, one run
    t0 = time.perf_counter()
    while i < n or running:
        now = time.perf_counter() - t0
        if now > timeout:
            raise RuntimeError(f"serving stopped after {timeout:g} s with {n - i} requests not admitted and "
                               f"{len(running)} running: the load is above what the model serves")
        if not running and a[i] > now:
            time.sleep(a[i] - now)          # idle until the next arrival
            continue
        joining, tokens = [], len(running)
        while i < n and a[i] <= now and len(running) + len(joining) < m and tokens + prompt[i] <= budget:
            joining.append(i)
            tokens += int(prompt[i])
            i += 1
        decoding = len(running)
        if decoding:        # one decode token for every running sequence
            nxt = _backend.to_numpy(model.decode_step([last for _, last in running]).argmax(axis=-1))
        for length in sorted({int(prompt[r]) for r in joining}):   # prompts of one length share one prefill call
            group = [r for r in joining if prompt[r] == length]
            slots = np.arange(len(running), len(running) + len(group))
            first_ids = _backend.to_numpy(model.prefill(np.stack([ids[r] for r in group]), slots).argmax(axis=-1))
            running.extend([r, int(t)] for r, t in zip(group, first_ids, strict=True))
        end = time.perf_counter() - t0
        for k in range(decoding):
            running[k][1] = int(nxt[k])
            left[running[k][0]] -= 1
        for r in joining:
            start[r], first[r], batch[r], size[r] = now, end, step, len(running)
            left[r] -= 1
        for s in [s for s in range(len(running)) if left[running[s][0]] == 0][::-1]:
            finish[running[s][0]] = end
            if s != len(running) - 1:       # the last running sequence takes the freed slot: slots stay one run
                model.move(len(running) - 1, s)
                running[s] = running[-1]
            running.pop()
        for column, value in zip(log, (now, end, end - now, decoding, tokens), strict=True):
            column.append(value)
        step += 1
    steps = StepLog(*(np.array(x, dtype=np.float64) for x in log[:3]), np.array(log[3], dtype=np.int64))
    trace = Trace(a.astype(np.float64), start, finish, batch, size, "continuous (served)", first_token=first,
                  output_tokens=out.astype(np.int64), steps=steps)
    return Served(trace, requests, np.array(log[4], dtype=np.int64), steps.seconds, m,
                  None if token_budget is None else int(budget))
