"""Computations as graphs: work, span and how many workers can help.

A computation is a directed acyclic graph (DAG): one node per operation, an edge from
each operand to the operation that consumes it. Inputs cost nothing; every operation
costs one step. Then

- work ``T1`` = number of operations (the time on one worker),
- span ``T_inf`` = operations on the longest dependency chain (the time on unlimited workers),
- parallelism = ``T1 / T_inf`` (how many workers can be kept busy on average).

The builders below make the graphs the course draws: a sum walked by one thread, a
tree (pairwise) sum, a linear recurrence stepped serially and the same recurrence as a
prefix scan. ``draw`` plots a small graph with its critical path highlighted.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from .._check import positive_int
from . import laws

__all__ = ["Dag", "serial_sum", "tree_sum", "serial_recurrence", "scan_recurrence", "level_sizes",
           "tree_level_sizes", "level_schedule_time", "greedy_time"]


@dataclass
class Dag:
    """A computation graph built node by node.

    Examples
    --------
    >>> g = Dag()
    >>> a, b, c = g.input("a"), g.input("b"), g.input("c")
    >>> ab = g.op("+", a, b)
    >>> abc = g.op("+", ab, c)
    >>> g.work, g.span, g.parallelism
    (2, 2, 1.0)
    """

    labels: list = field(default_factory=list)
    deps: list = field(default_factory=list)
    costs: list = field(default_factory=list)
    columns: list = field(default_factory=list)

    def _add(self, label, deps, cost, column):
        for d in deps:
            if not isinstance(d, int) or not 0 <= d < len(self.labels):
                raise ValueError(f"dependency must be the id of an existing node (0..{len(self.labels) - 1}); "
                                 f"got {d!r}")
        self.labels.append(str(label))
        self.deps.append(tuple(deps))
        self.costs.append(cost)
        self.columns.append(column)
        return len(self.labels) - 1

    def input(self, label, *, column=None):
        """Add an input value (costs no work); return its node id.

        ``column`` (optional) places the node horizontally when the graph is drawn.
        """
        return self._add(label, (), 0, column)

    def op(self, label, *deps, column=None):
        """Add a one-step operation that needs the nodes ``deps``; return its node id."""
        if not deps:
            raise ValueError(f"operation {label!r} needs at least one dependency; use input() for a value")
        return self._add(label, deps, 1, column)

    def __len__(self):
        return len(self.labels)

    def depths(self):
        """Steps on the longest chain ending at each node (inputs have depth 0)."""
        depth = []
        for deps, cost in zip(self.deps, self.costs, strict=True):
            depth.append(cost + max((depth[d] for d in deps), default=0))
        return depth

    @property
    def work(self):
        """``T1``: the number of operations."""
        return sum(self.costs)

    @property
    def span(self):
        """``T_inf``: operations on the longest dependency chain."""
        return max(self.depths(), default=0)

    @property
    def parallelism(self):
        """``T1 / T_inf``: the average number of operations that can run at once."""
        return laws.parallelism(self.work, self.span)

    def critical_path(self):
        """Node ids on one longest chain, from an input to the last operation."""
        depth = self.depths()
        node = max(range(len(self)), key=depth.__getitem__)
        path = [node]
        while self.deps[node]:
            node = max(self.deps[node], key=depth.__getitem__)
            path.append(node)
        return path[::-1]


def serial_sum(n):
    """The sum ``((x0 + x1) + x2) + ...`` of ``n`` numbers walked by one thread.

    Work ``n - 1``, span ``n - 1``: every add waits for the one before.

    Examples
    --------
    >>> g = serial_sum(8)
    >>> g.work, g.span
    (7, 7)
    """
    n = positive_int("n", n, low=2)
    g = Dag()
    acc = g.input("x0", column=0)
    for i in range(1, n):
        acc = g.op("+", acc, g.input(f"x{i}", column=1), column=0)
    return g


def tree_sum(n):
    """A pairwise (tree) sum of ``n`` numbers: add neighbours, then neighbours of those...

    Work is still ``n - 1`` adds, but the span drops to ``ceil(log2 n)`` levels.

    Examples
    --------
    >>> g = tree_sum(8)
    >>> g.work, g.span, g.parallelism
    (7, 3, 2.3333333333333335)
    >>> tree_sum(1000).span
    10
    """
    n = positive_int("n", n, low=2)
    g = Dag()
    level = [g.input(f"x{i}", column=i) for i in range(n)]
    while len(level) > 1:
        pairs = [g.op("+", level[i], level[i + 1], column=(g.columns[level[i]] + g.columns[level[i + 1]]) / 2)
                 for i in range(0, len(level) - 1, 2)]
        level = pairs + level[len(level) - len(level) % 2:]
    return g


def serial_recurrence(n):
    """``x[t+1] = a * x[t] + b`` stepped ``n`` times: one multiply-add per step.

    Each step needs the previous one, so work and span are both ``n``.

    Examples
    --------
    >>> g = serial_recurrence(8)
    >>> g.work, g.span
    (8, 8)
    """
    n = positive_int("n", n)
    g = Dag()
    x = g.input("x0", column=0)
    for t in range(1, n + 1):
        x = g.op(f"x{t}", x, column=0)
    return g


def scan_recurrence(n):
    """The same recurrence as a prefix scan (Hillis-Steele) over its ``n`` steps.

    Step ``t`` is the affine map ``x -> a_t x + b_t``. Maps compose associatively, so the
    composed maps for all prefixes come out of ``ceil(log2 n)`` rounds: in round ``k``
    every position ``i >= 2**k`` combines with position ``i - 2**k``. One more round
    applies each composed map to ``x0``. Work grows to about ``n log2 n``; span shrinks to
    ``ceil(log2 n) + 1``.

    Examples
    --------
    >>> g = scan_recurrence(8)
    >>> g.work, g.span
    (25, 4)
    """
    n = positive_int("n", n)
    g = Dag()
    x0 = g.input("x0", column=0)
    maps = [g.input(f"m{t}", column=t) for t in range(1, n + 1)]
    shift = 1
    while shift < n:
        maps = maps[:shift] + [g.op("∘", maps[i - shift], maps[i], column=i + 1) for i in range(shift, n)]
        shift *= 2
    for t, m in enumerate(maps, start=1):
        g.op(f"x{t}", x0, m, column=t)
    return g


def level_sizes(dag):
    """How many operations sit at each depth 1, 2, ..., span.

    Operations at the same depth never depend on each other, so each level can run at once.

    Examples
    --------
    >>> level_sizes(tree_sum(8))
    [4, 2, 1]
    """
    if not isinstance(dag, Dag):
        raise TypeError(f"dag must be a perfcourse.models.dag.Dag; got {type(dag).__name__}")
    sizes = [0] * dag.span
    for depth, cost in zip(dag.depths(), dag.costs, strict=True):
        if cost:
            sizes[depth - 1] += 1
    return sizes


def tree_level_sizes(n):
    """Adds per level of :func:`tree_sum` over ``n`` numbers, without building the graph.

    Each level adds neighbours in pairs (an odd one out waits a level), so the sizes are
    about ``n/2, n/4, ..., 1``: they sum to the work ``n - 1`` over ``ceil(log2 n)`` levels.

    Examples
    --------
    >>> tree_level_sizes(8), tree_level_sizes(5)
    ([4, 2, 1], [2, 1, 1])
    >>> len(tree_level_sizes(2**20)), sum(tree_level_sizes(2**20)) == 2**20 - 1
    (20, True)
    """
    m = positive_int("n", n, low=2)
    sizes = []
    while m > 1:
        sizes.append(m // 2)
        m -= m // 2
    return sizes


def level_schedule_time(sizes, p):
    """Steps to run levels one after another on ``p`` workers: ``sum(ceil(m_k / p))``.

    Each level of ``m_k`` operations takes ``ceil(m_k / p) <= m_k / p + 1`` steps; summing
    over the ``T_inf`` levels gives Brent's bound ``T_p <= T1 / p + T_inf``.

    Examples
    --------
    >>> level_schedule_time([4, 2, 1], 2)
    4
    >>> level_schedule_time([4, 2, 1], 1)
    7
    """
    p = positive_int("p", p)
    sizes = [positive_int("level size", m) for m in sizes]
    return sum(math.ceil(m / p) for m in sizes)


def greedy_time(dag, p):
    """Steps a greedy scheduler needs on ``p`` workers (every step runs up to ``p`` ready operations).

    Any greedy schedule satisfies ``max(T1/p, T_inf) <= T_p <= T1/p + T_inf``.

    Examples
    --------
    >>> greedy_time(tree_sum(8), 2), greedy_time(tree_sum(8), 4), greedy_time(serial_sum(8), 4)
    (4, 3, 7)
    """
    if not isinstance(dag, Dag):
        raise TypeError(f"dag must be a perfcourse.models.dag.Dag; got {type(dag).__name__}")
    p = positive_int("p", p)
    users = [[] for _ in range(len(dag))]
    waiting = [0] * len(dag)
    for node, deps in enumerate(dag.deps):
        for d in deps:
            users[d].append(node)
        waiting[node] = sum(1 for d in deps if dag.costs[d])
    ready = [n for n in range(len(dag)) if dag.costs[n] and waiting[n] == 0]
    steps = 0
    while ready:
        now, ready = ready[:p], ready[p:]
        steps += 1
        for node in now:
            for u in users[node]:
                waiting[u] -= 1
                if waiting[u] == 0:
                    ready.append(u)
    return steps
