"""Exercise 11: grid-stride and chunked triads launched by the grader, and the sector counts behind them.

Wrong kernels a learner might write (a stride off by one, a dropped tail, a write past the end, one
element per thread, a made-up thread map) must score 0 with feedback that names the symptom; the solution
scores full marks, in this process and through the real grader.
"""

from __future__ import annotations

import doctest
import os
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from perfcourse.grading.checks import ex11_grid_stride as ex11
from perfcourse.grading.checks import parts, score_part
from perfcourse.grading.checks._answers import Answers
from perfcourse.grading.grade import grade
from perfcourse.grading.sandbox import bwrap_path
from perfcourse.models import counts

from .kernelcases import changed, notebook_namespace
from .kernelcases import score as score_kernel

ROOT = Path(__file__).resolve().parent.parent
SOLUTION = ROOT / "solutions" / "11_grid_stride.ipynb"
UNSAFE = bwrap_path() is None and os.environ.get("PERFCOURSE_REQUIRE_BWRAP") != "1"
PARTS = {p.needs[0]: p for p in parts("ex11")}

TRIAD = """
@cuda.jit
def triad_kernel(a, b, c, scalar, owner):
    t = cuda.grid(1)
    for i in range(t, a.size, cuda.gridsize(1)):
        a[i] = b[i] + scalar * c[i]
        owner[i] = t
"""

CHUNKED = """
@cuda.jit
def chunked_kernel(a, b, c, scalar, stride, owner):
    t = cuda.grid(1)
    chunks = (a.size + stride - 1) // stride
    for q in range(t, chunks, cuda.gridsize(1)):
        for i in range(q * stride, min(q * stride + stride, a.size)):
            a[i] = b[i] + scalar * c[i]
            owner[i] = t
"""


def _score(name, func, seed=0):
    points, feedback = score_part(PARTS[name], {name: func}, np.random.default_rng(seed), part_timeout=60,
                                  ref=Answers("ex11"))
    return points, feedback


def _triad(source, seed=0):
    return score_kernel("ex11", "A:", source, seed=seed)


def _chunked(source, seed=0):
    return score_kernel("ex11", "B:", source, seed=seed)


# --- counts ------------------------------------------------------------------------------------------------

def _brute_sectors(elements, itemsize):
    return len({byte // 32 for i in elements for byte in range(i * itemsize, (i + 1) * itemsize)})


def _brute_sweep(n, itemsize, stride):
    """Sectors of every warp request of the chunked loop, request by request."""
    chunks = -(-n // stride)
    return sum(_brute_sectors([e for e in ((32 * m + lane) * stride + j for lane in range(32)) if e < n], itemsize)
               for m in range(-(-chunks // 32)) for j in range(stride))


def test_the_counts_doctests_pass():
    finder, runner = doctest.DocTestFinder(), doctest.DocTestRunner()
    functions = [counts.warp_sectors, counts.chunked_sweep_sectors, counts.triad_sector_bytes,
                 ex11.grid_stride_owner, ex11.chunked_owner, ex11.triad_problem]
    for func in functions:
        for test in finder.find(func, globs=vars(sys.modules[func.__module__])):
            runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
    assert runner.tries >= 8


@pytest.mark.parametrize("seed", range(3))
def test_sector_counts_match_the_addresses_one_by_one(seed):
    rng = np.random.default_rng(seed)
    for _ in range(20):
        stride, itemsize = int(rng.integers(1, 80)), int(rng.choice([1, 2, 3, 4, 8, 12, 16, 32, 64]))
        assert counts.warp_sectors(stride, itemsize) == _brute_sectors(range(0, 32 * stride, stride), itemsize)
    for _ in range(12):
        n, stride, itemsize = int(rng.integers(1, 1500)), int(rng.integers(1, 12)), int(rng.choice([1, 4, 8, 12, 64]))
        assert counts.chunked_sweep_sectors(n, itemsize, stride) == _brute_sweep(n, itemsize, stride)


def test_sector_counts_at_their_edges():
    for itemsize in (1, 2, 4, 8, 16, 32):            # sizes that divide a sector: min(32, stride * itemsize)
        assert [counts.warp_sectors(s, itemsize) for s in (1, 2, 3, 40)] == [min(32, s * itemsize)
                                                                             for s in (1, 2, 3, 40)]
    assert counts.warp_sectors(1, 64) == 64          # every element spans two sectors
    assert counts.chunked_sweep_sectors(1, 8) == 1
    assert counts.chunked_sweep_sectors(3, 8, stride=100) == 3   # one lane, three requests of the same sector
    for n in (1, 31, 32, 33, 999):
        assert counts.triad_sector_bytes(n, 8) == 3 * 32 * -(-n * 8 // 32)    # coalesced: rounded up to sectors
        assert counts.triad_sector_bytes(n, 8, stride=4) == 3 * 32 * n       # 32 B apart: a sector per element
    for stride, itemsize in ((2, 4), (3, 8), (5, 4), (8, 8)):  # whole warps of chunks: n / 32 full requests
        n = 32 * stride * 3
        assert counts.chunked_sweep_sectors(n, itemsize, stride) == n // 32 * min(32, stride * itemsize)


def test_sector_counts_name_what_was_wrong():
    with pytest.raises(ValueError, match="stride must be an integer >= 1; got 0"):
        counts.warp_sectors(0, 8)
    with pytest.raises(TypeError, match="itemsize must be an integer"):
        counts.warp_sectors(1, 8.0)
    with pytest.raises(TypeError, match="n must be an integer"):
        counts.triad_sector_bytes(True, 8)


# --- wrong kernels score 0 and say why ---------------------------------------------------------------------

def test_the_right_kernels_score_full_marks():
    assert _triad(TRIAD)[0] == 3
    assert _chunked(CHUNKED)[0] == 2


@pytest.mark.parametrize("step", ["cuda.gridsize(1) + 1", "cuda.gridsize(1) - 1"])
def test_a_stride_off_by_one_scores_zero(step):
    points, feedback = _triad(changed(TRIAD, "range(t, a.size, cuda.gridsize(1))", f"range(t, a.size, {step})"))
    assert points == 0
    assert ("computed twice or skipped" in feedback or "never written" in feedback
            or "more than one thread" in feedback), feedback


def test_a_dropped_tail_scores_zero_naming_the_elements():
    dropped = changed(TRIAD, "range(t, a.size, cuda.gridsize(1))",
                       "range(t, a.size - a.size % cuda.gridsize(1), cuda.gridsize(1))")
    points, feedback = _triad(dropped)
    assert points == 0 and "were never written: the loop stops before the tail" in feedback, feedback


def test_one_element_per_thread_is_told_to_loop():
    once = changed(TRIAD, "    for i in range(t, a.size, cuda.gridsize(1)):\n",
                    "    for i in range(t, min(t + 1, a.size)):\n")
    points, feedback = _triad(once)
    assert points == 0 and "a grid-stride loop" in feedback and "not stop after one element" in feedback, feedback


def test_writing_past_the_end_scores_zero():
    past = changed(TRIAD, "range(t, a.size, cuda.gridsize(1))", "range(t, a.size + 1, cuda.gridsize(1))")
    points, feedback = _triad(past)
    assert points == 0 and "past its end" in feedback and "a[i] = b[i] + scalar * c[i]" in feedback, feedback


def test_a_made_up_thread_map_scores_zero():
    blocked = changed(TRIAD, "    for i in range(t, a.size, cuda.gridsize(1)):\n        a[i] = b[i] + scalar * c[i]\n"
                       "        owner[i] = t\n",
                       "    per = (a.size + cuda.gridsize(1) - 1) // cuda.gridsize(1)\n"
                       "    for i in range(t * per, min(t * per + per, a.size)):\n        a[i] = b[i] + scalar * c[i]\n"
                       "        owner[i] = i % cuda.gridsize(1)\n")
    points, feedback = _triad(blocked)
    assert points == 0 and "but thread" in feedback and "wrote a[" in feedback, feedback


def test_a_numpy_triad_without_a_kernel_scores_nothing():
    points, feedback = _triad("def triad(b, c, scalar, blocks, tpb):\n    return b + scalar * c, np.arange(b.size)\n")
    assert points == 0 and "defines no @cuda.jit kernel named triad_kernel" in feedback


def test_the_chunked_triad_must_use_chunks():
    coalesced = changed(TRIAD, "def triad_kernel(a, b, c, scalar, owner):",
                         "def chunked_kernel(a, b, c, scalar, stride, owner):")
    points, feedback = _chunked(coalesced)
    assert points == 0 and "neighbouring threads took neighbouring elements" in feedback, feedback
    short = changed(CHUNKED, "min(q * stride + stride, a.size)", "min(q * stride + stride - 1, a.size)")
    points, feedback = _chunked(short)
    assert points == 0 and ("computed twice or skipped" in feedback or "never written" in feedback), feedback
    b, c = np.linspace(-1, 1, 200), np.linspace(2, 3, 200)
    a = b + 0.5 * c
    a[96:] = np.nan                                            # 32 threads, one chunk of 3 each, then stopped
    owner = np.concatenate([ex11.chunked_owner(96, 32, 3), np.full(104, -1)])
    assert "each thread must go on to chunk t + 32" in ex11.triad_problem((a, owner), b, c, 0.5, 32, stride=3)


def test_a_wrong_sector_count_scores_zero_with_a_hint():
    points, feedback = _score("sectors_per_warp", lambda stride, itemsize: min(32, stride))
    assert points == 0 and "count bytes, not elements" in feedback, feedback
    points, feedback = _score("sectors_per_warp", lambda stride, itemsize: stride * itemsize)
    assert points == 0 and "only 32 lanes" in feedback, feedback
    assert _score("sectors_per_warp", lambda stride, itemsize: min(32, stride * itemsize))[0] == 1


def test_wrong_byte_counts_score_zero_with_a_hint():
    useful = _score("triad_bytes", lambda n, itemsize, stride: 3 * n * itemsize)
    assert useful[0] == 0 and "only the useful bytes" in useful[1], useful
    two = _score("triad_bytes", lambda n, itemsize, stride: counts.triad_sector_bytes(n, itemsize, stride) * 2 // 3)
    assert two[0] == 0 and "all three arrays" in two[1], two
    full = _score("triad_bytes", lambda n, itemsize, stride: 3 * n * counts.warp_sectors(stride, itemsize))
    assert full[0] == 0 and "full warps only" in full[1], full


def test_answers_typed_in_by_hand_score_nothing():
    assert _score("triad_bytes", lambda n, itemsize, stride: 2400)[0] == 0
    assert _score("sectors_per_warp", lambda stride, itemsize: 8)[0] == 0


# --- the solution ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [0, 1])
def test_the_solution_scores_full_marks_and_each_part_is_quick(seed):
    from perfcourse.grading.checks import grade_namespace

    namespace = notebook_namespace(SOLUTION)
    started = time.perf_counter()
    for result in grade_namespace("ex11", namespace, seed=seed):
        assert result["points"] == result["max_points"], result
    assert time.perf_counter() - started < 40, f"the self-check took {time.perf_counter() - started:.1f} s"


@pytest.mark.slow
def test_grading_the_solution_takes_well_under_a_minute():
    started = time.perf_counter()
    book = grade([SOLUTION], progress=False, unsafe=UNSAFE, seed=11)
    took = time.perf_counter() - started
    assert book["errors"] == [] and book["failures"] == []
    (sub,) = book["submissions"]
    assert sub["points"] == sub["max_points"] == 10, sub
    assert took < 60, f"grading exercise 11 took {took:.1f} s"


WALKER = """
@cuda.jit
def triad_kernel(a, b, c, scalar, owner):
    t = cuda.grid(1)
    g = cuda.gridsize(1)
    for i in range(a.size):              # every thread walks all n elements to find its own
        if i % g == t:
            a[i] = b[i] + scalar * c[i]
            owner[i] = t
"""


def test_a_thread_that_walks_the_whole_array_is_not_a_grid_stride_loop():
    # the same owners as a grid-stride loop, and the same reads: only the lines each thread ran tell them apart
    points, feedback = score_kernel("ex11", "A:", WALKER)
    assert points == 0 and "walks the whole array" in feedback and "lines of the kernel" in feedback, feedback
