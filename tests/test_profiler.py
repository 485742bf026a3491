"""The span profiler: what it records, how it adds up, and its plot."""

import time

import numpy as np
import pytest

from perfcourse import profiler, viz


def _work(prof, pause):
    with prof.span("prepare", "cpu"):
        data = list(range(1000))
    for _ in range(3):
        with prof.span("sleep", "kernel"):
            time.sleep(pause)
    with prof.span("wait", "sync"):
        pass
    return sum(data)


def test_spans_are_counted_and_timed():
    p = profiler.profile(_work, 0.002, repeat=1)
    assert set(p.spans) == {"prepare", "sleep", "wait"}
    sleep = p.spans["sleep"]
    assert sleep.count == 3 and sleep.kind == "kernel"
    assert sleep.host_s >= 3 * 0.002                    # sleeping never returns early
    assert sleep.host_s <= p.wall_s
    assert p.largest()[0] == "sleep"
    assert sleep.device_s is None                       # no device events on the CPU backend


def test_breakdown_adds_up_to_wall_time():
    p = profiler.profile(_work, 0.001, repeat=3)
    parts = p.breakdown()
    assert list(parts) == ["cpu", "copy", "kernel", "sync", "other"]
    assert sum(parts.values()) == pytest.approx(p.wall_s, rel=1e-9)
    assert parts["kernel"] > parts["cpu"] and parts["copy"] == 0.0
    assert p.by_kind("device") == dict.fromkeys(profiler.KINDS, 0.0)


def test_profile_keeps_the_median_run():
    pauses = iter([0.0, 0.25, 0.1])                  # 100 ms apart at least: a busy machine keeps the order

    def nap(prof):
        pause = next(pauses)
        with prof.span(f"nap {pause}", "kernel"):   # the span's name says which run it was
            time.sleep(pause)

    p = profiler.profile(nap, repeat=3)
    assert list(p.spans) == ["nap 0.1"] and p.spans["nap 0.1"].host_s >= 0.1


def test_bad_spans_are_refused():
    prof = profiler.Profiler()
    with pytest.raises(ValueError, match="kind must be one of"):
        prof.span("x", "network")
    with pytest.raises(TypeError, match="name"):
        prof.span("", "cpu")
    with pytest.raises(TypeError, match="callable"):
        profiler.profile(42)
    with pytest.raises(ValueError, match="no spans"):
        profiler.Profile(1.0, {}).largest()


def test_exceptions_still_close_the_span():
    prof = profiler.Profiler()
    with pytest.raises(RuntimeError), prof.span("boom", "cpu"):
        raise RuntimeError("inside")
    assert prof.result(1.0).spans["boom"].count == 1


@pytest.fixture
def opened_spans(monkeypatch):
    """Every span any profiler opens while the test runs, as (name, kind), in order."""
    opened = []

    class Watched(profiler._Span):
        __slots__ = ()

        def __enter__(self):
            opened.append((self.name, self.kind))
            return super().__enter__()

    monkeypatch.setattr(profiler, "_Span", Watched)
    return opened


def test_null_profiler_records_nothing(opened_spans):
    expected = [("prepare", "cpu"), ("sleep", "kernel"), ("sleep", "kernel"), ("sleep", "kernel"), ("wait", "sync")]
    real = profiler.Profiler()
    assert _work(real, 0.0) == sum(range(1000))
    assert opened_spans == expected                        # the real one times every block...
    assert [r[:2] for r in real._records] == expected
    counts = {name: s.count for name, s in real.result(1.0).spans.items()}
    assert counts == {"prepare": 1, "sleep": 3, "wait": 1}

    opened_spans.clear()
    state_before = dict(vars(profiler.NULL))
    assert _work(profiler.NULL, 0.0) == sum(range(1000))  # ...the null one runs the same code
    assert opened_spans == []                              # but opens no timed span
    assert vars(profiler.NULL) == state_before == {}       # and keeps nothing anywhere
    assert not hasattr(profiler.NULL, "_records") and not hasattr(profiler.NULL, "result")
    assert profiler.NULL.span("a", "cpu") is profiler.NULL.span("b", "kernel")   # one shared no-op context


def test_table_and_plot():
    import matplotlib

    matplotlib.use("Agg")
    p = profiler.profile(_work, 0.001, repeat=1)
    text = p.table()
    assert text.splitlines()[1].startswith("sleep") and "ms" in text
    ax = viz.plot_breakdowns({"a": p.breakdown(), "b": p.breakdown()}, title="t")
    heights = [bar.get_height() for bar in ax.patches]
    assert len(heights) == 2 * 5 and np.isclose(sum(heights), 2 * p.wall_s * 1e3)
    with pytest.raises(ValueError, match="non-empty"):
        viz.plot_breakdowns({})


def test_overhead_per_span_is_the_gap_per_span():
    p = profiler.Profile(0.010, {"f": profiler.SpanTotal("f", "kernel", 500, 0.004, None)})
    assert p.n_spans == 500
    assert p.overhead_per_span(0.009) == pytest.approx(2e-6)
    assert p.overhead_per_span(0.020) == 0.0      # bare slower than profiled (noise): no negative cost
    with pytest.raises(ValueError, match="bare_s"):
        p.overhead_per_span(-1.0)
    assert "numpy on" in p.table().splitlines()[-1]   # the table names where it ran
