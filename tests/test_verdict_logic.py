"""Verdicts as logic: generated measurements on both sides of every bound, and words that agree with them."""

import re

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
    cap = min(n, max(1.0, ceiling / achieved)) if shared else n
    text = explain.scaling_verdict(psi, n, achieved=achieved, ceiling=ceiling, resource="memory bandwidth",
                                   shared=shared, unit="B/s")
    measured = re.search(r"Measured ([0-9.e+]+)x", text).group(1)
    assert measured == f"{psi:.3g}"
    if psi > explain.SUPERLINEAR_SLACK * n:
        assert "one-worker run was slowed" in text and "explains" not in text
    elif psi > cap * explain.BOUND_SLACK:
        assert "above what the memory bandwidth allows" in text and "explains" not in text
    elif psi >= cap / CLOSE_RATIO:
        assert "explains the result" in text
    else:
        assert f"{cap / psi:.3g}x below what the memory bandwidth allows" in text and "explains" not in text


@given(st.floats(min_value=0.01, max_value=3.0))
def test_a_bound_verdict_reads_the_share_of_the_ceiling_it_reached(fraction):
    text = explain.bound_verdict(1e-3, [("memory", fraction * 20e9 * 1e-3, 20e9, "B/s")])
    if fraction > explain.BOUND_SLACK:
        assert "above the memory ceiling" in text and "bounds nothing" in text
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
        assert note.startswith("too noisy to judge") and f"{t.iqr_over_median:.2f}" in note and text == note
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
