"""``perfcourse bench`` and ``perfcourse gpu-check`` from the command line, on this machine."""

import json

import pytest

from perfcourse import _lang, backend, bench, cli, hardware
from perfcourse.measure.ceilings import Ceilings

ON_GPU = backend.get().on_gpu


def test_bench_quick_prints_figures_with_units(capsys, tmp_path):
    out = tmp_path / "bench.json"
    assert cli.main(["bench", "--quick", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "memory bandwidth, copy" in text and "B/s" in text and "FLOP/s" in text
    if not ON_GPU:
        assert "No datasheet for a CPU" in text and "one small NumPy call" in text
    saved = json.loads(out.read_text())
    assert saved["ceilings"]["copy_bandwidth"] > 0


def test_report_gives_percent_of_datasheet():
    c = Ceilings(device="NVIDIA H200", backend="cupy", date="2026-01-01", copy_bandwidth=4.32e12,
                 triad_bandwidth=4.2e12, stream_elements=2**27, stream_dtype="float32",
                 matmul_flops={"bfloat16": 7.9e14, "float64": 5e13}, matmul_sizes={"bfloat16": 8192, "float64": 4096},
                 launch_s=2.1e-6, launch_sync_s=6e-6)
    text = bench.report(c, hardware.datasheet("H200"))
    assert "4.32 TB/s" in text and "4.8 TB/s" in text and "90.0%" in text
    assert "790 TFLOP/s" in text and "79.9%" in text and "kernel launch, back to back" in text
    assert "2.1 µs" in text and "source: NVIDIA H200" in text


@pytest.mark.parametrize("value,unit,text", [(3.2e10, "B/s", "32 GB/s"), (1.5e-6, "s", "1.5 µs"),
                                            (None, "s", "-"), (12.0, "FLOP/s", "12 FLOP/s")])
def test_si(value, unit, text):
    assert bench.si(value, unit) == text


@pytest.mark.skipif(ON_GPU, reason="checks the refusal on a machine without a GPU")
def test_gpu_check_refuses_without_a_gpu(capsys, tmp_path):
    assert cli.main(["gpu-check", "--out", str(tmp_path / "report")]) != 0
    assert "needs a usable NVIDIA GPU" in capsys.readouterr().err
    assert not (tmp_path / "report").exists()


def test_gpu_check_finds_the_gpu_tests_and_reads_junit(tmp_path):
    from perfcourse import gpucheck

    folder, files = gpucheck._gpu_test_files()
    assert any(f.endswith("test_gpu_kernels.py") for f in files)
    xml = tmp_path / "r.xml"
    xml.write_text('<testsuites><testsuite><testcase classname="t" name="a"/><testcase classname="t" name="b">'
                   '<failure message="x"/></testcase><testcase classname="t" name="c"><skipped/></testcase>'
                   '</testsuite></testsuites>')
    assert gpucheck._junit(xml) == {"passed": 1, "failed": 1, "skipped": 1, "failures": ["t::b"]}
    assert gpucheck._junit(tmp_path / "missing.xml") == {}


@pytest.mark.skipif(ON_GPU, reason="the real check runs on the GPU")
def test_gpu_check_flow_with_the_cpu_standing_in(tmp_path, monkeypatch):
    """Everything but the CuPy-only parts, so the report's shape is checked without a GPU."""
    from perfcourse import gpucheck

    b = backend.get()
    monkeypatch.setattr(gpucheck, "_gpu_backend", lambda: (b, ""))
    monkeypatch.setattr(gpucheck, "_versions", lambda b: {"device": b.device, "cupy": None, "cuda_runtime": None,
                                                         "driver": None})
    monkeypatch.setattr(gpucheck, "_harness_vs_cupyx", lambda b, c, log: [])
    monkeypatch.setattr(gpucheck, "_spin_utilization", lambda b, log: {"source": None})
    assert gpucheck.check(tmp_path, quick=True) == 0
    report = json.loads(next(tmp_path.glob("gpu-check-*.json")).read_text())
    tests = report["gpu_tests"]
    # the GPU tests really ran as a pytest session: found, and (without a GPU) every one skipped, none passed
    assert tests["ran"] and tests["failed"] == 0 and tests["skipped"] >= 5 and tests["passed"] == 0, tests
    assert report["ceilings"]["copy_bandwidth"] > 0 and report["triad_over_best_copy"] > 0
    groups = {r["group"] for r in report["experiments"]}
    assert {"stream", "fma", "strided_read", "matmul"} <= groups
    assert not [r for r in report["experiments"] if "error" in r]
    assert "wrote gpu-check-" in (tmp_path / "gpu-check.log").read_text()


def test_report_speaks_chinese_and_lines_up(monkeypatch):
    monkeypatch.setenv("PERFCOURSE_LANG", "zh")
    monkeypatch.delenv("PERFCOURSE_LOCALE", raising=False)
    c = Ceilings(device="NVIDIA H200", backend="cupy", date="2026-01-01", copy_bandwidth=4.32e12,
                 triad_bandwidth=4.2e12, stream_elements=2**27, stream_dtype="float32",
                 matmul_flops={"bfloat16": 7.9e14}, matmul_sizes={"bfloat16": 8192}, launch_s=2.1e-6,
                 launch_sync_s=6e-6)
    lines = bench.report(c, hardware.datasheet("H200")).splitlines()
    assert lines[0] == "设备：NVIDIA H200（cupy），测于 2026-01-01"
    assert lines[1].split()[:3] == ["指标", "实测", "datasheet"] and "memory bandwidth，copy（按 2N 计）" in lines[3]
    ends = {_lang.width(line) for line in lines[1:2] + lines[3:6]}       # right-aligned numbers end together
    assert len(ends) == 1, lines
