import pytest

from perfcourse import launches


def test_long_kernels_hide_behind_an_unsynchronised_timer():
    t = launches.async_timeline(10, launch_s=5e-6, kernel_s=1e-3)
    assert t.host_s == pytest.approx(50e-6)
    assert t.device_s == pytest.approx(5e-6 + 10 * 1e-3)
    assert t.under_report == pytest.approx(t.device_s / t.host_s)
    assert (t.start[1:] >= t.end[:-1]).all() and (t.start >= t.issued).all()


def test_tiny_kernels_wait_for_the_host():
    t = launches.async_timeline(4, launch_s=10e-6, kernel_s=1e-6)
    assert list(t.start) == pytest.approx(list(t.issued))
    assert t.device_s == pytest.approx(41e-6)


@pytest.mark.parametrize("args, error", [((0, 1e-6, 1e-3), ValueError), ((2.5, 1e-6, 1e-3), TypeError),
                                         ((3, 0, 1e-3), ValueError), ((3, 1e-6, -1), ValueError)])
def test_arguments_are_checked(args, error):
    with pytest.raises(error):
        launches.async_timeline(*args)
