"""Datasheet table and lookup, measured ceilings on the CPU, recorded runs."""

import json

import pytest

from perfcourse import hardware, recorded

REQUIRED = ["H200", "H100 SXM", "H100 PCIe", "A100 40GB", "A100 80GB SXM", "L40S", "L4", "A10", "T4",
            "V100 SXM2", "RTX 4090", "RTX 3090"]


def test_table_has_every_required_gpu_with_a_source():
    assert set(REQUIRED) <= set(hardware.names())
    for d in hardware.table():
        assert d.source and ("datasheet" in d.source or "whitepaper" in d.source), d.name
        assert d.memory_bandwidth > 1e11 and d.fp32 > 1e12 and d.fp16 > d.fp32 and d.sms > 0 and d.l2_bytes > 2**20
        assert d.bf16 is None or d.bf16 >= d.fp32


@pytest.mark.parametrize("reported,expected", [
    ("NVIDIA H200", "H200"), ("NVIDIA H100 80GB HBM3", "H100 SXM"), ("NVIDIA H100 PCIe", "H100 PCIe"),
    ("NVIDIA A100-SXM4-40GB", "A100 40GB"), ("NVIDIA A100-PCIE-40GB", "A100 40GB"),
    ("NVIDIA A100-SXM4-80GB", "A100 80GB SXM"), ("NVIDIA A100 80GB PCIe", "A100 80GB PCIe"),
    ("NVIDIA L40S", "L40S"), ("NVIDIA L4", "L4"), ("NVIDIA A10", "A10"), ("Tesla T4", "T4"),
    ("Tesla V100-SXM2-32GB", "V100 SXM2"), ("Tesla V100-PCIE-16GB", "V100 PCIe"),
    ("NVIDIA GeForce RTX 4090", "RTX 4090"), ("NVIDIA GeForce RTX 3090", "RTX 3090"), ("h100 sxm", "H100 SXM"),
])
def test_lookup_by_reported_name(reported, expected):
    assert hardware.datasheet(reported).name == expected


@pytest.mark.parametrize("unknown", ["NVIDIA H200 NVL", "NVIDIA GeForce RTX 3090 Ti", "NVIDIA A10G", "NVIDIA L40",
                                     "AMD EPYC"])
def test_unknown_devices_give_none_and_say_so(unknown, capsys):
    assert hardware.datasheet(unknown) is None
    assert "No datasheet for" in capsys.readouterr().out


def test_bad_lookup_arguments():
    with pytest.raises(TypeError):
        hardware.datasheet(None)
    with pytest.raises(ValueError, match="dtype must be one of"):
        hardware.datasheet("H200").peak_flops("int8")


def test_ridge_point_from_datasheet():
    h200 = hardware.datasheet("H200")
    assert h200.ridge_point("bf16") == pytest.approx(989e12 / 4.8e12)
    assert hardware.datasheet("T4").ridge_point("bf16") is None


def test_cpu_has_no_datasheet(capsys):
    from perfcourse import backend

    if backend.get().on_gpu:
        pytest.skip("runs on the CPU backend")
    assert hardware.device_datasheet() is None
    assert "No datasheet for a CPU" in capsys.readouterr().out


def test_quick_ceilings_on_this_machine():
    c = hardware.measure_ceilings(quick=True, progress=False, cached=False)
    assert c.copy_bandwidth > 1e8 and c.triad_bandwidth > 1e8 and c.bandwidth >= c.copy_bandwidth
    assert c.matmul_flops["float32"] > 1e8 and c.launch_s > 0
    assert c.stream_elements >= 2**16 and c.notes == ()
    for summary in c.timings.values():
        assert summary["p50_s"] <= summary["p95_s"] <= summary["p99_s"]
    again = hardware.Ceilings.from_dict(json.loads(json.dumps(c.to_dict())))
    assert again == c
    assert hardware.measure_ceilings(quick=True, progress=False) is hardware.measure_ceilings(quick=True,
                                                                                             progress=False)
    with pytest.raises(ValueError, match="measured here"):
        c.peak_flops("bfloat16")


def test_recorded_runs(tmp_path):
    assert recorded.latest(directory=str(tmp_path)) is None
    for date, device in [("2026-01-02T00:00:00+00:00", "NVIDIA H100 PCIe"), ("2026-03-04T00:00:00+00:00",
                                                                            "NVIDIA H200")]:
        (tmp_path / f"{device[-4:]}.json").write_text(json.dumps({"device": device, "date": date}))
    (tmp_path / "notes.txt").write_text("not a run")
    run = recorded.latest(directory=str(tmp_path))
    assert run["device"] == "NVIDIA H200" and recorded.label(run) == "recorded on NVIDIA H200, 2026-03-04"
    assert len(recorded.all_runs(directory=str(tmp_path))) == 2
    with pytest.raises(TypeError):
        recorded.label({"device": "x"})


def test_committed_recorded_runs_are_real_reports():
    for run in recorded.all_runs():
        assert run.get("kind") == "perfcourse gpu-check" and "ceilings" in run and "cupy" in run
