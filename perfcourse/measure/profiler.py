"""A small profiler: named spans timed on the host and, on a GPU, on the device.

Wrap each step of a pipeline in ``with prof.span(name, kind):``. ``kind`` says where the
time goes: ``"cpu"`` (Python and host work), ``"copy"`` (moving data between host and
device; on the CPU backend these are explicit array copies), ``"kernel"`` (array operations)
or ``"sync"`` (waiting for the device). Every span is timed on the host with
``perf_counter_ns``; on a GPU it is also bracketed by CUDA events (the time the device spent
between the two points) and by an NVTX range of the same name, so Nsight Systems
(``nsys profile``) shows the pipeline with the names used here.

The host view adds up to the wall time: what the host thread was doing, span by span, plus
"other" (loop overhead outside any span). On a GPU a kernel span's host time is only the
launch (the kernel runs later), and its work shows up in the next sync span, which is why
the device view is kept beside it.

Examples
--------
>>> prof = Profiler()
>>> with prof.span("square", "kernel"):
...     y = [i * i for i in range(1000)]
>>> p = prof.result(wall_s=1.0)
>>> p.spans["square"].count, p.spans["square"].kind
(1, 'kernel')
>>> sorted(p.breakdown())
['copy', 'cpu', 'kernel', 'other', 'sync']
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass

from .._check import choice, real
from .._lang import _
from ..units import format_seconds
from . import backend as _backend

__all__ = ["KINDS", "Profiler", "NullProfiler", "NULL", "Profile", "SpanTotal", "profile"]

KINDS = ("cpu", "copy", "kernel", "sync")


@dataclass(frozen=True)
class SpanTotal:
    """All spans of one name: their kind, how many, host seconds and device seconds (None on the CPU)."""

    name: str
    kind: str
    count: int
    host_s: float
    device_s: float | None


class _Nvtx:
    """NVTX push/pop when CuPy offers it, nothing otherwise."""

    def __init__(self, b):
        self.push = self.pop = None
        if b.on_gpu:
            with contextlib.suppress(Exception):
                from cupy.cuda import nvtx

                self.push, self.pop = nvtx.RangePush, nvtx.RangePop


class _Span:
    """One timed ``with`` block (a small class: cheaper per use than a generator)."""

    __slots__ = ("prof", "name", "kind", "t0", "events")

    def __init__(self, prof, name, kind):
        self.prof, self.name, self.kind, self.events = prof, name, kind, None

    def __enter__(self):
        prof = self.prof
        if prof.b.on_gpu:
            self.events = (prof.b.xp.cuda.Event(), prof.b.xp.cuda.Event())
            self.events[0].record()
        if prof._nvtx.push:
            prof._nvtx.push(self.name)
        self.t0 = time.perf_counter_ns()
        return self

    def __exit__(self, *exc):
        host = (time.perf_counter_ns() - self.t0) * 1e-9
        prof = self.prof
        if prof._nvtx.pop:
            prof._nvtx.pop()
        if self.events:
            self.events[1].record()
        prof._records.append((self.name, self.kind, host, *(self.events or (None, None))))
        return False


class Profiler:
    """Collects named spans; see the module docstring.

    Parameters
    ----------
    backend : Backend, optional
        Defaults to :func:`perfcourse.measure.backend.get`; on a GPU spans also get CUDA events and NVTX.
    """

    def __init__(self, backend=None):
        self.b = backend or _backend.get()
        if not isinstance(self.b, _backend.Backend):
            raise TypeError(f"backend must be a perfcourse.measure.backend.Backend or None; "
                            f"got {type(self.b).__name__}")
        self._nvtx = _Nvtx(self.b)
        self._records = []   # (name, kind, host seconds, start event, end event)

    def span(self, name, kind):
        """Time the body of a ``with`` block as one span called ``name`` of kind ``kind``."""
        if kind not in KINDS:
            choice("kind", kind, KINDS)
        if not isinstance(name, str) or not name:
            raise TypeError(f"name must be a non-empty string; got {name!r}")
        return _Span(self, name, kind)

    def result(self, wall_s):
        """Sum the spans by name into a :class:`Profile` of a run that took ``wall_s`` seconds."""
        wall_s = real("wall_s", wall_s, low=0)
        self.b.synchronize()
        totals = {}
        for name, kind, host, start, end in self._records:
            device = self.b.xp.cuda.get_elapsed_time(start, end) * 1e-3 if start is not None else None
            count, h, d = totals.get((name, kind), (0, 0.0, None))
            totals[(name, kind)] = (count + 1, h + host, None if device is None else (d or 0.0) + device)
        spans = {name: SpanTotal(name, kind, c, h, d) for (name, kind), (c, h, d) in totals.items()}
        return Profile(wall_s=wall_s, spans=spans, device=self.b.device, backend=self.b.name)


class NullProfiler:
    """Same interface, records nothing: for timing the pipeline without the profiler's own cost."""

    _nothing = contextlib.nullcontext()

    def span(self, name, kind):
        return self._nothing


NULL = NullProfiler()


@dataclass(frozen=True)
class Profile:
    """What one profiled run spent, by span: ``spans`` maps a name to its :class:`SpanTotal`."""

    wall_s: float
    spans: dict
    device: str = "unknown device"
    backend: str = "numpy"

    def by_kind(self, view="host"):
        """Seconds per kind (``cpu``, ``copy``, ``kernel``, ``sync``) in the host or device view."""
        choice("view", view, ("host", "device"))
        sums = dict.fromkeys(KINDS, 0.0)
        for s in self.spans.values():
            value = s.host_s if view == "host" else s.device_s
            sums[s.kind] += value or 0.0
        return sums

    def breakdown(self):
        """Host view of the wall time: seconds per kind plus ``other`` (outside every span).

        The parts add up to ``wall_s`` unless the spans overlap (then ``other`` is 0).

        Examples
        --------
        >>> p = Profile(0.010, {"f": SpanTotal("f", "kernel", 4, 0.006, None)})
        >>> {k: round(v, 6) for k, v in p.breakdown().items()}
        {'cpu': 0.0, 'copy': 0.0, 'kernel': 0.006, 'sync': 0.0, 'other': 0.004}
        """
        parts = self.by_kind("host")
        parts["other"] = max(0.0, self.wall_s - sum(parts.values()))
        return parts

    @property
    def n_spans(self):
        """How many spans were recorded (all names)."""
        return sum(s.count for s in self.spans.values())

    def overhead_per_span(self, bare_s):
        """The profiler's own cost per span (seconds): ``(wall_s - bare_s) / n_spans``, at least 0.

        ``bare_s`` is the same work timed without the profiler. The cost per span is roughly
        fixed, so it weighs most in a run made of many short spans.

        Examples
        --------
        >>> p = Profile(0.010, {"f": SpanTotal("f", "kernel", 1000, 0.006, None)})
        >>> round(p.overhead_per_span(0.008) * 1e6, 3)    # us per span
        2.0
        """
        bare_s = real("bare_s", bare_s, low=0)
        return max(self.wall_s - bare_s, 0.0) / self.n_spans if self.n_spans else 0.0

    def largest(self):
        """The span name with the most host time, and that time in seconds."""
        if not self.spans:
            raise ValueError("this profile holds no spans")
        top = max(self.spans.values(), key=lambda s: s.host_s)
        return top.name, top.host_s

    def table(self):
        """One line per span name, largest first, with its share of the wall time."""
        rows = [_("span          kind      calls   host total   per call   share")     # the columns below, aligned
                + (_("   device total") if self.backend == "cupy" else "")]
        for s in sorted(self.spans.values(), key=lambda s: -s.host_s):
            line = (f"{s.name:<14}{s.kind:<8}{s.count:>7}{format_seconds(s.host_s, unit='ms', decimals=3):>13}"
                    f"{format_seconds(s.host_s / s.count, unit='µs', decimals=2):>11}"
                    f"{s.host_s / self.wall_s if self.wall_s else 0:>8.1%}")
            rows.append(line + (f"{format_seconds(s.device_s, unit='ms', decimals=3):>15}"
                                if s.device_s is not None else ""))
        rows.append(_("(one profiled run of {wall}, {backend} on {device})").format(
            wall=format_seconds(self.wall_s, unit='ms', decimals=3), backend=self.backend, device=self.device))
        return "\n".join(rows)


def profile(fn, *args, repeat=3, backend=None):
    """Run ``fn(prof, *args)`` ``repeat`` times, each with a fresh :class:`Profiler`.

    Returns the :class:`Profile` of the run with the median wall time (one noisy run does not
    decide the picture). ``fn`` must take the profiler as its first argument.

    Examples
    --------
    >>> def work(prof, n):
    ...     with prof.span("build", "cpu"):
    ...         xs = list(range(n))
    ...     with prof.span("total", "kernel"):
    ...         return sum(xs)
    >>> p = profile(work, 1000, repeat=3)
    >>> sorted(p.spans), p.spans["build"].count
    (['build', 'total'], 1)
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable as fn(prof, *args); got {fn!r}")
    repeat = int(real("repeat", repeat, low=1, integer=True))
    b = backend or _backend.get()
    runs = []
    for _run in range(repeat):
        prof = Profiler(b)
        b.synchronize()
        t0 = time.perf_counter_ns()
        fn(prof, *args)
        b.synchronize()
        runs.append(prof.result((time.perf_counter_ns() - t0) * 1e-9))
    runs.sort(key=lambda p: p.wall_s)
    return runs[len(runs) // 2]
