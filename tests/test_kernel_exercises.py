"""Exercises 09 and 10: the grader launches the learner's kernels itself and reads what every thread did.

Kernels a learner might write, right and wrong (and shortcuts that are not the skill), go through the
same checks as a graded notebook: each must score what it earns, with a message naming the symptom.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from perfcourse.grading.checks import ex09_tree_reduction as ex09
from perfcourse.grading.checks import ex10_scan as ex10
from perfcourse.grading.checks import grade_namespace, parts
from perfcourse.grading.checks._answers import Answers
from perfcourse.grading.grade import grade
from perfcourse.grading.sandbox import bwrap_path
from perfcourse.models import counts

from .kernelcases import TREE, changed, notebook_namespace, rng, score

REF09, REF10 = Answers("ex09"), Answers("ex10")

ROOT = Path(__file__).resolve().parent.parent
UNSAFE = bwrap_path() is None and os.environ.get("PERFCOURSE_REQUIRE_BWRAP") != "1"
_rng = rng


def _log2(n):
    return counts.log2_ceil(n)



_LOOP = ("    stride = cuda.blockDim.x // 2\n    while stride > 0:\n        if t < stride:\n"
         "            level[t] += level[t + stride]\n        cuda.syncthreads()\n        stride //= 2\n")

# each: a change to TREE, and what its feedback must say
TREE_MISTAKES = {
    "stops early": (("while stride > 0:", "while stride > 1:"), "one of every 2 of its elements: the tree stopped 1"),
    "no tail": (("level[t] = x[i] if i < x.size else 0.0",
                 "level[t] = x[i] if (cuda.blockIdx.x + 1) * cuda.blockDim.x <= x.size else 0.0"),
                "last, partial block"),
    "serial thread 0": ((_LOOP, "    if t == 0:\n        for k in range(1, cuda.blockDim.x):\n"
                                "            level[0] += level[k]\n"),
                        "elements: one thread adding up the block is serial work"),
    "divergent barrier": (("            level[t] += level[t + stride]\n        cuda.syncthreads()",
                           "            level[t] += level[t + stride]\n            cuda.syncthreads()"),
                          "passed different numbers of barriers"),
    "missing barrier": (("        cuda.syncthreads()\n        stride //= 2", "        stride //= 2"),
                        "a race: thread"),
    "unwritten shared memory": (("    level[t] = x[i] if i < x.size else 0.0",
                                 "    if i < x.size:\n        level[t] = x[i]"), "which no thread had written"),
    "uniform input only": (("level[t] += level[t + stride]", "level[t] = 2.0 * level[t]"), "block"),
    "atomics": (("    if t == 0:\n        out[cuda.blockIdx.x] = level[0]",
                 "    cuda.atomic.add(out, cuda.blockIdx.x, level[t] * 0.0 + (x[i] if i < x.size else 0.0))"),
                "atomic updates"),
    "np.sum by thread 0": ((_LOOP, ""), "block_tree calls np.sum"),
}


def _tree(change):
    old, new = change
    assert old in TREE, old
    source = TREE.replace(old, new)
    if new == "":        # the np.sum shortcut: thread 0 hands the whole block to NumPy
        source = source.replace("out[cuda.blockIdx.x] = level[0]",
                                "out[cuda.blockIdx.x] = np.sum(level[:cuda.blockDim.x])")
    return source


# --- exercise 09: the tree scores, and each mistake or shortcut scores 0 with its reason -------------------

def test_the_tree_scores_full_marks_on_both_kernel_parts():
    assert score("ex09", "A:", TREE)[0] == 3
    assert score("ex09", "B:", TREE, {"reduction_steps": counts.block_tree_barriers})[0] == 2


@pytest.mark.parametrize("mistake", sorted(TREE_MISTAKES))
def test_a_wrong_or_serial_tree_scores_0_with_its_reason(mistake):
    change, said = TREE_MISTAKES[mistake]
    points, feedback = score("ex09", "A:", _tree(change))
    assert points == 0 and said in feedback, (mistake, feedback)
    if mistake == "divergent barrier":
        assert "cuda.syncthreads()" in feedback and "not allowed in CUDA" in feedback


SQRT_TWO_LEVEL = TREE.replace(_LOOP, """    k = 12
    if t * k < cuda.blockDim.x:
        for j in range(1, k):
            if t * k + j < cuda.blockDim.x:
                level[t * k] += level[t * k + j]
    for _ in range(7):
        cuda.syncthreads()
    if t == 0:
        for j in range(1, (cuda.blockDim.x + k - 1) // k):
            level[0] += level[j * k]
""")

SHARED_ATOMICS = TREE.replace(_LOOP, """    acc = cuda.shared.array(1, dtype=np.float64)
    if t == 0:
        acc[0] = 0.0
    cuda.syncthreads()
    cuda.atomic.add(acc, 0, level[t])
    s = cuda.blockDim.x
    while s > 1:
        cuda.syncthreads()
        s //= 2
    if t == 0:
        level[0] = acc[0]
""")


@pytest.mark.parametrize("source, said", [(SQRT_TWO_LEVEL, "serial work"), (SHARED_ATOMICS, "atomic updates")])
def test_a_two_level_sum_or_atomics_in_shared_memory_are_not_a_tree(source, said):
    points, feedback = score("ex09", "B:", source, {"reduction_steps": counts.block_tree_barriers})
    assert points == 0 and said in feedback, feedback


def test_a_race_is_named_as_a_race_in_every_run():
    for seed in range(4):
        points, feedback = score("ex09", "A:", _tree(TREE_MISTAKES["missing barrier"][0]), seed=seed)
        assert points == 0 and "a race: thread" in feedback and "cuda.syncthreads() is missing" in feedback


def test_a_host_answer_with_a_dummy_kernel_scores_nothing():
    dummy = """
    @cuda.jit
    def block_tree(x, out):
        cuda.syncthreads()
    """
    points, feedback = score("ex09", "A:", dummy, {"block_sums": REF09.block_sums})
    assert points == 0 and "expected" in feedback and "nan" in feedback, feedback


def test_no_kernel_at_all_scores_nothing():
    points, feedback = score("ex09", "A:", "def block_sums(x, t):\n    return x\n")
    assert points == 0 and "defines no @cuda.jit kernel named block_tree" in feedback


def test_an_element_missed_by_an_off_by_one_is_named():
    x = _rng(3).uniform(-1, 1, 141)
    got = REF09.block_sums(x[:-1], 64)          # the load guard stopped one element short
    text = ex09.sums_problem(got, x, 64, REF09.block_sums(x, 64))
    assert "block 2's sum misses x[140] (element 12 of the block)" in text and "last, partial block" in text



def test_a_linear_block_scores_0_on_its_barriers():
    walk = _tree((_LOOP, "    for k in range(1, cuda.blockDim.x):\n        if t == 0:\n"
                         "            level[0] += level[k]\n        cuda.syncthreads()\n"))
    points, feedback = score("ex09", "B:", walk, {"reduction_steps": lambda tpb: tpb})
    assert points == 0 and "serial work" in feedback, feedback


def test_a_wrong_barrier_claim_scores_0_and_the_right_one_full():
    points, feedback = score("ex09", "B:", TREE, {"reduction_steps": lambda tpb: _log2(tpb)})
    assert points == 0 and "you said one block of 32 threads passes 5 barriers; your kernel passed 6" in feedback
    assert score("ex09", "B:", TREE, {"reduction_steps": counts.block_tree_barriers})[0] == 2


def test_a_plan_that_forgets_the_padding_is_named():
    def plan(n, tpb):
        right = REF09.plan(n, tpb)
        return {**right, "additions": n - 1}

    points, _, feedback = ex09.check_reduction_plan(plan, _rng(), REF09)
    assert points == 0 and "n - 1 counts only the useful additions" in feedback
    assert ex09.check_reduction_plan(REF09.plan, _rng(), REF09)[0] == 2


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
        assert REF10.faster(n, max(1, int(edge) - 1)) == "blelloch"
        assert REF10.faster(n, int(edge) + 1) == "hillis_steele"
    assert ex10.crossover(8) == 1 and REF10.faster(8, 1) == "blelloch"   # a tie goes to Blelloch
    assert REF10.faster(5, 1) == "hillis_steele"                           # padding to 8 costs Blelloch


# --- exercise 10 ------------------------------------------------------------------------------------------------

HILLIS_STEELE = """
@cuda.jit
def hillis_steele_kernel(x, out):
    buf = cuda.shared.array(BUF_N, dtype=np.float64)
    t = cuda.threadIdx.x
    n = x.size
    buf[t] = x[t]
    cuda.syncthreads()
    src, offset = 0, 1
    while offset < n:
        dst = MAX_N - src
        if t >= offset:
            buf[dst + t] = buf[src + t] + buf[src + t - offset]
        else:
            buf[dst + t] = buf[src + t]
        cuda.syncthreads()
        src, offset = dst, offset * 2
    out[t] = buf[src + t]
"""

BLELLOCH = """
@cuda.jit
def blelloch_kernel(x, out):
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
"""

SERIAL_SCAN = """
@cuda.jit
def hillis_steele_kernel(x, out):
    s = cuda.shared.array(MAX_N, dtype=np.float64)
    t = cuda.threadIdx.x
    s[t] = x[t]
    cuda.syncthreads()
    for k in range(1, x.size):
        if t == 0:
            s[k] += s[k - 1]
        cuda.syncthreads()
    out[t] = s[t]
"""


def test_both_scans_score_full_marks():
    assert score("ex10", "A:", HILLIS_STEELE)[0] == 2
    assert score("ex10", "B:", BLELLOCH)[0] == 2
    claims = {"scan_steps": lambda n: {"hillis_steele": 1 + _log2(n), "blelloch": 2 * _log2(n) + 2}}
    assert score("ex10", "C:", HILLIS_STEELE + BLELLOCH, claims)[0] == 1


HS_MISTAKES = {      # a change to HILLIS_STEELE, and what its feedback must say
    "exclusive": (("    out[t] = buf[src + t]", "    out[t] = buf[src + t - 1] if t > 0 else 0.0"),
                  "you returned the exclusive scan"),
    "a round early": (("while offset < n:", "while offset < n and offset < 4:"), "this is the scan after"),
    "in place": (("        dst = MAX_N - src\n", "        dst = src\n"), "a race"),
}


@pytest.mark.parametrize("mistake", sorted(HS_MISTAKES))
def test_a_wrong_hillis_steele_scan_is_named(mistake):
    (old, new), said = HS_MISTAKES[mistake]
    points, feedback = score("ex10", "A:", changed(HILLIS_STEELE, old, new))
    assert points == 0 and said in feedback, (mistake, feedback)


def test_blelloch_that_reads_past_its_input_is_told():
    unguarded = changed(BLELLOCH, "s[t] = x[t] if t < x.size else 0.0", "s[t] = x[t]")
    points, feedback = score("ex10", "B:", unguarded, seed=2)
    assert points == 0 and "past its end" in feedback and "s[t] = x[t]" in feedback, feedback


def test_hillis_steele_is_not_the_work_efficient_scan():
    guarded = changed(changed(HILLIS_STEELE, "def hillis_steele_kernel(", "def blelloch_kernel("),
                      "    buf[t] = x[t]\n", "    buf[t] = x[t] if t < n else 0.0\n")
    guarded = guarded.replace("    out[t] = buf[src + t]", "    if t < n:\n        out[t] = buf[src + t]")
    guarded = guarded.replace("        if t >= offset:", "        if t >= offset and t < n:")
    points, feedback = score("ex10", "B:", guarded)
    assert points == 0 and "the work of Hillis-Steele" in feedback, feedback


def test_a_scan_by_atomics_is_refused_even_when_its_order_hides_the_race():
    atomic_scan = """
    @cuda.jit
    def hillis_steele_kernel(x, out):
        acc = cuda.shared.array(1, dtype=np.float64)
        t = cuda.threadIdx.x
        if t == 0:
            acc[0] = 0.0
        cuda.syncthreads()
        xi = x[t]
        out[t] = acc[0] + xi
        cuda.atomic.add(acc, 0, xi)
        d = 1
        while d < x.size:
            cuda.syncthreads()
            d *= 2
    """
    points, feedback = score("ex10", "A:", atomic_scan)
    assert points == 0 and ("a race" in feedback or "atomic updates" in feedback), feedback


def test_a_serial_scan_scores_0_even_when_right():
    points, feedback = score("ex10", "A:", SERIAL_SCAN)
    assert points == 0 and "serial work" in feedback, feedback
    claims = {"scan_steps": lambda n: {"hillis_steele": n, "blelloch": 2 * _log2(n) + 2}}
    points, feedback = score("ex10", "C:", SERIAL_SCAN + BLELLOCH, claims)
    assert points == 0 and "serial work" in feedback or "linear in n" in feedback, feedback


def test_a_wrong_scan_barrier_claim_scores_0():
    claims = {"scan_steps": lambda n: {"hillis_steele": _log2(n) + 1, "blelloch": 2 * _log2(n)}}
    points, feedback = score("ex10", "C:", HILLIS_STEELE + BLELLOCH, claims)
    assert points == 0 and "you said blelloch_kernel passes" in feedback, feedback


def test_cumsum_on_the_host_with_a_dummy_kernel_scores_nothing():
    dummy = """
    @cuda.jit
    def hillis_steele_kernel(x, out):
        cuda.syncthreads()
    """
    points, feedback = score("ex10", "A:", dummy)
    assert points == 0 and "got nan" in feedback, feedback


def test_a_brent_choice_that_breaks_ties_the_wrong_way_is_told():
    def faster(n, p):
        (w1, s1), (w2, s2) = counts.scan_work_span("hillis_steele", n), counts.scan_work_span("blelloch", n)
        return "hillis_steele" if w1 + p * s1 <= w2 + p * s2 else "blelloch"

    points, _, feedback = ex10.check_faster_scan(faster, _rng(), REF10)
    assert points == 0 and "ties go to 'blelloch'" in feedback
    assert ex10.check_faster_scan(REF10.faster, _rng(), REF10)[0] == 2


# --- the solutions: full marks here, and through the real grader in well under a minute ----------------------

SOLVED = {"ex09": ROOT / "solutions" / "09_tree_reduction.ipynb", "ex10": ROOT / "solutions" / "10_scan.ipynb"}


@pytest.mark.parametrize("exercise", sorted(SOLVED))
def test_solutions_score_full_marks_in_this_process(exercise):
    namespace = notebook_namespace(SOLVED[exercise])
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


CHAIN_TREE = """
@cuda.jit
def block_tree(x, out):
    level = cuda.shared.array(MAX_THREADS, dtype=np.float64)
    t = cuda.threadIdx.x
    i = cuda.blockIdx.x * cuda.blockDim.x + t
    level[t] = x[i] if i < x.size else 0.0
    cuda.syncthreads()
    for k in range(1, cuda.blockDim.x):
        if t == k:
            level[t] += level[t - 1]
        cuda.syncthreads()
    if t == 0:
        out[cuda.blockIdx.x] = level[cuda.blockDim.x - 1]
"""


def test_a_chain_of_additions_one_per_barrier_is_not_a_tree():
    # each thread reads 3 elements, as in a tree, but the block passes T barriers: span T, not log2 T
    points, feedback = score("ex09", "A:", CHAIN_TREE)
    assert points == 0 and "a chain of additions" in feedback and "not a tree" in feedback, feedback


def _chain_scan(name, guarded):
    load = "x[t] if t < x.size else 0.0" if guarded else "x[t]"
    store = "    if t < x.size:\n        out[t] = s[t]\n" if guarded else "    out[t] = s[t]\n"
    return (f"@cuda.jit\ndef {name}(x, out):\n    s = cuda.shared.array(MAX_N, dtype=np.float64)\n"
            f"    t = cuda.threadIdx.x\n    s[t] = {load}\n    cuda.syncthreads()\n"
            "    for k in range(1, cuda.blockDim.x):\n        if t == k:\n            s[t] += s[t - 1]\n"
            f"        cuda.syncthreads()\n{store}")


@pytest.mark.parametrize("part, name, guarded", [("A:", "hillis_steele_kernel", False),
                                                 ("B:", "blelloch_kernel", True)])
def test_a_chain_of_additions_is_neither_scan(part, name, guarded):
    points, feedback = score("ex10", part, _chain_scan(name, guarded))
    assert points == 0 and "a chain of" in feedback and ("linear in n" in feedback or "critical path" in feedback)


SEGMENT_TREE = """
@cuda.jit
def block_tree(x, out):
    s = cuda.shared.array(MAX_THREADS, dtype=np.float64)
    part = cuda.shared.array(MAX_THREADS, dtype=np.float64)
    t = cuda.threadIdx.x
    T = cuda.blockDim.x
    i = cuda.blockIdx.x * T + t
    s[t] = x[i] if i < x.size else 0.0
    cuda.syncthreads()
    if t < T // 8:
        acc = 0.0
        for j in range(t * 8, t * 8 + 8):
            acc += s[j]
        part[t] = acc
    cuda.syncthreads()
    if t == T - 1:
        acc = 0.0
        for q in range(T // 8):
            acc += part[q]
        out[cuda.blockIdx.x] = acc
    k = 2
    while k < T:
        k *= 2
        cuda.syncthreads()
"""


def test_serial_segments_padded_with_empty_barriers_are_not_a_tree():
    # few reads per thread and a tree's number of barriers, but the sum comes through 8 + T/8 additions in a row
    points, feedback = score("ex09", "A:", SEGMENT_TREE)
    assert points == 0 and "critical path" in feedback and "chain of" in feedback, feedback
    points, feedback = score("ex09", "B:", SEGMENT_TREE, {"reduction_steps": lambda tpb: _log2(tpb) + 1})
    assert points == 0 and "count for nothing" in feedback, feedback


def _segment_scan(name):
    return f"""
@cuda.jit
def {name}(x, out):
    s = cuda.shared.array(MAX_N, dtype=np.float64)
    off = cuda.shared.array(MAX_N, dtype=np.float64)
    t = cuda.threadIdx.x
    n = x.size
    s[t] = x[t] if t < n else 0.0
    cuda.syncthreads()
    if t < (n + 7) // 8:
        acc = 0.0
        for j in range(t * 8, min(t * 8 + 8, n)):
            acc += s[j]
            s[j] = acc
    cuda.syncthreads()
    if t == cuda.blockDim.x - 1:
        acc = 0.0
        for q in range((n + 7) // 8):
            off[q] = acc
            acc += s[min(q * 8 + 7, n - 1)]
    cuda.syncthreads()
    k = 1
    while k < n:
        k *= 2
        cuda.syncthreads()
    if t < n:
        out[t] = s[t] + off[t // 8]
"""


@pytest.mark.parametrize("part, name", [("A:", "hillis_steele_kernel"), ("B:", "blelloch_kernel")])
def test_serial_segment_scans_are_neither_scan(part, name):
    points, feedback = score("ex10", part, _segment_scan(name))
    assert points == 0 and "critical path" in feedback, feedback


def test_float_does_not_reset_a_chains_depth():
    laundered = SEGMENT_TREE.replace("acc += s[j]", "acc = float(acc + s[j])").replace(
        "acc += part[q]", "acc = float(acc + part[q])")
    assert "float(acc" in laundered
    points, feedback = score("ex09", "A:", laundered)
    assert points == 0 and "critical path" in feedback, feedback
