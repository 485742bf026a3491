"""The course's standard measurements: each kernel at the sizes and options the lessons discuss.

``run()`` times every configuration in the plan with :func:`perfcourse.measure.timing.measure` and
returns one plain record per configuration (kernel, sizes, dtype, options, FLOPs, bytes,
p50/p95/p99, achieved FLOP/s and bytes/s). ``perfcourse gpu-check`` stores these records in
its report, so a lesson opened without a GPU can show what the same kernels did on one.

Examples
--------
>>> [g for g in GROUPS][:3]
['stream', 'sum', 'recurrence']
>>> records = [{"group": "sum", "name": "a"}, {"group": "stream", "name": "b"}]
>>> [r["name"] for r in select(records, "stream")]
['b']
"""

from __future__ import annotations

from .._check import positive_int
from . import backend as _backend
from . import kernels, timing
from .kernels import sizes

__all__ = ["GROUPS", "plan", "run", "measure_one", "select"]

GROUPS = ("stream", "sum", "recurrence", "dense", "matmul", "grid_stride", "fma", "strided_read")


def _pow2(lo, hi):
    return [2**e for e in range(lo, hi + 1)]


def plan(on_gpu=True, quick=False, stream_n=2**24, sms=None, threads_per_sm=None):
    """The configurations to measure: a list of ``(group, name, kernel, sizes, dtype, options)``.

    GPU sizes are chosen to be large enough to reach the ceilings; CPU and ``quick`` sizes
    are small enough to run in seconds. On a GPU, ``sms`` and ``threads_per_sm`` are the
    device's own (``Backend.sms``, ``Backend.threads_per_sm``): the occupancy runs fill it.
    """
    if on_gpu:
        sms, threads_per_sm = positive_int("sms", sms), positive_int("threads_per_sm", threads_per_sm)
    big = on_gpu and not quick
    n_vec = stream_n
    mm = [1024, 2048, 4096, 8192] if big else [128, 256]
    dt_mm = ["bfloat16", "float16", "float32"] if on_gpu else ["float32"]
    d = 4096 if big else 256
    steps = []
    steps += [("stream", k, k, (n_vec,), "float32", {}) for k in ("copy", "scale", "add", "triad")]
    n_sum = 2**22 if big else 2**16
    steps += [("sum", k, k, (n, ), "float32", {}) for k in ("sum_serial", "sum_tree", "sum_library")
              for n in ([n_sum] if k == "sum_serial" else [n_sum, 16 * n_sum])]
    n_rec = 2**20 if big else 2**12
    steps += [("recurrence", "recurrence_serial", "recurrence_serial", (n_rec,), "float32", {}),
              ("recurrence", "recurrence_scan", "recurrence_scan", (n_rec,), "float32", {}),
              ("recurrence", "recurrence_scan", "recurrence_scan", (16 * n_rec,), "float32", {})]
    for dt in (["bfloat16", "float32"] if on_gpu else ["float32"]):
        steps += [("dense", f"dense b={b}", "dense", (b, d), dt, {}) for b in _pow2(0, 12 if big else 6)]
    for dt in dt_mm:
        steps += [("matmul", f"matmul {s}^3", "matmul", (s, s, s), dt, {}) for s in mm]
        awkward = 4096 if big else 256
        steps += [("matmul", f"matmul {awkward + 1}^3", "matmul", (awkward + 1,) * 3, dt, {}),
                  ("matmul", "matmul tall-skinny", "matmul", (16 * awkward, awkward, 64), dt, {})]
    if big:
        steps.append(("matmul", "matmul 4096^3", "matmul", (4096,) * 3, "float64", {}))
    n_grid, g_steps = (2**24, 64) if big else (2**16, 8)
    steps += [("grid_stride", f"strong blocks={b}", "grid_stride", (n_grid, g_steps), "float32", {"blocks": b})
              for b in _pow2(0, 12 if big else 2)]
    steps += [("grid_stride", f"weak blocks={b}", "grid_stride", (b * 2**14, g_steps), "float32",
               {"blocks": b}) for b in _pow2(0, 12 if big else 2)]
    fmas = 2**16 if big else 64
    few = sms * 128 if on_gpu else 2**10
    steps += [("fma", f"chains={c} low occupancy", "fma_chains", (few, fmas), "float32",
               {"chains": c, "threads_per_block": 128}) for c in (1, 2, 4, 8)]
    many = sms * threads_per_sm * 4 if on_gpu else 2**12
    steps += [("fma", f"chains={c} block={t}", "fma_chains", (many, fmas // 16 if big else fmas), "float32",
               {"chains": c, "threads_per_block": t}) for c in (1, 8) for t in (32, 64, 128, 256, 1024)]
    n_str = 2**26 if big else 2**16
    steps += [("strided_read", f"stride={s}", "strided_read", (n_str,), "float32", {"stride": s})
              for s in _pow2(0, 7)]
    return steps


def measure_one(group, name, kernel, size, dtype, options, *, backend=None, repeat=15, max_duration_s=1.5):
    """Time one configuration (its first size halved while memory runs out); return its record."""
    b = backend or _backend.get()
    k = kernels.get(kernel)
    first, args = sizes.fit(lambda m: k.make_inputs(m, *size[1:], dtype=dtype, xp=b.xp, seed=7), size[0],
                            what=f"{kernel} inputs")
    size = (first, *size[1:])
    t = timing.measure(k.run, *args, kwargs=dict(options), repeat=repeat, warmup_s=0.05,
                       max_duration_s=max_duration_s, name=f"{kernel} {name}", backend=b)
    flops, nbytes = k.flops(*size), k.bytes_moved(*size, dtype=dtype)
    return {"group": group, "name": name, "kernel": kernel, "sizes": list(size), "dtype": dtype,
            "options": dict(options), "flops": flops, "bytes": nbytes, "p50_s": t.p50, "p95_s": t.p95,
            "p99_s": t.p99, "samples": t.n, "batch": t.batch, "noisy": t.noisy,
            "flop_rate": flops / t.p50 if t.p50 > 0 else None, "byte_rate": nbytes / t.p50 if t.p50 > 0 else None}


def run(groups=None, *, quick=False, backend=None, progress=True, log=None):
    """Measure every configuration of the plan in ``groups`` (default: all); return the records.

    A configuration that fails gives a record with an ``"error"`` text instead of stopping the
    rest. ``log`` (a callable taking one line) is told about each failure.
    """
    from tqdm.auto import tqdm

    b = backend or _backend.get()
    groups = GROUPS if groups is None else tuple(groups)
    for g in groups:
        if g not in GROUPS:
            raise ValueError(f"groups must be taken from {GROUPS}; got {g!r}")
    stream_n = sizes.stream_elements(b, quick=quick)
    todo = [p for p in plan(b.on_gpu, quick, stream_n, b.sms, b.threads_per_sm) if p[0] in groups]
    records = []
    for group, name, kernel, size, dtype, options in tqdm(todo, desc="experiments", disable=not progress):
        try:
            records.append(measure_one(group, name, kernel, size, dtype, options, backend=b,
                                       repeat=5 if quick else 15, max_duration_s=0.5 if quick else 1.5))
        except Exception as err:  # noqa: BLE001 - one failure must not hide the other figures
            text = f"{type(err).__name__}: {err}"
            records.append({"group": group, "name": name, "kernel": kernel, "sizes": list(size), "dtype": dtype,
                            "options": dict(options), "error": text})
            if log:
                log(f"experiment {group}/{name} ({dtype}) failed: {text}")
    return records


def select(records, group):
    """The records of one group, in the order they were measured."""
    return [r for r in records if r.get("group") == group]
