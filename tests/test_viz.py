"""Every plot: ``ax=None`` gives a new figure, a given ``ax`` is drawn on and returned, units on the axes."""

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402

from perfcourse import dag, launches, viz  # noqa: E402
from perfcourse.measure.timing import Timing  # noqa: E402


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_draw_dag_marks_the_critical_path():
    ax = viz.draw_dag(dag.tree_sum(8))
    red = [ln for ln in ax.lines if ln.get_color() == "tab:red"]
    assert len(red) == dag.tree_sum(8).span
    assert "span T_inf = 3" in ax.get_title()
    with pytest.raises(ValueError, match="at most 200 nodes"):
        viz.draw_dag(dag.tree_sum(500))
    with pytest.raises(TypeError, match="Dag"):
        viz.draw_dag([1, 2])


def test_latency_plots_draw_one_point_per_batch():
    timings = {b: Timing.from_samples([b * 1e-4, b * 1.1e-4, b * 1.3e-4]) for b in (1, 4, 16)}
    fig, (a1, a2) = plt.subplots(1, 2)
    assert viz.plot_latency_by_batch(timings, a1, slo=1e-3, model=("model", [1, 16], [1e-4, 1.6e-3])) is a1
    assert len(a1.lines[0].get_xdata()) == 3 and "[ms]" in a1.get_ylabel()
    assert viz.plot_latency_throughput(timings, a2) is a2
    x, y = a2.lines[0].get_data()
    assert np.allclose(y, [b / timings[b].p50 for b in (1, 4, 16)])
    assert "[rows/s]" in a2.get_ylabel()
    with pytest.raises(TypeError, match="mapping"):
        viz.plot_latency_by_batch([])


def test_timeline_draws_launches_and_kernels_and_the_summary_says_it():
    t = launches.async_timeline(3, 5e-6, 1e-3)
    ax = viz.draw_timeline(t, unit="ms")
    assert "[ms]" in ax.get_xlabel() and len(ax.collections) == 2
    text = t.summary()
    assert "15 µs" in text and "3 ms" in text, text
    with pytest.raises(ValueError, match="unit"):
        viz.draw_timeline(t, unit="min")


def test_roofline_labels_points():
    ax = viz.plot_roofline(100e12, 2e12, [("triad", 1 / 6, 0.3e12)], roofs=[("measured", 80e12, 1.6e12)])
    texts = [t.get_text() for t in ax.texts]
    assert any(t.startswith("triad (") and "% of roof" in t for t in texts)
    assert len(ax.get_lines()) == 3
    assert "FLOP/byte" in ax.get_xlabel()


def test_breakdowns_stack_one_bar_per_label():
    parts = {"before": {"cpu": 0.002, "kernel": 0.006}, "after": {"cpu": 0.002, "kernel": 0.002}}
    ax = viz.plot_breakdowns(parts)
    assert np.isclose(sum(bar.get_height() for bar in ax.patches), 12.0)   # ms
    assert "[ms]" in ax.get_ylabel()


@pytest.mark.parametrize("call", [
    lambda ax: viz.draw_dag(dag.serial_sum(4), ax),
    lambda ax: viz.plot_roofline(1e12, 1e11, ax=ax),
    lambda ax: viz.draw_timeline(launches.async_timeline(2, 1e-6, 1e-5), ax),
    lambda ax: viz.plot_breakdowns({"a": {"cpu": 1.0}}, ax),
])
def test_every_plot_draws_on_the_axes_it_is_given(call):
    fig, ax = plt.subplots()
    assert call(ax) is ax
    assert len(fig.axes) == 1
    with pytest.raises(TypeError, match="Axes"):
        call("not an axes")


# --- the Chinese edition's figures: Chinese labels from the catalog, drawn with a font that has their glyphs ------

import re  # noqa: E402
import warnings  # noqa: E402

from perfcourse import _lang  # noqa: E402
from perfcourse.viz import fonts  # noqa: E402
from perfcourse.viz.roofpoints import plot_roofline_points  # noqa: E402

CJK = re.compile(r"[\u4e00-\u9fff]")
_TIMINGS = {b: Timing.from_samples([b * 1e-4, b * 1.1e-4, b * 1.3e-4]) for b in (1, 4, 16)}
EVERY_PLOT = {   # each public plot of perfcourse.viz, and the label it must show in Chinese
    "draw_dag": (lambda: viz.draw_dag(dag.tree_sum(8)), lambda ax: ax.get_ylabel(), "step (depth)"),
    "draw_timeline": (lambda: viz.draw_timeline(launches.async_timeline(3, 5e-6, 1e-3)),
                      lambda ax: ax.get_legend().get_texts()[0].get_text(), "launch returns on the host"),
    "plot_breakdowns": (lambda: viz.plot_breakdowns({"a": {"cpu": 1e-3, "other": 2e-3}}), lambda ax: ax.get_ylabel(),
                        "wall time per batch [ms]"),
    "plot_calibration": (lambda: viz.plot_calibration([("01-x", 1, 0.5, -0.2), ("02-y", 2, None, 0.1)]),
                         lambda ax: ax.get_legend().get_texts()[1].get_text(), "your guess / measured"),
    "plot_latency_by_batch": (lambda: viz.plot_latency_by_batch(_TIMINGS, slo=1e-3), lambda ax: ax.get_ylabel(),
                              "latency per call [ms]"),
    "plot_latency_throughput": (lambda: viz.plot_latency_throughput(_TIMINGS, model={1: 1e-4, 4: 4e-4, 16: 2e-3}),
                                lambda ax: ax.get_legend().get_texts()[1].get_text(), "model"),
    "plot_roofline": (lambda: viz.plot_roofline(100e12, 2e12, [("triad", 1 / 6, 0.3e12)]),
                      lambda ax: ax.get_ylabel(), "attainable rate [FLOP/s]"),
    "plot_roofline_points": (lambda: plot_roofline_points(100e12, 2e12, [("n", 170.0, 40e12)]),
                             lambda ax: ax.get_ylabel(), "rate [FLOP/s]: lines attainable, markers achieved"),
}


@pytest.fixture
def chinese_figures(monkeypatch):
    """PERFCOURSE_LANG=zh, no font looked for yet; matplotlib's settings restored afterwards."""
    monkeypatch.setenv(_lang.ENV, "zh")
    monkeypatch.delenv(_lang.ENV_LOCALE, raising=False)
    monkeypatch.setattr(fonts, "_FOUND", {})
    with matplotlib.rc_context():
        yield


def _drawn(make):
    """Draw a figure made by ``make()``: its axes, every text on it, and the warnings drawing it raised."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ax = make()
        ax.figure.canvas.draw()
    texts = [t.get_text() for t in ax.figure.findobj(matplotlib.text.Text)]
    return ax, texts, [str(w.message) for w in caught]


def test_every_plot_is_public():
    assert sorted(EVERY_PLOT) == sorted([*viz.__all__, "plot_roofline_points"])


@pytest.mark.parametrize("name", sorted(EVERY_PLOT))
def test_a_chinese_figure_has_chinese_labels_and_every_glyph(chinese_figures, name):
    make, label, english = EVERY_PLOT[name]
    ax, texts, caught = _drawn(make)
    assert label(ax) == _lang.lookup(english, "zh") != english and CJK.search(label(ax))
    assert not [m for m in caught if "Glyph" in m], caught[:3]          # no empty boxes: the font has them all
    assert fonts.chinese_font() and matplotlib.rcParams["font.sans-serif"][0] == fonts.chinese_font()


def test_axes_made_before_the_first_chinese_label_show_it_too(chinese_figures):
    fig, ax = plt.subplots()            # a lesson's own axes: its title and labels exist before the font is found
    _ax, texts, caught = _drawn(lambda: viz.draw_dag(dag.tree_sum(4), ax))
    assert CJK.search(ax.get_title()) and not [m for m in caught if "Glyph" in m]


def test_a_symbol_the_chinese_font_lacks_is_drawn_from_a_fallback_font(chinese_figures):
    assert fonts.chinese_font()
    _ax, texts, caught = _drawn(lambda: plt.subplots()[1].set_title("f ∘ g 中文") or plt.gcf().axes[0])
    assert "f ∘ g 中文" in texts and not [m for m in caught if "Glyph" in m], caught[:3]
    assert matplotlib.rcParams["font.family"] == [fonts.chinese_font(), "DejaVu Sans"]


def test_the_english_edition_changes_no_setting(monkeypatch):
    monkeypatch.setenv(_lang.ENV, "en")
    monkeypatch.setattr(fonts, "_FOUND", {})
    before = list(matplotlib.rcParams["font.sans-serif"])
    ax = viz.plot_roofline(1e12, 1e11)
    assert ax.get_ylabel() == "attainable rate [FLOP/s]" and fonts._FOUND == {}
    assert matplotlib.rcParams["font.sans-serif"] == before


def test_without_a_chinese_font_the_labels_stay_english_and_one_line_says_why(chinese_figures, monkeypatch, capsys):
    monkeypatch.setattr(fonts, "font_file", lambda: None)
    monkeypatch.setattr(fonts, "KNOWN_FAMILIES", ())
    for name in sorted(EVERY_PLOT):
        make, label, english = EVERY_PLOT[name]
        ax, texts, caught = _drawn(make)
        assert label(ax) == english and not any(CJK.search(t) for t in texts), name
        assert not [m for m in caught if "Glyph" in m], (name, caught[:3])
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "paperang-p2-fonts-cjk" in err and CJK.search(err), err
