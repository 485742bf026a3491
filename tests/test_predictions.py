"""Predict, then measure: the record a learner's guesses leave, and the calibration read back from it."""

import json
import math

import pytest

from perfcourse import cli, predictions, verdicts


@pytest.fixture
def home(tmp_path, monkeypatch):
    monkeypatch.setenv(predictions.ENV_HOME, str(tmp_path))
    return tmp_path


def test_record_prints_the_three_numbers_and_both_ratios(home, capsys):
    e = predictions.record("05-triad", guess=2.0, model=4.0, measured=1.0, unit="ms", about="triad, 2^24, float32, p50")
    out = capsys.readouterr().out
    assert "prediction 05-triad (triad, 2^24, float32, p50), in ms" in out
    assert "guess/measured = 2" in out and "2x too high" in out
    assert "model/measured = 4" in out and "4x too high" in out
    assert e.guess_ratio == 2.0 and e.model_ratio == 4.0


def test_no_guess_still_shows_the_measurement_and_says_so(home, capsys):
    e = predictions.record("03-speedup", guess=None, model=1.6, measured=1.2, unit="x")
    out = capsys.readouterr().out
    assert "no guess was made" in out and "measured" in out and "1.2" in out
    assert e.guess is None and e.guess_ratio is None


def test_a_figure_this_machine_cannot_measure_shows_the_guess_against_the_model_with_no_verdict(home, capsys):
    e = predictions.record("05-occupancy", guess=25.0, model=50.0, measured=None, unit="%",
                           unmeasured="the device's own occupancy needs a GPU")
    out = capsys.readouterr().out
    assert "guess/model = 0.5" in out and "none here: the device's own occupancy needs a GPU" in out
    assert "guess/measured" not in out and "too low" not in out and "close" not in out
    assert e.guess_ratio is None and e.model_ratio is None
    (back,) = predictions.load(strict=True)
    assert back == e
    measured = predictions.record("05-triad", guess=2.0, model=1.0, measured=1.0, unit="ms", show=False)
    assert [key for key, *_ in predictions.calibration([e, measured]).rows] == ["05-triad"]
    for bad in ({"measured": None}, {"measured": 1.0, "unmeasured": "why"}, {"measured": None, "unmeasured": 3}):
        with pytest.raises(ValueError, match="measured=None needs unmeasured="):
            predictions.record("05-x", guess=None, model=1.0, unit="x", show=False, **bad)


def test_every_record_is_appended_to_the_log_in_perfcourse_home(home):
    predictions.record("01-knee", guess=None, model=8.0, measured=10.0, unit="rows", show=False)
    predictions.record("01-knee", guess=12.0, model=8.0, measured=10.0, unit="rows", show=False)
    lines = (home / "predictions.jsonl").read_text().splitlines()
    assert [json.loads(x)["guess"] for x in lines] == [None, 12.0]
    assert [e.key for e in predictions.load()] == ["01-knee", "01-knee"]


def test_the_log_never_lands_in_the_repository_by_default(monkeypatch):
    monkeypatch.delenv(predictions.ENV_HOME, raising=False)
    here = predictions.home().resolve()
    repo = __import__("pathlib").Path(__file__).resolve().parent.parent
    assert repo not in (here, *here.parents)


@pytest.mark.parametrize("kwargs, error, match", [
    ({"key": "speedup"}, ValueError, "NN-short-name"),
    ({"guess": 0}, ValueError, "guess"),
    ({"model": -1}, ValueError, "model"),
    ({"measured": "fast"}, TypeError, "measured"),
    ({"unit": ""}, TypeError, "unit"),
])
def test_bad_arguments_say_what_is_allowed(home, kwargs, error, match):
    args = {"key": "03-x", "guess": 1.0, "model": 1.0, "measured": 1.0, "unit": "x", **kwargs}
    with pytest.raises(error, match=match):
        predictions.record(args.pop("key"), **args)


def _entry(key, guess, model, measured, t):
    return predictions.Entry(key, int(key[:2]), guess, model, measured, "x", "", t)


def test_calibration_is_in_course_order_with_log2_errors_and_a_trend():
    entries = [_entry("05-b", 4.0, 1.0, 1.0, 1), _entry("01-a", 8.0, 2.0, 1.0, 2), _entry("02-c", 1.0, 1.0, 1.0, 3),
               _entry("07-d", 1.0, 1.0, 1.0, 4), _entry("08-e", None, 1.0, 1.0, 5)]
    cal = predictions.calibration(entries)
    assert [r[0] for r in cal.rows] == ["01-a", "02-c", "05-b", "07-d", "08-e"]
    assert cal.rows[0][2] == pytest.approx(3.0) and cal.rows[0][3] == pytest.approx(1.0)
    assert cal.median_error == pytest.approx(1.0)       # |log2| errors 3, 0, 2, 0
    assert cal.trend() == (pytest.approx(1.5), pytest.approx(1.0))
    assert "got better" in cal.summary() and "4 guesses over 5 experiments:" in cal.summary()


def test_calibration_keeps_the_latest_guess_of_a_repeated_prediction():
    cal = predictions.calibration([_entry("03-a", 2.0, 1.0, 1.0, 1), _entry("03-a", 1.0, 1.0, 1.0, 2),
                                   _entry("03-a", None, 1.0, 1.0, 3)])
    assert cal.rows == (("03-a", 3, 0.0, 0.0),)


def test_a_worse_second_half_is_reported_as_such():
    entries = [_entry(f"0{i}-k", g, 1.0, 1.0, i) for i, g in enumerate([1.0, 1.0, 4.0, 4.0], start=1)]
    assert "did not get better" in predictions.calibration(entries).summary()


def test_close_is_one_definition():
    assert verdicts.CLOSE_RATIO == 1.25
    assert verdicts.closeness(1.25) == "close (within 1.25x)" and verdicts.closeness(0.8) == "close (within 1.25x)"
    assert verdicts.closeness(1.3) == "1.3x too high" and verdicts.closeness(0.5) == "2x too low"
    assert math.isclose(2 ** math.log2(verdicts.CLOSE_RATIO), 1.25)


def test_predictions_command_reads_the_log_and_plots(home, tmp_path, capsys):
    assert cli.main(["predictions"]) == 0
    assert "No prediction is recorded yet" in capsys.readouterr().out
    for i, g in enumerate([2.0, 1.0, 1.5, 1.1], start=1):
        predictions.record(f"0{i}-p", guess=g, model=1.0, measured=1.0, unit="x", show=False)
    png = tmp_path / "cal.png"
    assert cli.main(["predictions", "--plot", str(png)]) == 0
    out = capsys.readouterr().out
    assert "01-p" in out and "04-p" in out and "Through the course" in out
    assert png.stat().st_size > 1000
    assert cli.main(["predictions", "--log", str(tmp_path / "missing.jsonl")]) == 1
    assert capsys.readouterr().err.startswith("perfcourse predictions: no prediction log")


def test_nothing_is_recorded_while_presenting(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("PERFCOURSE_HOME", str(tmp_path))
    monkeypatch.setenv("PERFCOURSE_RECORD", "0")
    entry = predictions.record("03-present", guess=2.0, model=3.0, measured=2.5, unit="x")
    assert "your guess" in capsys.readouterr().out and entry.guess == 2.0
    assert list(tmp_path.iterdir()) == []
    monkeypatch.delenv("PERFCOURSE_RECORD")
    predictions.record("03-present", guess=2.0, model=3.0, measured=2.5, unit="x")
    assert [e.key for e in predictions.load(tmp_path / "predictions.jsonl")] == ["03-present"]


def test_predictions_command_speaks_chinese_under_perfcourse_lang_zh(home, tmp_path, capsys, monkeypatch):
    import warnings

    import matplotlib

    from perfcourse.viz import fonts

    monkeypatch.setenv("PERFCOURSE_LANG", "zh")
    monkeypatch.delenv("PERFCOURSE_LOCALE", raising=False)
    monkeypatch.setattr(fonts, "_FOUND", {})
    for i, g in enumerate([2.0, 1.0, 1.5, 1.1], start=1):
        predictions.record(f"0{i}-p", guess=g, model=1.0, measured=1.0, unit="x", show=False)
    png = tmp_path / "cal.png"
    with matplotlib.rc_context(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert cli.main(["predictions", "--plot", str(png)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0] == f"预测记录在 {home / 'predictions.jsonl'}"       # the header
    assert out[-1] == f"图已写入 {png}" and "预测" in out[1] and "你的猜测" in "\n".join(out)
    assert not [w for w in caught if "Glyph" in str(w.message)], "a Chinese label was drawn without its glyphs"
    assert not any("predictions recorded" in line or "plot written" in line for line in out)
