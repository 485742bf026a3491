"""The alpha-beta model of an all-reduce: formula, fit and predicted efficiency."""

import numpy as np
import pytest

from perfcourse import allreduce


def test_ring_time_terms():
    alpha, beta, m = 10e-6, 1e-9, 8e6
    assert allreduce.ring_allreduce_time(m, 1, alpha, beta) == 0.0
    t2 = allreduce.ring_allreduce_time(m, 2, alpha, beta)
    assert t2 == pytest.approx(2 * alpha + m * beta)
    # latency term grows linearly with n; bandwidth term tends to 2 m beta
    big = allreduce.ring_allreduce_time(m, 10_000, 0.0, beta)
    assert big == pytest.approx(2 * m * beta, rel=1e-3)
    lat = allreduce.ring_allreduce_time(0, np.array([2, 4, 8]), alpha, beta)
    assert np.allclose(lat, [2 * alpha, 6 * alpha, 14 * alpha])


def test_ring_time_rejects_bad_input():
    with pytest.raises(ValueError, match="n must be"):
        allreduce.ring_allreduce_time(1e6, 0, 1e-6, 1e-9)
    with pytest.raises(ValueError, match="n must be a whole number"):
        allreduce.ring_allreduce_time(1e6, 2.5, 1e-6, 1e-9)
    with pytest.raises(ValueError, match="alpha"):
        allreduce.ring_allreduce_time(1e6, 2, -1e-6, 1e-9)
    with pytest.raises(TypeError, match="nbytes"):
        allreduce.ring_allreduce_time("1MB", 2, 1e-6, 1e-9)


@pytest.mark.parametrize("n", [2, 4, 8])
def test_fit_recovers_alpha_beta_through_noise(n):
    rng = np.random.default_rng(n)
    m = np.logspace(3, 7, 12)
    t = allreduce.ring_allreduce_time(m, n, 8e-6, 0.3e-9) * rng.uniform(0.97, 1.03, m.size)
    fit = allreduce.fit_alpha_beta(m, t, n)
    assert fit.alpha == pytest.approx(8e-6, rel=0.1)
    assert fit.beta == pytest.approx(0.3e-9, rel=0.1)
    assert fit.n == n and fit.rel_error < 0.05
    assert fit.predict(m[-1], n) == pytest.approx(t[-1], rel=0.1)
    assert " µs, beta = " in str(fit) and "ns/byte" in str(fit) and "GB/s" in str(fit)


def test_fit_never_returns_negative_terms():
    m = np.array([1e3, 1e4, 1e5])
    flat = allreduce.fit_alpha_beta(m, [1e-5, 1e-5, 1e-5], 2)     # pure latency
    assert flat.beta == 0 and flat.alpha == pytest.approx(5e-6)
    line = allreduce.fit_alpha_beta(m, m * 1e-9, 2)                 # pure bandwidth
    assert line.alpha == 0 and line.beta == pytest.approx(1e-9)


def test_fit_validation():
    with pytest.raises(ValueError, match="two distinct sizes"):
        allreduce.fit_alpha_beta([1e3, 1e3], [1e-5, 1e-5], 2)
    with pytest.raises(ValueError, match="equal length"):
        allreduce.fit_alpha_beta([1e3, 1e4], [1e-5], 2)
    with pytest.raises(ValueError, match="n must be"):
        allreduce.fit_alpha_beta([1e3, 1e4], [1e-5, 2e-5], 1)


def test_predicted_efficiency_shapes():
    n = np.array([1, 2, 4, 16, 64, 256])
    strong = allreduce.predicted_efficiency(0.05, n, 4e6, 10e-6, 0.5e-9)
    weak = allreduce.predicted_efficiency(0.05, n, 4e6, 10e-6, 0.5e-9, scaling="weak")
    assert strong[0] == weak[0] == 1.0
    assert np.all(np.diff(strong) < 0)          # strong scaling only loses
    assert np.all(weak >= strong)               # weak keeps the per-rank work
    assert weak[-1] > 0.5 > strong[-1]
    with pytest.raises(ValueError, match="scaling"):
        allreduce.step_time(0.05, 2, 4e6, 1e-5, 1e-9, scaling="medium")


def test_bus_bandwidth_counts_ring_traffic():
    assert allreduce.bus_bandwidth(1e9, 1.0, 2) == pytest.approx(1e9)
    assert allreduce.bus_bandwidth(1e9, 1.0, 4) == pytest.approx(1.5e9)
