"""pc.occupancy against CUDA's own occupancy calculator (the toolkit's cuda_occupancy.h, compiled here)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from perfcourse.models import occupancy

HERE = Path(__file__).resolve().parent


def _header():
    try:
        import nvidia.cu13
    except ImportError:
        return None
    found = sorted(Path(p) for base in nvidia.cu13.__path__ for p in Path(base).glob("include/cuda_occupancy.h"))
    return found[0] if found else None


@pytest.fixture(scope="module")
def oracle(tmp_path_factory):
    header, compiler = _header(), shutil.which("g++")
    if header is None or compiler is None:
        pytest.skip("needs g++ and the CUDA toolkit's cuda_occupancy.h (the compile extra)")
    program = tmp_path_factory.mktemp("occupancy") / "oracle"
    subprocess.run([compiler, "-O1", "-std=c++11", f"-I{header.parent}", str(HERE / "occupancy_oracle.cpp"),
                    "-o", str(program)], check=True, capture_output=True, timeout=120)

    def blocks(cases):
        lines = []
        for cc, threads, regs, shared in cases:
            sm = occupancy.LIMITS[cc]
            lines.append(f"{cc[0]} {cc[1]} {sm.threads} {sm.blocks} {sm.shared_bytes} {sm.shared_per_block} "
                         f"{sm.reserved_per_block} {threads} {regs} {shared}")
        out = subprocess.run([str(program)], input="\n".join(lines) + "\n", capture_output=True, text=True,
                             check=True, timeout=60).stdout.split()
        return [int(v) for v in out]

    return blocks


def _model_blocks(cc, threads, regs, shared):
    try:
        return occupancy.estimate(threads_per_block=threads, registers_per_thread=regs,
                                  shared_bytes_per_block=shared, device=cc).blocks_per_sm
    except ValueError:
        return 0


CASES = st.tuples(st.sampled_from(sorted(occupancy.LIMITS)), st.integers(1, 1024), st.integers(1, 255),
                  st.one_of(st.just(0), st.integers(1, 64 * 1024), st.integers(1, 228 * 1024)))


@settings(max_examples=40, deadline=None)
@given(st.lists(CASES, min_size=25, max_size=25))
def test_the_model_agrees_with_cudas_calculator(oracle, cases):
    assert [_model_blocks(*c) for c in cases] == oracle(cases)


def test_each_limit_binds_where_cuda_says(oracle):
    cases = {"threads": ((9, 0), 1024, 32, 0), "blocks": ((9, 0), 32, 32, 0), "registers": ((9, 0), 128, 128, 0),
             "shared memory": ((9, 0), 256, 32, 48 * 1024)}
    for limit, case in cases.items():
        e = occupancy.estimate(threads_per_block=case[1], registers_per_thread=case[2],
                               shared_bytes_per_block=case[3], device=case[0])
        assert e.limit == limit and e.by_limit[limit] == e.blocks_per_sm == oracle([case])[0]
        assert e.occupancy == e.active_warps / 64


def test_a_launch_that_cannot_run_is_refused_with_its_reason(oracle):
    assert oracle([((9, 0), 1024, 65, 0)]) == [0]
    with pytest.raises(ValueError, match="needs 73728 registers"):
        occupancy.estimate(threads_per_block=1024, registers_per_thread=65)
    with pytest.raises(ValueError, match="shared_bytes_per_block must be at most 232448"):
        occupancy.estimate(threads_per_block=128, registers_per_thread=16, shared_bytes_per_block=228 * 1024)
    with pytest.raises(ValueError, match="threads_per_block must be at most 1024"):
        occupancy.estimate(threads_per_block=2048, registers_per_thread=16)
    with pytest.raises(ValueError, match="datasheet table"):
        occupancy.estimate(threads_per_block=128, registers_per_thread=16, device="Some Future GPU")
    with pytest.raises(TypeError, match="threads_per_block"):
        occupancy.estimate(threads_per_block=128.0, registers_per_thread=16)
