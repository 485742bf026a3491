"""Kernels as a learner writes them, graded the way the grader grades them: launched by the check itself."""

from __future__ import annotations

import os
import textwrap

import nbformat
import numpy as np

from perfcourse.grading.checks import part_rng, parts, score_part
from perfcourse.grading.checks._answers import Answers
from perfcourse.grading.checks._kernels import local_launchers

CONSTANTS = "MAX_THREADS = 1024\nMAX_N = 64\nBUF_N = 128\n"

TREE = """
@cuda.jit
def block_tree(x, out):
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
"""



def launchers(source, *names):
    """Launchers for the kernels that ``source`` (a notebook cell's code) defines, by name."""
    return local_launchers({"In": [CONSTANTS, textwrap.dedent(source)]}, names)


def score(exercise, title_start, source, others=None, seed=0):
    """``(points, feedback)`` of the part of ``exercise`` whose title starts with ``title_start``."""
    (index, spec), = [(i, p) for i, p in enumerate(parts(exercise)) if p.title.startswith(title_start)]
    functions = {**(others or {}), **launchers(source, *[k for k, _ in spec.kernels])}
    return score_part(spec, functions, part_rng(seed, index), part_timeout=120, ref=Answers(exercise))


def rng(seed=0):
    return np.random.default_rng(seed)


def changed(source, old, new):
    """``source`` with ``old`` replaced by ``new`` (which must be there)."""
    assert old in source, old
    return source.replace(old, new)


def notebook_namespace(path):
    """A notebook's cells run here, as Jupyter runs them (``In`` is IPython's history); its self-check left out."""
    import perfcourse as pc

    os.environ[pc.simt.SIM_ENV] = "1"
    namespace, history = {"__name__": "__notebook__"}, []
    for cell in nbformat.read(path, as_version=4).cells:
        if cell.cell_type == "code" and "self_check(" not in cell.source:
            history.append(cell.source)
            exec(compile(cell.source, str(path), "exec"), namespace)
    namespace["In"] = history
    return namespace
