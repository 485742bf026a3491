"""Latency against batch, and throughput against latency, from a batch sweep's timings."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from .._check import real
from .fonts import _
from .style import FONT_SMALL, PERCENTILE_STYLES, axes, finish

__all__ = ["plot_latency_by_batch", "plot_latency_throughput"]


def _checked_timings(timings):
    if not isinstance(timings, Mapping) or not timings:
        raise TypeError(f"timings must be a non-empty mapping batch -> Timing; got {type(timings).__name__}")
    return sorted(timings)


def plot_latency_by_batch(timings, ax=None, *, slo=None, model=None, title=None):
    """Latency p50/p95/p99 against batch (log-log), with an optional SLO line and model curve.

    ``timings`` maps batch -> Timing (from ``pc.batches.sweep_batches``); ``model`` is
    ``(label, batches, seconds)``; ``slo`` is in seconds. Returns the axes.
    """
    batches = _checked_timings(timings)
    ax = axes(ax)
    for q, style in PERCENTILE_STYLES:
        ax.loglog(batches, [timings[b].percentile(q) * 1e3 for b in batches], style,
                  label=_("p{q} measured").format(q=q))
    if model is not None:
        label, xs, ys = model
        ax.loglog(xs, np.asarray(ys) * 1e3, "k-", lw=1, alpha=0.6, label=label)
    if slo is not None:
        ax.axhline(real("slo", slo, low=0, low_open=True) * 1e3, color="tab:red", lw=1, label="SLO")
    return finish(ax, xlabel=_("batch b [rows per call]"), ylabel=_("latency per call [ms]"), title=title)


def plot_latency_throughput(timings, ax=None, *, q=50, title=None, model=None):
    """Throughput (rows/s at the q-th percentile latency) against that latency, one point per batch.

    ``model``: ``{batch: seconds}`` the model predicts, drawn as a line through the same batches, so
    that where the measured points leave its shape can be read off the plot.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from perfcourse.measure.samples import Timing
    >>> t = {b: Timing.from_samples([1e-3 * (1 + b / 8)] * 5) for b in (1, 8)}
    >>> ax = plot_latency_throughput(t, model={1: 1e-3, 8: 1.5e-3})
    >>> [line.get_label() for line in ax.get_lines()]
    ['measured (p50)', 'model']
    """
    batches = _checked_timings(timings)
    q = real("q", q, low=0, high=100)
    ax = axes(ax)
    lat = np.array([timings[b].percentile(q) for b in batches])
    thr = np.array(batches) / lat
    ax.loglog(lat * 1e3, thr, "o-", label=_("measured (p{q:g})").format(q=q))
    if model is not None:
        if not isinstance(model, dict) or sorted(model) != batches:
            raise ValueError(f"model must map each batch size ({batches}) to the model's seconds; got {model!r}")
        m = np.array([real(f"model seconds at b={b}", model[b], low=0, low_open=True) for b in batches])
        ax.loglog(m * 1e3, np.array(batches) / m, "k-", lw=1, alpha=0.6, label=_("model"))
    for b, x, y in zip(batches, lat * 1e3, thr, strict=True):
        ax.annotate(f"b={b}", (x, y), textcoords="offset points", xytext=(4, 4), fontsize=FONT_SMALL - 1)
    ax.margins(0.12)
    return finish(ax, xlabel=_("latency per call, p{q:g} [ms]").format(q=q), ylabel=_("throughput [rows/s]"),
                  title=title, legend=model is not None)
