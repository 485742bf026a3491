"""Exercise 08: decompose wall time from a trace, walk its critical path, pick the change worth making."""

from __future__ import annotations

from ._tools import part, run_cases

MIN_KEPT = 0.95  # a predicted change is worth making when it makes the run at least 5% faster (the exercise's rule)


_CATEGORIES = ("python", "copy", "kernel", "sync", "io")


@part("A: wall-time breakdown with idle time", points=3, needs=("breakdown",))
def check_breakdown(breakdown, rng, ref):
    cases = []
    for _ in range(6):
        events = []
        for _ in range(int(rng.integers(3, 40))):
            start = float(rng.uniform(0, 10))
            events.append((str(rng.choice(_CATEGORIES)), start, start + float(rng.exponential(0.3))))
        cases.append(((events,), ref.breakdown(events)))
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
def check_critical_path(critical_path, rng, ref):
    cases = []
    for _ in range(6):
        events = random_trace(rng)
        cases.append(((events,), ref.critical_path(events)))
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
def check_best_change(best_change, rng, ref):
    cases = []
    while len(cases) < 7:
        times, speedups = _pipeline(rng, small=len(cases) == 0)
        total = sum(times.values())
        best = min(total - times[c] + times[c] / f for c, f in speedups.items())
        if abs(best - MIN_KEPT * total) > 1e-6 * total:          # never on the edge of the rule
            cases.append(((times, speedups), ref.best_change(times, speedups)))
    return run_cases(best_change, cases, 2, rtol=1e-9)
