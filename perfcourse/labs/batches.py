"""Batch sweeps: one dense-layer call (or any call) timed at every batch size of a list."""

from __future__ import annotations

from tqdm.auto import tqdm

from .._check import positive_int, real
from .._lang import _
from ..measure import timing

__all__ = ["sweep_batches"]


def sweep_batches(make_call, batches, *, min_samples=5, progress=True, **measure_kwargs):
    """Measure one call per batch size; return ``{batch: Timing}``.

    Parameters
    ----------
    make_call : callable
        ``make_call(batch)`` prepares inputs for that batch and returns a function of no
        arguments that does the work once (it is what gets timed).
    batches : iterable of int
        Batch sizes, each >= 1.
    min_samples : int
        Samples every batch gets, even when a slow call makes that take longer than
        ``max_duration_s``: one call is timed first and the cap stretched to fit.
    progress : bool
        Show a tqdm progress bar.
    **measure_kwargs
        Passed to :func:`perfcourse.measure.timing.measure` (``repeat``, ``max_duration_s``...).

    Examples
    --------
    >>> got = sweep_batches(lambda b: (lambda: sum(range(b))), [1, 4], progress=False, repeat=3, warmup_s=0)
    >>> sorted(got), all(t.n == 3 for t in got.values())
    ([1, 4], True)
    """
    if not callable(make_call):
        raise TypeError(f"make_call must be a function batch -> call; got {type(make_call).__name__}")
    batches = [positive_int("batch", b) for b in batches]
    if not batches:
        raise ValueError("batches must hold at least one batch size; got none")
    min_samples = positive_int("min_samples", min_samples)
    cap = real("max_duration_s", measure_kwargs.pop("max_duration_s", 10.0), low=0, low_open=True)
    result = {}
    for b in tqdm(batches, desc=_("batch sweep"), unit="batch", disable=not progress):
        call = make_call(b)
        one_call = timing.measure(call, repeat=1, warmup_s=0.0, batch=1).p50
        budget = max(cap, 1.25 * (min_samples + 2) * one_call)
        result[b] = timing.measure(call, name=f"batch {b}", min_samples=min_samples, max_duration_s=budget,
                                   **measure_kwargs)
    return result
