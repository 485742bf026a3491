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

ROUTES = {   # the laundering expression, and what the feedback must say
    "plain": ("s", "chain of"),
    "math.copysign": ("math.copysign(s, s)", "calls math.copysign"),
    "math.ldexp": ("math.ldexp(s, 0)", "calls math.ldexp"),
    "np.float64": ("np.float64(s)", "calls np.float64"),
    ".real": ("s.real", "reads .real of s"),
    "a dunder": ("s.__float__()", "calls s.__float__"),
    "float of a string": ("float(str(s))", "calls str"),
    "int round trip": ("int(s * 1e12) / 1e12", "into a whole number"),
}


@pytest.mark.parametrize("route", sorted(ROUTES))
def test_a_value_without_its_history_scores_0_in_exercise_09(route):
    expression, said = ROUTES[route]
    points, feedback = score("ex09", "A:", changed(RADIX8, "LAUNDER", expression))
    assert points == 0 and said in feedback, (route, feedback)


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
    said = kernelrules.problem(kernel_module([changed(RADIX8, "LAUNDER", "math.fabs(s)")], []), "block_tree")
    assert said.startswith("block_tree calls math.fabs (block_tree, line 17: sh[t] = math.fabs(s))"), said
    helper = "@cuda.jit(device=True)\ndef h(v):\n    return v.imag\n" + changed(RADIX8, "LAUNDER", "h(s)")
    assert "h reads .imag of v" in kernelrules.problem(kernel_module([helper], []), "block_tree")


def test_a_traced_value_keeps_its_history_where_python_allows():
    v = Traced(2.5, 3)
    assert v.real.depth == 3 and v.conjugate().depth == 3 and (v + 1).depth == 4 and (-v).depth == 3
    for whole in (int, round):
        with pytest.raises(TypeError, match="whole number"):
            whole(v)
