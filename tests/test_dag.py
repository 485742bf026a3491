import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfcourse import dag, laws


@pytest.mark.parametrize("n", [2, 3, 7, 8, 9, 100, 1024])
def test_sums_same_work_different_span(n):
    serial, tree = dag.serial_sum(n), dag.tree_sum(n)
    assert serial.work == tree.work == n - 1
    assert serial.span == n - 1
    assert tree.span == math.ceil(math.log2(n))


@pytest.mark.parametrize("n", [1, 2, 5, 8, 33])
def test_recurrence_serial_and_scan(n):
    serial, scan = dag.serial_recurrence(n), dag.scan_recurrence(n)
    assert serial.work == serial.span == n
    rounds = math.ceil(math.log2(n)) if n > 1 else 0
    assert scan.span == rounds + 1
    combines = sum(n - 2**k for k in range(rounds))
    assert scan.work == combines + n
    assert scan.work >= serial.work


@pytest.mark.parametrize("n", [2, 3, 5, 8, 13, 100, 1000])
def test_tree_level_sizes_match_the_graph(n):
    assert dag.tree_level_sizes(n) == dag.level_sizes(dag.tree_sum(n))


def test_level_sizes_add_up_to_work():
    g = dag.tree_sum(1000)
    sizes = dag.level_sizes(g)
    assert len(sizes) == g.span and sum(sizes) == g.work
    assert sizes[0] == 500


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 300), st.integers(1, 64), st.sampled_from(["serial", "tree", "scan"]))
def test_greedy_and_level_schedules_obey_brent(n, p, kind):
    g = {"serial": dag.serial_sum, "tree": dag.tree_sum, "scan": dag.scan_recurrence}[kind](n)
    lower = max(g.work / p, g.span)
    upper = laws.brent_bound(g.work, g.span, p)
    for t in (dag.greedy_time(g, p), dag.level_schedule_time(dag.level_sizes(g), p)):
        assert lower - 1e-9 <= t <= upper + 1e-9


def test_greedy_extremes():
    g = dag.tree_sum(64)
    assert dag.greedy_time(g, 1) == g.work
    assert dag.greedy_time(g, 10_000) == g.span


def test_critical_path_is_a_chain_of_span_operations():
    g = dag.scan_recurrence(16)
    path = g.critical_path()
    assert sum(g.costs[n] for n in path) == g.span
    for a, b in zip(path, path[1:], strict=False):
        assert a in g.deps[b]


def test_hand_built_graph():
    g = dag.Dag()
    a, b, c, d = (g.input(x) for x in "abcd")
    ab, cd = g.op("*", a, b), g.op("*", c, d)
    g.op("+", ab, cd)
    assert (g.work, g.span, g.parallelism) == (3, 2, 1.5)
    assert dag.level_sizes(g) == [2, 1]


def test_bad_input_is_named():
    with pytest.raises(ValueError, match="n must be an integer >= 2"):
        dag.tree_sum(1)
    with pytest.raises(TypeError, match="n must be an integer"):
        dag.serial_sum(4.0)
    with pytest.raises(ValueError, match="p must be an integer >= 1"):
        dag.greedy_time(dag.tree_sum(4), 0)
    with pytest.raises(TypeError, match="dag must be"):
        dag.level_sizes([1, 2])
    g = dag.Dag()
    with pytest.raises(ValueError, match="needs at least one dependency"):
        g.op("+")
    with pytest.raises(ValueError, match="dependency must be the id of an existing node"):
        g.op("+", 5)
