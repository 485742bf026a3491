"""Exercise 11: grid-stride and chunked triads on Numba's CUDA simulator, and the sector counts behind them.

Wrong kernels a learner might write (a stride off by one, a dropped tail, a write past the end, a grid
larger than asked) must score 0 with feedback that names the symptom; the solution scores full marks,
in this process and through the real grader.
"""

from __future__ import annotations

import doctest
import os
import sys
import textwrap
import time
import types
from pathlib import Path

import nbformat
import numpy as np
import pytest

from perfcourse.grading.checks import ex11_grid_stride as ex11
from perfcourse.grading.checks import part_rng, parts, score_part
from perfcourse.grading.grade import grade
from perfcourse.grading.sandbox import bwrap_path
from perfcourse.models import counts

ROOT = Path(__file__).resolve().parent.parent
SOLUTION = ROOT / "solutions" / "11_grid_stride.ipynb"
UNSAFE = bwrap_path() is None and os.environ.get("PERFCOURSE_REQUIRE_BWRAP") != "1"
PARTS = {p.needs[0]: p for p in parts("ex11")}

# Kernels with knobs for the mistakes learners make. `cuda` and `np` come from the fixture.
KERNELS = textwrap.dedent('''
    @cuda.jit
    def grid_stride(a, owner, b, c, scalar, delta, end):
        t = cuda.grid(1)
        i = t
        while i < end:
            a[i] = b[i] + scalar * c[i]
            owner[i] = t
            i += cuda.gridsize(1) + delta

    @cuda.jit
    def chunked(a, owner, b, c, scalar, stride, short):
        t = cuda.grid(1)
        chunks = (a.size + stride - 1) // stride
        for q in range(t, chunks, cuda.gridsize(1)):
            for i in range(q * stride, min(q * stride + stride - short, a.size)):
                a[i] = b[i] + scalar * c[i]
                owner[i] = t

    def run(kernel, b, blocks, tpb, *args):
        a = cuda.to_device(np.zeros(b.size))
        owner = cuda.to_device(np.full(b.size, -1, dtype=np.int64))
        kernel[blocks, tpb](a, owner, *args)
        return a.copy_to_host(), owner.copy_to_host()

    def triad_with(delta=0, end=lambda n, grid: n, blocks_for=None):
        def triad(b, c, scalar, blocks, tpb):
            b, c = np.asarray(b, dtype=np.float64), np.asarray(c, dtype=np.float64)
            blocks = blocks if blocks_for is None else blocks_for(b.size, tpb)
            last = end(b.size, blocks * tpb)
            return run(grid_stride, b, blocks, tpb, cuda.to_device(b), cuda.to_device(c), scalar, delta, last)
        return triad

    def strided_with(short=0):
        def strided_triad(b, c, scalar, stride, blocks, tpb):
            b, c = np.asarray(b, dtype=np.float64), np.asarray(c, dtype=np.float64)
            return run(chunked, b, blocks, tpb, cuda.to_device(b), cuda.to_device(c), scalar, stride, short)
        return strided_triad
''')


@pytest.fixture(scope="module")
def k():
    """The kernels above, on Numba's CUDA simulator."""
    import perfcourse as pc

    numba = sys.modules.get("numba")
    if numba is not None and not numba.core.config.ENABLE_CUDASIM:
        pytest.skip("numba was imported without its CUDA simulator in this process")
    os.environ[pc.simt.SIM_ENV] = "1"
    namespace = {"cuda": pc.simt.numba_cuda(), "np": np}
    exec(compile(KERNELS, "kernels", "exec"), namespace)
    return types.SimpleNamespace(**namespace)


def _score(name, func, seed=0):
    points, feedback = score_part(PARTS[name], {name: func}, np.random.default_rng(seed), part_timeout=60)
    return points, feedback


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
                 ex11.grid_stride_owner, ex11.chunked_owner, ex11.triad_problem, ex11.launch]
    for func in functions:
        for test in finder.find(func, globs=vars(sys.modules[func.__module__])):
            runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
    assert runner.tries >= 10


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

def test_the_right_kernels_score_full_marks(k):
    assert _score("triad", k.triad_with())[0] == 3
    assert _score("strided_triad", k.strided_with())[0] == 2


@pytest.mark.parametrize("delta", [1, -1])
def test_a_stride_off_by_one_scores_zero(k, delta):
    points, feedback = _score("triad", k.triad_with(delta=delta))
    assert points == 0
    assert "computed twice or skipped" in feedback and "cuda.gridsize(1)" in feedback, feedback


def test_a_dropped_tail_scores_zero_naming_the_elements(k):
    points, feedback = _score("triad", k.triad_with(end=lambda n, grid: n - n % grid))
    assert points == 0 and "were never written: the loop stops before the tail" in feedback, feedback
    b, c = np.linspace(-1, 1, 300), np.linspace(2, 3, 300)
    got = k.triad_with(end=lambda n, grid: n - n % grid)(b, c, 0.5, 2, 32)
    assert ex11.triad_problem(got, b, c, 0.5, 64) == ("elements 256..299 were never written: the loop stops before "
                                                      "the tail (go on while i < n = 300)")


def test_one_element_per_thread_is_told_to_loop(k):
    points, feedback = _score("triad", k.triad_with(end=lambda n, grid: min(n, grid)))
    assert points == 0 and "a grid-stride loop" in feedback and "not stop after one element" in feedback, feedback


def test_writing_past_the_end_scores_zero(k):
    points, feedback = _score("triad", k.triad_with(end=lambda n, grid: n + 1))
    assert points == 0 and "indexed past the end of an array" in feedback and "out of bounds" in feedback, feedback


def test_a_grid_larger_than_asked_scores_zero(k):
    points, feedback = _score("triad", k.triad_with(blocks_for=lambda n, tpb: -(-n // tpb)))
    assert points == 0 and "its own thread" in feedback and "kernel[blocks, threads_per_block]" in feedback, feedback


def test_the_chunked_triad_must_use_chunks(k):
    coalesced = k.triad_with()
    points, feedback = _score("strided_triad", lambda b, c, s, stride, blocks, tpb: coalesced(b, c, s, blocks, tpb))
    assert points == 0 and "neighbouring threads took neighbouring elements" in feedback, feedback
    points, feedback = _score("strided_triad", k.strided_with(short=1))
    assert points == 0 and "computed twice or skipped" in feedback, feedback
    b, c = np.linspace(-1, 1, 200), np.linspace(2, 3, 200)
    one_round = k.strided_with()(b[:96], c[:96], 0.5, 3, 1, 32)           # 32 threads, one chunk of 3 each
    got = (np.concatenate([one_round[0], np.zeros(104)]), np.concatenate([one_round[1], np.full(104, -1)]))
    assert "each thread must go on to chunk t + 32" in ex11.triad_problem(got, b, c, 0.5, 32, stride=3)


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

def _solution_namespace():
    namespace = {"__name__": "__notebook__"}
    for cell in nbformat.read(SOLUTION, as_version=4).cells:
        if cell.cell_type == "code" and "self_check" not in cell.source:
            exec(compile(cell.source, str(SOLUTION), "exec"), namespace)
    return namespace


@pytest.mark.parametrize("seed", [0, 1])
def test_the_solution_scores_full_marks_and_each_part_is_quick(k, seed):
    namespace = _solution_namespace()
    for index, p in enumerate(parts("ex11")):
        started = time.perf_counter()
        points, feedback = score_part(p, namespace, part_rng(seed, index), part_timeout=p.timeout_s or 10)
        assert points == p.points, (p.title, feedback)
        assert time.perf_counter() - started < 20, f"{p.title} took {time.perf_counter() - started:.1f} s"


@pytest.mark.slow
def test_grading_the_solution_takes_well_under_a_minute():
    started = time.perf_counter()
    book = grade([SOLUTION], progress=False, unsafe=UNSAFE, seed=11)
    took = time.perf_counter() - started
    assert book["errors"] == [] and book["failures"] == []
    (sub,) = book["submissions"]
    assert sub["points"] == sub["max_points"] == 8, sub
    assert took < 60, f"grading exercise 11 took {took:.1f} s"
