"""Exercise 09: a tree reduction in one block's shared memory: its sums, its barriers, a whole plan.

The grader launches the learner's ``block_tree`` kernel itself (:mod:`._kernels`) on arrays it
owns and reads what each thread did: the sums it wrote, the barriers each block passed (a tree
of ``T`` threads needs about ``log2 T``; one element added per barrier needs ``T``) and each
thread's element reads (a thread that adds up its block alone reads all ``T``).
"""

from __future__ import annotations

import gettext
import math
import numbers

import numpy as np

from ...models.counts import log2_ceil
from .. import kernelrules
from ._kernels import lines_problem, tree_bound
from ._tools import close, part, short

BLOCKS = (32, 64, 128)       # threads per block the checks launch with
SLACK = 2                    # barriers allowed beyond log2(T) before a count no longer looks logarithmic
LINES_PER_LEVEL = 10         # lines and additions a tree's busiest thread may run per level (the course's: 6)
KERNEL_TIMEOUT_S = 60        # simulated kernels are slow; a linear one slower still


def _block_problem(got, x, tpb, b):
    """Why block ``b``'s sum ``got`` is wrong, named by its symptom where one fits."""
    seg = x[b * tpb:(b + 1) * tpb]
    for k in range(1, log2_ceil(tpb) + 1):
        if seg.size > 2**k and close(got, seg[::2**k].sum(), rtol=1e-9, atol=1e-12):
            steps = gettext.ngettext("{k} step", "{k} steps", k).format(k=k)
            return (f"block {b}'s sum holds only one of every {2**k} of its elements: the tree stopped {steps} "
                    "early (the last halving step has stride 1)")
    missing = np.flatnonzero(np.isclose(seg.sum() - got, seg, rtol=1e-9, atol=1e-12))
    if missing.size == 1:
        j = int(missing[0])
        return (f"block {b}'s sum misses x[{b * tpb + j}] (element {j} of the block): an off-by-one in a bound "
                "or a stride")
    twice = np.flatnonzero(np.isclose(got - seg.sum(), seg, rtol=1e-9, atol=1e-12))
    if twice.size == 1:
        return f"block {b}'s sum counts x[{b * tpb + int(twice[0])}] twice: an off-by-one in a bound or a stride"
    return f"block {b}'s sum is wrong: expected {short(float(seg.sum()))}, got {short(got)}"


def sums_problem(got, x, tpb, expected):
    """Why ``got`` is not the per-block sums of ``x`` in blocks of ``tpb`` (``expected``), or None when it is.

    Examples
    --------
    >>> x = np.ones(141)
    >>> sums_problem([64.0, 64.0, 13.0], x, 64, [64.0, 64.0, 13.0]) is None
    True
    >>> sums_problem([64.0, 64.0], x, 64, [64.0, 64.0, 13.0])[:59]
    "the last block's 13 elements past the final full block were"
    """
    try:
        got = np.asarray(got, dtype=np.float64)
    except (TypeError, ValueError):
        return f"expected an array of floats (one sum per block), got {short(got)}"
    n = x.size
    blocks, full = -(-n // tpb), n // tpb
    tail = n - full * tpb
    if got.ndim != 1:
        return f"expected a 1-D array of {blocks} block sums, got an array of shape {got.shape}"
    if got.size == full and tail:
        lost = (f"the last block's {tail} elements past the final full block were not summed: N = {n} is not a "
                f"multiple of the block ({tpb})" if full else
                f"the {tail} elements were not summed: N = {n} is less than one block ({tpb})")
        return f"{lost}; launch ceil(N / {tpb}) = {blocks} blocks and let the threads past the end load 0.0"
    if got.size != blocks:
        return f"expected {blocks} block sums (ceil({n} / {tpb})), got {got.size}"
    for b in range(blocks):
        scale = float(np.abs(x[b * tpb:(b + 1) * tpb]).sum())
        if not close(got[b], expected[b], rtol=1e-9, atol=1e-12 * max(scale, 1.0)):
            problem = _block_problem(float(got[b]), x, tpb, b)
            if b == blocks - 1 and tail:
                problem += f" (it is the last, partial block: {tail} elements, the other threads load 0.0)"
            return problem
    return None


def _cases(rng):
    """(N, T) pairs: three N that are not a multiple of T, then one exact multiple and one N below T."""
    ragged = [(tpb * int(rng.integers(1, most + 1)) + int(rng.integers(1, tpb)), tpb)
              for tpb, most in ((32, 3), (64, 2), (int(rng.choice(BLOCKS)), 1))]
    return [ragged[i] for i in rng.permutation(3)] + [(2 * 128, 128), (int(rng.integers(5, 32)), 32)]


SIGNATURE = {"block_tree": "void(float64[:], float64[:])"}


def launch_tree(block_tree, x, tpb, ref):
    """Launch the learner's ``block_tree`` on ``x`` in blocks of ``tpb``: ``(run, sums, problem or None)``; ``ref``
    gives the sums it should find.

    The grader owns both arrays: ``out`` starts as NaN, so a block sum the kernel did not write shows.
    """
    blocks = -(-x.size // tpb)
    run = block_tree(blocks, tpb, x, np.full(blocks, np.nan))
    call = f"block_tree[{blocks}, {tpb}](x of N = {x.size}, out)"
    problem = run.problem() or kernelrules.problem(run.module, run.name)
    if problem:
        return run, None, f"{call}: {problem}"
    sums = run.arrays[1]
    if run.atomic_ops():
        return run, sums, (f"{call}: the kernel made {run.atomic_ops()} atomic updates: a block's sum must come from "
                           "its tree of additions in shared memory, written once by thread 0")
    problem = sums_problem(sums, x, tpb, ref.block_sums(x, tpb))
    if problem:
        return run, sums, f"{call}: {problem}"
    return run, sums, _tree_problem(run, call, tpb)


def _tree_problem(run, call, tpb):
    """Why a correct launch is not a tree: one thread that reads the whole block, too few barriers, or a chain."""
    levels = log2_ceil(tpb)
    reads, block, thread = run.busiest()
    if reads > tree_bound(levels):
        return (f"{call} is right, but thread {thread} of block {block} read {reads} elements: one thread adding up "
                f"the block is serial work of {tpb} steps; in a tree each thread reads about 2 x log2({tpb}) = "
                f"{2 * levels} (at most {tree_bound(levels)} are accepted)")
    steps = run.barrier_count()
    if steps < levels:
        return (f"{call} is right, but one block passed {steps} barriers: a tree of {tpb} threads halves {levels} "
                f"times, with cuda.syncthreads() between the levels (at least {levels} barriers)")
    if steps > levels + SLACK:
        return (f"{call} is right, but one block passed {steps} barriers: a chain of additions one after another, "
                f"linear in the block, not a tree (a tree of {tpb} threads halves {levels} times; at most "
                f"{levels + SLACK} barriers are accepted)")
    depth, most = run.depth(1), depth_bound(levels)
    if depth > most:
        return (f"{call} is right, but a block's sum came through a chain of {depth} additions, one after another "
                f"(its critical path): serial work, however the threads share it; a tree of {tpb} threads adds "
                f"in about log2({tpb}) = {levels} steps (at most {most} are accepted)")
    return lines_problem(run, call, levels, LINES_PER_LEVEL, f"a tree of {tpb} threads")


def depth_bound(levels):
    """The longest chain of additions a tree of ``levels`` levels may have behind a block's sum.

    A tree has ``levels``; one that first adds a few elements per thread, or adds four at a time,
    a few more. Serial segments of any length ``s`` with a serial pass over their sums have
    ``s + T/s``, at least ``2 sqrt(T)``.

    Examples
    --------
    >>> [depth_bound(levels) for levels in (5, 6, 7)]
    [10, 12, 13]
    """
    return levels + levels // 2 + 3


@part("A: per-block sums by a shared-memory tree", points=3, needs=("block_tree",), timeout_s=KERNEL_TIMEOUT_S,
      kernels=SIGNATURE)
def check_block_sums(block_tree, rng, ref):
    for n, tpb in _cases(rng):
        _, _, problem = launch_tree(block_tree, rng.uniform(-1.0, 1.0, n), tpb, ref)
        if problem:
            return 0, 3, problem
    return 3, 3, f"a tree, correct on 5 random arrays, most of them not a multiple of the block{_compiled(block_tree)}"


def _compiled(launcher):
    note = getattr(launcher, "compiled", None)
    return f" ({note})" if note else ""


def _whole(value):
    if isinstance(value, (bool, np.bool_)):
        return False
    return isinstance(value, numbers.Integral) or (isinstance(value, float) and value.is_integer())


@part("B: barriers one block passes", points=2, needs=("block_tree", "reduction_steps"), timeout_s=KERNEL_TIMEOUT_S,
      kernels=SIGNATURE)
def check_reduction_steps(block_tree, reduction_steps, rng, ref):
    sizes = list(BLOCKS)
    for tpb in sizes:
        claim = reduction_steps(tpb)
        if not _whole(claim) or claim < 1:
            return 0, 2, f"reduction_steps({tpb}) must be a whole number of barriers >= 1; got {short(claim)}"
        claim = int(claim)
        x = rng.uniform(-1.0, 1.0, int(rng.integers(tpb // 2 + 1, tpb + 1)))
        run, _, problem = launch_tree(block_tree, x, tpb, ref)
        if problem:
            return 0, 2, f"the barriers of a wrong kernel count for nothing: {problem}"
        steps = run.barrier_count()
        if claim != steps:
            return 0, 2, (f"you said one block of {tpb} threads passes {claim} barriers; your kernel passed {steps} "
                          "(counted by the grader, launching it)")
    return 2, 2, f"your counts match your kernel's for blocks of {', '.join(map(str, sizes))} threads"


def _plan_problem(got, n, tpb, expected):
    if close(got, expected):
        return None
    call = f"reduction_plan({n}, {tpb}): expected {short(expected)}, got {short(got)}"
    if not isinstance(got, dict) or set(got) != set(expected):
        return f"{call}: return a dict with the keys 'launches', 'additions' and 'levels'"
    if got["launches"] != expected["launches"]:
        return f"{call}: each launch leaves ceil(m / {tpb}) of m numbers; launch again until one is left"
    if got["additions"] == n - 1 != expected["additions"]:
        return (f"{call}: n - 1 counts only the useful additions; every block of {tpb} threads does {tpb - 1}, the "
                "zeros past the end included")
    if got["levels"] == math.ceil(math.log2(n)) != expected["levels"]:
        return f"{call}: ceil(log2 n) is the ideal tree; each launch is a tree of log2({tpb}) levels"
    return call


@part("C: launches, additions and levels of a sum", points=2, needs=("reduction_plan",))
def check_reduction_plan(reduction_plan, rng, ref):
    cases = []
    for k in range(8):
        tpb = int(rng.choice([32, 64, 128, 256, 512, 1024]))
        n = [tpb**2, int(rng.integers(2, tpb + 1))][k] if k < 2 else int(10 ** rng.uniform(2, 9))
        cases.append((n, tpb))
    for n, tpb in cases:
        problem = _plan_problem(reduction_plan(n, tpb), n, tpb, ref.plan(n, tpb))
        if problem:
            return 0, 2, f"wrong for {problem}"
    return 2, 2, f"correct on {len(cases)} random cases"

