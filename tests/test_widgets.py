"""The explorer pattern: one figure built once, redrawn in place; slow redraws debounced."""

import asyncio
import io
import time

import numpy as np
import pytest
from PIL import Image

from perfcourse import widgets


def _png_size(data):
    return Image.open(io.BytesIO(data)).size


def _line(ax, slope):
    x = np.linspace(0, 1, 50)
    ax.plot(x, slope * x, label=f"slope {slope:g}")
    ax.set_xlabel("x [s]")
    ax.set_ylabel("y [ms]")
    ax.legend()
    return f"slope = {slope:g}"


def test_the_figure_is_made_once_and_redrawn_in_place():
    box = widgets.explorer(_line, slope=widgets.slider("slope", 0.0, 2.0, 1.0))
    state = box.explorer
    figure, ax, first = state.figure, state.ax, state.image.value
    assert _png_size(first) == (640, 380) and "slope = 1" in state.text.value
    state.controls["slope"].value = 1.5
    assert state.figure is figure and state.ax is ax, "a change must not build a new figure"
    assert state.image.value != first and "slope = 1.5" in state.text.value
    assert len(ax.lines) == 1 and ax.get_legend().get_texts()[0].get_text() == "slope 1.5"


def test_a_redraw_matches_a_fresh_figure_pixel_for_pixel():
    a = widgets.explorer(_line, slope=widgets.slider("slope", 0.0, 2.0, 0.5)).explorer
    b = widgets.explorer(_line, slope=widgets.slider("slope", 0.0, 2.0, 1.0)).explorer
    b.controls["slope"].value = 0.5           # b redraws in place; a drew 0.5 on a fresh figure
    assert np.array_equal(np.asarray(Image.open(io.BytesIO(a.image.value))),
                          np.asarray(Image.open(io.BytesIO(b.image.value))))


def test_axes_a_draw_added_are_removed_before_the_next():
    def twin(ax, k):
        ax.plot([0, 1], [0, k])
        ax.twinx().plot([0, 1], [1, 0])

    state = widgets.explorer(twin, k=widgets.slider("k", 1, 5, 1)).explorer
    state.controls["k"].value = 2
    state.controls["k"].value = 3
    assert len(state.figure.axes) == 2


def test_log_axes_carry_two_minor_ticks_a_decade():
    def loglog(ax, top):
        ax.loglog([1, top], [1e-3, 10])
        ax.twinx().set_yscale("log")
        return None

    state = widgets.explorer(loglog, top=widgets.log_slider("top", 10, 1e4, 1e3)).explorer
    state.controls["top"].value = 1e4
    for ax in state.figure.axes:
        for axis in (ax.xaxis, ax.yaxis):
            if axis.get_scale() != "log":
                continue
            lo, hi = sorted(axis.get_view_interval())
            minor = [t for t in axis.get_minorticklocs() if lo <= t <= hi]
            mantissas = {round(t / 10 ** np.floor(np.log10(t) + 1e-9), 6) for t in minor}
            assert minor and mantissas <= {2.0, 5.0}, (axis.axis_name, mantissas)


def test_sliders_follow_the_drag():
    assert widgets.slider("n", 1, 10, 2).continuous_update
    assert widgets.slider("s", 0.0, 1.0, 0.5).continuous_update
    assert widgets.log_slider("b", 0.1, 10, 1).continuous_update


def test_a_slow_redraw_is_debounced_and_says_it_is_computing():
    calls = []

    def slow(ax, k):
        calls.append(k)
        time.sleep(widgets.DEBOUNCE_ABOVE_S * 1.5)
        ax.plot([0, 1], [0, k])
        return f"k = {k}"

    async def drag():
        state = widgets.explorer(slow, k=widgets.slider("k", 1, 9, 1)).explorer
        for k in (2, 3, 4, 5):                 # four quick steps of one drag
            state.controls["k"].value = k
            assert "computing" in state.text.value
        await asyncio.sleep(widgets.DEBOUNCE_S * 3 + 0.5)
        return state

    state = asyncio.run(drag())
    assert calls == [1, 5], "only the starting value and where the control came to rest are drawn"
    assert "k = 5" in state.text.value


@pytest.mark.parametrize("kwargs, error", [({"draw": 3}, TypeError), ({"figsize": (0, 3)}, ValueError)])
def test_bad_arguments_are_refused(kwargs, error):
    args = {"draw": _line, "figsize": (6, 4), **kwargs}
    with pytest.raises(error):
        widgets.explorer(args.pop("draw"), **args, slope=widgets.slider("slope", 0.0, 2.0, 1.0))
    with pytest.raises(ValueError, match="at least one control"):
        widgets.explorer(_line)


def test_the_static_site_shows_an_explorer_s_figure_and_text(tmp_path):
    import nbformat
    from nbclient import NotebookClient

    from perfcourse.cli.site import static_widgets

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(
        "import perfcourse as pc\n"
        "def draw(ax, s):\n"
        "    ax.plot([0, 1], [0, s])\n"
        "    return f's = {s:g}'\n"
        "pc.widgets.explorer(draw, s=pc.widgets.slider('slope', 0.0, 1.0, 0.5))")]
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = static_widgets(nb).cells[0].outputs
    kinds = [next(iter(o.data)) for o in outputs]
    assert kinds == ["text/html", "image/png", "text/html"], kinds
    assert "slope = 0.5" in outputs[0].data["text/html"]              # the control at its starting value
    assert _png_size(__import__("base64").b64decode(outputs[1].data["image/png"])) == (640, 380)
    assert "s = 0.5" in outputs[2].data["text/html"]
