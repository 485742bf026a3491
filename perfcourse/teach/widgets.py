"""One small pattern for every interactive figure in the course.

``explorer(draw, **controls)`` lays out ipywidgets controls above an output area and
calls ``draw(ax, **values)`` on a fresh matplotlib axes each time a control moves. If
``draw`` returns a string it is printed under the figure (the browser tests read it).
"""

from __future__ import annotations

__all__ = ["explorer", "slider", "log_slider", "dropdown"]


def explorer(draw, *, figsize=(6.4, 3.8), **controls):
    """Build a box of ``controls`` that redraws ``draw(ax, **values)`` on every change.

    Parameters
    ----------
    draw : callable
        ``draw(ax, **values)``: plots on ``ax``; may return a text line to print.
    figsize : (float, float)
        Figure size in inches.
    **controls : ipywidgets.ValueWidget
        One widget per keyword argument of ``draw``.
    """
    import ipywidgets as widgets
    import matplotlib.pyplot as plt
    from IPython.display import display

    if not callable(draw):
        raise TypeError(f"draw must be a function draw(ax, **values); got {draw!r}")
    if not controls:
        raise ValueError("explorer needs at least one control, e.g. n=slider('n', 1, 64, 8)")
    for name, w in controls.items():
        if not hasattr(w, "value") or not hasattr(w, "observe"):
            raise TypeError(f"control {name!r} must be an ipywidgets value widget; got {type(w).__name__}")
    out = widgets.Output()

    def redraw(_change=None):
        values = {k: w.value for k, w in controls.items()}
        with out:
            out.clear_output(wait=True)
            fig, ax = plt.subplots(figsize=figsize)
            text = draw(ax, **values)
            fig.tight_layout()
            display(fig)
            plt.close(fig)
            if text:
                print(text)

    for w in controls.values():
        w.observe(redraw, names="value")
    redraw()
    return widgets.VBox([widgets.HBox(list(controls.values())), out])


def slider(description, low, high, value, step=None):
    """A continuous (float) or whole-number (int) slider, chosen by the types given."""
    import ipywidgets as widgets

    if all(isinstance(v, int) and not isinstance(v, bool) for v in (low, high, value)):
        return widgets.IntSlider(description=description, min=low, max=high, value=value, step=step or 1,
                                 continuous_update=False)
    return widgets.FloatSlider(description=description, min=low, max=high, value=value,
                               step=step or (high - low) / 100, continuous_update=False, readout_format=".3g")


def log_slider(description, low, high, value):
    """A slider moving on a log scale (base 10) between ``low`` and ``high``."""
    import ipywidgets as widgets

    if not 0 < low < high:
        raise ValueError(f"log_slider needs 0 < low < high; got low={low}, high={high}")
    import math

    return widgets.FloatLogSlider(description=description, base=10, min=math.log10(low), max=math.log10(high),
                                  value=value, step=0.05, continuous_update=False, readout_format=".3g")


def dropdown(description, options, value=None):
    """A dropdown of ``options`` (a list, or a dict label -> value)."""
    import ipywidgets as widgets

    return widgets.Dropdown(description=description, options=options,
                            value=value if value is not None else (list(options.values())[0]
                                                                    if isinstance(options, dict) else options[0]))
