"""Exercise 10: inclusive scans in one block: Hillis-Steele, Blelloch, their barriers, Brent's choice.

Both scans run as the learner's kernels on Numba's CUDA simulator while they are checked;
``call_counted`` brings back the barriers the block passed. The work and span of each scan
follow the convention of :func:`perfcourse.models.counts.scan_work_span`.
"""

from __future__ import annotations

import numbers

import numpy as np

from ...models.counts import SCANS, log2_ceil, scan_offsets, scan_work_span
from ._tools import call_counted, close, part, short

# One block: at most this many elements. The grader's kernel runs under an address-space limit, and every
# simulated thread may reserve a malloc arena there: blocks of 128 threads can fail to start.
MAX_N = 64
SIZES = ((1, 8), (9, 32), (33, 63))   # n drawn from each range; the last is never a power of two
SLACK = 4                            # barriers beyond 2 per level before a count no longer looks logarithmic
KERNEL_TIMEOUT_S = 60


def scan_after(x, rounds):
    """The Hillis-Steele scan of ``x`` stopped after ``rounds`` rounds (all rounds: the inclusive scan).

    Examples
    --------
    >>> scan_after(np.ones(8), 2).tolist()
    [1.0, 2.0, 3.0, 4.0, 4.0, 4.0, 4.0, 4.0]
    >>> scan_after(np.ones(8), 3).tolist() == np.cumsum(np.ones(8)).tolist()
    True
    """
    out = np.array(x, dtype=np.float64)
    for d in list(scan_offsets(out.size))[:rounds]:
        out[d:] = out[d:] + out[:-d]
    return out


def scan_problem(got, x, kind):
    """Why ``got`` is not the inclusive scan of ``x``, or None when it is.

    Examples
    --------
    >>> x = np.arange(1.0, 6.0)
    >>> scan_problem(np.cumsum(x), x, "blelloch") is None
    True
    >>> scan_problem([0.0, 1.0, 3.0, 6.0, 10.0], x, "blelloch")[:34]
    'you returned the exclusive scan (o'
    """
    n = x.size
    try:
        got = np.asarray(got, dtype=np.float64)
    except (TypeError, ValueError):
        return f"expected an array of {n} floats, got {short(got)}"
    if got.shape != (n,):
        return f"expected an array of {n} values (one per element), got shape {got.shape}"
    expected = np.cumsum(x)
    atol = 1e-12 * max(1.0, float(np.abs(x).sum()))
    if close(got, expected, rtol=1e-9, atol=atol):
        return None
    if n > 1 and close(got, np.concatenate([[0.0], expected[:-1]]), rtol=1e-9, atol=atol):
        return "you returned the exclusive scan (out[0] = 0): an inclusive scan's out[i] includes x[i]"
    rounds = log2_ceil(n)
    for r in range(rounds):
        if close(got, scan_after(x, r), rtol=1e-9, atol=atol):
            return f"this is the scan after {r} of its {rounds} rounds: keep going while the offset is below n = {n}"
    i = int(np.flatnonzero(~np.isclose(got, expected, rtol=1e-9, atol=atol))[0])
    text = f"first wrong at index {i} of {n}: expected {short(float(expected[i]))}, got {short(float(got[i]))}"
    if kind == "blelloch" and n & (n - 1):
        text += f" (n = {n} is not a power of two: pad the block to {2**rounds} elements with zeros)"
    return text


def _check_kernel(func, name, kind, rng, points):
    done = []
    for low, high in SIZES:
        x = rng.uniform(-1.0, 1.0, int(rng.integers(low, high + 1)))
        got, steps = call_counted(func, x)
        problem = scan_problem(got, x, kind)
        if problem:
            return 0, points, f"{name}(x of n = {x.size}): {problem}"
        if steps == 0 and x.size > 1:
            return 0, points, (f"{name}(x of n = {x.size}) is right, but no kernel passed a barrier: scan in your "
                               "kernel, with cuda.syncthreads() between its levels")
        done.append(x.size)
    return points, points, f"correct for n = {', '.join(map(str, done))}"


@part("A: Hillis-Steele inclusive scan in one block", points=2, needs=("hillis_steele_scan",),
      timeout_s=KERNEL_TIMEOUT_S)
def check_hillis_steele(hillis_steele_scan, rng):
    return _check_kernel(hillis_steele_scan, "hillis_steele_scan", "hillis_steele", rng, 2)


@part("B: Blelloch (work-efficient) inclusive scan", points=2, needs=("blelloch_scan",), timeout_s=KERNEL_TIMEOUT_S)
def check_blelloch(blelloch_scan, rng):
    return _check_kernel(blelloch_scan, "blelloch_scan", "blelloch", rng, 2)


def _whole(value):
    if isinstance(value, (bool, np.bool_)):
        return False
    return isinstance(value, numbers.Integral) or (isinstance(value, float) and value.is_integer())


def _steps_problem(claims, func, kind, n, rng):
    """Why the claimed barriers of ``func`` for ``n`` elements are wrong, or None."""
    name = f"{kind}_scan"
    x = rng.uniform(-1.0, 1.0, n)
    got, steps = call_counted(func, x)
    problem = scan_problem(got, x, kind)
    if problem:
        return f"the barriers of a wrong kernel count for nothing: {name}(x of n = {n}): {problem}"
    span = scan_work_span(kind, n)[1]
    bound = 2 * span + SLACK
    measured = claims[kind] if steps is None else steps
    if measured > bound:
        return (f"{name} passed {measured} barriers for n = {n}: linear in n, not logarithmic (the scan has {span} "
                f"levels; at most 2 x {span} + {SLACK} = {bound} barriers are accepted)")
    if steps is not None and claims[kind] != steps:
        return (f"you said {name} passes {claims[kind]} barriers for n = {n}; your kernel passed {steps} (counted on "
                "the CUDA simulator)")
    return None


@part("C: barriers of both scans", points=1, needs=("hillis_steele_scan", "blelloch_scan", "scan_steps"),
      timeout_s=KERNEL_TIMEOUT_S)
def check_scan_steps(hillis_steele_scan, blelloch_scan, scan_steps, rng):
    sizes = [int(rng.integers(3, 17)), int(rng.integers(33, MAX_N + 1))]
    funcs = {"hillis_steele": hillis_steele_scan, "blelloch": blelloch_scan}
    for n in sizes:
        claims = scan_steps(n)
        if not isinstance(claims, dict) or set(claims) != set(SCANS):
            return 0, 1, f"scan_steps({n}) must return a dict with the keys {SCANS}; got {short(claims)}"
        if not all(_whole(v) and v >= 1 for v in claims.values()):
            return 0, 1, f"scan_steps({n}) must give whole numbers of barriers >= 1; got {short(claims)}"
        claims = {k: int(v) for k, v in claims.items()}
        for kind in SCANS:
            problem = _steps_problem(claims, funcs[kind], kind, n, rng)
            if problem:
                return 0, 1, problem
    return 1, 1, f"your counts match both kernels for n = {sizes[0]} and n = {sizes[1]}"


def reference_faster(n, processors):
    """The scan with the smaller Brent bound ``work / p + span`` on ``processors``; ties go to Blelloch.

    Compared as whole numbers ``work + p * span``, so a tie is exact.

    Examples
    --------
    >>> reference_faster(64, 16), reference_faster(64, 64), reference_faster(8, 1)
    ('blelloch', 'hillis_steele', 'blelloch')
    """
    (w_hs, s_hs), (w_b, s_b) = (scan_work_span(kind, n) for kind in SCANS)
    return "hillis_steele" if w_hs + processors * s_hs < w_b + processors * s_b else "blelloch"


def crossover(n):
    """Processors at which both scans' Brent bounds are equal (Blelloch wins at or below it)."""
    (w_hs, s_hs), (w_b, s_b) = (scan_work_span(kind, n) for kind in SCANS)
    return (w_hs - w_b) / (s_b - s_hs)


def _brent_cases(rng):
    cases = [(8, 1), (int(rng.integers(3, 8)), int(rng.integers(1, 4)))]    # a tie; padding makes Blelloch lose
    for _ in range(3):
        n = 2 ** int(rng.integers(4, 21))
        edge = crossover(n)
        cases += [(n, max(1, int(edge) - int(rng.integers(0, 3)))), (n, int(edge) + 1 + int(rng.integers(0, 3)))]
    for _ in range(2):
        cases.append((int(rng.integers(9, 2**20)), int(10 ** rng.uniform(0, 6))))
    return [cases[i] for i in rng.permutation(len(cases))]


@part("D: the faster scan by Brent's bound", points=2, needs=("faster_scan",))
def check_faster_scan(faster_scan, rng):
    cases = _brent_cases(rng)
    for n, p in cases:
        got, expected = faster_scan(n, p), reference_faster(n, p)
        if close(got, expected):
            continue
        text = f"wrong for faster_scan({n}, {p}): expected {expected!r}, got {short(got)}"
        if got not in SCANS:
            text += f"; return one of {SCANS}"
        elif crossover(n) == p:
            text += " (a tie: both bounds are equal, and ties go to 'blelloch')"
        return 0, 2, text
    return 2, 2, f"correct on {len(cases)} random cases"
