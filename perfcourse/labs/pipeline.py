"""The case study of lesson 08: one small inference pipeline, from naive to fast, one change at a time.

A batch holds ``n`` requests; request ``i`` is a float64 host array of ``L_i`` rows (tokens)
by ``d`` features. Each row is layer-normalised, projected by ``W`` (``d x d``) plus a bias,
passed through ``tanh``, and the rows of each request are averaged into one output vector::

    out[i] = mean over rows r of  tanh( (x_r - mean(x_r)) / sqrt(var(x_r) + eps) @ W + bias )

Every version computes the same thing in float32 and is checked against a float64
reference. A version is a :class:`Settings` with three independent choices, so that one
change flips exactly one of them:

- ``sync``: ``"each kernel"`` (a synchronisation after every array operation) or ``"once"``;
- ``copies``: ``"per request"`` (convert and copy each request to the device, and each
  output back, on its own) or ``"one"`` (one conversion and one copy each way);
- ``kernels``: ``"per request"`` (a Python loop: eight small operations per request),
  ``"padded batch"`` (the requests padded to the longest and processed as one block) or
  ``"packed batch"`` (the rows packed end to end, no padding).

``NAIVE`` is every first choice. ``run(prof, batch, settings)`` returns the ``n x d`` outputs
on the host; ``prof`` is a :class:`perfcourse.measure.profiler.Profiler`, or ``profiler.NULL`` to time
the pipeline without the profiler's own cost. On the CPU backend, "copies" are explicit array
copies (host to host) and "kernels" are NumPy calls, each paying Python's per-call overhead.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .._check import choice
from .._lang import N_, lookup
from .workload import EPS, TOLERANCE, Batch, make_batch, max_error, mixed_lengths, reference, uniform_lengths

# the batch, its reference and the tolerance live in .workload; a lesson reaches them from here too
__all__ = ["EPS", "TOLERANCE", "Settings", "NAIVE", "CHANGES", "Batch", "make_batch", "uniform_lengths",
           "mixed_lengths", "reference", "max_error", "run"]

@dataclass(frozen=True)
class Settings:
    """One version of the pipeline (see the module docstring for the choices)."""

    sync: str = "each kernel"
    copies: str = "per request"
    kernels: str = "per request"

    CHOICES = {"sync": ("each kernel", "once"), "copies": ("per request", "one"),
               "kernels": ("per request", "padded batch", "packed batch")}

    def __post_init__(self):
        for name, allowed in self.CHOICES.items():
            choice(name, getattr(self, name), allowed)

    def but(self, **change):
        """A copy with exactly one setting changed (to a different value).

        Examples
        --------
        >>> NAIVE.but(sync="once").label()
        'sync once | copies per request | kernels per request'
        """
        if len(change) != 1:
            raise ValueError(f"change exactly one setting at a time; got {sorted(change) or 'none'}")
        (name, value), = change.items()
        if name not in self.CHOICES:
            raise ValueError(f"setting must be one of {', '.join(self.CHOICES)}; got {name!r}")
        if getattr(self, name) == value:
            raise ValueError(f"{name} is already {value!r}: that is no change")
        return replace(self, **change)

    def label(self):
        """The three choices in one line, in the learner's language (a timing's name in lesson 08)."""
        return " | ".join(lookup(_PHRASES[name, getattr(self, name)]) for name in self.CHOICES)


# each choice as the label writes it (literals, so that the catalogs collect them)
_PHRASES = {("sync", "each kernel"): N_("sync each kernel"), ("sync", "once"): N_("sync once"),
            ("copies", "per request"): N_("copies per request"), ("copies", "one"): N_("copies one"),
            ("kernels", "per request"): N_("kernels per request"),
            ("kernels", "padded batch"): N_("kernels padded batch"),
            ("kernels", "packed batch"): N_("kernels packed batch")}


NAIVE = Settings()
# (setting, new value, the kind of time it attacks), tried in the order the profile asks for
CHANGES = (("sync", "once", "sync"), ("copies", "one", "copy"), ("kernels", "padded batch", "kernel"))


# --- the pieces every version is built from -----------------------------------------------------

def _kernel(prof, b, name, sync, fn, *args):
    with prof.span(name, "kernel"):
        y = fn(*args)
    if sync:
        with prof.span("sync", "sync"):
            b.synchronize()
    return y


def _mean_last(x):
    return x.mean(axis=-1, keepdims=True)


def _project(z, w):
    """``z @ w`` on the last axis, as one 2-D matrix product whatever the leading axes."""
    return (z.reshape(-1, z.shape[-1]) @ w).reshape(*z.shape[:-1], w.shape[1])


def _normalize(xc, var):
    return xc / (var + EPS) ** 0.5


def _rows(prof, b, x, w, bias, sync):
    """Seven array operations on rows (the last axis holds the features)."""
    xp = b.xp
    mu = _kernel(prof, b, "mean", sync, _mean_last, x)
    xc = _kernel(prof, b, "center", sync, xp.subtract, x, mu)
    var = _kernel(prof, b, "variance", sync, lambda a: _mean_last(a * a), xc)
    z = _kernel(prof, b, "normalize", sync, _normalize, xc, var)
    h = _kernel(prof, b, "matmul", sync, _project, z, w)
    h = _kernel(prof, b, "bias", sync, xp.add, h, bias)
    return _kernel(prof, b, "tanh", sync, xp.tanh, h)


def _to_device(b, host):
    return b.xp.asarray(host) if b.on_gpu else np.array(host, copy=True)


def _to_host(b, dev):
    return b.to_numpy(dev) if b.on_gpu else np.array(dev, copy=True)


def _layout(batch, padded):
    """Device array shape, each request's slot in it, and the arrays the pooling needs (host arrays)."""
    lengths, d = batch.lengths, batch.d
    if padded:
        mask = ((np.arange(lengths.max()) < lengths[:, None]) / lengths[:, None]).astype(np.float32)
        return (len(lengths), int(lengths.max()), d), [(i, slice(0, n)) for i, n in enumerate(lengths)], \
            (mask[..., None],)
    ends = np.cumsum(lengths)
    return (int(ends[-1]), d), [slice(e - n, e) for e, n in zip(ends, lengths, strict=True)], \
        (ends - lengths, lengths.astype(np.float32))


def _upload(prof, batch, padded, one_copy):
    b = batch.backend
    shape, slots, pool_args = _layout(batch, padded)
    if one_copy:
        with prof.span("to float32", "cpu"):
            host = np.zeros(shape, dtype=np.float32)
            for slot, r in zip(slots, batch.requests, strict=True):
                host[slot] = r
        with prof.span("copy in", "copy"):
            x = _to_device(b, host)
    else:
        x = _kernel(prof, b, "zeros", False, b.xp.zeros, shape, np.float32)
        for slot, r in zip(slots, batch.requests, strict=True):
            with prof.span("to float32", "cpu"):
                host = np.asarray(r, dtype=np.float32)
            with prof.span("copy in", "copy"):
                x[slot] = b.xp.asarray(host) if b.on_gpu else host
    with prof.span("copy in", "copy"):
        pool_args = tuple(_to_device(b, h) for h in pool_args)
    return x, slots, pool_args


def _segment_mean(xp, a, starts, lengths):
    """Mean of each request's rows in the packed ``a``: NumPy's reduceat, or a running sum on the GPU."""
    if xp is np:
        return np.add.reduceat(a, starts, axis=0) / lengths[:, None]
    csum = xp.cumsum(a, axis=0, dtype=xp.float64)
    ends = csum[starts + lengths.astype(starts.dtype) - 1]
    before = xp.concatenate([xp.zeros((1, a.shape[1]), dtype=xp.float64), ends[:-1]])
    return ((ends - before) / lengths[:, None]).astype(xp.float32)


def _compute(prof, batch, settings, x, slots, pool_args, sync):
    b, w, bias = batch.backend, batch.w, batch.bias
    if settings.kernels == "per request":
        outs = [_kernel(prof, b, "pool", sync, lambda a: a.mean(axis=0), _rows(prof, b, x[s], w, bias, sync))
                for s in slots]
        return _kernel(prof, b, "stack", sync, b.xp.stack, outs)
    a = _rows(prof, b, x, w, bias, sync)
    if settings.kernels == "padded batch":
        return _kernel(prof, b, "pool", sync, lambda a, m: (a * m).sum(axis=1), a, *pool_args)
    return _kernel(prof, b, "pool", sync, _segment_mean, b.xp, a, *pool_args)


def run(prof, batch, settings=NAIVE):
    """Run one version of the pipeline on ``batch``; return the ``n x d`` outputs (host, float32).

    Examples
    --------
    >>> from perfcourse.measure.profiler import NULL
    >>> batch = make_batch([3, 1, 5], 8)
    >>> ref = reference(batch)
    >>> errors = [max_error(run(NULL, batch, s), ref) for s in
    ...           (NAIVE, Settings("once", "one", "padded batch"), Settings("once", "one", "packed batch"))]
    >>> all(e < TOLERANCE for e in errors)
    True
    """
    if not isinstance(batch, Batch):
        raise TypeError(f"batch must be a pipeline.Batch (see make_batch); got {type(batch).__name__}")
    if not isinstance(settings, Settings):
        raise TypeError(f"settings must be a pipeline.Settings; got {type(settings).__name__}")
    b, sync = batch.backend, settings.sync == "each kernel"
    x, slots, pool_args = _upload(prof, batch, settings.kernels == "padded batch", settings.copies == "one")
    out = _compute(prof, batch, settings, x, slots, pool_args, sync)
    if not sync:
        with prof.span("sync", "sync"):
            b.synchronize()
    if settings.copies == "one":
        with prof.span("copy out", "copy"):
            return _to_host(b, out)
    rows = []
    for i in range(out.shape[0]):
        with prof.span("copy out", "copy"):
            rows.append(_to_host(b, out[i]))
    with prof.span("stack", "cpu"):
        return np.stack(rows)
