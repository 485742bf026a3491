"""The compiler's view of every kernel, without a GPU: the course's CUDA C kernels and every solution kernel."""

from __future__ import annotations

import linecache
import re

import nbformat
import pytest

from perfcourse import cudacompile
from perfcourse.measure import compiler

from .answerkey import SOLUTIONS

pytestmark = pytest.mark.skipif(cudacompile.missing() is not None, reason="needs the compile extra")

# the course's kernels that synchronise a block (reduction.cu's tree): a barrier each, the rest none
SYNCING = {"sum_blocks_f32", "sum_blocks_f64", "sum_partials"}


@pytest.fixture(scope="module")
def course_reports():
    return {name: compiler.compiled(name) for name in compiler.sources()}


def test_every_course_cuda_kernel_compiles_for_hopper(course_reports):
    assert set(course_reports) >= {"stream", "reduction", "fma", "gridstride"}
    for source, reports in course_reports.items():
        assert reports, f"{source}.cu: no kernel compiled"
        for name, r in reports.items():
            assert isinstance(r.registers, int) and r.registers > 0 and r.arch == "sm_90", (source, r)
            assert sum(r.instructions.values()) > 0 and r.instructions.get("EXIT", 0) >= 1, (source, r)
            assert (r.barriers >= 1) == (r.mix()["barriers"] >= 1) == (name in SYNCING), (source, r)
    triad = course_reports["stream"]["triad_f32"]
    assert triad.barriers == 0 and triad.spills == 0 and triad.mix()["floating point"] >= 1


def _solution_kernels():
    """Each @cuda.jit kernel of the solution notebooks 09-11, by name, with the code it needs."""
    found = []
    for path in sorted(SOLUTIONS.glob("1[01]_*.ipynb")) + sorted(SOLUTIONS.glob("09_*.ipynb")):
        cells = [c.source for c in nbformat.read(path, as_version=4).cells if c.cell_type == "code"]
        for source in cells:
            for name in re.findall(r"@cuda\.jit\s*\ndef (\w+)\(", source):
                found.append((path.name, name, cells))
    return found


SIGNATURES = {"block_tree": "void(float64[:], float64[:])", "hillis_steele_kernel": "void(float64[:], float64[:])",
              "blelloch_kernel": "void(float64[:], float64[:])",
              "triad_kernel": "void(float64[:], float64[:], float64[:], float64, int64[:])",
              "chunked_kernel": "void(float64[:], float64[:], float64[:], float64, int64, int64[:])"}


def test_every_solution_kernel_compiles_and_the_tree_and_scans_synchronise(tmp_path):
    kernels = _solution_kernels()
    assert {name for _, name, _ in kernels} == set(SIGNATURES)
    for notebook, name, cells in kernels:
        namespace = {}
        for index, source in enumerate(cells[:1] + [c for c in cells if f"def {name}(" in c]):
            where = f"<{notebook} {name} {index}>"                 # as IPython keeps a cell: getsource finds it
            linecache.cache[where] = (len(source), None, source.splitlines(True), where)
            exec(compile(source, where, "exec"), namespace)        # the simulator's cuda, in this process
        r = compiler.compiled(namespace[name], SIGNATURES[name])
        assert r.kernel == name and r.registers > 0, (notebook, r)
        if name in ("block_tree", "hillis_steele_kernel", "blelloch_kernel"):
            assert r.barriers >= 1 and r.shared_bytes > 0, (notebook, r)
        else:
            assert r.barriers == 0 and r.shared_bytes == 0, (notebook, r)
        occ = compiler.occupancy(r, 256)
        assert 0 < occ.occupancy <= 1 and occ.limit in ("threads", "blocks", "registers", "shared memory")


def test_a_kernel_that_is_not_cuda_does_not_compile():
    import numpy as np

    def python_inside(x, out):
        out[0] = sorted(x)[0]                 # a Python list: no GPU thread has one

    def numpy_inside(x, out):
        out[0] = np.cumsum(x)[-1]             # NumPy allocating a new array inside a kernel

    for kernel in (python_inside, numpy_inside):
        with pytest.raises(compiler.CompileError, match="a GPU thread cannot have"):
            compiler.compiled(kernel, "void(float64[:], float64[:])")
    namespace = {}
    exec("def built(x, out):\n    out[0] = x[0]\n", namespace)
    with pytest.raises(ValueError, match="the source of built cannot be read"):
        compiler.compiled(namespace["built"], "void(float64[:], float64[:])")


def test_bad_arguments_and_a_missing_extra_say_what_is_wrong(monkeypatch):
    with pytest.raises(ValueError, match="one of the course's CUDA C files"):
        compiler.compiled("nope")
    with pytest.raises(TypeError, match="signature must be"):
        compiler.compiled(lambda x: None)
    monkeypatch.setattr(cudacompile, "missing", lambda: "numba-cuda is not installed: " + cudacompile.INSTALL)
    with pytest.raises(RuntimeError, match="pip install 'perfcourse\\[compile\\]'"):
        compiler.compiled("stream")


def test_the_stored_reports_are_the_compilers_own_for_every_current_source(course_reports, monkeypatch):
    from perfcourse.measure import compiledstore

    data = compiledstore.stored()
    assert data is not None, "no stored compiler reports: run compiledstore.store()"
    assert set(data["sources"]) == set(compiler.sources())
    fresh = {k: r for reports in course_reports.values() for k, r in reports.items()}
    assert set(data["reports"]) == set(fresh)
    if data["toolkit"] == compiledstore.toolkit():       # another release may allocate registers differently
        for kernel, report in fresh.items():
            kept = data["reports"][kernel]
            assert (kept["registers"], kept["barriers"], kept["shared_bytes"], kept["instructions"]) == (
                report.registers, report.barriers, report.shared_bytes, report.instructions), kernel
    monkeypatch.setattr(cudacompile, "missing", lambda: "numba-cuda is not installed: pip install ...")
    reports, where = compiledstore.course_reports("fma")
    assert "stored with the course" in where and data["toolkit"] in where
    assert reports["fma_chains_8"].instructions == data["reports"]["fma_chains_8"]["instructions"]
    monkeypatch.setattr(compiledstore, "_digest", lambda path: "a source changed since")
    with pytest.raises(RuntimeError, match="no current compiler report of fma.cu is stored"):
        compiledstore.course_reports("fma")
