"""Exercise 11: a grid-stride triad, the same triad in chunks, and the 32-byte sectors each one moves.

The grader launches the learner's kernels itself (:mod:`._kernels`) on arrays it owns and
records which thread wrote each element of ``a``, so the check sees the thread-to-element map
the kernel really used (and the kernel's own ``owner`` array must agree with it). The grids
are smaller than the arrays, so only a loop covers every element.
"""

from __future__ import annotations

import numpy as np

from ...models.counts import SECTOR_BYTES, WARP_SIZE, triad_sector_bytes, warp_sectors
from . import _blocks
from ._tools import part, short

KERNEL_TIMEOUT_S = 60        # simulated kernels are slow
BLOCK_SIZES = (32, 64)       # threads per block the checks launch with (see exercise 09 on larger blocks)
ITEMSIZES = (1, 2, 4, 8, 16)


def grid_stride_owner(n, grid):
    """The thread that handles each of ``n`` elements in a grid-stride loop over ``grid`` threads.

    Examples
    --------
    >>> grid_stride_owner(10, 4).tolist()
    [0, 1, 2, 3, 0, 1, 2, 3, 0, 1]
    """
    return np.arange(n, dtype=np.int64) % grid


def chunked_owner(n, grid, stride):
    """The thread of each element when thread ``t`` takes chunks ``t, t + grid, ...`` of ``stride`` elements.

    Examples
    --------
    >>> chunked_owner(10, 2, 3).tolist()
    [0, 0, 0, 1, 1, 1, 0, 0, 0, 1]
    """
    return np.arange(n, dtype=np.int64) // stride % grid


SIGNATURES = {"triad_kernel": "void(float64[:], float64[:], float64[:], float64, int64[:])",
              "chunked_kernel": "void(float64[:], float64[:], float64[:], float64, int64, int64[:])"}


def launch_triad(kernel, name, blocks, tpb, b, c, scalar, *extra):
    """Launch the learner's triad kernel on the grader's arrays: ``((a, owner), problem or None)``.

    ``owner`` is who really wrote each element of ``a`` (recorded by the grader's run); the
    kernel's own ``owner`` array must say the same.
    """
    n = b.size
    run = kernel(blocks, tpb, np.full(n, np.nan), b, c, float(scalar), *extra, np.full(n, -1, np.int64))
    call = f"{name}[{blocks}, {tpb}](a, b, c of n = {n}, scalar{', stride' if extra else ''}, owner)"
    problem = run.problem()
    if problem:
        return None, f"{call}: {problem}"
    a, writers, claimed = run.arrays[0], run.writers[0], run.arrays[-1]
    several = np.flatnonzero(writers == -2)
    if several.size:
        return None, (f"{call}: a[{int(several[0])}] was written by more than one thread: each element belongs to "
                      "exactly one thread of the loop")
    wrong = np.flatnonzero((claimed != writers) & (writers >= 0))
    if wrong.size:
        i = int(wrong[0])
        return None, (f"{call}: owner[{i}] = {int(claimed[i])}, but thread {int(writers[i])} wrote a[{i}]: write "
                      "owner[i] = cuda.grid(1) wherever you write a[i]")
    walked = _walk_problem(run, call, writers, int(extra[0]) if extra else 1)
    return (None, walked) if walked else ((a, writers), None)


LINES_PER_ELEMENT = 6     # lines of the kernel a thread may run per element it writes (a loop step, a load, a store)
LINES_PER_CHUNK = 6       # and per chunk it starts, and a few more to begin
LINES_AT_START = 16


def _walk_problem(run, call, writers, stride):
    """Why a thread did far more than its own elements' work (it walked the whole array), or None."""
    mine = np.bincount(writers[writers >= 0]) if (writers >= 0).any() else np.zeros(1, np.int64)
    most = int(mine.max())
    bound = LINES_PER_ELEMENT * most + LINES_PER_CHUNK * (-(-most // stride) + 1) + LINES_AT_START
    steps, block, thread = run.most_steps()
    if steps <= bound:
        return None
    return (f"{call} is right, but thread {thread} of block {block} ran {steps} lines of the kernel to write at most "
            f"{most} elements: a thread that walks the whole array to find its own does the work of all "
            f"{writers.size}; a grid-stride loop goes straight to them (at most {bound} lines are accepted)")


def _unpack(got, n):
    if not isinstance(got, (tuple, list)) or len(got) != 2:
        return None, None, f"return two arrays, (a, owner); got {short(got)}"
    try:
        a, owner = np.asarray(got[0], dtype=np.float64), np.asarray(got[1], dtype=np.float64)
    except (TypeError, ValueError):
        return None, None, f"return (a, owner) as a float64 and an int64 array; got {short(got)}"
    for name, x in (("a", a), ("owner", owner)):
        if x.shape != (n,):
            return None, None, f"{name} should have {n} elements, one per element of b; got shape {x.shape}"
    return a, owner, None


def _value_problem(a, expected, grid, stride):
    n = a.size
    bad = np.flatnonzero(~np.isclose(a, expected, rtol=1e-12, atol=1e-12))
    if not bad.size:
        return None
    if bad.size == n:
        return f"every element is wrong: a[0] = {short(a[0])}, expected b[0] + scalar * c[0] = {short(expected[0])}"
    lo = int(bad[0])
    if bad.size == n - lo:
        span = f"a[{lo}] was" if lo == n - 1 else f"elements {lo}..{n - 1} were"
        if stride == 1 and lo == grid:
            return (f"{span} never written: {grid} threads for {n} elements, so each thread must go on to i + {grid}, "
                    f"i + 2*{grid}, ... while i < n (a grid-stride loop), not stop after one element")
        if stride > 1 and lo == grid * stride:
            return (f"{span} never written: {grid} threads took one chunk each, so each thread must go on to chunk "
                    f"t + {grid}, t + 2*{grid}, ... while chunks remain (a grid-stride loop over chunks)")
        return f"{span} never written: the loop stops before the tail (go on while i < n = {n})"
    listing = ", ".join(f"a[{i}]" for i in bad[:4]) + (", ..." if bad.size > 4 else "")
    rule = (f"the loop's stride must be the grid's size, cuda.gridsize(1) = {grid}" if stride == 1 else
            f"visit chunks t, t + {grid}, ... and all {stride} elements of each (skip only i >= n)")
    return f"some elements were computed twice or skipped: {bad.size} of {n} are wrong ({listing}); {rule}"


def _owner_problem(owner, expected, grid, stride):
    n = owner.size
    bad = np.flatnonzero(owner != expected)
    if not bad.size:
        return None
    i, who, want = int(bad[0]), owner[bad[0]], int(expected[bad[0]])
    if stride == 1 and n > grid and np.array_equal(owner, np.arange(n)):
        return (f"every element was done by its own thread (owner[i] = i): you launched {n} threads or more, not "
                f"the {grid} asked for; launch exactly kernel[blocks, threads_per_block] and loop")
    if not (0 <= owner.min() and owner.max() < grid and np.array_equal(owner, np.round(owner))):
        bad_one = int(np.flatnonzero((owner < 0) | (owner >= grid) | (owner != np.round(owner)))[0])
        return (f"owner[{bad_one}] = {short(owner[bad_one])} is not a thread of the grid (0..{grid - 1}): write "
                "owner[i] = cuda.grid(1) wherever you write a[i], and launch exactly "
                "kernel[blocks, threads_per_block]")
    used, wanted = np.unique(owner).size, np.unique(expected).size
    if used < wanted:
        return (f"only {used} threads did any work where {wanted} should: launch exactly "
                f"kernel[blocks, threads_per_block], {grid} threads in all")
    if stride > 1 and np.array_equal(owner, grid_stride_owner(n, grid)):
        return (f"neighbouring threads took neighbouring elements (owner[i] = i mod {grid}, Part A's order): here "
                f"thread t takes whole chunks of {stride} elements, chunk t first, then chunk t + {grid}, ...")
    if stride == 1:
        return (f"some elements were computed twice or skipped: a[{i}] was written by thread {short(who)}, but in a "
                f"grid-stride loop element i belongs to thread i mod {grid} = {want}: the stride must be the grid's "
                f"size, cuda.gridsize(1) = {grid}")
    return (f"a[{i}] was written by thread {short(who)}; in chunks of {stride} it belongs to thread "
            f"(i // {stride}) mod {grid} = {want}: thread t takes chunk t, then chunk t + {grid}, ...")


def triad_problem(got, b, c, scalar, grid, stride=1):
    """Why ``got`` is not ``(a, owner)`` of the triad in this order over ``grid`` threads, or None.

    ``stride = 1`` is the grid-stride order; a larger ``stride`` gives each thread chunks of that
    many consecutive elements.

    Examples
    --------
    >>> b, c = np.ones(10), np.arange(10.0)
    >>> triad_problem((b + 2 * c, grid_stride_owner(10, 4)), b, c, 2.0, 4) is None
    True
    >>> a = b + 2 * c
    >>> a[8:] = 0.0
    >>> triad_problem((a, grid_stride_owner(10, 4)), b, c, 2.0, 4)
    'elements 8..9 were never written: the loop stops before the tail (go on while i < n = 10)'
    """
    a, owner, problem = _unpack(got, b.size)
    if problem:
        return problem
    want = grid_stride_owner(b.size, grid) if stride == 1 else chunked_owner(b.size, grid, stride)
    return _value_problem(a, b + scalar * c, grid, stride) or _owner_problem(owner, want, grid, stride)


def _grid(rng, most_blocks=3):
    return int(rng.integers(1, most_blocks + 1)), int(rng.choice(BLOCK_SIZES))


def _inputs(rng, n):
    return rng.uniform(-1.0, 1.0, n), rng.uniform(-1.0, 1.0, n), float(rng.uniform(-2.0, 2.0))


def _triad_cases(rng):
    """(n, blocks, threads): three n past the grid and not a multiple of it, one multiple, one n below it."""
    cases = []
    for k in range(5):
        blocks, tpb = _grid(rng)
        grid = blocks * tpb
        if k < 3:
            n = grid * int(rng.integers(2, 5)) + int(rng.integers(1, grid))
        else:
            n = 2 * grid if k == 3 else int(rng.integers(5, grid))
        cases.append((n, blocks, tpb))
    return cases


@part("A: the triad by a grid-stride loop", points=3, needs=("triad_kernel",), timeout_s=KERNEL_TIMEOUT_S,
      kernels={"triad_kernel": SIGNATURES["triad_kernel"]})
def check_triad(triad_kernel, rng, ref):
    cases = _triad_cases(rng)
    for n, blocks, tpb in cases:
        b, c, scalar = _inputs(rng, n)
        got, problem = launch_triad(triad_kernel, "triad_kernel", blocks, tpb, b, c, scalar)
        problem = problem or triad_problem(got, b, c, scalar, blocks * tpb)
        if problem:
            return 0, 3, problem if got is None else f"triad_kernel[{blocks}, {tpb}] on n = {n}: {problem}"
    return 3, 3, f"correct on {len(cases)} random arrays, most longer than the grid and not a multiple of it"


def _chunk_cases(rng):
    """(n, stride, blocks, threads): chunks wrap around the grid and the last chunk is short; then one n
    whose chunks leave threads idle."""
    cases = []
    for k in range(4):
        blocks, tpb = _grid(rng, most_blocks=2)
        grid, stride = blocks * tpb, int(rng.integers(2, 9))
        chunks = grid * int(rng.integers(1, 3)) + int(rng.integers(1, grid)) if k < 3 else int(rng.integers(3, grid))
        cases.append((chunks * stride - int(rng.integers(1, stride)), stride, blocks, tpb))
    return cases


@part("B: the same triad, in chunks of stride elements", points=2, needs=("chunked_kernel",),
      timeout_s=KERNEL_TIMEOUT_S, kernels={"chunked_kernel": SIGNATURES["chunked_kernel"]})
def check_strided_triad(chunked_kernel, rng, ref):
    cases = _chunk_cases(rng)
    for n, stride, blocks, tpb in cases:
        b, c, scalar = _inputs(rng, n)
        got, problem = launch_triad(chunked_kernel, "chunked_kernel", blocks, tpb, b, c, scalar, int(stride))
        problem = problem or triad_problem(got, b, c, scalar, blocks * tpb, stride)
        if problem:
            return 0, 2, problem if got is None else (f"chunked_kernel[{blocks}, {tpb}] on n = {n}, stride {stride}: "
                                                      f"{problem}")
    return 2, 2, f"correct on {len(cases)} random arrays and strides, every element once, in chunks"


def _count_is(got, expected):
    """True when ``got`` is the whole number ``expected`` (an int, or a float with that value)."""
    return (isinstance(got, (int, float, np.integer, np.floating)) and not isinstance(got, (bool, np.bool_))
            and got == expected)


def _sector_hint(got, stride, itemsize):
    if got == min(WARP_SIZE, stride):
        return f": lanes are {stride} elements of {itemsize} bytes apart; count bytes, not elements"
    if got == stride * itemsize > WARP_SIZE:
        return f": lanes {stride * itemsize} bytes apart each need a sector, but a warp has only {WARP_SIZE} lanes"
    if got == warp_sectors(1, itemsize) != warp_sectors(stride, itemsize):
        return f": that is the count for neighbouring elements (stride 1); these lanes are {stride} elements apart"
    return ""


@part("C: sectors one warp's loads touch", points=1, needs=("sectors_per_warp",))
def check_sectors_per_warp(sectors_per_warp, rng, ref):
    cases = [(int(rng.integers(1, 9)), int(rng.choice(ITEMSIZES[1:]))) for _ in range(5)]
    cases += [(int(rng.integers(1, 129)), int(rng.choice(ITEMSIZES))) for _ in range(5)]
    for stride, itemsize in cases:
        expected, got = warp_sectors(stride, itemsize), sectors_per_warp(stride, itemsize)
        if not _count_is(got, expected):
            return 0, 1, (f"wrong for sectors_per_warp({stride}, {itemsize}): expected {expected}, got {short(got)}"
                          f"{_sector_hint(got, stride, itemsize)}")
    return 1, 1, f"correct on {len(cases)} random strides and element sizes"


def _bytes_hint(got, n, itemsize, stride):
    expected = triad_sector_bytes(n, itemsize, stride)
    full = 3 * n * warp_sectors(stride, itemsize) * SECTOR_BYTES // WARP_SIZE
    hints = [
        (3 * n * itemsize, "that counts only the useful bytes (BabelStream's rule); each warp request moves whole "
                           "32-byte sectors"),
        (expected * 2 // 3, "count all three arrays: b and c are read, a is written"),
        (expected // SECTOR_BYTES, "return bytes: sectors x 32"),
        (triad_sector_bytes(n, itemsize), f"that is the coalesced order (stride 1); here lanes are {stride} elements "
                                          "apart"),
        (full, "right for full warps only: a request whose lanes run past n moves fewer sectors, but whole ones; "
               "count the sectors of each request"),
    ]
    return next((f": {why}" for value, why in hints if got == value != expected), "")


@part("D: bytes the chunked triad moves, in sectors", points=2, needs=("triad_bytes",))
def check_triad_bytes(triad_bytes, rng, ref):
    cases = [(int(rng.integers(1, 5000)), int(rng.choice([4, 8])), int(rng.integers(2, 17))) for _ in range(6)]
    cases += [(int(rng.integers(1, 5000)), 8, 1), (32 * int(rng.integers(1, 9)) * 4 * 8, 4, 8)]
    for k in rng.permutation(len(cases)):
        n, itemsize, stride = cases[k]
        expected, got = triad_sector_bytes(n, itemsize, stride), triad_bytes(n, itemsize, stride)
        if not _count_is(got, expected):
            return 0, 2, (f"wrong for triad_bytes({n}, {itemsize}, {stride}): expected {expected}, got {short(got)}"
                          f"{_bytes_hint(got, n, itemsize, stride)}")
    return 2, 2, f"correct on {len(cases)} random sizes, element sizes and strides"


@part("E: the block size that fills an SM", points=2, needs=("best_block_size",))
def check_best_block_size(best_block_size, rng, ref):
    cases = _blocks.cases(rng)
    for registers, shared in cases:
        problem = _blocks.problem(best_block_size(registers, shared), registers, shared)
        if problem:
            return 0, 2, f"best_block_size({registers}, {shared}): {problem}"
    return 2, 2, (f"correct on {len(cases)} random register and shared memory budgets, each of CUDA's rules deciding "
                  "at least one")
