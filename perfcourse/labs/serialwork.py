"""Where serial time comes from, as two experiments that run on either backend.

1. :class:`Pipeline`: a host step in pure Python (parsing text records: serial, it holds the
   interpreter) followed by the grid-stride kernel on ``workers`` blocks (GPU) or worker
   threads (CPU). Timing the two steps apart gives the serial fraction ``s``; Amdahl's law
   then predicts the whole pipeline's speedup, which is measured next.
2. :class:`CallCount`: the same elementwise work issued as many tiny calls (one chain of
   library calls per row), as a few calls over the whole block, and on the GPU as one fused
   kernel or as the tiny launches replayed from a CUDA graph. Each call carries a fixed cost,
   which is serial work: ``time ~ work + calls x per-call cost``.

Examples
--------
>>> records = make_records(3, seed=1)
>>> records[0]
'request=0;scale=1.011822'
>>> round(parse_records(records), 6)
1.035482
"""

from __future__ import annotations

import math

import numpy as np

from .._check import positive_int
from ..measure import backend as _backend
from ..measure.kernels._base import array_module, relative_error
from ..measure.kernels.gridstride import TILE, B, grid_stride

__all__ = ["make_records", "parse_records", "Pipeline", "CallCount", "cuda_graph"]


def make_records(count, seed=0):
    """``count`` text records ``"request=i;scale=v"`` with ``v`` uniform in [0.5, 1.5)."""
    count = positive_int("count", count)
    values = np.random.default_rng(seed).uniform(0.5, 1.5, count)
    return [f"request={i};scale={v:.6f}" for i, v in enumerate(values)]


def parse_records(records):
    """The serial host step: parse every record in a Python loop and return the mean scale."""
    if not isinstance(records, list) or not records:
        raise ValueError(f"records must be a non-empty list of strings; got {type(records).__name__}")
    total = 0.0
    for record in records:
        fields = dict(part.split("=", 1) for part in record.split(";"))
        total += float(fields["scale"])
    return total / len(records)


class Pipeline:
    """Parse records on the host (serial), then run the grid-stride kernel on ``workers``.

    The kernel applies ``v -> a v + b`` ``steps`` times to ``n`` elements, with ``b`` set by
    the parsed records, so the device step really depends on the host step.

    Parameters
    ----------
    records : int, number of text records the host step parses
    n, steps : int, the kernel's sizes (elements, dependent multiply-adds per element)
    dtype : str, "float32" or "float64"
    xp : array module or None (the current backend)
    """

    def __init__(self, records, n, steps, *, dtype="float32", xp=None, seed=0):
        self.records = make_records(records, seed=seed)
        self.x, self.y, self.a, self.b, self.steps = grid_stride.make_inputs(n, steps, dtype=dtype, xp=xp,
                                                                             seed=seed)
        self.n, self.dtype = n, dtype

    def host_step(self):
        """The serial part: returns the ``b`` the device step uses."""
        return _b_from_scale(parse_records(self.records))

    def device_step(self, b, workers):
        """The parallel part: the grid-stride kernel on ``workers`` blocks (CPU: threads)."""
        return grid_stride.run(self.x, self.y, self.a, b, self.steps, blocks=positive_int("workers", workers))

    def __call__(self, workers):
        """The whole pipeline: host step, then device step."""
        return self.device_step(self.host_step(), workers)

    def error(self, workers):
        """Relative error of the pipeline's result against the float64 reference."""
        got = self(workers)
        want = grid_stride.expected(self.x, self.y, self.a, self.host_step(), self.steps)
        return relative_error(got, want)


def _b_from_scale(mean_scale):
    """The additive constant the pipeline uses: the kernel's default ``b`` times the parsed mean."""
    return B * float(mean_scale)


class CallCount:
    """The same elementwise work, ``v -> a v + b`` applied ``steps`` times, issued three ways.

    The data is a ``rows x cols`` block. ``per_row`` makes ``rows x (2 steps + 1)`` tiny
    library calls (each row on its own); ``whole`` makes ``2 steps + 1`` calls over the whole
    block; ``fused`` runs the grid-stride kernel once over the block (one launch on the GPU,
    where every element's chain stays in registers).
    """

    def __init__(self, rows, cols, steps, *, dtype="float32", xp=None, seed=0):
        self.rows, self.cols = positive_int("rows", rows), positive_int("cols", cols)
        self.steps = positive_int("steps", steps)
        x, y, self.a, self.b, _ = grid_stride.make_inputs(rows * cols, steps, dtype=dtype, xp=xp, seed=seed)
        self.x, self.y = x.reshape(rows, cols), y.reshape(rows, cols)
        self.xp = array_module(self.x)
        self.row_pairs = list(zip(self.x, self.y, strict=True))  # row views, made once
        self.a, self.b = self.x.dtype.type(self.a), self.x.dtype.type(self.b)

    def chain(self, x, y):
        """``2 steps + 1`` library calls on one pair of arrays (a copy, then multiply, add, ...)."""
        xp, a, b = self.xp, self.a, self.b
        xp.copyto(y, x)
        for _ in range(self.steps):
            xp.multiply(y, a, out=y)
            xp.add(y, b, out=y)
        return y

    def per_row(self):
        """Many tiny calls: the chain on every row separately."""
        for x, y in self.row_pairs:
            self.chain(x, y)
        return self.y

    def whole(self):
        """Few calls: the chain once over the whole block."""
        return self.chain(self.x, self.y)

    def fused(self):
        """One grid-stride kernel over the block (one launch on the GPU)."""
        grid_stride.run(self.x.reshape(-1), self.y.reshape(-1), self.a, self.b, self.steps)
        return self.y

    def one_row(self):
        """The chain on the first row only: ``2 steps + 1`` tiny calls whose work is almost nothing.

        Its time divided by its call count is the fixed cost of one call, the same mix of calls
        that ``per_row`` makes.
        """
        return self.chain(*self.row_pairs[0])

    def calls(self, version):
        """Library calls (GPU: launches) a version makes: per_row, one_row, whole or fused."""
        chain = 2 * self.steps + 1
        if version == "per_row":
            return self.rows * chain
        if version in ("whole", "one_row"):
            return chain
        if version == "fused":
            on_cpu = self.xp is np
            return math.ceil(self.rows * self.cols / TILE) * chain if on_cpu else 1
        raise ValueError(f"version must be 'per_row', 'one_row', 'whole' or 'fused'; got {version!r}")

    def error(self, version):
        """Relative error of one version's result against the float64 reference."""
        got = getattr(self, version)()
        want = grid_stride.expected(self.x, self.y, self.a, self.b, self.steps)
        return relative_error(got, want)


def cuda_graph(fn):
    """Capture the launches ``fn()`` makes into a CUDA graph; return a function replaying it.

    Only on the GPU backend. ``fn`` must neither allocate nor synchronise (capture forbids
    both). The replay is queued on the current stream, so timers on it see it. Raises
    RuntimeError saying why when graphs cannot be used here.
    """
    if not callable(fn):
        raise TypeError(f"fn must be callable; got {fn!r}")
    b = _backend.get()
    if not b.on_gpu:
        raise RuntimeError(f"CUDA graphs need the GPU backend; this run uses {b.name} on {b.device}")
    cp = b.xp
    stream = cp.cuda.Stream(non_blocking=True)
    try:
        with stream:
            fn()                     # compile and warm up outside the capture
            stream.synchronize()
            stream.begin_capture()
            try:
                fn()
            finally:
                graph = stream.end_capture()
    except Exception as err:  # noqa: BLE001 - any capture failure becomes an explanation
        raise RuntimeError(f"CUDA graph capture failed: {type(err).__name__}: {err}") from err

    def replay():
        graph.launch()

    replay.graph = graph
    return replay
