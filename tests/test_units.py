"""The one formatter: fixed units for tables, numbers for axes, values typed in a unit."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from perfcourse import units

UNITS = ["s", "ms", "µs", "ns", "GB/s", "TB/s", "MB", "MiB", "GiB", "KiB", "GFLOP/s", "TFLOP/s", "MFLOP", "kB",
         "req/s", "B/s", "FLOP"]


@given(st.floats(min_value=1e-12, max_value=1e15), st.sampled_from(UNITS))
def test_a_value_in_a_unit_and_back_is_the_same_value(value, unit):
    assert units.from_unit(units.in_unit(value, unit), unit) == pytest.approx(value, rel=1e-12)
    assert units.in_unit(value, unit) == pytest.approx(value / units.unit_size(unit), rel=1e-12)


@given(st.floats(min_value=1e-9, max_value=1e3), st.sampled_from(["ms", "µs", "ns"]), st.integers(0, 4))
def test_a_table_column_prints_what_the_hand_scaling_printed(seconds, unit, decimals):
    factor = {"ms": 1e3, "µs": 1e6, "ns": 1e9}[unit]
    assert units.format_seconds(seconds, unit=unit, decimals=decimals) == f"{seconds * factor:.{decimals}f} {unit}"
    assert units.si(seconds, unit, decimals=decimals) == f"{seconds * factor:.{decimals}f} {unit}"


@given(st.floats(min_value=1.0, max_value=1e16), st.sampled_from([("GB/s", 1e9), ("TFLOP/s", 1e12), ("MB", 1e6)]),
       st.integers(0, 3))
def test_a_prefixed_unit_is_kept_as_given(value, unit_factor, decimals):
    unit, factor = unit_factor
    assert units.si(value, unit, decimals=decimals) == f"{value / factor:.{decimals}f} {unit}"


def test_binary_prefixes_and_plain_units():
    assert units.unit_size("MiB") == 2**20 and units.unit_size("KiB") == 2**10
    assert units.unit_size("req/s") == 1.0 and units.unit_size("FLOP/s") == 1.0 and units.unit_size("B") == 1.0
    assert units.si(3 * 2**20, "MiB") == "3 MiB"
    assert units.si(32e9, "B/s") == "32 GB/s", "a unit without a prefix still gets the best one"
    got = units.in_unit([1e-3, np.nan, 2e-3], "ms")
    assert isinstance(got, np.ndarray) and got[0] == 1.0 and np.isnan(got[1]) and got[2] == 2.0


@pytest.mark.parametrize("bad", [None, "3", True, {"a": 1}, np.array(["x"])])
def test_what_is_not_a_number_is_refused(bad):
    with pytest.raises(TypeError, match="must be a number or an array of numbers"):
        units.in_unit(bad, "ms")
    with pytest.raises(TypeError, match="must be a number or an array of numbers"):
        units.from_unit(bad, "ms")


@pytest.mark.parametrize("bad", [None, "", 3])
def test_a_unit_must_be_named(bad):
    with pytest.raises(TypeError, match="unit must be a non-empty string"):
        units.unit_size(bad)
