"""Where the wall time went: stacked bars of a profile's breakdown, one colour per kind."""

from __future__ import annotations

import numpy as np

from .fonts import _
from .style import KIND_COLORS, WIDE, axes, finish

__all__ = ["plot_breakdowns"]


def plot_breakdowns(breakdowns, ax=None, *, title=None):
    """Stacked bars: one bar per label, one colour per kind (cpu, copy, kernel, sync, other), in ms.

    Parameters
    ----------
    breakdowns : dict
        Label -> a ``Profile.breakdown()`` dict (seconds per kind).
    """
    if not isinstance(breakdowns, dict) or not breakdowns:
        raise ValueError("breakdowns must be a non-empty dict label -> Profile.breakdown()")
    ax = axes(ax, WIDE)
    labels = list(breakdowns)
    bottom = np.zeros(len(labels))
    for kind, color in KIND_COLORS.items():
        heights = np.array([breakdowns[k].get(kind, 0.0) for k in labels]) * 1e3
        ax.bar(labels, heights, bottom=bottom, label=_("other") if kind == "other" else kind, color=color)
        bottom += heights
    ax.tick_params(axis="x", labelsize=8)
    return finish(ax, ylabel=_("wall time per batch [ms]"), title=title, grid=False)
