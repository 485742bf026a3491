"""The lesson-08 case study: every version is correct; changes, predictions and the log behave."""

import itertools

import numpy as np
import pytest

from perfcourse import casestudy, fusion, pipeline, profiler
from perfcourse.measure.timing import Timing

ALL_SETTINGS = [pipeline.Settings(*c) for c in itertools.product(*pipeline.Settings.CHOICES.values())]


@pytest.mark.parametrize("lengths", [pipeline.uniform_lengths(6, 4), pipeline.mixed_lengths(7, 4, seed=2)])
def test_every_version_matches_the_float64_reference(lengths):
    batch = pipeline.make_batch(lengths, 16, seed=5)
    ref = pipeline.reference(batch)
    assert ref.shape == (len(lengths), 16)
    for settings in ALL_SETTINGS:
        out = pipeline.run(profiler.NULL, batch, settings)
        assert out.dtype == np.float32
        assert pipeline.max_error(out, ref) < pipeline.TOLERANCE, settings.label()


def test_a_wrong_pipeline_fails_the_tolerance():
    batch = pipeline.make_batch([5, 3], 16)
    ref = pipeline.reference(batch)
    out = pipeline.run(profiler.NULL, batch)
    assert pipeline.max_error(out + 1e-3, ref) > pipeline.TOLERANCE


def test_naive_version_has_the_spans_it_promises():
    n = 5
    batch = pipeline.make_batch(pipeline.uniform_lengths(n, 3), 8)
    p = profiler.profile(pipeline.run, batch, pipeline.NAIVE, repeat=1)
    assert p.spans["sync"].count == 8 * n + 1           # after each of 8 kernels per request, and the stack
    assert p.spans["copy in"].count == n + 1            # one per request, one for the pooling helpers
    assert p.spans["copy out"].count == n
    fast = profiler.profile(pipeline.run, batch, pipeline.Settings("once", "one", "packed batch"), repeat=1)
    assert fast.spans["sync"].count == 1 and fast.spans["matmul"].count == 1


def test_settings_change_one_thing_at_a_time():
    s = pipeline.NAIVE.but(copies="one")
    assert (s.sync, s.copies, s.kernels) == ("each kernel", "one", "per request")
    with pytest.raises(ValueError, match="exactly one"):
        pipeline.NAIVE.but(sync="once", copies="one")
    with pytest.raises(ValueError, match="no change"):
        pipeline.NAIVE.but(sync="each kernel")
    with pytest.raises(ValueError, match="kernels must be one of"):
        pipeline.Settings(kernels="fused")


def test_counts():
    lengths = [2, 8]
    assert fusion.padded_rows(lengths) == 16
    assert fusion.flops(lengths, 4) == 10 * (2 * 16 + 32)
    assert fusion.unfused_bytes(lengths, 4) > fusion.min_bytes(lengths, 4)
    with pytest.raises(ValueError, match="lengths"):
        fusion.flops([0, 3], 4)


def test_unfused_bytes_count_every_byte_at_the_itemsize_asked_for():
    lengths, d = [16] * 128, 64
    rows = sum(lengths)
    # 14 passes over the rows, plus the unavoidable bytes (rows, W, bias, outputs), all at 8 bytes
    want = (fusion.PASSES * rows * d + rows * d + d * d + d + len(lengths) * d) * 8
    assert want == 15_827_456
    assert fusion.unfused_bytes(lengths, d, itemsize=8) == want
    assert fusion.min_bytes(lengths, d, itemsize=8) == 2 * fusion.min_bytes(lengths, d)


def _profile(spans, wall=0.010):
    return profiler.Profile(wall, {n: profiler.SpanTotal(n, k, c, h, None) for n, k, c, h in spans})


def test_predictions_follow_their_rules():
    ceil = {"peak_flops": 1e11, "bandwidth": 1e10, "call_s": 1e-6}
    lengths, d = [4] * 10, 8
    p = _profile([("sync", "sync", 90, 0.0009), ("copy in", "copy", 10, 0.001), ("to float32", "cpu", 10, 0.001),
                  ("matmul", "kernel", 10, 0.004)])
    sync = casestudy.predict(p, 0.009, pipeline.NAIVE, ("sync", "once"), lengths, d, **ceil)
    scale = 1.0   # the profiler costs 1 ms, less than "other" (3.1 ms) where its bookkeeping runs
    assert sync.seconds == pytest.approx(0.009 - scale * 0.0009 * 89 / 90)
    copies = casestudy.predict(p, 0.009, pipeline.NAIVE, ("copies", "one"), lengths, d, **ceil)
    assert copies.seconds == pytest.approx(0.009 - scale * 0.002, abs=1e-5)
    kern = casestudy.predict(p, 0.009, pipeline.NAIVE, ("kernels", "padded batch"), lengths, d, **ceil)
    assert kern.seconds < 0.009 - scale * 0.004 + 1e-4 and "roofline" in kern.reason
    padded = pipeline.Settings("once", "one", "padded batch")
    packed = casestudy.predict(p, 0.009, padded, ("kernels", "packed batch"), [1, 1, 2], d, **ceil)
    # the kernels and the padded buffer's build and copy (to float32 + copy in) shrink to the real rows
    assert packed.seconds == pytest.approx(0.009 - scale * (0.004 + 0.002) * (1 - 4 / 6))
    assert "padded buffer" in packed.reason
    # a profile slower than the bare run never predicts a negative time
    noisy = _profile([("matmul", "kernel", 10, 0.050)], wall=0.060)
    assert casestudy.predict(noisy, 0.001, padded, ("kernels", "packed batch"), [1, 1, 2], d, **ceil).seconds > 0
    with pytest.raises(ValueError, match="no change"):
        casestudy.predict(p, 0.009, pipeline.NAIVE, ("sync", "each kernel"), lengths, d, **ceil)


def test_a_prediction_splits_its_time_by_kind_and_changes_only_the_kinds_it_aims_at():
    ceil = {"peak_flops": 1e11, "bandwidth": 1e10, "call_s": 1e-6}
    lengths, d = [4] * 10, 8
    p = _profile([("sync", "sync", 90, 0.0009), ("copy in", "copy", 10, 0.001), ("to float32", "cpu", 10, 0.001),
                  ("matmul", "kernel", 10, 0.004)])
    before = casestudy.bare_breakdown(p, 0.009)
    padded = pipeline.Settings("once", "one", "padded batch")
    for settings, change, changed in [(pipeline.NAIVE, ("sync", "once"), {"sync"}),
                                      (pipeline.NAIVE, ("copies", "one"), {"copy", "cpu"}),
                                      (pipeline.NAIVE, ("kernels", "padded batch"), {"kernel"}),
                                      (padded, ("kernels", "packed batch"), {"kernel", "copy", "cpu"})]:
        pred = casestudy.predict(p, 0.009, settings, change, lengths if change[1] != "packed batch" else [1, 1, 2],
                                 d, **ceil)
        assert sum(pred.parts.values()) == pytest.approx(pred.seconds)
        moved = {k for k in before if abs(pred.parts[k] - before[k]) > 1e-12}
        assert moved == changed, change          # "other" (the loop) is never part of what a change promises
        assert pred.parts["other"] == pytest.approx(before["other"])


def test_change_log_keeps_only_correct_faster_versions():
    log = casestudy.ChangeLog()
    t = lambda s: Timing.from_samples([s, s * 1.01, s * 0.99])  # noqa: E731
    pred = casestudy.Prediction(0.005, "guess")
    assert log.add(pipeline.NAIVE, "baseline", "kernel", None, t(0.010), 1e-7)
    assert not log.add(pipeline.NAIVE.but(sync="once"), "sync once", "sync", pred, t(0.0099), 1e-7)
    assert not log.add(pipeline.NAIVE.but(sync="once"), "sync once again", "sync", pred, t(0.0146), 1e-7)
    assert not log.add(pipeline.NAIVE.but(copies="one"), "one copy", "copy", pred, t(0.004), 1e-2)
    assert log.add(pipeline.NAIVE.but(kernels="padded batch"), "padded", "kernel", pred, t(0.004), 1e-7)
    assert log.best.change == "padded"
    text = str(log)
    assert "rejected" in text and "not kept: 0.99x the time of the best so far, within the 1.25x" in text
    assert "kept: 2.50x" in text
    assert "not kept: slower (1.46x the time of the best so far)" in text   # slower is not "less faster"
    table = [line for line in text.splitlines() if not line.startswith(("   ->", "measured"))]
    assert len(table) == 6 and len({len(line) for line in table}) == 1       # rows line up in columns



@pytest.mark.parametrize("faster", [0.2, 0.5, 0.9, 1.5])
@pytest.mark.parametrize("which", ["change", "best"])
def test_change_log_keeps_nothing_from_a_noisy_timing(faster, which):
    steady = lambda s: Timing.from_samples([s, s * 1.01, s * 0.99, s, s * 1.005], name="steady")  # noqa: E731
    loud = lambda s: Timing.from_samples([s * 0.7, s, s * 1.4, s * 0.8, s * 1.3], name="loud")  # noqa: E731
    log = casestudy.ChangeLog()
    log.add(pipeline.NAIVE, "baseline", "kernel", None, (loud if which == "best" else steady)(0.010), 1e-7)
    new = (loud if which == "change" else steady)(0.010 * faster)
    assert not log.add(pipeline.NAIVE.but(copies="one"), "one copy", "copy", None, new, 1e-7)
    assert log.best.change == "baseline"
    assert "not kept: too noisy to judge (loud varied by IQR/median" in log.entries[-1].why
    assert "faster" not in log.entries[-1].why and "slower" not in log.entries[-1].why


@pytest.mark.parametrize("ratio", [0.5, 0.79, 0.81, 0.89, 0.99, 1.0, 1.04, 1.1, 1.24, 1.26, 1.5, 3.0])
def test_change_log_calls_a_change_faster_or_slower_only_beyond_the_run_to_run_spread(ratio):
    t = lambda s: Timing.from_samples([s * f for f in (0.98, 0.99, 1.0, 1.0, 1.01, 1.02)], name="t")  # noqa: E731
    log = casestudy.ChangeLog()
    log.add(pipeline.NAIVE, "baseline", "kernel", None, t(0.010), 1e-7)
    kept = log.add(pipeline.NAIVE.but(copies="one"), "one copy", "copy", None, t(0.010 * ratio), 1e-7)
    why = log.entries[-1].why
    assert kept == (ratio < 1 / log.band)
    slower = ratio > log.band
    if kept:
        assert why.startswith("kept: ") and f"{1 / ratio:.2f}x faster" in why
    elif slower:
        assert why.startswith("not kept: slower") and f"{ratio:.2f}x the time" in why
    else:
        assert why.startswith(f"not kept: {ratio:.2f}x the time of the best so far, within the 1.25x")
        assert "slower (" not in why and "x faster" not in why


def test_what_if_follows_amdahl():
    parts = {"kernel": 0.006, "copy": 0.003, "other": 0.001}
    w = fusion.what_if(parts, "kernel", 3)
    assert sum(w.after.values()) == pytest.approx(0.010 / w.speedup)
    assert w.limit == pytest.approx(1 / 0.4) and w.speedup < w.limit
    assert fusion.what_if(parts, "other", 1e9).speedup == pytest.approx(1 / 0.9, rel=1e-6)
    assert "at most 2.50x" in str(w) and "Largest item: 'kernel' (60%)" in str(w)
    assert "no limit" in str(fusion.what_if({"kernel": 1.0}, "kernel", 2))
    with pytest.raises(ValueError, match="item"):
        fusion.what_if(parts, "sync", 2)
    with pytest.raises(ValueError, match="factor"):
        fusion.what_if(parts, "kernel", 0.5)


@pytest.mark.parametrize("then, now", [(0.010, 0.010), (0.005, 0.010), (0.020, 0.005), (0.005, 0.0065)])
def test_a_change_is_judged_against_the_best_timed_beside_it(then, now):
    t = lambda s: Timing.from_samples([s * f for f in (0.98, 0.99, 1.0, 1.0, 1.01, 1.02)], name="t")  # noqa: E731
    log = casestudy.ChangeLog()
    log.add(pipeline.NAIVE, "baseline", "kernel", None, t(then), 1e-7)
    ratio = 0.007 / now                 # judged against the best timed beside it, never against `then`
    kept = log.add(pipeline.NAIVE.but(copies="one"), "one copy", "copy", None, t(0.007), 1e-7, beside=t(now))
    why = log.entries[-1].why
    assert kept == (ratio < 1 / log.band) and f"timed again beside it: {now * 1e3:.3g} ms" in why
    assert (f"{1 / ratio:.2f}x faster" in why) == kept
    assert why.startswith("not kept: slower") == (ratio > log.band)
    drifted = not 1 / log.band <= now / then <= log.band     # the best's two timings differ by more than the close
    assert (kept and drifted) == (f"({then / 0.007:.2f}x against its first timing" in why)
    with pytest.raises(TypeError, match="beside"):
        log.add(pipeline.NAIVE, "x", "kernel", None, t(0.01), 1e-7, beside=0.01)


@pytest.mark.parametrize("predicted, measured", [(0.009, 0.005), (0.006, 0.005), (0.0062, 0.005), (0.007, 0.0055)])
def test_a_kept_change_faster_than_its_prediction_beyond_the_close_says_the_load_may_share_the_gain(predicted,
                                                                                                    measured):
    t = lambda s: Timing.from_samples([s * f for f in (0.98, 0.99, 1.0, 1.0, 1.01, 1.02)], name="t")  # noqa: E731
    log = casestudy.ChangeLog()
    log.add(pipeline.NAIVE, "baseline", "kernel", None, t(0.010), 1e-7)
    prediction = casestudy.Prediction(predicted, "a guess", {"kernel": predicted})
    assert log.add(pipeline.NAIVE.but(copies="one"), "one copy", "copy", prediction, t(measured), 1e-7)
    assert ("faster than its prediction by more than the close" in log.entries[-1].why) == (
        measured * log.band < predicted)


@pytest.mark.parametrize("again", [0.008, 0.010, 0.012])
def test_a_gain_beyond_the_prediction_is_put_on_the_load_only_when_the_machine_ran_faster(again):
    t = lambda s: Timing.from_samples([s * f for f in (0.98, 0.99, 1.0, 1.0, 1.01, 1.02)], name="t")  # noqa: E731
    log = casestudy.ChangeLog()
    log.add(pipeline.NAIVE, "baseline", "kernel", None, t(0.010), 1e-7)
    prediction = casestudy.Prediction(0.006, "a guess", {"kernel": 0.006})
    assert log.add(pipeline.NAIVE.but(copies="one"), "one copy", "copy", prediction, t(0.004), 1e-7, beside=t(again))
    why = log.entries[-1].why
    assert ("part of that gain may be a change in the machine's load" in why) == (again < 0.010)
    assert ("the load does not explain the gain" in why) == (again >= 0.010)
