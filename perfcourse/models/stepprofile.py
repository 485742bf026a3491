"""Reading the profile of one step: its critical path, what bounds a span, and the change to make first.

``pc.profiler`` records how long each named span took, and of which kind it is (cpu, copy,
kernel, sync). To reason about a whole step, each span also needs what it waited for and what
it did. Here a span is a plain dict:

- ``name``, ``kind`` and ``seconds`` (its measured duration), as the profiler records them;
- ``deps``: the names of the spans that must end before it can start;
- its counts: ``flops``, ``bytes`` moved, ``launches`` (kernel launches or small calls) and
  ``wait_s`` (seconds it spent waiting: in a queue, or for the device to drain).

A span starts as soon as all its deps have ended, so the step takes as long as its longest
chain of spans: the **critical path**. Against peak rates ``{"peak_flops": FLOP/s,
"bandwidth": bytes/s, "launch_s": seconds per launch}`` each span has four floors::

    compute = flops / peak_flops    bandwidth = bytes / bandwidth
    launch  = launches * launch_s   queue     = wait_s

and its **bound** is the largest of them (a tie goes to the first in that order). Launch overhead
can be fused away and waiting removed, but the work cannot: no rewrite takes a span below its
roofline time ``max(compute, bandwidth)``. The **first change** is the span whose drop to that
time (or to its measured time, if that is lower) shortens the step most; the prediction is the
new step time, the longest chain recomputed.

Examples
--------
>>> spans = [span("wait", "sync", 2e-3, wait_s=2e-3), span("load", "copy", 1e-3, bytes=1e6),
...          span("matmul", "kernel", 3e-3, ["wait", "load"], flops=1e9, bytes=4e6, launches=1)]
>>> peaks = {"peak_flops": 1e12, "bandwidth": 1e10, "launch_s": 5e-6}
>>> step_time(spans), critical_path(spans), bound_of(spans[2], peaks)
(0.005, ['wait', 'matmul'], 'compute')
>>> first_change(spans, peaks)
('matmul', 0.003)
"""

from __future__ import annotations

from .._check import real
from ..units import format_seconds

__all__ = ["BOUNDS", "SPAN_KEYS", "PEAK_KEYS", "span", "check_spans", "finish_times", "step_time", "critical_path",
           "floors", "bound_of", "roofline_time", "first_change", "path_problem"]

BOUNDS = ("compute", "bandwidth", "launch", "queue")
SPAN_KEYS = ("name", "kind", "seconds", "deps", "flops", "bytes", "launches", "wait_s")
PEAK_KEYS = ("peak_flops", "bandwidth", "launch_s")
COUNTS = ("flops", "bytes", "launches", "wait_s")


def span(name, kind, seconds, deps=(), *, flops=0.0, bytes=0.0, launches=0, wait_s=0.0):  # noqa: A002
    """One span as a plain dict with the keys ``SPAN_KEYS``.

    Examples
    --------
    >>> span("copy in", "copy", 1e-3, bytes=2e6)["deps"]
    []
    """
    return {"name": name, "kind": kind, "seconds": seconds, "deps": list(deps), "flops": flops, "bytes": bytes,
            "launches": launches, "wait_s": wait_s}


def _check_span(s):
    if not isinstance(s, dict):
        raise TypeError(f"a span must be a dict with the keys {', '.join(SPAN_KEYS)}; got {type(s).__name__}")
    missing = [k for k in SPAN_KEYS if k not in s]
    if missing:
        raise ValueError(f"span {s.get('name', '?')!r} lacks {', '.join(missing)}")
    if not isinstance(s["name"], str) or not s["name"]:
        raise TypeError(f"a span's name must be a non-empty string; got {s['name']!r}")
    if not isinstance(s["deps"], (list, tuple)) or not all(isinstance(d, str) for d in s["deps"]):
        raise TypeError(f"deps of span {s['name']!r} must be a list of span names; got {s['deps']!r}")
    real(f"seconds of span {s['name']!r}", s["seconds"], low=0)
    for k in COUNTS:
        real(f"{k} of span {s['name']!r}", s[k], low=0)


def check_spans(spans):
    """Check a list of spans and return them by name, in an order where every span follows its deps.

    Raises ValueError for a repeated name, a dep that names no span, or a cycle.

    Examples
    --------
    >>> list(check_spans([span("b", "cpu", 1.0, ["a"]), span("a", "cpu", 1.0)]))
    ['a', 'b']
    >>> check_spans([span("a", "cpu", 1.0, ["b"]), span("b", "cpu", 1.0, ["a"])])
    Traceback (most recent call last):
    ...
    ValueError: the spans' deps form a cycle through 'a', 'b'
    """
    if not isinstance(spans, (list, tuple)) or not spans:
        raise TypeError(f"spans must be a non-empty list of span dicts; got {spans!r}")
    by_name = {}
    for s in spans:
        _check_span(s)
        if s["name"] in by_name:
            raise ValueError(f"two spans are named {s['name']!r}; names must differ")
        by_name[s["name"]] = s
    for s in spans:
        unknown = [d for d in s["deps"] if d not in by_name]
        if unknown:
            raise ValueError(f"span {s['name']!r} depends on {', '.join(map(repr, unknown))}, which is no span")
    ordered, done = {}, set()
    while len(ordered) < len(spans):
        ready = [s for s in spans if s["name"] not in done and all(d in done for d in s["deps"])]
        if not ready:
            stuck = sorted(s["name"] for s in spans if s["name"] not in done)
            raise ValueError(f"the spans' deps form a cycle through {', '.join(map(repr, stuck))}")
        for s in ready:
            ordered[s["name"]] = s
            done.add(s["name"])
    return ordered


def finish_times(spans, seconds=None):
    """When each span ends (seconds from the step's start), each starting once all its deps have ended.

    ``seconds`` (optional) maps some names to durations that replace the measured ones.

    Examples
    --------
    >>> finish_times([span("a", "cpu", 1.0), span("b", "cpu", 2.0), span("c", "cpu", 0.5, ["a", "b"])])
    {'a': 1.0, 'b': 2.0, 'c': 2.5}
    """
    seconds = seconds or {}
    finish = {}
    for name, s in check_spans(spans).items():
        start = max((finish[d] for d in s["deps"]), default=0.0)
        finish[name] = start + float(seconds.get(name, s["seconds"]))
    return finish


def step_time(spans, seconds=None):
    """How long the step takes: when its last span ends (the length of the critical path)."""
    return max(finish_times(spans, seconds).values())


def critical_path(spans):
    """Names of the spans on one longest chain, first to last.

    Walks back from the span that ends last, each time to the dep that ends last.

    Examples
    --------
    >>> critical_path([span("a", "cpu", 1.0), span("b", "cpu", 2.0), span("c", "cpu", 0.5, ["a", "b"])])
    ['b', 'c']
    """
    by_name = check_spans(spans)
    finish = finish_times(spans)
    name = max(finish, key=finish.get)
    path = [name]
    while by_name[name]["deps"]:
        name = max(by_name[name]["deps"], key=finish.get)
        path.append(name)
    return path[::-1]


def _peaks(peaks):
    if not isinstance(peaks, dict) or any(k not in peaks for k in PEAK_KEYS):
        raise TypeError(f"peaks must be a dict with the keys {', '.join(PEAK_KEYS)}; got {peaks!r}")
    return {k: real(k, peaks[k], low=0, low_open=True) for k in PEAK_KEYS}


def floors(s, peaks):
    """The four floors of one span in seconds: ``{"compute", "bandwidth", "launch", "queue"}``.

    Examples
    --------
    >>> floors(span("k", "kernel", 1e-3, flops=1e9, bytes=1e6, launches=10),
    ...        {"peak_flops": 1e12, "bandwidth": 1e9, "launch_s": 1e-5})
    {'compute': 0.001, 'bandwidth': 0.001, 'launch': 0.0001, 'queue': 0.0}
    """
    _check_span(s)
    p = _peaks(peaks)
    return {"compute": float(s["flops"]) / p["peak_flops"], "bandwidth": float(s["bytes"]) / p["bandwidth"],
            "launch": float(s["launches"]) * p["launch_s"], "queue": float(s["wait_s"])}


def bound_of(s, peaks):
    """What bounds one span: the largest of its floors (a tie goes to the first of ``BOUNDS``).

    Examples
    --------
    >>> bound_of(span("step", "cpu", 1e-3, launches=100), {"peak_flops": 1e12, "bandwidth": 1e9, "launch_s": 5e-6})
    'launch'
    """
    f = floors(s, peaks)
    return max(BOUNDS, key=lambda b: (f[b], -BOUNDS.index(b)))


def roofline_time(s, peaks):
    """The least time the span's work can take: ``max(compute, bandwidth)`` floor, at most its measured time.

    Examples
    --------
    >>> roofline_time(span("sync", "sync", 2e-3, wait_s=2e-3), {"peak_flops": 1e12, "bandwidth": 1e9, "launch_s": 1e-6})
    0.0
    """
    f = floors(s, peaks)
    return min(float(s["seconds"]), max(f["compute"], f["bandwidth"]))


def first_change(spans, peaks):
    """``(name, predicted step time)``: the span whose drop to its roofline time shortens the step most.

    A tie goes to the span listed first.
    """
    predicted = [(step_time(spans, {s["name"]: roofline_time(s, peaks)}), i, s["name"]) for i, s in enumerate(spans)]
    seconds, _, name = min(predicted)
    return name, seconds


def path_problem(path, spans, rel_tol=1e-9):
    """Why ``path`` is not a critical path of the spans, or None when it is one.

    Examples
    --------
    >>> spans = [span("a", "cpu", 1.0), span("b", "cpu", 2.0), span("c", "cpu", 0.5, ["a", "b"])]
    >>> path_problem(["b", "c"], spans) is None
    True
    >>> path_problem(["a", "c"], spans)
    "the chain ['a', 'c'] takes 1.5 s, but the step takes 2.5 s"
    """
    by_name = check_spans(spans)
    if not isinstance(path, (list, tuple)) or not path or not all(isinstance(n, str) for n in path):
        return f"expected a non-empty list of span names, got {path!r}"
    unknown = [n for n in path if n not in by_name]
    if unknown:
        return f"{unknown[0]!r} is not a span of this profile"
    for a, b in zip(path, path[1:], strict=False):
        if a not in by_name[b]["deps"]:
            return f"{list(path)} is not a chain: {b!r} does not wait for {a!r}"
    length, total = sum(float(by_name[n]["seconds"]) for n in path), step_time(spans)
    if abs(length - total) > rel_tol * total:
        return (f"the chain {list(path)} takes {format_seconds(length, 6)}, but the step takes "
                f"{format_seconds(total, 6)}")
    return None
