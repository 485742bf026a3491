"""M/M/c: Erlang C against its textbook sum and M/M/1, and against c servers simulated behind one queue."""

import dataclasses
import math

import numpy as np
import pytest

from perfcourse import queueing as q


def _erlang_c_by_sum(lam, mu, c):
    a, rho = lam / mu, lam / (c * mu)
    top = a**c / math.factorial(c) / (1 - rho)
    return top / (sum(a**k / math.factorial(k) for k in range(c)) + top)


def test_one_server_is_mm1():
    one, mm1 = q.mmc(8, 10, 1), q.mm1(8, 10)
    assert q.erlang_c(8, 10, 1) == pytest.approx(0.8)  # C = rho
    for name in ("utilization", "mean_wait", "mean_time_in_system", "mean_in_system", "mean_queue_length"):
        assert getattr(one, name) == pytest.approx(getattr(mm1, name)), name
    assert one.mean_wait == pytest.approx(0.8 / (10 - 8))
    # M/M/1: P(wait > t) = rho exp(-(mu - lambda) t)
    assert one.prob_wait_longer(0.5) == pytest.approx(0.8 * math.exp(-2 * 0.5))
    with pytest.raises(dataclasses.FrozenInstanceError):
        one.servers = 2  # frozen


@pytest.mark.parametrize("c", [1, 2, 3, 5, 8, 13])
@pytest.mark.parametrize("rho", [0.1, 0.5, 0.9, 0.99])
def test_erlang_c_matches_the_textbook_sum(c, rho):
    mu = 4.0
    lam = rho * c * mu
    assert q.erlang_c(lam, mu, c) == pytest.approx(_erlang_c_by_sum(lam, mu, c), rel=1e-12)
    s = q.mmc(lam, mu, c)
    assert s.mean_wait == pytest.approx(s.prob_wait / (c * mu - lam), rel=1e-12)
    assert s.mean_in_system == pytest.approx(lam * (s.mean_wait + 1 / mu))  # Little's law
    assert s.utilization == pytest.approx(rho)


def test_two_servers_closed_form_and_worked_numbers():
    rho = 0.8
    assert q.erlang_c(8, 5, 2) == pytest.approx(2 * rho**2 / (1 + rho))
    s = q.mmc(8, 5, 2)
    assert (s.model, s.servers) == ("M/M/2", 2)
    assert s.prob_wait == pytest.approx(0.711111, abs=1e-6)
    assert s.mean_wait == pytest.approx(0.355556, abs=1e-6)


def test_many_servers_stay_finite_and_pool_better():
    # thousands of servers: A^c / c! overflows a float, the recursion does not
    big = q.erlang_c(0.99 * 2000 * 1.0, 1.0, 2000)
    assert 0.0 < big < 1.0
    # at the same utilization more servers share the queue better: fewer requests wait
    chances = [q.erlang_c(0.8 * c, 1.0, c) for c in range(1, 40)]
    assert all(later < earlier for earlier, later in zip(chances, chances[1:], strict=False))


def test_wait_percentile_inverts_the_tail():
    s = q.mmc(8, 5, 2)
    never = 100 * (1 - s.prob_wait)  # 28.9% find a free server
    assert s.wait_percentile(never - 1) == 0.0
    for pct in (50, 90, 99, 99.9):
        t = s.wait_percentile(pct)
        assert t > 0
        assert s.prob_wait_longer(t) == pytest.approx(1 - pct / 100, rel=1e-9)
    assert s.wait_percentile(99) == pytest.approx(math.log(s.prob_wait / 0.01) / (2 * 5 - 8))
    both = s.wait_percentile(np.array([20.0, 99.0]))
    assert both.tolist() == pytest.approx([0.0, s.wait_percentile(99)])


@pytest.mark.parametrize("call, error, words", [
    (lambda: q.mmc(10, 5, 2), ValueError, "utilization .* must be < 1"),
    (lambda: q.erlang_c(12, 5, 2), ValueError, "utilization .* must be < 1"),
    (lambda: q.mmc(8, 5, 0), ValueError, "servers must be an integer >= 1"),
    (lambda: q.mmc(8, 5, 2.5), TypeError, "servers must be an integer"),
    (lambda: q.mmc(8, 5, True), TypeError, "servers must be an integer"),
    (lambda: q.mmc(-1, 5, 2), ValueError, "arrival_rate must be a finite number > 0"),
    (lambda: q.mmc(8, 0, 2), ValueError, "service_rate must be a finite number > 0"),
    (lambda: q.mmc([8, 9], 5, 2), TypeError, "scalars"),
    (lambda: q.mmc(8, 5, 2).wait_percentile(100), ValueError, r"q must be a finite number in \(0, 100\)"),
    (lambda: q.mmc(8, 5, 2).prob_wait_longer(-1), ValueError, "t must be a finite number >= 0"),
])
def test_bad_arguments_are_named(call, error, words):
    with pytest.raises(error, match=words):
        call()


def test_shared_queue_starts_by_hand_and_one_server_is_lindley():
    starts = q.shared_queue_starts([0.0, 0.0, 0.0, 0.5], [1.0, 2.0, 3.0, 1.0], 2)
    assert starts.tolist() == [0.0, 0.0, 1.0, 2.0]
    rng = np.random.default_rng(3)
    a = np.cumsum(rng.exponential(0.125, 5000))
    s = rng.exponential(0.1, 5000)
    np.testing.assert_allclose(q.shared_queue_starts(a, s, 1), q.lindley_starts(a, s), rtol=0, atol=1e-9)
    assert q.shared_queue_starts(a, s, 5000).tolist() == a.tolist()  # a server for everyone: no wait
    with pytest.raises(ValueError, match="servers must be an integer >= 1"):
        q.shared_queue_starts(a, s, 0)
    with pytest.raises(ValueError, match="one shape"):
        q.shared_queue_starts(a, s[:-1], 2)


def test_shared_queue_is_fcfs_and_never_idles_a_server_while_someone_waits():
    rng = np.random.default_rng(4)
    n, c = 3000, 3
    tr = q.fcfs(np.cumsum(rng.exponential(1 / 10.0, n)), rng.exponential(0.27, n), servers=c)
    assert np.all(np.diff(tr.start) >= 0)  # served in arrival order

    def busy_at(t):  # requests in service at each time of t
        return ((tr.start[None, :] <= t[:, None]) & (tr.finish[None, :] > t[:, None])).sum(axis=1)

    assert busy_at(tr.start).max() <= c  # never more than c at once
    waited = tr.wait > 0
    assert waited.sum() > n // 10  # the load makes queues
    assert np.all(busy_at(tr.arrival[waited]) == c)  # a request waits only while all c servers are busy


def test_simulated_mm2_matches_erlang_c():
    # lambda 8/s on two servers of mu 5/s (rho 0.8): Wq = 0.3556 s. Over 20 seeds the mean wait of
    # 400,000 requests strays from theory by 2% (one standard deviation), at most 4.5%; seed 0 by 1%.
    theory = q.mmc(8.0, 5.0, 2)
    tr = q.simulate("fcfs", q.Poisson(8.0, 400_000), q.exponential(0.2), servers=2, seed=0)
    assert tr.wait.mean() == pytest.approx(theory.mean_wait, rel=0.06)
    assert (tr.wait > 0).mean() == pytest.approx(theory.prob_wait, abs=0.01)
    assert np.percentile(tr.wait, 90) == pytest.approx(theory.wait_percentile(90), rel=0.06)
    assert tr.latency.mean() == pytest.approx(theory.mean_time_in_system, rel=0.06)


def test_two_separate_queues_wait_longer_than_one_shared_queue():
    # The same requests (lambda 8/s, service 0.2 s on average) either share two servers or are
    # split at random between two single-server queues (each M/M/1 at 4/s: Wq = 0.8 s).
    rng = np.random.default_rng(0)
    n = 400_000
    a, s = np.cumsum(rng.exponential(1 / 8.0, n)), rng.exponential(0.2, n)
    shared = q.fcfs(a, s, servers=2).wait
    side = rng.integers(0, 2, n).astype(bool)
    separate = np.concatenate([q.fcfs(a[side], s[side]).wait, q.fcfs(a[~side], s[~side]).wait])
    assert shared.mean() == pytest.approx(q.mmc(8.0, 5.0, 2).mean_wait, rel=0.06)
    assert separate.mean() == pytest.approx(q.mm1(4.0, 5.0).mean_wait, rel=0.06)
    assert separate.mean() > 1.5 * shared.mean()  # theory: 0.8 s against 0.356 s, 2.25x


def test_batch_means_widens_the_error_of_correlated_waits_and_covers_the_theory():
    rng = np.random.default_rng(3)
    iid = rng.normal(1.0, 0.2, 40_000)
    mean, error = q.batch_means(iid)
    assert abs(mean - 1.0) < 3 * error and 0.7 < error / (0.2 / math.sqrt(iid.size)) < 1.4   # independent: std/sqrt(n)
    arrivals = np.cumsum(rng.exponential(1 / 0.8, 40_000))
    waits = q.fcfs(arrivals, rng.exponential(1.0, 40_000)).wait                          # M/M/1 at 80% load
    mean, error = q.batch_means(waits)
    assert error > 3 * waits.std() / math.sqrt(waits.size)            # one long wait follows another
    assert abs(mean - q.mm1(0.8, 1.0).mean_wait) < 3 * error
    with pytest.raises(ValueError, match="two finite values per batch"):
        q.batch_means([1.0, 2.0, 3.0], batches=2)
    with pytest.raises(ValueError, match="batches"):
        q.batch_means(iid, batches=1)
    with pytest.raises(ValueError, match="1 NaN or infinite"):
        q.batch_means([*iid[:99], np.nan])
