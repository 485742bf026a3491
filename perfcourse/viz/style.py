"""The one look of the course's figures: sizes, colours, grids, and how an ``ax`` is obtained.

Every plotting function in :mod:`perfcourse.viz` takes ``ax=None`` (a new figure of the
course's size is made), draws, and returns the ``Axes``; none calls ``plt.show()``. Its labels
are in the learner's language (:mod:`.fonts`).
"""

from __future__ import annotations

from .fonts import figure_language

__all__ = ["FIGSIZE", "WIDE", "TALL", "WIDGET_FIGSIZE", "WIDGET_DPI", "KIND_COLORS", "PERCENTILE_STYLES",
           "FONT_SMALL", "axes", "finish"]

FIGSIZE = (6.4, 4.2)     # one plot
WIDE = (7.0, 3.8)        # a bar chart or a timeline with a legend beside it
TALL = (6.4, 3.6)        # a graph drawn top to bottom
WIDGET_FIGSIZE = (6.4, 3.8)   # an explorer's figure, redrawn as a control moves
WIDGET_DPI = 100              # its pixels per inch: sharp on screen, cheap enough to redraw on every step
FONT_SMALL = 8
# one colour per kind of time, the same in every lesson
KIND_COLORS = {"cpu": "tab:blue", "copy": "tab:orange", "kernel": "tab:green", "sync": "tab:red",
               "other": "tab:gray"}
PERCENTILE_STYLES = ((50, "o-"), (95, "s--"), (99, "^:"))


def axes(ax=None, figsize=FIGSIZE):
    """``ax`` itself, or the axes of a new figure of ``figsize`` when ``ax`` is None.

    In the Chinese edition a font with Chinese glyphs is registered first (see :mod:`.fonts`).
    """
    figure_language()
    if ax is not None:
        if not hasattr(ax, "plot"):
            raise TypeError(f"ax must be a matplotlib Axes or None; got {type(ax).__name__}")
        return ax
    import matplotlib.pyplot as plt

    return plt.subplots(figsize=figsize)[1]


def finish(ax, *, xlabel=None, ylabel=None, title=None, legend=True, grid=True, legend_loc="best"):
    """Labels (each with its unit), a light grid and a small legend: the course's standard finish."""
    if xlabel:
        ax.set_xlabel(xlabel)
    if ylabel:
        ax.set_ylabel(ylabel)
    if grid:
        ax.grid(True, which="both", alpha=0.3)
    if legend and ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=FONT_SMALL, loc=legend_loc)
    if title:
        ax.set_title(title, fontsize=9)
    return ax
