"""Exercises 09 and 10: learners' kernels on Numba's CUDA simulator, graded by what they do and how many barriers."""

from __future__ import annotations

import os
import sys
import textwrap
import time
import types
from pathlib import Path

import nbformat
import numpy as np
import pytest

from perfcourse.grading.checks import ex09_tree_reduction as ex09
from perfcourse.grading.checks import ex10_scan as ex10
from perfcourse.grading.checks import grade_namespace, parts
from perfcourse.grading.grade import grade
from perfcourse.grading.sandbox import bwrap_path
from perfcourse.models import counts

ROOT = Path(__file__).resolve().parent.parent
UNSAFE = bwrap_path() is None and os.environ.get("PERFCOURSE_REQUIRE_BWRAP") != "1"

# Kernels a learner might write, right and wrong. `cuda`, `np` and the limits come from the fixture.
KERNELS = textwrap.dedent('''
    @cuda.jit
    def tree(x, out):
        level = cuda.shared.array(MAX_THREADS, dtype=np.float64)
        t = cuda.threadIdx.x
        i = cuda.blockIdx.x * cuda.blockDim.x + t
        level[t] = x[i] if i < x.size else 0.0
        cuda.syncthreads()
        stride = cuda.blockDim.x // 2
        while stride > 0:
            if t < stride:
                level[t] += level[t + stride]
            cuda.syncthreads()
            stride //= 2
        if t == 0:
            out[cuda.blockIdx.x] = level[0]

    @cuda.jit
    def tree_stops_early(x, out):            # off by one: the stride-1 step never runs
        level = cuda.shared.array(MAX_THREADS, dtype=np.float64)
        t = cuda.threadIdx.x
        i = cuda.blockIdx.x * cuda.blockDim.x + t
        level[t] = x[i] if i < x.size else 0.0
        cuda.syncthreads()
        stride = cuda.blockDim.x // 2
        while stride > 1:
            if t < stride:
                level[t] += level[t + stride]
            cuda.syncthreads()
            stride //= 2
        if t == 0:
            out[cuda.blockIdx.x] = level[0]

    @cuda.jit
    def walk(x, out):                        # right sums, one element per barrier: linear
        level = cuda.shared.array(MAX_THREADS, dtype=np.float64)
        t = cuda.threadIdx.x
        i = cuda.blockIdx.x * cuda.blockDim.x + t
        level[t] = x[i] if i < x.size else 0.0
        cuda.syncthreads()
        for k in range(1, cuda.blockDim.x):
            if t == 0:
                level[0] += level[k]
            cuda.syncthreads()
        if t == 0:
            out[cuda.blockIdx.x] = level[0]

    def launch(kernel, x, tpb, blocks=None):
        x = np.asarray(x, dtype=np.float64)
        blocks = -(-x.size // tpb) if blocks is None else blocks
        out = cuda.device_array(max(blocks, 1), dtype=np.float64)
        if blocks:
            kernel[blocks, tpb](cuda.to_device(x), out)
        return out.copy_to_host()[:blocks]

    @cuda.jit
    def hillis_steele(x, out, last_round, exclusive):
        buf = cuda.shared.array(2 * MAX_N, dtype=np.float64)
        t = cuda.threadIdx.x
        n = x.size
        buf[t] = x[t]
        cuda.syncthreads()
        src, offset = 0, 1
        while offset < n and offset < last_round:
            dst = MAX_N - src
            buf[dst + t] = buf[src + t] + (buf[src + t - offset] if t >= offset else 0.0)
            cuda.syncthreads()
            src, offset = dst, offset * 2
        if exclusive:
            out[t] = buf[src + t - 1] if t > 0 else 0.0
        else:
            out[t] = buf[src + t]

    def hs(x, last_round=1 << 30, exclusive=False):
        x = np.asarray(x, dtype=np.float64)
        out = cuda.device_array(x.size, dtype=np.float64)
        hillis_steele[1, x.size](cuda.to_device(x), out, last_round, exclusive)
        return out.copy_to_host()

    @cuda.jit
    def blelloch(x, out):
        s = cuda.shared.array(MAX_N, dtype=np.float64)
        total = cuda.shared.array(1, dtype=np.float64)
        t = cuda.threadIdx.x
        m = cuda.blockDim.x
        s[t] = x[t] if t < x.size else 0.0
        cuda.syncthreads()
        d = 1
        while d < m:
            k = (t + 1) * 2 * d - 1
            if k < m:
                s[k] += s[k - d]
            cuda.syncthreads()
            d *= 2
        if t == 0:
            total[0] = s[m - 1]
            s[m - 1] = 0.0
        cuda.syncthreads()
        d = m // 2
        while d > 0:
            k = (t + 1) * 2 * d - 1
            if k < m:
                left = s[k - d]
                s[k - d] = s[k]
                s[k] += left
            cuda.syncthreads()
            d //= 2
        if t < x.size:
            out[t] = s[t + 1] if t + 1 < m else total[0]

    def bl(x, pad=True):
        x = np.asarray(x, dtype=np.float64)
        m = 1 << (x.size - 1).bit_length() if pad else x.size
        out = cuda.device_array(x.size, dtype=np.float64)
        blelloch[1, m](cuda.to_device(x), out)
        return out.copy_to_host()

    @cuda.jit
    def serial_scan(x, out):                 # right scan, one element per barrier: linear
        s = cuda.shared.array(MAX_N, dtype=np.float64)
        t = cuda.threadIdx.x
        s[t] = x[t]
        cuda.syncthreads()
        for k in range(1, x.size):
            if t == 0:
                s[k] += s[k - 1]
            cuda.syncthreads()
        out[t] = s[t]

    def serial(x):
        x = np.asarray(x, dtype=np.float64)
        out = cuda.device_array(x.size, dtype=np.float64)
        serial_scan[1, x.size](cuda.to_device(x), out)
        return out.copy_to_host()
''')


@pytest.fixture(scope="module")
def k():
    """The kernels above, compiled for Numba's CUDA simulator (a GPU counts no barriers)."""
    import perfcourse as pc

    numba = sys.modules.get("numba")
    if numba is not None and not numba.core.config.ENABLE_CUDASIM:
        pytest.skip("numba was imported without its CUDA simulator in this process; only the simulator counts barriers")
    os.environ[pc.simt.SIM_ENV] = "1"        # numba reads it when first imported
    namespace = {"cuda": pc.simt.numba_cuda(), "np": np, "MAX_THREADS": 1024, "MAX_N": ex10.MAX_N}
    exec(compile(KERNELS, "kernels", "exec"), namespace)
    return types.SimpleNamespace(**namespace)


def _rng(seed=0):
    return np.random.default_rng(seed)


def _log2(n):
    return counts.log2_ceil(n)


# --- counts -------------------------------------------------------------------------------------------------

def _scan_additions(kind, n):
    """Additions counted one by one, on the kernels' own index patterns."""
    if kind == "hillis_steele":
        return sum(1 for d in counts.scan_offsets(n) for i in range(n) if i >= d)
    m, adds, d = 1 << (n - 1).bit_length(), 0, 1
    while d < m:
        adds += sum(1 for t in range(m) if (t + 1) * 2 * d - 1 < m)
        d *= 2
    return 2 * adds                                   # the down-sweep touches the same nodes


@pytest.mark.parametrize("n", [1, 2, 3, 7, 8, 9, 33, 64, 100, 128])
def test_scan_counts_match_the_index_patterns(n):
    for kind in counts.SCANS:
        work, span = counts.scan_work_span(kind, n)
        assert work == _scan_additions(kind, n)
        assert span == (_log2(n) if kind == "hillis_steele" else 2 * _log2(n))
    hs, blelloch = counts.scan_work_span("hillis_steele", n), counts.scan_work_span("blelloch", n)
    if n >= 16 and n & (n - 1) == 0:
        assert blelloch[0] < hs[0] and blelloch[1] > hs[1]   # less work, longer span


def test_block_tree_barriers_and_argument_errors():
    assert [counts.block_tree_barriers(t) for t in (1, 32, 64, 1024)] == [1, 6, 7, 11]
    with pytest.raises(ValueError, match="power of two"):
        counts.block_tree_barriers(48)
    with pytest.raises(TypeError, match="threads_per_block must be an integer"):
        counts.block_tree_barriers(True)
    with pytest.raises(ValueError, match="kind must be one of"):
        counts.scan_work_span("brent_kung", 8)
    with pytest.raises(ValueError, match="n must be an integer >= 1"):
        counts.scan_work_span("blelloch", 0)


def test_brent_choice_flips_once_at_the_crossover():
    for n in (16, 64, 1000, 2**20):
        edge = ex10.crossover(n)
        assert ex10.reference_faster(n, max(1, int(edge) - 1)) == "blelloch"
        assert ex10.reference_faster(n, int(edge) + 1) == "hillis_steele"
    assert ex10.crossover(8) == 1 and ex10.reference_faster(8, 1) == "blelloch"   # a tie goes to Blelloch
    assert ex10.reference_faster(5, 1) == "hillis_steele"                           # padding to 8 costs Blelloch


# --- exercise 09: wrong kernels score 0 and the message names the symptom -----------------------------------

def test_a_dropped_tail_is_named(k):
    def block_sums(x, tpb):
        return k.launch(k.tree, x, tpb, blocks=len(x) // tpb)

    points, _, feedback = ex09.check_block_sums(block_sums, _rng())
    assert points == 0
    assert "past the final full block were not summed" in feedback and "is not a multiple of the block" in feedback


def test_a_tree_that_stops_one_step_early_is_named(k):
    points, _, feedback = ex09.check_block_sums(lambda x, tpb: k.launch(k.tree_stops_early, x, tpb), _rng())
    assert points == 0 and "one of every 2 of its elements: the tree stopped 1 step early" in feedback, feedback


def test_an_element_missed_by_an_off_by_one_is_named():
    x = _rng(3).uniform(-1, 1, 141)
    got = ex09.reference_block_sums(x[:-1], 64)          # the load guard stopped one element short
    text = ex09.sums_problem(got, x, 64)
    assert "block 2's sum misses x[140] (element 12 of the block)" in text and "last, partial block" in text


def test_sums_without_a_kernel_score_nothing(k):
    points, _, feedback = ex09.check_block_sums(ex09.reference_block_sums, _rng())
    assert points == 0 and "no kernel passed a barrier" in feedback


def test_a_linear_block_scores_0_on_its_barriers(k):
    def block_sums(x, tpb):
        return k.launch(k.walk, x, tpb)

    points, _, feedback = ex09.check_reduction_steps(block_sums, lambda tpb: tpb, _rng())
    assert points == 0
    assert "passed 32 barriers in a block of 32 threads: linear, not logarithmic" in feedback
    assert "log2(32) = 5" in feedback


def test_a_wrong_barrier_claim_scores_0_and_the_right_one_full(k):
    def block_sums(x, tpb):
        return k.launch(k.tree, x, tpb)

    points, _, feedback = ex09.check_reduction_steps(block_sums, lambda tpb: _log2(tpb), _rng())
    assert points == 0 and "you said one block of 32 threads passes 5 barriers; your kernel passed 6" in feedback
    points, _, feedback = ex09.check_reduction_steps(block_sums, counts.block_tree_barriers, _rng())
    assert points == 2, feedback


def test_a_plan_that_forgets_the_padding_is_named():
    def plan(n, tpb):
        right = ex09.reference_plan(n, tpb)
        return {**right, "additions": n - 1}

    points, _, feedback = ex09.check_reduction_plan(plan, _rng())
    assert points == 0 and "n - 1 counts only the useful additions" in feedback
    assert ex09.check_reduction_plan(ex09.reference_plan, _rng())[0] == 2


# --- exercise 10 ------------------------------------------------------------------------------------------------

def test_an_exclusive_scan_is_named(k):
    points, _, feedback = ex10.check_hillis_steele(lambda x: k.hs(x, exclusive=True), _rng())
    assert points == 0 and "you returned the exclusive scan" in feedback, feedback


def test_a_scan_that_stops_a_round_early_is_named(k):
    x = _rng(1).uniform(-1, 1, 45)
    text = ex10.scan_problem(k.hs(x, last_round=32), x, "hillis_steele")
    assert text.startswith("this is the scan after 5 of its 6 rounds")
    points, _, feedback = ex10.check_hillis_steele(lambda x: k.hs(x, last_round=4), _rng())
    assert points == 0 and "of its" in feedback and "rounds" in feedback


def test_blelloch_without_padding_is_told_to_pad(k):
    points, _, feedback = ex10.check_blelloch(lambda x: k.bl(x, pad=False), _rng(2))
    assert points == 0 and "is not a power of two: pad the block to" in feedback, feedback


def test_a_linear_scan_scores_0_on_its_barriers(k):
    def claims(n):
        return {"hillis_steele": n, "blelloch": 2 * _log2(n) + 2}

    points, _, feedback = ex10.check_scan_steps(k.serial, k.bl, claims, _rng())
    assert points == 0 and "linear in n, not logarithmic" in feedback, feedback


def test_a_wrong_scan_barrier_claim_scores_0(k):
    def claims(n):
        return {"hillis_steele": _log2(n) + 1, "blelloch": 2 * _log2(n)}

    points, _, feedback = ex10.check_scan_steps(k.hs, k.bl, claims, _rng())
    assert points == 0 and "you said blelloch_scan passes" in feedback, feedback


def test_a_brent_choice_that_breaks_ties_the_wrong_way_is_told():
    def faster(n, p):
        (w1, s1), (w2, s2) = counts.scan_work_span("hillis_steele", n), counts.scan_work_span("blelloch", n)
        return "hillis_steele" if w1 + p * s1 <= w2 + p * s2 else "blelloch"

    points, _, feedback = ex10.check_faster_scan(faster, _rng())
    assert points == 0 and "ties go to 'blelloch'" in feedback
    assert ex10.check_faster_scan(ex10.reference_faster, _rng())[0] == 2


# --- the solutions: full marks here, and through the real grader in well under a minute ----------------------

SOLVED = {"ex09": ROOT / "solutions" / "09_tree_reduction.ipynb", "ex10": ROOT / "solutions" / "10_scan.ipynb"}


@pytest.mark.parametrize("exercise", sorted(SOLVED))
def test_solutions_score_full_marks_in_this_process(k, exercise):
    namespace = {"__name__": "__notebook__"}
    for cell in nbformat.read(SOLVED[exercise], as_version=4).cells:
        if cell.cell_type == "code" and "self_check(" not in cell.source:
            exec(compile(cell.source, str(SOLVED[exercise]), "exec"), namespace)
    assert any(p.timeout_s for p in parts(exercise))
    for seed in (0, 1):
        for result in grade_namespace(exercise, namespace, seed=seed):
            assert result["points"] == result["max_points"], (seed, result)


@pytest.mark.slow
@pytest.mark.parametrize("exercise", sorted(SOLVED))
def test_one_graded_run_takes_well_under_a_minute(exercise):
    started = time.perf_counter()
    book = grade([SOLVED[exercise]], progress=False, unsafe=UNSAFE, seed=5)
    took = time.perf_counter() - started
    assert book["errors"] == [] and book["failures"] == []
    (sub,) = book["submissions"]
    assert sub["points"] == sub["max_points"] == 7, sub
    assert took < 60, f"grading {exercise} took {took:.1f} s"


def _uncounted(func):
    """A grader's stand-in for ``func`` whose kernel reports no barrier count: no simulator ran it."""
    def call(*args):
        return func(*args)

    call.counted = lambda *args: (func(*args), None)
    return call


@pytest.mark.parametrize("exercise", [*sorted(SOLVED), "ex11"])
def test_graded_kernel_parts_that_ran_no_kernel_score_nothing(k, exercise):
    import contextlib

    from perfcourse.grading.checks import part_rng, score_part
    from perfcourse.grading.checks._tools import NO_KERNEL

    path = SOLVED.get(exercise, ROOT / "solutions" / "11_grid_stride.ipynb")
    namespace = {"__name__": "__notebook__"}
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type == "code" and "self_check(" not in cell.source:
            exec(compile(cell.source, str(path), "exec"), namespace)
    functions = {n: _uncounted(f) for n, f in namespace.items() if callable(f)}
    kernel_parts = 0
    for index, spec in enumerate(parts(exercise)):
        points, feedback = score_part(spec, functions, part_rng(1, index), part_timeout=120,
                                      limit=contextlib.nullcontext())
        if NO_KERNEL in feedback:
            kernel_parts += 1
            assert points == 0, (spec.title, feedback)
    assert kernel_parts >= 1
