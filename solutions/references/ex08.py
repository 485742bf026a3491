"""The grader's answers to exercise 08: the wall-time breakdown, the critical path of a trace, the one change
that helps most.

Read by the grader at grading time (never part of the package a learner installs); see
:mod:`perfcourse.grading.checks._answers`.
"""

from __future__ import annotations

from perfcourse.grading.checks.ex08_optimization_order import MIN_KEPT


def breakdown(events):
    """Busy seconds per category, plus ``"idle"``: wall time covered by no event at all.

    ``events`` is a list of ``(category, start_s, end_s)``; events may overlap.

    Examples
    --------
    >>> breakdown([("cpu", 0.0, 2.0), ("kernel", 1.0, 3.0), ("copy", 4.0, 5.0)])
    {'cpu': 2.0, 'kernel': 2.0, 'copy': 1.0, 'idle': 1.0}
    """
    totals = {}
    for category, start, end in events:
        totals[category] = totals.get(category, 0.0) + (end - start)
    covered, reach = 0.0, None
    for _, start, end in sorted(events, key=lambda e: e[1]):
        if reach is None or start > reach:
            covered += end - start
            reach = end
        elif end > reach:
            covered += end - reach
            reach = end
    wall = max(e[2] for e in events) - min(e[1] for e in events)
    totals["idle"] = wall - covered
    return totals


def critical_path(events):
    """Walk back from the event that ends last, always to the dependency that ended last.

    Examples
    --------
    >>> critical_path([
    ...     {"name": "load", "start": 0.0, "end": 1.0, "deps": []},
    ...     {"name": "copy", "start": 1.0, "end": 1.5, "deps": ["load"]},
    ...     {"name": "log", "start": 1.0, "end": 1.2, "deps": ["load"]},
    ...     {"name": "kernel", "start": 1.5, "end": 3.0, "deps": ["copy", "log"]}])
    ['load', 'copy', 'kernel']
    """
    by_name = {e["name"]: e for e in events}
    current = max(events, key=lambda e: e["end"])
    path = [current["name"]]
    while current["deps"]:
        current = max((by_name[d] for d in current["deps"]), key=lambda e: e["end"])
        path.append(current["name"])
    return path[::-1]


def best_change(times, speedups):
    """(phase, predicted wall) of the single change that shortens a serial pipeline most, or (None, wall)
    when even that one saves less than 5% of the wall time.

    Examples
    --------
    >>> best_change({"python": 6.0, "copy": 3.0, "kernel": 1.0}, {"python": 2.0, "kernel": 10.0})
    ('python', 7.0)
    >>> best_change({"python": 6.0, "copy": 3.0, "kernel": 0.2}, {"kernel": 10.0})
    (None, 9.2)
    """
    total = sum(times.values())
    predicted = {c: total - times[c] + times[c] / f for c, f in speedups.items()}
    best = min(predicted, key=predicted.get)
    return (None, total) if predicted[best] > MIN_KEPT * total else (best, predicted[best])
