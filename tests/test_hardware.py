"""Datasheet table and lookup, measured ceilings on the CPU, recorded runs."""

import datetime
import json
from pathlib import Path

import pytest

from perfcourse import ceilings, hardware, recorded

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
    c = ceilings.measure_ceilings(quick=True, progress=False, cached=False)
    assert c.copy_bandwidth > 1e8 and c.triad_bandwidth > 1e8 and c.bandwidth >= c.copy_bandwidth
    assert c.matmul_flops["float32"] > 1e8 and c.launch_s > 0
    assert c.stream_elements >= 2**16 and c.notes == ()
    for summary in c.timings.values():
        assert summary["p50_s"] <= summary["p95_s"] <= summary["p99_s"]
    again = ceilings.Ceilings.from_dict(json.loads(json.dumps(c.to_dict())))
    assert again == c
    assert ceilings.measure_ceilings(quick=True, progress=False) is ceilings.measure_ceilings(quick=True,
                                                                                             progress=False)
    with pytest.raises(ValueError, match="measured here"):
        c.peak_flops("bfloat16")


# A made-up gpu-check report: the device name says so, and so do the round figures. It has the
# shape ``perfcourse gpu-check`` writes (see perfcourse/measure/gpucheck.py), nothing more.
def _synthetic_report(date, device="SYNTHETIC TEST GPU", **extra):
    return {
        "kind": "perfcourse gpu-check", "date": date, "device": device, "quick": True, "cupy": "0.0.0-test",
        "ceilings": {"device": device, "backend": "cupy", "date": date, "copy_bandwidth": 1.0e12,
                     "triad_bandwidth": 0.9e12, "stream_elements": 2**20, "stream_dtype": "float32",
                     "matmul_flops": {"float32": 5.0e13}, "launch_s": 5e-6, "notes": []},
        "experiments": [
            {"group": "stream", "name": "copy", "p50_s": 1e-3},
            {"group": "stream", "name": "triad", "p50_s": 2e-3},
            {"group": "stream", "name": "scale", "error": "out of memory"},
            {"group": "fma", "name": "chains=1", "p50_s": 4e-3},
        ],
        **extra,
    }


@pytest.fixture
def synthetic_folder(tmp_path, monkeypatch):
    """A recorded-runs folder holding two synthetic reports and things the reader must skip;
    ``recorded.folder`` is pointed at it, so calls without ``directory`` read it too."""
    # file names sort the other way round from the dates: the order must come from the dates
    (tmp_path / "a-newer.json").write_text(json.dumps(_synthetic_report("2026-03-04T09:30:00+00:00")))
    (tmp_path / "b-older.json").write_text(json.dumps(_synthetic_report("2026-01-02T23:59:00+00:00",
                                                                        device="SYNTHETIC OLDER GPU")))
    (tmp_path / "c-no-date.json").write_text(json.dumps({"device": "SYNTHETIC GPU WITHOUT DATE"}))
    (tmp_path / "d-a-list.json").write_text(json.dumps([{"device": "x", "date": "2026-05-05"}]))
    (tmp_path / "notes.txt").write_text("not a run")
    monkeypatch.setattr(recorded, "folder", lambda: str(tmp_path))
    return tmp_path


def test_recorded_reader_on_a_synthetic_folder(synthetic_folder):
    runs = recorded.all_runs()                     # the default folder, pointed at the synthetic one
    assert [r["device"] for r in runs] == ["SYNTHETIC OLDER GPU", "SYNTHETIC TEST GPU"]
    assert [r["_file"] for r in runs] == ["b-older.json", "a-newer.json"]
    assert recorded.all_runs(directory=str(synthetic_folder)) == runs
    run = recorded.latest()
    assert run["device"] == "SYNTHETIC TEST GPU" and run["_file"] == "a-newer.json"
    assert recorded.label(run) == "recorded on SYNTHETIC TEST GPU, 2026-03-04"
    assert recorded.label(runs[0]) == "recorded on SYNTHETIC OLDER GPU, 2026-01-02"
    # failed records are left out, other groups too, and an absent group gives []
    assert [r["name"] for r in recorded.experiments(run, "stream")] == ["copy", "triad"]
    assert [r["name"] for r in recorded.experiments(run, "fma")] == ["chains=1"]
    assert recorded.experiments(run, "matmul") == []
    assert ceilings.Ceilings.from_dict(run["ceilings"]).bandwidth == 1.0e12


def test_recorded_reader_with_nothing_recorded(tmp_path, monkeypatch):
    monkeypatch.setattr(recorded, "folder", lambda: str(tmp_path / "missing"))
    assert recorded.all_runs() == [] and recorded.latest() is None
    assert recorded.latest(directory=str(tmp_path)) is None        # exists, but empty
    with pytest.raises(TypeError):
        recorded.label({"device": "x"})
    with pytest.raises(TypeError):
        recorded.experiments(None, "stream")


def test_recorded_folder_is_package_data_of_measure():
    where = Path(recorded.folder())
    assert where.parts[-2:] == ("data", "recorded")
    assert where.parent.parent == Path(recorded.__file__).parent     # perfcourse/measure/data/recorded


def _report_problems(run):
    """Why a recorded run is not a real GPU report (empty when it is one)."""
    problems = []
    if run.get("kind") != "perfcourse gpu-check":
        problems.append("not a gpu-check report")
    if "SYNTHETIC" in str(run.get("device", "")):
        problems.append("a synthetic device")
    try:
        if datetime.datetime.fromisoformat(run["date"]).tzinfo is None:
            problems.append("a date without a time zone")
    except (KeyError, TypeError, ValueError):
        problems.append("no date")
    if not run.get("cupy"):
        problems.append("no CuPy version")
    try:
        c = ceilings.Ceilings.from_dict(run["ceilings"])
        if not (c.backend == "cupy" and c.copy_bandwidth > 1e10 and c.triad_bandwidth > 1e10):
            problems.append("ceilings not measured on a GPU")
        if not c.matmul_flops or not all(v > 1e11 for v in c.matmul_flops.values()):
            problems.append("no GPU matmul rate")
    except (KeyError, TypeError, ValueError):
        problems.append("no ceilings")
    if any(not (r.get("group") and r.get("name")) for r in run.get("experiments", [])):
        problems.append("an experiment without group and name")
    return problems


def test_committed_recorded_runs_are_real_reports():
    runs = recorded.all_runs()
    for run in runs:
        assert _report_problems(run) == [], run["_file"]
    if runs:
        assert recorded.latest()["_file"] == runs[-1]["_file"]


def test_the_report_check_refuses_what_is_not_a_real_gpu_run():
    real = {"kind": "perfcourse gpu-check", "device": "NVIDIA H200", "date": "2026-12-01T10:00:00+00:00",
            "cupy": "13.6.0", "ceilings": {"device": "NVIDIA H200", "backend": "cupy", "date": "2026-12-01",
                                           "copy_bandwidth": 4.0e12, "triad_bandwidth": 4.1e12,
                                           "stream_elements": 2**28, "stream_dtype": "float32",
                                           "matmul_flops": {"float32": 5.0e13}},
            "experiments": [{"group": "stream", "name": "copy"}]}
    assert _report_problems(real) == []
    for change, problem in ((("device", "SYNTHETIC H200"), "a synthetic device"),
                            (("date", "2026-12-01T10:00:00"), "a date without a time zone"),
                            (("cupy", None), "no CuPy version"), (("kind", "other"), "not a gpu-check report"),
                            (("ceilings", {**real["ceilings"], "backend": "numpy"}), "ceilings not measured on a GPU"),
                            (("experiments", [{"group": "stream"}]), "an experiment without group and name")):
        assert problem in _report_problems({**real, change[0]: change[1]})


def test_the_readme_and_the_gpu_check_name_the_folder_recorded_runs_are_read_from():
    from pathlib import Path

    from perfcourse.measure import gpucheck, recorded

    root = Path(__file__).resolve().parent.parent
    where = Path(recorded.folder()).resolve().relative_to(root).as_posix() + "/"
    assert where == "perfcourse/measure/data/recorded/"
    for text in ((root / "README.md").read_text(), gpucheck.__doc__, recorded.__doc__):
        assert where in text.replace("\n", " ")
