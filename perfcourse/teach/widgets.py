"""One small pattern for every interactive figure in the course, fast enough to follow the hand.

``explorer(draw, **controls)`` lays out ipywidgets controls above a figure and calls
``draw(ax, **values)`` each time a control moves. The figure is made once; a change clears it,
redraws it and sends one PNG to an ``Image`` widget, which the browser swaps in place (no new
figure, no output area cleared and rebuilt). If ``draw`` returns a string it is shown under the
figure (the browser tests read it).

A move costs what Agg spends on the axes' ticks more than on the data, so an explorer's figure
is drawn lighter than a lesson's static one: a log axis marks 2 and 5 in each decade, not every
integer (half the minor ticks), and the title sits at a fixed height instead of being placed
around the tick labels on every draw. On a 2-core machine this takes a third off a redraw of the
lessons' log-log figures (about 70 ms to 47 ms).

Sliders update while they are dragged. A ``draw`` that takes longer than ``DEBOUNCE_ABOVE_S``
(a simulation, a measurement) is debounced instead: the text says it is computing, and the
figure is redrawn once the control has rested for ``DEBOUNCE_S``.
"""

from __future__ import annotations

import io
import math
import time

from .._lang import _, current, lookup
from ..viz.fonts import figure_language
from ..viz.style import WIDGET_DPI, WIDGET_FIGSIZE

__all__ = ["explorer", "slider", "log_slider", "dropdown", "Explorer", "DEBOUNCE_ABOVE_S", "DEBOUNCE_S"]

DEBOUNCE_ABOVE_S = 0.2    # a redraw slower than this (real computation) is debounced, not run on every step
DEBOUNCE_S = 0.15         # ... and runs once the control has been still this long


class Explorer:
    """The state behind one explorer: its figure, its image and text widgets, and the redraw."""

    def __init__(self, draw, figsize, controls):
        import ipywidgets as widgets
        import matplotlib
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure

        self.draw, self.controls = draw, controls
        figure_language()           # the Chinese font, registered before the first label is drawn
        self.figure = Figure(figsize=figsize, dpi=WIDGET_DPI)
        FigureCanvasAgg(self.figure)
        with matplotlib.rc_context({"axes.titley": 1.0}):   # a title at a fixed height: not placed on every draw
            self.ax = self.figure.add_subplot()
        self._margins = None        # fitted to the labels once, on the first draw, then kept
        self.image = widgets.Image(format="png", layout=widgets.Layout(width=f"{figsize[0] * WIDGET_DPI:.0f}px"))
        self.text = widgets.HTML()
        self.seconds = 0.0          # how long the last redraw took in the kernel
        self._pending = None

    def values(self):
        return {k: w.value for k, w in self.controls.items()}

    def redraw(self):
        """Draw at the controls' current values; update the image and the text."""
        t0 = time.perf_counter()
        for extra in self.figure.axes:
            if extra is not self.ax:   # twin axes or insets a previous draw added
                extra.remove()
        _reset(self.ax)
        line = self.draw(self.ax, **self.values())
        _lighter_ticks(self.figure)
        if self._margins is None:   # once: its cost is no part of what a move costs
            t_layout = time.perf_counter()
            self.figure.tight_layout()
            p = self.figure.subplotpars
            self._margins = {"left": p.left, "right": p.right, "bottom": p.bottom, "top": p.top}
            t0 += time.perf_counter() - t_layout
        else:
            self.figure.subplots_adjust(**self._margins)
        self.image.value = _png(self.figure)
        self.text.value = _text_html(line)
        self.seconds = time.perf_counter() - t0

    def on_change(self, _change=None):
        """Redraw at once when that is quick; otherwise say so and redraw when the control rests."""
        if self.seconds <= DEBOUNCE_ABOVE_S:
            self.redraw()
            return
        import asyncio

        if self._pending is not None:
            self._pending.cancel()
        self.text.value = _text_html(_("computing ..."))
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:   # no event loop (a plain script): no one to wait for, redraw now
            self.redraw()
            return
        self._pending = loop.call_later(DEBOUNCE_S, self._settled)

    def _settled(self):
        self._pending = None
        self.redraw()


def _reset(ax):
    """Empty ``ax`` for the next draw but keep its axes and tick objects, which are costly to rebuild.

    ``Axes.clear()`` recreates every tick (on log axes, dozens of minor ticks) and doubles the time
    of a redraw; removing what the last draw added leaves them in place.
    """
    for artist in [*ax.lines, *ax.patches, *ax.collections, *ax.texts, *ax.images, *ax.artists, *ax.tables]:
        artist.remove()
    if ax.get_legend() is not None:
        ax.get_legend().remove()
    for setter in (ax.set_title, ax.set_xlabel, ax.set_ylabel):
        setter("")
    ax.set_axis_on()
    ax.relim()
    ax.set_autoscale_on(True)
    ax.set_prop_cycle(None)


def _lighter_ticks(figure):
    """Minor ticks of every log axis at 2 and 5 of each decade (Agg's cost is per tick)."""
    from matplotlib.ticker import LogLocator

    for ax in figure.axes:
        for axis in (ax.xaxis, ax.yaxis):
            if axis.get_scale() == "log" and isinstance(axis.get_minor_locator(), LogLocator):
                axis.set_minor_locator(LogLocator(base=10, subs=(2.0, 5.0)))


def _png(figure):
    """The figure rendered by Agg and encoded with light compression (speed over a few kilobytes)."""
    from PIL import Image

    figure.canvas.draw()
    width, height = figure.canvas.get_width_height()
    rgba = Image.frombuffer("RGBA", (width, height), figure.canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
    buf = io.BytesIO()
    rgba.save(buf, format="PNG", compress_level=1)
    return buf.getvalue()


def _text_html(line):
    import html

    if not line:
        return ""
    return f'<pre class="pc-explorer-text" style="margin:2px 0;font-size:12px">{html.escape(str(line))}</pre>'


def explorer(draw, *, figsize=WIDGET_FIGSIZE, **controls):
    """Build a box of ``controls`` above a figure that redraws ``draw(ax, **values)`` on every change.

    Parameters
    ----------
    draw : callable
        ``draw(ax, **values)``: plots on ``ax``; may return a text line to show under the figure.
    figsize : (float, float)
        Figure size in inches.
    **controls : ipywidgets.ValueWidget
        One widget per keyword argument of ``draw``.
    """
    import ipywidgets as widgets

    if not callable(draw):
        raise TypeError(f"draw must be a function draw(ax, **values); got {draw!r}")
    if not controls:
        raise ValueError("explorer needs at least one control, e.g. n=slider('n', 1, 64, 8)")
    for name, w in controls.items():
        if not hasattr(w, "value") or not hasattr(w, "observe"):
            raise TypeError(f"control {name!r} must be an ipywidgets value widget; got {type(w).__name__}")
    if len(figsize) != 2 or not all(isinstance(v, (int, float)) and v > 0 for v in figsize):
        raise ValueError(f"figsize must be (width, height) in inches, both > 0; got {figsize!r}")
    state = Explorer(draw, tuple(figsize), controls)
    state.redraw()
    for w in controls.values():
        w.observe(state.on_change, names="value")
    box = widgets.VBox([widgets.HBox(list(controls.values())), state.image, state.text])
    box.explorer = state
    return box


def slider(description, low, high, value, step=None):
    """A continuous (float) or whole-number (int) slider, chosen by the types given; updates while dragged."""
    import ipywidgets as widgets

    description = lookup(description)   # the label in the learner's language (see perfcourse._lang)
    if all(isinstance(v, int) and not isinstance(v, bool) for v in (low, high, value)):
        return widgets.IntSlider(description=description, min=low, max=high, value=value, step=step or 1,
                                 continuous_update=True)
    return widgets.FloatSlider(description=description, min=low, max=high, value=value,
                               step=step or (high - low) / 100, continuous_update=True, readout_format=".3g")


def log_slider(description, low, high, value):
    """A slider moving on a log scale (base 10) between ``low`` and ``high``; updates while dragged."""
    import ipywidgets as widgets

    if not 0 < low < high:
        raise ValueError(f"log_slider needs 0 < low < high; got low={low}, high={high}")
    return widgets.FloatLogSlider(description=lookup(description), base=10, min=math.log10(low), max=math.log10(high),
                                  value=value, step=0.05, continuous_update=True, readout_format=".3g")


def dropdown(description, options, value=None):
    """A dropdown of ``options`` (a list, or a dict label -> value); words are shown in the learner's language."""
    import ipywidgets as widgets

    if value is None:
        value = list(options.values())[0] if isinstance(options, dict) else options[0]
    if current() != "en":     # the same values under translated labels
        pairs = options.items() if isinstance(options, dict) else ((o, o) for o in options)
        options = [(lookup(k) if isinstance(k, str) else k, v) for k, v in pairs]
    return widgets.Dropdown(description=lookup(description), options=options, value=value)
