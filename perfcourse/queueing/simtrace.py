"""What a queue simulation (or a real server) leaves behind: one record per request.

A :class:`Trace` holds, for every request, when it arrived, when its service started and
when it finished, plus the batch it rode in. Everything a serving claim needs is derived
from those arrays: the wait, the time in system (latency), its percentiles, the
throughput, and the number of requests in the system at any instant, whose time average
is the ``L`` of Little's law ``L = lambda * W``.

Times are in seconds on one clock (a simulation's, or ``time.perf_counter`` shifted to
start at zero for a real server).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._check import positive_int, real
from .._lang import N_, _, lookup
from ..models.percentiles import percentile
from ..units import format_seconds

__all__ = ["Trace", "StepLog", "LittleCheck", "little_check", "percentiles", "batch_means"]

OF = ("latency", "wait", "ttft", "tpot", "itl", "max_itl")


def percentiles(values, qs=(50, 95, 99)):
    """The ``qs`` percentiles of ``values`` as a dict ``{"p50": ..., "p95": ..., "p99": ...}``.

    NaN values (for example the time per output token of a one-token answer) are ignored.

    Examples
    --------
    >>> percentiles([1.0, 2.0, 3.0, 4.0, 5.0], qs=(50, 100))
    {'p50': 3.0, 'p100': 5.0}
    """
    v = np.asarray(values, dtype=np.float64).ravel()
    if v.size == 0 or np.isnan(v).all():
        raise ValueError("values must hold at least one number to take percentiles of; got none")
    for q in qs:
        real("q", q, low=0, high=100)
    return {f"p{q:g}": percentile(v, q) for q in qs}


def batch_means(values, batches=20):
    """The mean of correlated samples, such as one run's waits, and its standard error by batch means.

    In a queue one long wait follows another, so ``std / sqrt(n)`` understates how far one run's
    mean can lie from the long-run mean. Cut into ``batches`` consecutive runs, whose means are
    nearly independent, the spread of those means gives it: ``std(batch means) / sqrt(batches)``.
    The last ``n mod batches`` values are left out.

    Examples
    --------
    >>> mean, error = batch_means(np.arange(100.0), batches=4)   # batch means 12, 37, 62 and 87
    >>> float(mean), round(float(error), 2)
    (49.5, 16.14)
    """
    v = np.asarray(values, dtype=np.float64).ravel()
    batches = positive_int("batches", batches, low=2)
    if not np.isfinite(v).all():
        raise ValueError(f"batch_means needs finite values; got {int((~np.isfinite(v)).sum())} NaN or infinite")
    if v.size < 2 * batches:
        raise ValueError(f"batch_means needs at least two finite values per batch ({2 * batches} for {batches} "
                         f"batches); got {v.size} values")
    means = v[:v.size - v.size % batches].reshape(batches, -1).mean(axis=1)
    return float(means.mean()), float(means.std(ddof=1) / np.sqrt(batches))


# the policies' names as a summary line prints them, in the learner's language
POLICY_NAMES = (N_("fcfs"), N_("static"), N_("dynamic"), N_("continuous"), N_("continuous (served)"), N_("server"))


@dataclass(frozen=True)
class StepLog:
    """The steps of a continuous-batching run, grouped into runs of identical steps.

    Entry ``j`` covers ``[start[j], end[j])`` (seconds): steps of ``seconds[j]`` each, in which
    ``gaps[j]`` next tokens (after a first one) were produced in all. Each such token ends a gap
    of exactly one step since the sequence's previous token: the inter-token latency.
    """

    start: np.ndarray
    end: np.ndarray
    seconds: np.ndarray
    gaps: np.ndarray


@dataclass(frozen=True)
class Trace:
    """Per-request records of a queue, one array entry per request, in arrival order.

    Attributes
    ----------
    arrival, start, finish : ndarray of float
        When the request arrived, began service, and left (seconds).
    batch : ndarray of int
        Index of the batch (or, for continuous batching, of the step) it started in.
    batch_size : ndarray of int
        Size of that batch (continuous batching: sequences running right after it joined).
    policy : str
        The scheduling policy that produced the trace.
    first_token : ndarray of float or None
        Continuous batching only: when the first output token was ready.
    output_tokens : ndarray of int or None
        Continuous batching only: how many tokens the request generated.
    steps : StepLog or None
        Continuous batching only: the step times, for the gaps between tokens.
    """

    arrival: np.ndarray
    start: np.ndarray
    finish: np.ndarray
    batch: np.ndarray
    batch_size: np.ndarray
    policy: str
    first_token: np.ndarray | None = None
    output_tokens: np.ndarray | None = None
    steps: StepLog | None = None

    def __len__(self):
        return len(self.arrival)

    @property
    def wait(self):
        """Time spent queued before service started: ``start - arrival`` (seconds)."""
        return self.start - self.arrival

    @property
    def latency(self):
        """Time in system: ``finish - arrival`` (seconds); its mean is ``W``."""
        return self.finish - self.arrival

    @property
    def ttft(self):
        """Time to first token: ``first_token - arrival`` (seconds; continuous batching only)."""
        return self._tokens()[0] - self.arrival

    @property
    def tpot(self):
        """Time per output token after the first: ``(finish - first_token) / (tokens - 1)``.

        NaN for requests that generated a single token.
        """
        first, tokens = self._tokens()
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(tokens > 1, (self.finish - first) / np.maximum(tokens - 1, 1), np.nan)

    @property
    def itl(self):
        """Inter-token latency: every gap between two consecutive tokens of one request (seconds).

        One entry per output token after the first, over all requests (in step order, not
        request order). A step that also runs a long prefill stalls every running sequence for
        its whole length; :attr:`tpot`, a per-request mean, spreads that stall over the answer,
        while the percentiles of these gaps show it.
        """
        self._tokens()
        return np.repeat(self.steps.seconds, self.steps.gaps)

    @property
    def max_itl(self):
        """Per request, the longest gap between two of its consecutive tokens (seconds).

        The longest pause a user watching the answer stream sees; NaN for one-token answers.
        """
        first, tokens = self._tokens()
        st = self.steps
        lo = np.searchsorted(st.start, first, side="left")    # its steps start at its first token
        hi = np.searchsorted(st.end, self.finish, side="right")  # ... and end by its last one
        ok = (tokens > 1) & (hi > lo)
        worst = np.full(len(self), np.nan)
        if ok.any():
            pairs = np.stack((lo[ok], hi[ok]), axis=1).ravel()
            worst[ok] = np.maximum.reduceat(np.append(st.seconds, 0.0), pairs)[::2]
        return worst

    def _tokens(self):
        if self.first_token is None or self.output_tokens is None or self.steps is None:
            raise ValueError("TTFT, time per output token and inter-token latency exist only for continuous batching "
                             f"traces; this trace comes from policy {self.policy!r}")
        return self.first_token, self.output_tokens

    def percentiles(self, of="latency", qs=(50, 95, 99)):
        """Percentiles of ``of`` (one of ``OF``: latency, wait, ttft, tpot, itl, max_itl), in seconds, as a dict."""
        if of not in OF:
            raise ValueError(f"of must be one of {', '.join(repr(o) for o in OF)}; got {of!r}")
        return percentiles(getattr(self, of), qs)

    @property
    def duration(self):
        """From the first arrival to the last finish (seconds)."""
        return float(self.finish.max() - self.arrival.min())

    def throughput(self):
        """Completed requests per second over :attr:`duration`."""
        return len(self) / self.duration

    def token_throughput(self):
        """Generated tokens per second over :attr:`duration` (continuous batching only)."""
        return float(self._tokens()[1].sum()) / self.duration

    def in_system(self, t):
        """How many requests are in the system (arrived, not yet finished) at times ``t``."""
        t = np.asarray(t, dtype=np.float64)
        arrived = np.searchsorted(np.sort(self.arrival), t, side="right")
        left = np.searchsorted(np.sort(self.finish), t, side="right")
        return arrived - left

    def to_records(self):
        """All per-request fields as one NumPy structured array (one row per request).

        Examples
        --------
        >>> tr = Trace(np.array([0.0, 1.0]), np.array([0.0, 1.5]), np.array([2.0, 3.0]), np.array([0, 1]),
        ...            np.array([1, 1]), "fcfs")
        >>> rec = tr.to_records()
        >>> rec.dtype.names[:5], rec["wait"].tolist()
        (('arrival', 'start', 'finish', 'wait', 'latency'), [0.0, 0.5])
        """
        cols = {"arrival": self.arrival, "start": self.start, "finish": self.finish, "wait": self.wait,
                "latency": self.latency, "batch": self.batch, "batch_size": self.batch_size}
        if self.first_token is not None and self.output_tokens is not None and self.steps is not None:
            cols.update(first_token=self.first_token, output_tokens=self.output_tokens, ttft=self.ttft,
                        tpot=self.tpot, max_itl=self.max_itl)
        rec = np.empty(len(self), dtype=[(k, np.asarray(v).dtype) for k, v in cols.items()])
        for k, v in cols.items():
            rec[k] = v
        return rec

    def summary(self):
        """One line: count, mean wait and latency, p50/p95/p99 latency, throughput."""
        p = self.percentiles()
        ms = {"unit": "ms"}      # one unit for the whole line, to compare its figures at a glance
        return _("{policy}: {n} requests, mean wait {wait}, latency mean {mean}, p50 {p50}, p95 {p95}, p99 {p99}, "
                 "throughput {throughput:.4g} req/s").format(
            policy=lookup(self.policy), n=len(self), wait=format_seconds(self.wait.mean(), **ms),
            mean=format_seconds(self.latency.mean(), **ms), p50=format_seconds(p['p50'], **ms),
            p95=format_seconds(p['p95'], **ms), p99=format_seconds(p['p99'], **ms), throughput=self.throughput())


@dataclass(frozen=True)
class LittleCheck:
    """Little's law measured on a trace over the window ``[t0, t1]``.

    ``in_flight`` is the time-average number in the system, measured directly;
    ``arrival_rate`` counts arrivals in the window; ``time_in_system`` is the mean
    latency of those arrivals. Little's law says ``in_flight == arrival_rate * time_in_system``.
    """

    t0: float
    t1: float
    in_flight: float
    arrival_rate: float
    time_in_system: float

    @property
    def lambda_w(self):
        """``lambda * W`` (requests)."""
        return self.arrival_rate * self.time_in_system

    @property
    def ratio(self):
        """Measured ``L`` over ``lambda * W``: 1 when Little's law holds."""
        return self.in_flight / self.lambda_w

    def __str__(self):
        return _("L measured {L:.4g} requests vs lambda x W = {rate:.4g}/s x {w} = {lambda_w:.4g} requests "
                 "(ratio {ratio:.4f})").format(L=self.in_flight, rate=self.arrival_rate,
                                               w=format_seconds(self.time_in_system, 4, unit='ms'),
                                               lambda_w=self.lambda_w, ratio=self.ratio)


def little_check(trace, t0=None, t1=None):
    """Measure ``L`` (time-average number in system) and ``lambda * W`` on one trace.

    ``L`` is the integral of the in-system count over ``[t0, t1]`` divided by its length;
    each request contributes the part of ``[arrival, finish]`` inside the window.
    The defaults, first and last arrival, cover the whole run while arrivals last.

    Examples
    --------
    >>> tr = Trace(np.array([0.0, 1.0, 2.0, 3.0]), np.array([0.0, 1.0, 2.0, 3.0]),
    ...            np.array([0.5, 1.5, 2.5, 3.5]), np.arange(4), np.ones(4, int), "fcfs")
    >>> c = little_check(tr, 0.0, 4.0)
    >>> round(c.in_flight, 3), round(c.lambda_w, 3)
    (0.5, 0.5)
    """
    if not isinstance(trace, Trace):
        raise TypeError(f"trace must be a perfcourse Trace; got {type(trace).__name__}")
    t0 = float(trace.arrival.min()) if t0 is None else real("t0", t0)
    t1 = float(trace.arrival.max()) if t1 is None else real("t1", t1)
    if not t1 > t0:
        raise ValueError(f"the window needs t1 > t0; got t0={t0!r}, t1={t1!r}")
    overlap = np.minimum(trace.finish, t1) - np.maximum(trace.arrival, t0)
    in_flight = float(np.clip(overlap, 0.0, None).sum()) / (t1 - t0)
    inside = (trace.arrival >= t0) & (trace.arrival < t1)
    if not inside.any():
        raise ValueError(f"no request arrived in the window [{t0:g}, {t1:g}) s")
    rate = float(inside.sum()) / (t1 - t0)
    return LittleCheck(t0, t1, in_flight, rate, float(trace.latency[inside].mean()))
