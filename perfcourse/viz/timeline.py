"""Asynchronous launches: the host's launch calls and the device's kernels on two rows."""

from __future__ import annotations

import numpy as np

from .._check import choice
from ..models.launches import Timeline
from ..units import format_seconds, per_second
from .fonts import _
from .style import WIDE, axes

__all__ = ["draw_timeline"]



def draw_timeline(timeline, ax=None, *, unit="ms", title=None):
    """Draw a :class:`~perfcourse.models.launches.Timeline`: launches on top, kernels below; return the axes.

    ``unit`` is the time axis' unit: "s", "ms" or "µs". ``timeline.summary()`` says the same in words.
    """
    scale = per_second(choice("unit", unit, ("s", "ms", "µs")))
    if not isinstance(timeline, Timeline):
        raise TypeError(f"timeline must be a Timeline from async_timeline; got {type(timeline).__name__}")
    t = timeline
    ax = axes(ax, WIDE)
    ax.scatter(t.issued * scale, np.full(t.issued.size, 1.0), marker="|", s=300, color="tab:blue",
               label=_("launch returns on the host"))
    ax.broken_barh([(s * scale, (e - s) * scale) for s, e in zip(t.start, t.end, strict=True)], (-0.35, 0.7),
                   facecolors="tab:orange", edgecolors="white", label=_("kernel runs on the device"))
    ax.axvline(t.host_s * scale, color="tab:blue", ls="--",
               label=_("timer without sync: {time}").format(time=format_seconds(t.host_s)))
    ax.axvline(t.device_s * scale, color="tab:red", ls="-",
               label=_("timer after sync: {time}").format(time=format_seconds(t.device_s)))
    ax.set_yticks([0, 1], ["device", "host"])
    ax.set_ylim(-0.8, 1.8)
    ax.set_xlabel(_("time since the first launch [{unit}]").format(unit=unit))
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small")
    if title:
        ax.set_title(title, fontsize=9)
    return ax
