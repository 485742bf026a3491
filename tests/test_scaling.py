import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from perfcourse import laws, scaling, selftest, verdicts


def test_fit_recovers_amdahl_fraction_exactly():
    n = np.array([1, 2, 4, 8, 16])
    for s in (0.0, 0.03, 0.25, 1.0):
        assert scaling.fit_serial_fraction(n, laws.amdahl_speedup(s, n)) == pytest.approx(s, abs=1e-12)


@given(st.floats(0, 1), st.lists(st.integers(2, 4096), min_size=1, max_size=6))
def test_fit_and_karp_flatt_agree_on_amdahl_runs(s, ns):
    psi = laws.amdahl_speedup(s, np.array(ns, dtype=float))
    assert scaling.fit_serial_fraction(ns, psi) == pytest.approx(s, abs=1e-9)
    table = scaling.strong_scaling(sorted(set([1] + ns)), 1.0 / laws.amdahl_speedup(s, np.array(sorted(set([1] + ns)))))
    assert np.allclose(table.karp_flatt[1:], s, atol=1e-9)


def test_fit_is_clipped_and_ignores_n_equal_one():
    # superlinear speedups would give a negative slope: clipped to zero
    assert scaling.fit_serial_fraction([1, 2, 4], [1.0, 2.5, 5.0]) == 0.0
    with pytest.raises(ValueError, match="n needs at least one worker count > 1"):
        scaling.fit_serial_fraction([1, 1], [1.0, 1.0])


def test_fit_validates_inputs():
    with pytest.raises(ValueError, match="same length"):
        scaling.fit_serial_fraction([1, 2], [1.0])
    with pytest.raises(ValueError, match="speedup must be"):
        scaling.fit_serial_fraction([2], [0.0])
    with pytest.raises(TypeError, match="n must be"):
        scaling.fit_serial_fraction("248", [1.0])


def test_strong_scaling_table_matches_lecture_example_4():
    table = scaling.strong_scaling([1, 4], [100.0, 30.0])
    assert table.speedup.tolist() == pytest.approx([1.0, 100 / 30])
    assert table.efficiency[-1] == pytest.approx(laws.efficiency(laws.speedup(100, 30), 4))
    assert np.isnan(table.karp_flatt[0])
    assert table.karp_flatt[1] == pytest.approx(laws.karp_flatt(100 / 30, 4))
    assert "83.3%" in str(table)


def test_strong_scaling_with_non_unit_baseline():
    table = scaling.strong_scaling([2, 4], [1.0, 0.5])
    assert table.speedup.tolist() == pytest.approx([2.0, 4.0])
    assert table.efficiency.tolist() == pytest.approx([1.0, 1.0])


def test_weak_scaling_flat_time_is_perfect():
    table = scaling.weak_scaling([1, 2, 4], [0.2, 0.2, 0.2])
    assert table.speedup.tolist() == pytest.approx([1, 2, 4])
    assert table.efficiency.tolist() == pytest.approx([1, 1, 1])
    assert np.isnan(table.karp_flatt).all()
    with pytest.raises(ValueError, match="strong-scaling"):
        table.serial_fraction()


def test_weak_scaling_matches_gustafson_with_fixed_serial_time():
    # serial 0.1 s + parallel 0.9 s of work per worker; parallel part runs side by side
    n = np.array([1, 2, 4, 8])
    t = np.full(4, 1.0)  # the scaled problem takes as long as the one-worker one
    assert scaling.weak_scaling(n, t).speedup.tolist() == pytest.approx(n.tolist())
    t_amdahl_1 = 0.1 + 0.9 * n  # the scaled problem run by a single worker
    assert (t_amdahl_1 / t).tolist() == pytest.approx(laws.gustafson_speedup(0.1, n).tolist())


def test_tables_reject_bad_worker_lists():
    with pytest.raises(ValueError, match="strictly increasing"):
        scaling.strong_scaling([1, 4, 2], [1.0, 0.5, 0.6])
    with pytest.raises(ValueError, match="whole number"):
        scaling.weak_scaling([1, 2.5], [1.0, 1.0])
    with pytest.raises(ValueError, match="seconds must be"):
        scaling.strong_scaling([1, 2], [1.0, -1.0])


def test_serial_fraction_and_amdahl_time_round_trip():
    s = scaling.serial_fraction(0.03, 0.12)
    assert s == pytest.approx(0.25)
    assert scaling.amdahl_time(0.12, s, 4) == pytest.approx(0.12 / laws.amdahl_speedup(0.25, 4))
    with pytest.raises(ValueError, match="serial_time must be <= total_time"):
        scaling.serial_fraction(2.0, 1.0)
    with pytest.raises(ValueError, match="t1 must be"):
        scaling.amdahl_time(0.0, 0.1, 2)


def test_call_overhead_makes_many_calls_serial():
    few, many = scaling.call_overhead_time(1e-3, [1, 1000], 5e-6)
    assert few == pytest.approx(1.005e-3)
    assert many == pytest.approx(6e-3)
    with pytest.raises(ValueError, match="calls must be"):
        scaling.call_overhead_time(1e-3, 0, 5e-6)


def test_widget_lines_carry_the_law_values():
    for s, n in [(0.1, 8), (0.37, 3), (0.0, 64), (1.0, 2)]:
        line = verdicts.amdahl_line(s, n)
        assert f"speedup = {laws.amdahl_speedup(s, n):.2f}x" in line
        assert line.startswith(f"s = {s:.2f}, N = {n}:")
    assert "limit 1/s = inf" in verdicts.amdahl_line(0, 4)
    assert f"{laws.gustafson_speedup(0.3, 16):.2f}x" in verdicts.compare_line(0.3, 16)
    with pytest.raises(ValueError, match="serial_fraction must be"):
        verdicts.amdahl_line(1.5, 2)


def test_speedup_outcome_covers_every_case_around_the_prediction():
    assert verdicts.speedup_outcome(1.55, 1.6) == "close"
    assert verdicts.speedup_outcome(0.46, 1.65) == "slower"
    assert verdicts.speedup_outcome(1.2, 1.65) == "short"
    assert verdicts.speedup_outcome(2.1, 1.6) == "above"
    # a prediction below 1x that comes true is "close", not "slower"
    assert verdicts.speedup_outcome(0.7, 0.72) == "close"
    # the band is a ratio to the prediction
    assert verdicts.speedup_outcome(1.3, 1.6, band=1.25) == "close"
    assert verdicts.speedup_outcome(1.3, 1.6, band=1.1) == "short"


def test_speedup_verdict_says_what_was_measured():
    line = verdicts.speedup_verdict(0.46, 1.65, 2)
    assert "measured 0.46x against a predicted 1.65x on 2 workers" in line
    assert "slower than one" in line
    assert "close to the model" in verdicts.speedup_verdict(1.62, 1.65, 2)
    assert "no faster than one" in verdicts.speedup_verdict(0.97, 1.65, 2)
    assert verdicts.speedup_verdict(1.3, 1.65, 2).endswith(": faster than one worker, well short of the model")
    assert verdicts.speedup_verdict(1.02, 1.65, 2).endswith(": barely faster than one worker, well short of the model")
    assert "better than the model" in verdicts.speedup_verdict(2.1, 1.65, 2)


@pytest.mark.parametrize("measured", [0.5, 0.7, 0.79, 0.81, 0.85, 0.89, 0.91, 0.99, 1.01, 1.09, 1.11, 1.2, 1.24,
                                      1.26, 1.3])
def test_a_speedup_within_the_close_band_of_one_worker_is_never_called_faster_or_slower(measured):
    line = verdicts.speedup_verdict(measured, 2.0, 2)   # a prediction far from all of them
    reading = line.split(": ", 1)[1]
    if abs(measured - 1) < verdicts.NEAR_ONE:
        assert reading.startswith(("barely faster", "2 workers were no faster")), line
    elif verdicts.is_close(measured, 1.0):
        assert reading in ("within 1.25x of one worker, well short of the model",
                           "2 workers were a little slower than one here (within 1.25x)"), line
    elif measured > 1:
        assert reading == "faster than one worker, well short of the model", line
    else:
        assert reading == "2 workers were slower than one here", line


def test_speedup_verdict_validates_inputs():
    with pytest.raises(ValueError, match="measured must be"):
        verdicts.speedup_outcome(0.0, 1.5)
    with pytest.raises(TypeError, match="predicted must be a single speedup"):
        verdicts.speedup_outcome(1.0, [1.5, 1.6])
    with pytest.raises(ValueError, match="band must be"):
        verdicts.speedup_outcome(1.0, 1.5, band=0.5)
    with pytest.raises(ValueError, match="n must be"):
        verdicts.speedup_verdict(1.0, 1.5, 1)


def test_lesson_questions_exist_and_reference_answers_are_right():
    for lesson, prefix in ((3, "l03-"), (4, "l04-")):
        qs = [q for q in selftest.bank().values() if q.qid.startswith(prefix)]
        assert len(qs) >= 3 and all(q.lesson == lesson for q in qs)
        for q in qs:
            right = selftest.answer(q.qid)
            assert selftest.check(q.qid, right, quiet=True)
    assert selftest.check("l03-launch-bound", 5.0, quiet=True)       # launches overlap the kernels
    assert not selftest.check("l03-launch-bound", 5.1, quiet=True)   # work + launches added: no overlap
    assert not selftest.check("l03-launch-bound", 0.105, quiet=True)
