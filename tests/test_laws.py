import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from perfcourse import laws

fractions = st.floats(0, 1)
workers = st.floats(1, 1e6)


def test_lecture_examples():
    assert laws.amdahl_limit(0.1) == pytest.approx(10)
    assert laws.amdahl_speedup(0.1, 8) == pytest.approx(4.70588, rel=1e-5)
    assert laws.batch_throughput(8, 0.030) == pytest.approx(266.667, rel=1e-5)
    assert laws.littles_law(arrival_rate=200, time_in_system=0.05) == pytest.approx(10)
    assert laws.efficiency(laws.speedup(100, 30), 4) == pytest.approx(0.8333, rel=1e-4)
    assert laws.efficiency(6.4, 8) == pytest.approx(0.8)


def test_scalars_give_floats_arrays_give_arrays():
    assert type(laws.amdahl_speedup(0.1, 4)) is float
    got = laws.amdahl_speedup(np.array([0.0, 0.5]), np.array([4, 4]))
    assert isinstance(got, np.ndarray) and got.tolist() == pytest.approx([4.0, 1.6])
    assert laws.gustafson_speedup(0.2, np.arange(1, 4)).shape == (3,)


@given(fractions, workers, workers)
def test_amdahl_bounded_and_monotone(s, n1, n2):
    lo, hi = sorted((n1, n2))
    a_lo, a_hi = laws.amdahl_speedup(s, lo), laws.amdahl_speedup(s, hi)
    assert 1 - 1e-9 <= a_lo <= a_hi * (1 + 1e-12)
    assert a_hi <= hi * (1 + 1e-9)
    assert a_hi <= laws.amdahl_limit(s) * (1 + 1e-9)


@given(fractions, workers)
def test_gustafson_at_least_amdahl(s, n):
    assert laws.gustafson_speedup(s, n) >= laws.amdahl_speedup(s, n) * (1 - 1e-12)


@given(st.floats(0, 0.99), st.floats(1.001, 1e4))
def test_karp_flatt_inverts_amdahl(s, n):
    assert laws.karp_flatt(laws.amdahl_speedup(s, n), n) == pytest.approx(s, abs=1e-6)


@given(st.floats(1e-3, 1e6), st.floats(1e-6, 1e3))
def test_littles_law_round_trips(lam, w):
    L = laws.littles_law(arrival_rate=lam, time_in_system=w)
    assert laws.littles_law(in_flight=L, time_in_system=w) == pytest.approx(lam)
    assert laws.littles_law(in_flight=L, arrival_rate=lam) == pytest.approx(w)


@given(st.floats(1, 1e9), st.floats(0.001, 1), st.floats(1, 1e4))
def test_brent_between_lower_bounds_and_serial(work, span_frac, p):
    span = work * span_frac
    t = laws.brent_bound(work, span, p)
    assert t >= max(work / p, span) * (1 - 1e-12)
    assert t <= work + span
    assert laws.parallelism(work, span) == pytest.approx(work / span)


@pytest.mark.parametrize("call, word", [
    (lambda: laws.amdahl_speedup(1.5, 4), "serial_fraction"),
    (lambda: laws.amdahl_speedup(-0.1, 4), "serial_fraction"),
    (lambda: laws.amdahl_speedup(math.nan, 4), "serial_fraction"),
    (lambda: laws.amdahl_speedup(0.1, 0.5), "n"),
    (lambda: laws.amdahl_speedup(0.1, math.inf), "n"),
    (lambda: laws.gustafson_speedup(0.1, 0), "n"),
    (lambda: laws.parallelism(10, 20), "span"),
    (lambda: laws.brent_bound(10, 0, 2), "span"),
    (lambda: laws.speedup(1.0, 0.0), "t_new"),
    (lambda: laws.speedup(-1.0, 1.0), "t_baseline"),
    (lambda: laws.efficiency(2.0, 0), "n"),
    (lambda: laws.karp_flatt(2.0, 1), "n"),
    (lambda: laws.littles_law(arrival_rate=1.0), "exactly two"),
    (lambda: laws.littles_law(arrival_rate=1.0, time_in_system=1.0, in_flight=1.0), "exactly two"),
    (lambda: laws.littles_law(arrival_rate=-1.0, time_in_system=1.0), "arrival_rate"),
    (lambda: laws.batch_throughput(0, 1.0), "batch_size"),
    (lambda: laws.amdahl_speedup(np.array([0.1, 2.0]), 4), "serial_fraction"),
])
def test_bad_input_names_the_argument(call, word):
    with pytest.raises(ValueError, match=word):
        call()


@pytest.mark.parametrize("bad", ["0.1", None, True, 1 + 2j, [["a"]]])
def test_wrong_types_raise_type_error(bad):
    with pytest.raises(TypeError, match="serial_fraction"):
        laws.amdahl_speedup(bad, 4)


def test_littles_law_rejects_positional():
    with pytest.raises(TypeError):
        laws.littles_law(1.0, 2.0)
