"""Exercise 08: decompose wall time from a trace, walk its critical path, pick the change worth making."""

from __future__ import annotations

from ._tools import part, run_cases

MIN_KEPT = 0.95  # lesson 08 keeps a change that is at least 5% faster (pc.casestudy's min_gain)


def reference_breakdown(events):
    """Busy seconds per category, plus ``"idle"``: wall time covered by no event at all.

    ``events`` is a list of ``(category, start_s, end_s)``; events may overlap.

    Examples
    --------
    >>> reference_breakdown([("cpu", 0.0, 2.0), ("kernel", 1.0, 3.0), ("copy", 4.0, 5.0)])
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


def reference_critical_path(events):
    """Walk back from the event that ends last, always to the dependency that ended last.

    Examples
    --------
    >>> reference_critical_path([
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


def reference_best_change(times, speedups):
    """(phase, predicted wall) of the single change that shortens a serial pipeline most, or (None, wall)
    when even that one saves less than 5% of the wall time.

    Examples
    --------
    >>> reference_best_change({"python": 6.0, "copy": 3.0, "kernel": 1.0}, {"python": 2.0, "kernel": 10.0})
    ('python', 7.0)
    >>> reference_best_change({"python": 6.0, "copy": 3.0, "kernel": 0.2}, {"kernel": 10.0})
    (None, 9.2)
    """
    total = sum(times.values())
    predicted = {c: total - times[c] + times[c] / f for c, f in speedups.items()}
    best = min(predicted, key=predicted.get)
    return (None, total) if predicted[best] > MIN_KEPT * total else (best, predicted[best])


_CATEGORIES = ("python", "copy", "kernel", "sync", "io")


@part("A: wall-time breakdown with idle time", points=3, needs=("breakdown",))
def check_breakdown(breakdown, rng):
    cases = []
    for _ in range(6):
        events = []
        for _ in range(int(rng.integers(3, 40))):
            start = float(rng.uniform(0, 10))
            events.append((str(rng.choice(_CATEGORIES)), start, start + float(rng.exponential(0.3))))
        cases.append(((events,), reference_breakdown(events)))
    return run_cases(breakdown, cases, 3, rtol=1e-9, atol=1e-12)


def random_trace(rng):
    """Events that start after their dependencies end, with random gaps and durations."""
    events = []
    for i in range(int(rng.integers(4, 30))):
        deps = sorted({f"e{j}" for j in rng.integers(0, i, size=int(rng.integers(0, 4)))} if i else set())
        ready = max((events[int(d[1:])]["end"] for d in deps), default=0.0)
        start = ready + float(rng.exponential(0.05))
        events.append({"name": f"e{i}", "start": start, "end": start + float(rng.uniform(0.01, 1.0)),
                       "deps": deps})
    return [events[i] for i in rng.permutation(len(events))]


@part("B: critical path of a traced step", points=3, needs=("critical_path",))
def check_critical_path(critical_path, rng):
    cases = []
    for _ in range(6):
        events = random_trace(rng)
        cases.append(((events,), reference_critical_path(events)))
    return run_cases(critical_path, cases, 3)


def _pipeline(rng, small):
    """Phase times and proposed speedups; ``small``: the proposals aim only at phases of a few percent."""
    chosen = list(rng.choice(_CATEGORIES, size=int(rng.integers(2, 6)), replace=False))
    times = {str(c): float(rng.uniform(0.01, 5.0)) for c in chosen}
    if small:
        share, rest = float(rng.uniform(0.001, 0.04)), sum(times.values()) - times[str(chosen[0])]
        times[str(chosen[0])] = share / (1 - share) * rest            # that share of the new wall time
        return times, {str(chosen[0]): float(rng.uniform(1.2, 20.0))}
    proposed = rng.choice(chosen, size=int(rng.integers(1, len(chosen) + 1)), replace=False)
    return times, {str(c): float(rng.uniform(1.2, 20.0)) for c in proposed}


@part("C: the one change that helps most, if any", points=2, needs=("best_change",))
def check_best_change(best_change, rng):
    cases = []
    while len(cases) < 7:
        times, speedups = _pipeline(rng, small=len(cases) == 0)
        total = sum(times.values())
        best = min(total - times[c] + times[c] / f for c, f in speedups.items())
        if abs(best - MIN_KEPT * total) > 1e-6 * total:          # never on the edge of the rule
            cases.append(((times, speedups), reference_best_change(times, speedups)))
    return run_cases(best_change, cases, 2, rtol=1e-9)
