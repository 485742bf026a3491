"""Exercise 10: inclusive scans in one block: Hillis-Steele, Blelloch, their barriers, Brent's choice.

The grader launches both of the learner's scan kernels itself (:mod:`._kernels`), one block on
arrays it owns, and reads what each thread did: the scan it wrote, the barriers the block
passed and each thread's element reads. The work and span of each scan follow the convention
of :func:`perfcourse.models.counts.scan_work_span`.
"""

from __future__ import annotations

import numbers

import numpy as np

from ...models.counts import SCANS, log2_ceil, scan_offsets, scan_work_span
from .. import kernelrules
from ._kernels import lines_problem, tree_bound
from ._tools import close, part, short

MAX_N = 64                           # one block scans at most this many elements (the notebook's constant)
WORK_PER_ELEMENT = 8                 # element reads per padded element the work-efficient scan may make
SIZES = ((1, 8), (9, 32), (49, 63))   # n drawn from each range; the last is never a power of two and is past
                                      # where serial segments of 8 fit Blelloch's 2 log2 n levels
SLACK = 4                            # barriers beyond 2 per level before a count no longer looks logarithmic
LINES_PER_LEVEL = 10                 # lines and additions its busiest thread may run per level (the course's
                                     # scans: 7, and 16 for Blelloch's two sweeps)
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


SIGNATURES = {"hillis_steele_kernel": "void(float64[:], float64[:])", "blelloch_kernel": "void(float64[:], float64[:])"}
KERNELS = {"hillis_steele": "hillis_steele_kernel", "blelloch": "blelloch_kernel"}


def launch_scan(kernel, kind, x):
    """Launch the learner's scan kernel on ``x`` as the notebook says: ``(run, problem or None)``.

    Hillis-Steele runs one block of ``n`` threads; Blelloch one block of ``m`` threads, the next
    power of two. ``out`` is the grader's, NaN until the kernel writes it.
    """
    n = x.size
    threads = n if kind == "hillis_steele" else 1 << (n - 1).bit_length()
    run = kernel(1, threads, x, np.full(n, np.nan))
    call = f"{KERNELS[kind]}[1, {threads}](x of n = {n}, out)"
    problem = run.problem() or kernelrules.problem(run.module, run.name) or scan_problem(run.arrays[1], x, kind)
    if problem:
        return run, f"{call}: {problem}"
    if run.atomic_ops():
        return run, (f"{call}: the kernel made {run.atomic_ops()} atomic updates: a scan here is additions in shared "
                     "memory, level by level, with cuda.syncthreads() between the levels")
    levels = log2_ceil(n)
    reads, _, thread = run.busiest()
    bound = tree_bound(2 * levels, per_level=3) if kind == "blelloch" else tree_bound(levels)
    if n >= 16 and reads > bound:
        return run, (f"{call} is right, but thread {thread} read {reads} elements: a thread that walks the array is "
                     f"serial work of {n} steps; in a scan of {levels} levels each thread reads a few elements per "
                     f"level (at most {bound} are accepted)")
    work, most = run.total_reads(), WORK_PER_ELEMENT * threads + 16
    if kind == "blelloch" and n >= 32 and work > most:
        return run, (f"{call} is right, but its threads read {work} elements in all: that is the work of Hillis-Steele "
                     f"(about 2 n log2 n); the work-efficient scan reads a few per element, at most {most} here")
    steps, span = run.barrier_count(), scan_work_span(kind, n)[1]
    if n > 1 and steps < levels:
        return run, (f"{call} is right, but the block passed {steps} barriers: a scan of n = {n} has "
                     f"{levels} levels, with cuda.syncthreads() between them")
    # Blelloch's up and down sweeps put at most 2 levels of additions behind each result (its inclusive form, an
    # exclusive scan plus x, reaches exactly 2 levels); a two-level scheme of serial segments needs 2 sqrt(n) + 1
    depth, most = run.depth(1), (levels + SLACK if kind == "hillis_steele" else 2 * levels)
    if n > 1 and depth > most:
        return run, (f"{call} is right, but out[] came through a chain of {depth} additions, one after another (its "
                     f"critical path): serial work, however the threads share it; this scan of n = {n} adds in about "
                     f"{levels if kind == 'hillis_steele' else 2 * levels} steps (at most {most} are accepted)")
    if steps > 2 * span + SLACK:
        return run, (f"{call} is right, but the block passed {steps} barriers: a chain of additions one after "
                     f"another, linear in n, not a scan of {span} levels (at most 2 x {span} + {SLACK} = "
                     f"{2 * span + SLACK} barriers are accepted)")
    per_level = LINES_PER_LEVEL * (2 if kind == "blelloch" else 1)          # Blelloch sweeps up, then down
    return run, lines_problem(run, call, levels, per_level, f"a scan of n = {n}") if n >= 16 else None


def _check_kernel(kernel, kind, rng, points):
    done = []
    for low, high in SIZES:
        x = rng.uniform(-1.0, 1.0, int(rng.integers(low, high + 1)))
        _, problem = launch_scan(kernel, kind, x)
        if problem:
            return 0, points, problem
        done.append(x.size)
    note = getattr(kernel, "compiled", None)
    return points, points, f"correct for n = {', '.join(map(str, done))}" + (f" ({note})" if note else "")


@part("A: Hillis-Steele inclusive scan in one block", points=2, needs=("hillis_steele_kernel",),
      timeout_s=KERNEL_TIMEOUT_S, kernels={"hillis_steele_kernel": SIGNATURES["hillis_steele_kernel"]})
def check_hillis_steele(hillis_steele_kernel, rng, ref):
    return _check_kernel(hillis_steele_kernel, "hillis_steele", rng, 2)


@part("B: Blelloch (work-efficient) inclusive scan", points=2, needs=("blelloch_kernel",), timeout_s=KERNEL_TIMEOUT_S,
      kernels={"blelloch_kernel": SIGNATURES["blelloch_kernel"]})
def check_blelloch(blelloch_kernel, rng, ref):
    return _check_kernel(blelloch_kernel, "blelloch", rng, 2)


def _whole(value):
    if isinstance(value, (bool, np.bool_)):
        return False
    return isinstance(value, numbers.Integral) or (isinstance(value, float) and value.is_integer())


def _steps_problem(claims, kernel, kind, n, rng):
    """Why the claimed barriers of ``kernel`` for ``n`` elements are wrong, or None."""
    run, problem = launch_scan(kernel, kind, rng.uniform(-1.0, 1.0, n))
    if problem:
        return f"the barriers of a wrong kernel count for nothing: {problem}"
    steps = run.barrier_count()
    if claims[kind] != steps:
        return (f"you said {KERNELS[kind]} passes {claims[kind]} barriers for n = {n}; your kernel passed {steps} "
                "(counted by the grader, launching it)")
    return None


@part("C: barriers of both scans", points=1, needs=("hillis_steele_kernel", "blelloch_kernel", "scan_steps"),
      timeout_s=KERNEL_TIMEOUT_S, kernels=SIGNATURES)
def check_scan_steps(hillis_steele_kernel, blelloch_kernel, scan_steps, rng, ref):
    sizes = [int(rng.integers(3, 17)), int(rng.integers(33, MAX_N + 1))]
    kernels = {"hillis_steele": hillis_steele_kernel, "blelloch": blelloch_kernel}
    for n in sizes:
        claims = scan_steps(n)
        if not isinstance(claims, dict) or set(claims) != set(SCANS):
            return 0, 1, f"scan_steps({n}) must return a dict with the keys {SCANS}; got {short(claims)}"
        if not all(_whole(v) and v >= 1 for v in claims.values()):
            return 0, 1, f"scan_steps({n}) must give whole numbers of barriers >= 1; got {short(claims)}"
        claims = {k: int(v) for k, v in claims.items()}
        for kind in SCANS:
            problem = _steps_problem(claims, kernels[kind], kind, n, rng)
            if problem:
                return 0, 1, problem
    return 1, 1, f"your counts match both kernels for n = {sizes[0]} and n = {sizes[1]}"


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
def check_faster_scan(faster_scan, rng, ref):
    cases = _brent_cases(rng)
    for n, p in cases:
        got, expected = faster_scan(n, p), ref.faster(n, p)
        if close(got, expected):
            continue
        text = f"wrong for faster_scan({n}, {p}): expected {expected!r}, got {short(got)}"
        if got not in SCANS:
            text += f"; return one of {SCANS}"
        elif crossover(n) == p:
            text += " (a tie: both bounds are equal, and ties go to 'blelloch')"
        return 0, 2, text
    return 2, 2, f"correct on {len(cases)} random cases"
