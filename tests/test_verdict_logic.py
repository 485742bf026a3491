"""Verdicts as logic: generated measurements on both sides of every bound, and words that agree with them."""

import re
import sys
import types

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfcourse.measure.samples import NOISY_IQR, Timing
from perfcourse.models.verdicts import CLOSE_RATIO
from perfcourse.teach import explain, predictions, verdicts

positive = st.floats(min_value=1e-3, max_value=1e3, allow_nan=False)
workers = st.sampled_from([2, 4, 8, 16, 64])


@given(positive)
def test_closeness_names_the_side_it_is_on(ratio):
    words = verdicts.closeness(ratio)
    if 1 / CLOSE_RATIO <= ratio <= CLOSE_RATIO:
        assert words.startswith("close")
    elif ratio > CLOSE_RATIO:
        assert words == f"{ratio:.3g}x too high"
    else:
        assert words == f"{1 / ratio:.3g}x too low"


@given(positive, positive, workers)
def test_a_speedup_verdict_agrees_with_its_numbers(measured, predicted, n):
    text = verdicts.speedup_verdict(measured, predicted, n)
    assert text.startswith(f"measured {measured:.2f}x against a predicted {predicted:.2f}x on {n} workers: ")
    close = 1 / CLOSE_RATIO <= measured / predicted <= CLOSE_RATIO
    assert ("close to the model" in text) == close
    if not close:
        assert ("slower than one" in text or "no faster than one" in text) == (measured < 1)
        assert ("better than the model" in text) == (measured >= 1 and measured > predicted)
        assert ("short of the model" in text) == (1 <= measured < predicted)


@given(positive, positive, workers)
def test_a_speedup_above_an_upper_bound_is_never_close_to_it(measured, predicted, n):
    text = verdicts.speedup_verdict(measured, predicted, n, bound=True)
    beaten = measured > predicted * verdicts.ABOVE_BOUND
    assert ("above that upper bound" in text) == beaten
    if beaten:
        assert "close" not in text and f"{measured / predicted:.3g}x above" in text
    else:
        assert text == verdicts.speedup_verdict(measured, predicted, n)


@given(positive, positive)
def test_a_time_against_its_model_says_faster_only_when_faster(measured, model):
    text = verdicts.time_against_model(measured, model)
    if 1 / CLOSE_RATIO <= measured / model <= CLOSE_RATIO:
        assert text.startswith("within")
    elif measured < model:
        assert text == f"{model / measured:.3g}x faster than the model"
    else:
        assert text == f"{measured / model:.3g}x slower than the model"


@given(st.floats(min_value=0.05, max_value=80), workers, st.floats(min_value=1e8, max_value=1e11),
       st.floats(min_value=1.0, max_value=50.0), st.booleans())
def test_a_scaling_verdict_never_explains_a_bound_it_exceeded(psi, n, achieved, headroom, shared):
    ceiling = achieved * headroom
    by_workers = not shared or headroom >= n      # the resource could feed every worker: the count bounds the run
    cap = n if by_workers else max(1.0, headroom)
    bound = "the worker count" if by_workers else "the memory bandwidth"
    text = explain.scaling_verdict(psi, n, achieved=achieved, ceiling=ceiling, resource="memory bandwidth",
                                   shared=shared, unit="B/s")
    measured = re.search(r"Measured ([0-9.e+]+)x", text).group(1)
    assert measured == f"{psi:.3g}"
    if by_workers:
        assert f"the worker count bounds the run at {n:g}x" in text
    else:
        assert f"allows at most {cap:.3g}x on {n:g} workers" in text
    if psi > explain.SUPERLINEAR_SLACK * n:
        assert "one-worker run was slowed" in text and "explains" not in text
    elif psi > cap * explain.BOUND_SLACK:
        assert f"above what {bound} allows" in text and "explains" not in text
    elif psi >= cap / CLOSE_RATIO:
        assert f"so {bound} explains the result" in text
    else:
        assert f"{cap / psi:.3g}x below what {bound} allows" in text and "explains" not in text
    if by_workers and psi <= cap * explain.BOUND_SLACK:
        assert "the memory bandwidth explains" not in text      # a bound it never reached explains nothing


@given(st.floats(min_value=0.01, max_value=3.0))
def test_a_bound_verdict_reads_the_share_of_the_ceiling_it_reached(fraction):
    text = explain.bound_verdict(1e-3, [("memory", fraction * 20e9 * 1e-3, 20e9, "B/s")])
    if fraction > CLOSE_RATIO:
        assert "above the memory ceiling" in text and "bounds nothing" in text
    elif fraction > explain.BOUND_SLACK:
        assert f"at the memory ceiling ({fraction:.0%} of it, within the 1.25x" in text and "bounds it here" in text
    elif fraction >= 1.005:
        assert f"at the memory ceiling ({fraction:.0%} of it: a few percent over" in text and "bounds it" in text
    elif fraction >= explain.BOUND_SHARE:
        assert "nearest to the memory ceiling, so that is what bounds it" in text
    else:
        assert "no ceiling is near" in text


def _timing(spread, n, rng):
    samples = 1e-3 * (1 + spread * rng.uniform(-1, 1, size=n))
    return Timing.from_samples(np.abs(samples) + 1e-6, name="the run")


@settings(max_examples=60)
@given(st.floats(min_value=0.0, max_value=1.5), st.integers(min_value=1, max_value=40), st.integers(0, 2**31))
def test_no_verdict_is_read_from_a_noisy_or_thin_measurement(spread, n, seed):
    t = _timing(spread, n, np.random.default_rng(seed))
    note = verdicts.noise_note(t)
    text = verdicts.judged("close to the model", t)
    if n < verdicts.MIN_SAMPLES:
        assert note.startswith("too few samples to judge") and text == note
    elif t.iqr_over_median > NOISY_IQR:
        assert note.startswith("too noisy to judge") and f"IQR/median {t.spread_text()} (above" in note and text == note
    else:
        assert note is None and text == "close to the model"


def test_a_noisy_prediction_is_shown_without_a_verdict_and_left_out_of_the_calibration(tmp_path, monkeypatch):
    monkeypatch.setenv("PERFCOURSE_HOME", str(tmp_path))
    noisy = Timing.from_samples([1.0, 1.6, 0.7, 1.3, 0.9, 1.8], name="step")
    steady = Timing.from_samples([1.00, 1.01, 0.99, 1.02, 1.00, 0.98], name="step")
    a = predictions.record("07-step", guess=2.0, model=1.0, measured=1.2, unit="ms", timing=noisy, show=False)
    b = predictions.record("08-step", guess=2.0, model=1.0, measured=1.0, unit="ms", timing=steady, show=False)
    shown = str(a)
    assert "(no verdict: see below)" in shown and "too noisy to judge" in shown
    assert not re.search(r"too high|too low|close \(", shown)
    assert "too noisy to judge" not in str(b) and "2x too high" in str(b)
    cal = predictions.calibration(predictions.load())
    assert [r[0] for r in cal.rows] == ["08-step"] and cal.noisy == ("07-step",)
    assert "1 more experiment could not be judged (too noisy, or too few samples) and is left out (07-step)" \
        in cal.summary()


@pytest.mark.parametrize("bad", [3.0, "x", object()])
def test_noise_note_takes_timings_only(bad):
    with pytest.raises(TypeError, match="Timing"):
        verdicts.noise_note(bad)


@given(st.lists(st.floats(min_value=1e8, max_value=1e12, allow_nan=False), min_size=2, max_size=8),
       st.floats(min_value=1e8, max_value=1e12, allow_nan=False))
def test_run_to_run_says_the_spread_and_where_the_kept_value_falls(rates, kept):
    words = verdicts.run_to_run(rates, kept)
    spread = max(rates) / min(rates)
    assert words.startswith(f"{len(rates)} runs: ")
    assert f"the fastest {spread:.3g}x the slowest" in words
    assert ("within 1.25x" in words) == (spread <= CLOSE_RATIO)
    assert ("other programs shared the machine" in words) == (spread > CLOSE_RATIO)
    if min(rates) <= kept <= max(rates):
        assert "lies within them" in words
    elif kept > max(rates):
        assert f"is {kept / max(rates):.3g}x the fastest of them" in words
    else:
        assert f"is {kept / min(rates):.3g}x the slowest of them" in words
    assert words.endswith(f"differ by less than {spread:.3g}x are not a finding.")


@pytest.mark.parametrize("rates", [[1e9], [], [1e9, -1.0], [1e9, 0.0]])
def test_run_to_run_needs_two_positive_rates(rates):
    with pytest.raises(ValueError, match="rates"):
        verdicts.run_to_run(rates, 1e9)


@given(st.floats(min_value=0.0, max_value=0.5), st.floats(min_value=0.0, max_value=0.5))
def test_a_scaling_claim_on_a_noisy_step_says_it_is_not_to_be_quoted(spread_a, spread_b):
    from perfcourse.labs.mpiresults import _noise_line

    a = Timing.from_samples([1 - spread_a, 1, 1 + spread_a, 1, 1 - spread_a / 2, 1 + spread_a / 2], name="step")
    b = Timing.from_samples([1 - spread_b, 1, 1 + spread_b, 1, 1 - spread_b / 2, 1 + spread_b / 2], name="baseline")
    lines = _noise_line(a, b, None)
    assert bool(lines) == (a.noisy or b.noisy)
    if lines:
        worst = max((t for t in (a, b) if t.noisy), key=lambda t: t.iqr_over_median)
        assert f"too noisy to quote: {worst.name} varied by IQR/median {worst.spread_text()}" in lines[0]


kinds = st.dictionaries(st.sampled_from(["cpu", "copy", "kernel", "sync", "other"]),
                        st.floats(min_value=0.0, max_value=5e-3), min_size=1)


@given(kinds, kinds)
def test_a_missed_prediction_names_the_kinds_that_differ_most(predicted, measured):
    p, m = sum(predicted.values()), sum(measured.values())
    if p <= 0 or m <= 0:
        with pytest.raises(ValueError, match="add up to more than 0"):
            explain.miss_verdict(predicted, measured)
        return
    text = explain.miss_verdict(predicted, measured)
    if 1 / CLOSE_RATIO <= p / m <= CLOSE_RATIO:
        assert text.endswith(f"close (within {CLOSE_RATIO:g}x).") and "went wrong" not in text
        return
    assert (f"{p / m:.3g}x too high" if p > m else f"{m / p:.3g}x too low") in text
    gap = {k: abs(measured.get(k, 0.0) - predicted.get(k, 0.0)) for k in set(predicted) | set(measured)}
    named = re.findall(r"(?:: |; )(cpu|copy|kernel|sync|other) predicted", text)
    assert named and gap[named[0]] == max(gap.values())
    assert sum(gap[k] for k in named) >= 0.8 * sum(gap.values()) - 1e-15
    assert all(gap[k] >= gap[j] for k in named for j in gap if j not in named)


def test_a_prediction_without_a_measurement_is_named_until_one_is_taken(tmp_path, monkeypatch):
    monkeypatch.setenv("PERFCOURSE_HOME", str(tmp_path))
    predictions.record("05-gpu", guess=None, model=4.8, measured=None, unit="TB/s", unmeasured="no GPU", show=False)
    predictions.record("05-cpu", guess=None, model=1.0, measured=1.0, unit="ms", show=False)
    cal = predictions.calibration(predictions.load())
    assert [r[0] for r in cal.rows] == ["05-cpu"] and cal.unmeasured == ("05-gpu",)
    assert "1 prediction has no measurement on this machine (05-gpu)" in cal.summary()
    predictions.record("05-gpu", guess=None, model=4.8, measured=4.0, unit="TB/s", show=False)
    cal = predictions.calibration(predictions.load())
    assert cal.unmeasured == () and "no measurement" not in cal.summary()


@given(st.floats(1e-4, 1.0), st.floats(0.5, 2.0))
def test_a_version_timed_twice_is_judged_only_when_its_two_p50s_are_close(p50, drift):
    earlier = Timing.from_samples([p50 * f for f in (1.0, 1.01, 0.99, 1.0, 1.02, 0.98)], name="best")
    again = Timing.from_samples([p50 * drift * f for f in (1.0, 1.01, 0.99, 1.0, 1.02, 0.98)], name="best")
    note = verdicts.noise_note(verdicts.Retimed(earlier, again))
    close = verdicts.is_close(again.p50, earlier.p50)
    assert (note is None) == close
    if not close:
        ratio = max(again.p50, earlier.p50) / min(again.p50, earlier.p50)
        assert note.startswith("too noisy to judge") and f"({ratio:.3g}x apart" in note
        assert verdicts.judged("close to the model", verdicts.Retimed(earlier, again)) == note


def test_a_note_shown_twice_in_one_cell_points_to_its_first_showing(monkeypatch):
    shell = types.SimpleNamespace(execution_count=7)
    monkeypatch.setitem(sys.modules, "IPython", types.SimpleNamespace(get_ipython=lambda: shell))
    monkeypatch.setattr(verdicts, "_SHOWN", {"cell": None, "notes": set()})
    noisy = Timing.from_samples([1.0, 1.6, 0.7, 1.3, 0.9, 1.8], name="step")
    thin = Timing.from_samples([1.0, 1.1], name="copy")
    first = verdicts.judged("close to the model", noisy)
    assert first == verdicts.noise_note(noisy) and first.startswith("too noisy to judge: step")
    assert verdicts.judged("close to the model", noisy) == "too noisy to judge (see the note above)"
    assert verdicts.judged("close", thin) == verdicts.noise_note(thin)      # another note: in full
    assert verdicts.judged("close", thin) == "too few samples to judge (see the note above)"
    assert verdicts.judged("close to the model", Timing.from_samples([1.0] * 6, name="s")) == "close to the model"
    shell.execution_count = 8                                               # the next cell gives it in full again
    assert verdicts.judged("close to the model", noisy) == first
    predictions.record("07-step", guess=None, model=1.0, measured=1.2, unit="ms", timing=thin, keep=False)
    assert verdicts.judged("close", thin) == "too few samples to judge (see the note above)"
    monkeypatch.delitem(sys.modules, "IPython")                             # outside a notebook: always in full
    assert verdicts.judged("close to the model", noisy) == verdicts.judged("close to the model", noisy) == first
