"""Exercise 11 E: the block size that keeps the most warps resident, graded against CUDA's rules; and what the
compiler reports of a learner's own kernel (``pc.compiler.describe``).

The rules the notebook gives are the ones :func:`perfcourse.models.occupancy.estimate` follows; a learner who
applies them scores full marks on any budget, and each rule left out (the 256-register unit, whole warps per
sub-partition, the 1 KB reserved per block, the block limit) fails on the budgets where it matters.
"""

from __future__ import annotations

import numpy as np
import pytest

from perfcourse.grading.checks import parts, score_part
from perfcourse.grading.checks._answers import Answers
from perfcourse.grading.checks._blocks import SIZES, problem, residency

PART = next(p for p in parts("ex11") if p.needs == ("best_block_size",))


def _best(registers, shared, *, unit=256, partitions=4, reserved=1024, shared_unit=128, blocks=32, percent=False):
    """The notebook's rules; each keyword leaves one of them out when changed."""
    per_warp = -(-registers * 32 // unit) * unit
    per_block = -(-(shared + reserved) // shared_unit) * shared_unit
    best = None
    for threads in SIZES:
        warps = threads // 32
        allows = {"threads": 64 // warps, "blocks": blocks,
                  "registers": partitions * (65536 // partitions // per_warp) // warps,
                  "shared memory": 233472 // per_block}
        fit = min(allows.values())
        if fit and (best is None or fit * warps / 64 > best["occupancy"]):
            best = {"threads_per_block": threads, "occupancy": fit * warps / 64, "limit": min(allows, key=allows.get)}
    if percent:
        best["occupancy"] *= 100
    return best


def _score(func, seed):
    return score_part(PART, {"best_block_size": func}, np.random.default_rng(seed), part_timeout=10,
                      ref=Answers("ex11"))


@pytest.mark.parametrize("seed", range(4))
def test_the_rules_as_the_notebook_gives_them_score_full_marks(seed):
    points, feedback = _score(_best, seed)
    assert points == 2, feedback


def test_every_best_size_is_accepted_and_every_other_refused():
    rng = np.random.default_rng(0)
    for _ in range(40):
        registers, shared = int(rng.integers(16, 256)), int(rng.integers(0, 48 * 1024))
        table = residency(registers, shared)
        top = max(e.occupancy for e in table.values())
        for threads, e in table.items():
            answer = {"threads_per_block": threads, "occupancy": e.occupancy, "limit": e.limit}
            said = problem(answer, registers, shared)
            if e.occupancy == top:
                assert said is None, (registers, shared, threads, said)
            else:
                assert said and f"{threads} threads a block keep {e.occupancy:.0%}" in said, said


@pytest.mark.parametrize("mistake, budget, said", [
    (dict(unit=32), (33, 0), "threads a block"),                         # no 256-register unit
    (dict(partitions=1), (40, 0), "threads a block"),                    # registers pooled, not per sub-partition
    (dict(reserved=0), (16, 28 * 1024), "threads keep"),                # no 1 KB reserved per block
    (dict(blocks=64), (16, 0), "threads keep"),                         # no limit of 32 blocks
    (dict(percent=True), (32, 0), "occupancy at"),                      # 100 for a fraction of 1
])
def test_each_rule_left_out_is_refused_where_it_matters(mistake, budget, said):
    got = _best(*budget, **mistake)
    assert got != _best(*budget), "the budget must tell the mistake from the rule"
    assert said in (problem(got, *budget) or ""), problem(got, *budget)


@pytest.mark.parametrize("mistake", [dict(unit=32), dict(partitions=1), dict(reserved=0), dict(shared_unit=1),
                                     dict(blocks=64)], ids=lambda m: next(iter(m)))
def test_each_rule_left_out_scores_zero_in_every_grading(mistake):
    for seed in range(6):
        points, feedback = _score(lambda r, s: _best(r, s, **mistake), seed)
        assert points == 0, (seed, feedback)


def test_the_same_block_everywhere_and_a_wrong_limit_score_zero():
    assert _score(lambda r, s: {"threads_per_block": 1024, "occupancy": 1.0, "limit": "threads"}, 0)[0] == 0
    def wrong_limit(registers, shared):
        best = _best(registers, shared)
        return dict(best, limit="blocks" if best["limit"] != "blocks" else "threads")

    points, feedback = _score(wrong_limit, 1)
    assert points == 0 and "the limit is the resource that allows the fewest" in feedback, feedback
    assert "return a dict" in problem((256, 1.0, "threads"), 32, 0)


KERNEL = '''
import numpy as np
import perfcourse as pc

cuda = pc.simt.numba_cuda()
MAX_THREADS = 1024


@cuda.jit
def tree(x, out):
    level = cuda.shared.array(MAX_THREADS, dtype=np.float64)
    t = cuda.threadIdx.x
    level[t] = x[t]
    cuda.syncthreads()
    if t == 0:
        out[0] = level[0] + level[1]


@cuda.jit
def not_cuda(x, out):
    out[0] = np.linalg.norm(np.zeros(3))


pc.compiler.describe(tree, "void(float64[:], float64[:])", block_sizes=(32, 1024))
pc.compiler.describe(not_cuda, "void(float64[:], float64[:])")
'''


def test_describe_prints_the_compilers_report_and_never_raises(tmp_path, monkeypatch):
    from perfcourse import cudacompile

    if cudacompile.missing():
        pytest.skip(cudacompile.missing())
    import subprocess
    import sys

    (tmp_path / "k.py").write_text(KERNEL, encoding="utf-8")
    done = subprocess.run([sys.executable, "k.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={**__import__("os").environ, "NUMBA_ENABLE_CUDASIM": "1"})
    lines = done.stdout.splitlines()
    assert done.returncode == 0, done.stderr
    assert lines[0].startswith("tree for sm_90: ") and "8192 bytes of shared memory a block" in lines[0], lines
    assert "blocks of 32 threads on one H200 SM: 25 blocks" in lines[1] and "limited by shared memory" in lines[1]
    assert "blocks of 1024 threads on one H200 SM: 2 blocks, 64 of 64 warps (100%)" in lines[2]
    assert lines[3].startswith("not_cuda does not compile for a GPU: "), lines


def test_describe_without_the_compile_extra_says_what_to_install(monkeypatch, capsys):
    from perfcourse import cudacompile
    from perfcourse.measure import compiler

    monkeypatch.setattr(cudacompile, "missing", lambda: "numba-cuda is not installed: pip install x")
    assert compiler.describe(lambda x: None, "void(float64[:])", (32,)) is None
    assert capsys.readouterr().out.strip() == ("The compiler's report needs the compile extra: numba-cuda is not "
                                               "installed: pip install x")
    with pytest.raises(TypeError, match="block_sizes"):
        compiler.describe(lambda x: None, "void(float64[:])", 32)
