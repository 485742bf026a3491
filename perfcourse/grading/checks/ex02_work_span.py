"""Exercise 02: work and span of a task graph, its critical path, Brent's time bounds."""

from __future__ import annotations

from ._tools import part, run_cases, short


def random_dag(rng, n_low=6, n_high=40):
    """A random task graph: edges only go forward in a shuffled order, so it has no cycle."""
    n = int(rng.integers(n_low, n_high))
    names = [f"t{i}" for i in rng.permutation(n)]
    density = float(rng.uniform(0.05, 0.4))
    edges = [(names[i], names[j]) for i in range(n) for j in range(i + 1, n) if rng.random() < density]
    edges = [edges[i] for i in rng.permutation(len(edges))]
    cost = {name: float(rng.uniform(0.5, 10.0)) for name in sorted(names)}
    return edges, cost


@part("A: work and span of a task graph", points=3, needs=("work_and_span",))
def check_work_and_span(work_and_span, rng, ref):
    cases = []
    for _ in range(6):
        edges, cost = random_dag(rng)
        cases.append(((edges, cost), ref.work_and_span(edges, cost)))
    return run_cases(work_and_span, cases, 3, rtol=1e-9)


def _path_problem(path, edges, cost, span):
    """Why ``path`` is not a critical path of the graph, or None when it is one."""
    if not isinstance(path, (list, tuple)) or not path:
        return f"expected a non-empty list of task names, got {short(path)}"
    if any(t not in cost for t in path):
        return f"{short(path)} names a task that is not in the graph"
    edge_set = set(edges)
    for u, v in zip(path, path[1:], strict=False):
        if (u, v) not in edge_set:
            return f"{short(path)} is not a chain: there is no edge {u!r} -> {v!r}"
    length = sum(cost[t] for t in path)
    if abs(length - span) > 1e-9 * span:
        return f"the chain {short(path)} costs {length:.6g}, but the span is {span:.6g}"
    return None


@part("B: the critical path itself", points=3, needs=("critical_path",))
def check_critical_path(critical_path, rng, ref):
    for _ in range(6):
        edges, cost = random_dag(rng)
        span = ref.work_and_span(edges, cost)[1]
        problem = _path_problem(critical_path(list(edges), dict(cost)), edges, cost, span)
        if problem:
            return 0, 3, f"wrong for a graph of {len(cost)} tasks and {len(edges)} edges: {problem}"
    return 3, 3, "correct on 6 random graphs"


def _plan_cases(rng, ref):
    """Graphs on 1 to 128 workers, never nearly tied, until each plan has won and the halved task has moved
    the critical path to another chain in a case that plan "task" wins."""
    cases, seen = [], set()
    while len(cases) < 6 or (len(seen) < 3 and len(cases) < 60):
        edges, cost = random_dag(rng)
        p = int(round(2 ** rng.uniform(0, 7)))
        doubled, halved, moved = ref.plan_bounds(edges, cost, p, shift=True)
        if abs(doubled - halved) <= 1e-6 * halved:
            continue
        expected = ref.better_plan(edges, cost, p)
        seen |= {expected[0]} | ({"moved"} if moved and expected[0] == "task" else set())
        cases.append(((edges, cost, p), expected))
    return cases


@part("C: more workers or a shorter critical path", points=2, needs=("better_plan",))
def check_better_plan(better_plan, rng, ref):
    return run_cases(better_plan, _plan_cases(rng, ref), 2, rtol=1e-9)
