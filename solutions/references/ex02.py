"""The grader's answers to exercise 02: longest paths, work and span of a task graph, and the better of two plans.

Read by the grader at grading time (never part of the package a learner installs); see
:mod:`perfcourse.grading.checks._answers`.
"""

from __future__ import annotations

from perfcourse.models.laws import brent_bound


def longest_paths(edges, cost):
    """For each task, the longest cost of a chain ending with it, and its predecessor on that chain.

    Examples
    --------
    >>> finish, _ = longest_paths([("a", "b"), ("a", "c"), ("b", "d"), ("c", "d")],
    ...                                     {"a": 1, "b": 2, "c": 3, "d": 1})
    >>> finish["d"]
    5
    """
    preds = {task: [] for task in cost}
    for u, v in edges:
        preds[v].append(u)
    finish, via = {}, {}

    def visit(task):                       # memoised depth-first search, iterative
        stack = [task]
        while stack:
            t = stack[-1]
            todo = [p for p in preds[t] if p not in finish]
            if todo:
                stack.extend(todo)
                continue
            stack.pop()
            best = max(preds[t], key=finish.get, default=None)
            finish[t] = cost[t] + (finish[best] if best is not None else 0)
            via[t] = best

    for task in cost:
        if task not in finish:
            visit(task)
    return finish, via


def work_and_span(edges, cost):
    finish, _ = longest_paths(edges, cost)
    return (sum(cost.values()), max(finish.values()))


def better_plan(edges, cost, p):
    """Brent's upper bound ``T1/p + T_inf`` under each plan: ("workers", 2p) or ("task", halve the costliest
    task on the critical path); the better plan and its bound.

    Examples
    --------
    >>> diamond = [("a", "b"), ("a", "c"), ("b", "d"), ("c", "d")]
    >>> better_plan(diamond, {"a": 1, "b": 2, "c": 3, "d": 1}, 4)
    ('task', 5.375)
    """
    doubled, halved = plan_bounds(edges, cost, p)
    return ("workers", doubled) if doubled < halved else ("task", halved)


def plan_bounds(edges, cost, p, *, shift=False):
    """Brent's bound under each plan; with ``shift``, also whether halving the task moved the critical path."""
    finish, via = longest_paths(edges, cost)
    work, span = sum(cost.values()), max(finish.values())
    task, slowest = max(finish, key=finish.get), None
    while task is not None:                       # the costliest task on the critical path
        slowest = task if slowest is None or cost[task] > cost[slowest] else slowest
        task = via[task]
    faster = dict(cost)
    faster[slowest] = cost[slowest] / 2
    work_2, span_2 = work_and_span(edges, faster)
    bounds = brent_bound(work, span, 2 * p), brent_bound(work_2, span_2, p)
    return (*bounds, span_2 > span - cost[slowest] / 2 + 1e-9) if shift else bounds
