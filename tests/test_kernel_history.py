"""A tree or scan kernel cannot hide the additions behind its values from the grader's count.

The recording simulator counts the additions behind each value (its critical path). A value passed
through a C function (``math.copysign``, ``np.float64``, ``.real``), turned into an integer, or kept in
an integer array would come back with no history, so a near-serial kernel would look like a tree.
Each such route scores 0 on exercises 09 and 10 with its reason; the honest kernels still score full
marks (tests/test_kernel_exercises.py).
"""

from __future__ import annotations

import pytest

from perfcourse.cudasim.memory import Traced
from perfcourse.grading import kernelrules
from perfcourse.grading.kernelsource import kernel_module

from .kernelcases import changed, score

# a radix-8 first pass, then radix 4, padded with empty barriers: 16 additions behind a block of 128, where a tree
# has 7; "LAUNDER" is where each route hands the partial sum back without its history
RADIX8 = """
@cuda.jit
def block_tree(x, out):
    sh = cuda.shared.array(MAX_THREADS, dtype=np.float64)
    t = cuda.threadIdx.x
    T = cuda.blockDim.x
    i = cuda.blockIdx.x * T + t
    sh[t] = x[i] if i < x.size else 0.0
    cuda.syncthreads()
    bars = 1
    stride, radix, live = 1, 8, T
    while live > 1:
        if t % (stride * radix) == 0 and t < T:
            s = 0.0
            for k in range(radix):
                j = t + k * stride
                if j < T:
                    s = s + sh[j]
            sh[t] = LAUNDER
        cuda.syncthreads()
        bars += 1
        stride *= radix
        live = (live + radix - 1) // radix
        radix = 4
    levels = 0
    while (1 << levels) < T:
        levels += 1
    while bars < levels + 1:
        cuda.syncthreads()
        bars += 1
    if t == 0:
        out[cuda.blockIdx.x] = sh[0]
"""

SERIAL = "lines and additions of the kernel one after another"
ROUTES = {   # the laundering expression, and what the feedback must say
    "plain": ("s", SERIAL),
    "math.copysign": ("math.copysign(s, s)", SERIAL),        # math keeps the count, and the lines are counted too
    "math.ldexp": ("math.ldexp(s, 0)", SERIAL),
    "np.float64": ("np.float64(s)", "calls np.float64 on a value"),
    ".real": ("s.real", "reads .real of s"),
    "a dunder": ("s.__float__()", "calls s.__float__"),
    "float of a string": ("float(str(s))", "calls str"),
    "int round trip": ("int(s * 1e12) / 1e12", "into a whole number"),
    "a complex number": ("abs(s * 1j)", "uses a complex number"),
    "math.frexp": ("math.ldexp(*math.frexp(s))", SERIAL),   # a tuple of parts, each keeping the count
    "math.modf": ("sum(math.modf(s))", "calls sum"),
}


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_a_value_without_its_history_scores_0_in_exercise_09(route):
    expression, said = ROUTES[route]
    points, feedback = score("ex09", "A:", changed(RADIX8, "LAUNDER", expression))
    either = ("chain of", SERIAL) if said == SERIAL else (said,)     # its chain, or its lines, whichever is first
    assert points == 0 and any(s in feedback for s in either), (route, feedback)


# exercise 10: an integer fixed-point copy of the input, scanned serially by segments, padded with empty barriers
FIXED_POINT = """
FIX = 1125899906842624.0

@cuda.jit
def hillis_steele_kernel(x, out):
    q = cuda.shared.array(64, dtype=np.int64)
    pre = cuda.shared.array(64, dtype=np.int64)
    t = cuda.threadIdx.x
    n = x.size
    q[t] = LOAD
    cuda.syncthreads()
    if t == 0:
        s = 0
        for j in range(n):
            s += q[j]
            pre[j] = s
    cuda.syncthreads()
    b = 1
    while (1 << b) < n:
        cuda.syncthreads()
        b += 1
    out[t] = pre[t] / FIX
"""


@pytest.mark.parametrize("load, said", [("int(x[t] * FIX)", "into a whole number"),
                                        ("x[t] * FIX", "into an array of int64")])
def test_an_integer_copy_of_the_input_scores_0_in_exercise_10(load, said):
    points, feedback = score("ex10", "A:", changed(FIXED_POINT, "LOAD", load))
    assert points == 0 and said in feedback, feedback


def test_the_rules_pass_what_a_tree_needs_and_name_the_line():
    tree = changed(RADIX8, "LAUNDER", "s")
    assert kernelrules.problem(kernel_module([tree], []), "block_tree") is None
    assert kernelrules.problem(kernel_module([changed(RADIX8, "LAUNDER", "math.fabs(s) + np.float64(0.0)")], []),
                               "block_tree") is None                     # math, and NumPy on a constant: allowed
    said = kernelrules.problem(kernel_module([changed(RADIX8, "LAUNDER", "np.float64(s)")], []), "block_tree")
    assert said.startswith("block_tree calls np.float64 on a value (block_tree, line 17: sh[t] = np.float64(s))"), said
    helper = "@cuda.jit(device=True)\ndef h(v):\n    return v.imag\n" + changed(RADIX8, "LAUNDER", "h(s)")
    assert "h reads .imag of v" in kernelrules.problem(kernel_module([helper], []), "block_tree")


def test_a_traced_value_keeps_its_history_where_python_allows():
    import numpy as np

    from perfcourse.cudasim.fakecuda import _Math

    v = Traced(2.5, 3)
    assert v.real.depth == 3 and v.conjugate().depth == 3 and (v + 1).depth == 4 and (-v).depth == 3
    for other in (np.False_, np.int64(0), np.float64(1.0), True):       # NumPy scalars and bools defer to it
        assert getattr(other + v, "depth", None) == 4 and getattr(v * other, "depth", None) == 4, other
    assert _Math().copysign(v, v).depth == 4 and _Math().log2(8) == 3.0 and _Math().pi == np.pi
    for whole in (int, round):
        with pytest.raises(TypeError, match="whole number"):
            whole(v)


def test_a_slice_store_keeps_the_history_of_what_it_writes():
    import numpy as np

    from .kernelcases import launchers

    # a serial running sum written through one-element slices: out[k] is k + 1 additions deep, as with out[k] = s
    source = """
@cuda.jit
def scan(x, out):
    if cuda.threadIdx.x == 0:
        s = 0.0
        for k in range(x.size):
            s = s + x[k]
            out[k:k + 1] = s
"""
    run = launchers(source, "scan")["scan"](1, 4, np.ones(40), np.zeros(40))
    assert run.problem() is None and run.arrays[1][-1] == 40.0
    assert run.depth(1) == 40


# one thread per step adds a chunk of the block to a running sum (log2 T + 1 steps): few reads per thread, few
# barriers, but the block's work is serial; "LAST" is how the sum is handed to out
CHUNKS = """
@cuda.jit
def block_tree(x, out):
    level = cuda.shared.array(MAX_THREADS, dtype=np.float64)
    acc = cuda.shared.array(1, dtype=np.float64)
    t = cuda.threadIdx.x
    T = cuda.blockDim.x
    i = cuda.blockIdx.x * T + t
    level[t] = x[i] if i < x.size else 0.0
    cuda.syncthreads()
    K = 1
    m = T
    while m > 1:
        m //= 2
        K += 1
    C = (T + K - 1) // K
    for j in range(K):
        if t == j:
            s = 0.0
            if j > 0:
                s = acc[0]
            for k in range(j * C, min(j * C + C, T)):
                s = s + level[k] + np.False_
            acc[0] = s
            if j == K - 1:
                LAST
        cuda.syncthreads()
"""
REBUILT = """r = 0.0
                a = s if s >= 0 else -s
                p = 256.0
                for e in range(60):
                    if a >= r + p:
                        r = r + p
                    p = p * 0.5
                out[cuda.blockIdx.x] = r if s >= 0 else -r"""


@pytest.mark.parametrize("last", ["out[cuda.blockIdx.x] = s", "out[cuda.blockIdx.x:cuda.blockIdx.x + 1] = s", REBUILT],
                         ids=["a NumPy bool added", "a slice store", "rebuilt from comparisons"])
def test_serial_chunks_score_0_however_the_sum_is_handed_over(last):
    points, feedback = score("ex09", "A:", changed(CHUNKS, "LAST", last))
    assert points == 0 and (SERIAL in feedback or "chain of" in feedback), feedback


def _one_line_chunk(c):
    """A balanced sum of level[a] .. level[a + c - 1], written on one line."""
    terms = [f"level[a + {k}]" for k in range(c)]
    while len(terms) > 1:
        terms = [f"({terms[i]} + {terms[i + 1]})" if i + 1 < len(terms) else terms[i] for i in range(0, len(terms), 2)]
    return terms[0]


_CHUNKS = (f"{_one_line_chunk(16)} if c == 16 else ({_one_line_chunk(12)} if c == 12 else "
           f"{_one_line_chunk(8)})")

# a pipeline of stages: thread s adds chunk s, in one line, to what stage s - 1 left; log2 T + 2 barriers at most,
# few reads per thread and a shallow chain, but T additions one after another
PIPELINE = f"""
@cuda.jit
def block_tree(x, out):
    level = cuda.shared.array(MAX_THREADS, dtype=np.float64)
    acc = cuda.shared.array(32, dtype=np.float64)
    t = cuda.threadIdx.x
    T = cuda.blockDim.x
    i = cuda.blockIdx.x * T + t
    level[t] = x[i] if i < x.size else 0.0
    cuda.syncthreads()
    c = 16 if T > 64 else (12 if T > 32 else 8)
    S = (T + c - 1) // c
    for s in range(S):
        a = s * c
        if t == s: acc[s] = (acc[s - 1] if s > 0 else 0.0) + ({_CHUNKS})
        cuda.syncthreads()
    if t == 0:
        out[cuda.blockIdx.x] = acc[S - 1]
"""


def test_many_additions_on_one_line_count_as_many():
    points, feedback = score("ex09", "A:", PIPELINE)
    assert points == 0 and SERIAL in feedback, feedback


def test_a_row_of_a_local_array_keeps_the_history_of_its_values():
    import numpy as np

    from perfcourse.cudasim.memory import Local

    m = Local(np.zeros((1, 1)))
    m[0, 0] = Traced(1.5, 9)
    assert m[0][0].depth == 9 and m[0, 0].depth == 9
    copy = Local(np.zeros(2))
    copy[0:1] = m[0]
    assert copy[0].depth == 9


def test_what_an_honest_notebook_imports_and_computes_is_there_for_its_kernel():
    from perfcourse import cudacompile

    cells = ["from numba import float64\nimport numba\nMAX_THREADS = 1 << 10\nWIDE = (3 * 7) % 5 | 8",
             changed(RADIX8, "LAUNDER", "s").replace("dtype=np.float64", "dtype=float64")]
    module = kernel_module(cells, ["block_tree"])
    assert "MAX_THREADS = 1024" in module.text and "WIDE = 9" in module.text, module.text
    assert "block_tree" in module.kernels and kernelrules.problem(module, "block_tree") is None
    huge = kernel_module(["BIG = 1 << 4000\nODD = 1.5 << 2"], [])
    assert "BIG" not in huge.text and "ODD" not in huge.text          # left out, never computed or refused
    if cudacompile.missing():
        pytest.skip(cudacompile.missing())
    names = cudacompile.numba_names()
    assert names["float64"] is names["numba"].float64
    source = "@cuda.jit\ndef k(x, out):\n    s = cuda.shared.array(32, dtype=float64)\n    s[0] = x[0]\n" \
             "    out[0] = numba.float64(s[0])\n"
    import json
    import os
    import subprocess
    import sys

    job = json.dumps({"source": source, "name": "k", "signature": "void(float64[:], float64[:])", "cc": [9, 0]})
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_ENABLE_CUDASIM"}    # a process that compiles
    done = subprocess.run([sys.executable, "-m", "perfcourse.cudacompile"], input=job, capture_output=True,
                          text=True, timeout=300, env=env)
    answer = json.loads([line for line in done.stdout.splitlines() if line.startswith("{")][-1])
    assert "ptx" in answer and ".entry" in answer["ptx"], answer


# Blelloch's shape of work by serial segments: thread k adds its 8 elements one after another, thread 0 turns the
# segment totals into offsets, empty barriers pad the count; a chain of 7 + n/8 + 1 additions, past 2 log2 n
SEGMENTS = """
@cuda.jit
def blelloch_kernel(x, out):
    buf = cuda.shared.array(MAX_N, dtype=np.float64)
    off = cuda.shared.array(8, dtype=np.float64)
    t = cuda.threadIdx.x
    n = x.size
    m = cuda.blockDim.x
    if t < n:
        buf[t] = x[t]
    cuda.syncthreads()
    lo = t * 8
    if lo < n:
        s = buf[lo]
        j = lo + 1
        while j < min(lo + 8, n):
            s += buf[j]
            buf[j] = s
            j += 1
        off[t] = s
    cuda.syncthreads()
    if t == 0:
        acc = off[0]
        k = 1
        while k * 8 < n:
            v = off[k]
            off[k] = acc
            acc += v
            k += 1
    d = 2
    while d < m:
        cuda.syncthreads()
        d *= 2
    cuda.syncthreads()
    if t < n:
        if t < 8:
            out[t] = buf[t]
        else:
            out[t] = buf[t] + off[t // 8]
"""

def _exclusive_plus_x():
    """The course's Blelloch made inclusive the other way: its exclusive scan, plus x."""
    from .test_kernel_exercises import BLELLOCH

    source = changed(BLELLOCH, "    total = cuda.shared.array(1, dtype=np.float64)\n", "")
    source = changed(source, "        total[0] = s[m - 1]\n", "")
    return changed(source, "out[t] = s[t + 1] if t + 1 < m else total[0]", "out[t] = s[t] + x[t]")


def _blelloch(source, n):
    import numpy as np

    from perfcourse.grading.checks import ex10_scan

    from .kernelcases import launchers

    kernel = launchers(source, "blelloch_kernel")["blelloch_kernel"]
    return ex10_scan.launch_scan(kernel, "blelloch", np.random.default_rng(n).uniform(-1, 1, n))[1]


@pytest.mark.parametrize("n", [49, 56, 63])
def test_serial_segments_are_not_blelloch_at_the_sizes_graded(n):
    said = _blelloch(SEGMENTS, n)
    assert said and "chain of" in said, said


@pytest.mark.parametrize("n", [5, 8, 16, 33, 49, 63])
def test_an_exclusive_blelloch_plus_x_is_blelloch(n):
    assert _blelloch(_exclusive_plus_x(), n) is None


def test_a_loop_over_a_slice_and_a_tuple_stored_in_one_keep_their_history():
    import numpy as np

    from .kernelcases import launchers

    source = """
@cuda.jit
def k(x, out):
    if cuda.threadIdx.x == 0:
        v = 0.0
        for y in x[0:4]:
            v += y
        out[0:1] = (v,)
"""
    run = launchers(source, "k")["k"](1, 2, np.ones(4), np.zeros(1))
    assert run.problem() is None and run.arrays[1][0] == 4.0 and run.depth(1) == 4
