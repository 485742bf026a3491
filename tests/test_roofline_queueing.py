import dataclasses
import math

import matplotlib
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from perfcourse import queueing, roofline

matplotlib.use("Agg")


@given(st.floats(1e-3, 1e5), st.floats(1e9, 1e16), st.floats(1e9, 1e13))
def test_roof_is_min_of_both_limits(i, pf, pb):
    a = roofline.attainable_flops(i, pf, pb)
    assert a <= pf * (1 + 1e-12) and a <= i * pb * (1 + 1e-12)
    assert a == pytest.approx(min(pf, i * pb))


def test_time_bound_and_ridge():
    pf, pb = 100e12, 2e12
    assert roofline.ridge_point(pf, pb) == pytest.approx(50)
    # below the ridge the byte term wins, above it the FLOP term does
    assert roofline.roofline_time(1e9, 1e9, pf, pb) == pytest.approx(1e9 / pb)
    assert roofline.roofline_time(1e12, 1e9, pf, pb) == pytest.approx(1e12 / pf)
    assert roofline.bound(1e9, 1e9, pf, pb) == "memory"
    assert roofline.bound(1e12, 1e9, pf, pb) == "compute"
    assert roofline.roofline_time(np.array([1e9, 1e12]), 1e9, pf, pb).shape == (2,)


def test_roofline_bad_input():
    with pytest.raises(ValueError, match="bytes_moved"):
        roofline.arithmetic_intensity(1.0, 0.0)
    with pytest.raises(ValueError, match="peak_bandwidth"):
        roofline.attainable_flops(1.0, 1e12, -5)



def test_mm1_and_md1_match_textbook():
    m = queueing.mm1(8, 10)
    assert (m.mean_time_in_system, m.mean_wait, m.mean_in_system) == pytest.approx((0.5, 0.4, 4.0))
    assert m.mean_queue_length == pytest.approx(3.2)
    d = queueing.md1(8, 10)
    assert d.mean_wait == pytest.approx(m.mean_wait / 2)
    assert d.mean_in_system == pytest.approx(8 * d.mean_time_in_system)  # Little's law holds
    assert m.time_in_system_percentile(50) == pytest.approx(math.log(2) / 2)
    with pytest.raises(ValueError, match="M/M/1"):
        d.time_in_system_percentile(99)
    with pytest.raises(dataclasses.FrozenInstanceError):
        m.utilization = 0.1  # frozen


@pytest.mark.parametrize("lam", [10, 12])
def test_unstable_queue_rejected(lam):
    with pytest.raises(ValueError, match="without bound"):
        queueing.mm1(lam, 10)
    with pytest.raises(ValueError, match="without bound"):
        queueing.md1(lam, 10)
