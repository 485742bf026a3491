"""Exercise 13: read the profile of one serving step: critical path, what bounds a span, the first change."""

from __future__ import annotations

import copy

from ...models import stepprofile as sp
from ._tools import close, part, run_cases, short

NAMES = {"kernel": ("attention", "mlp", "embed", "softmax", "layer norm", "sample", "rope", "logits"),
         "copy": ("copy in", "copy out", "kv-cache read", "prefetch weights", "page in"),
         "cpu": ("tokenize", "detokenize", "schedule", "log", "python loop"),
         "sync": ("wait for batch", "wait for device", "all-reduce wait", "wait for pages")}
KINDS = {"compute": ("kernel",), "bandwidth": ("kernel", "copy"), "launch": ("kernel", "cpu"), "queue": ("sync",)}
MARGIN = 1.3   # the bound's floor is at least this many times every other floor


def random_peaks(rng):
    """Peak rates of a machine somewhere between a laptop and a datacenter GPU."""
    return {"peak_flops": float(10 ** rng.uniform(11, 15)), "bandwidth": float(10 ** rng.uniform(10, 12.7)),
            "launch_s": float(10 ** rng.uniform(-6.3, -4.5))}


def _name(rng, kind, taken):
    free = [n for n in NAMES[kind] if n not in taken]
    name = str(rng.choice(free)) if free else f"{rng.choice(NAMES[kind])} {len(taken) + 1}"
    taken.add(name)
    return name


def random_span(rng, peaks, bound=None, taken=None):
    """A span whose ``bound`` floor (random if None) is at least ``MARGIN`` times each other floor."""
    bound = bound or str(rng.choice(sp.BOUNDS))
    kind = str(rng.choice(KINDS[bound]))
    while True:
        top = max(float(10 ** rng.uniform(-4, -2.7)), 30 * peaks["launch_s"])
        f = {b: top if b == bound else top * float(rng.uniform(0, 0.7)) * (rng.random() < 0.8) for b in sp.BOUNDS}
        launches = max(1, round(f["launch"] / peaks["launch_s"])) if f["launch"] else 0
        s = sp.span("?", kind, 0.0, flops=f["compute"] * peaks["peak_flops"], bytes=f["bandwidth"] * peaks["bandwidth"],
                    launches=launches, wait_s=f["queue"])
        got = sp.floors(s, peaks)
        if all(got[bound] >= MARGIN * got[b] for b in sp.BOUNDS if b != bound):
            work = max(got["compute"], got["bandwidth"]) / float(rng.uniform(0.3, 0.95))
            s["seconds"] = work + got["launch"] + got["queue"]
            s["name"] = _name(rng, kind, set() if taken is None else taken)
            return s


def random_profile(rng, n_low=4, n_high=13):
    """Spans of one step: each waits for up to three earlier ones; listed in a shuffled order."""
    peaks = random_peaks(rng)
    spans, taken = [], set()
    for i in range(int(rng.integers(n_low, n_high))):
        s = random_span(rng, peaks, taken=taken)
        k = int(rng.integers(0, min(i, 3) + 1)) if i else 0
        s["deps"] = sorted(str(spans[int(j)]["name"]) for j in rng.choice(i, size=k, replace=False)) if k else []
        spans.append(s)
    return [spans[int(i)] for i in rng.permutation(len(spans))], peaks


@part("A: the critical path of a step", points=3, needs=("critical_path",))
def check_critical_path(critical_path, rng, ref):
    rounds = 6
    for _ in range(rounds):
        spans, _ = random_profile(rng)
        got = critical_path(copy.deepcopy(spans))
        problem = sp.path_problem(got, spans)
        if problem:
            return 0, 3, (f"wrong for a step of {len(spans)} spans taking {sp.step_time(spans):.6g} s: {problem} "
                          f"(a critical path: {short(sp.critical_path(spans))})")
    return 3, 3, f"correct on {rounds} random steps"


@part("B: what bounds a span", points=3, needs=("bound_of",))
def check_bound_of(bound_of, rng, ref):
    peaks = random_peaks(rng)
    bounds = list(sp.BOUNDS) * 2 + [str(rng.choice(sp.BOUNDS)) for _ in range(2)]
    cases = []
    for i in rng.permutation(len(bounds)):
        s = random_span(rng, peaks, bounds[int(i)])
        cases.append(((s, peaks), sp.bound_of(s, peaks)))
    return run_cases(bound_of, cases, 3)


def _clear_profile(rng):
    """A profile whose best first change beats the next best by at least 1% of the step time."""
    while True:
        spans, peaks = random_profile(rng)
        times = sorted((sp.step_time(spans, {s["name"]: sp.roofline_time(s, peaks)}), s["name"]) for s in spans)
        if times[1][0] - times[0][0] >= 0.01 * sp.step_time(spans):
            return spans, peaks


@part("C: the first change and its predicted step time", points=3, needs=("first_change",))
def check_first_change(first_change, rng, ref):
    rounds = 6
    for _ in range(rounds):
        spans, peaks = _clear_profile(rng)
        expected = sp.first_change(spans, peaks)
        got = first_change(copy.deepcopy(spans), dict(peaks))
        if not (isinstance(got, (tuple, list)) and len(got) == 2 and got[0] == expected[0]
                and close(got[1], expected[1], rtol=1e-6)):
            return 0, 3, (f"wrong for a step of {len(spans)} spans taking {sp.step_time(spans):.6g} s (critical "
                          f"path {short(sp.critical_path(spans))}): expected {short(expected)}, got {short(got)}")
    return 3, 3, f"correct on {rounds} random steps"
