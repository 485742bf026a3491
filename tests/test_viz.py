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
