"""One set of ceilings for the whole course: measured once, kept in the learner's folder, read back everywhere."""

import json
import subprocess
import sys

import numpy as np
import pytest

from perfcourse.measure import machine
from perfcourse.measure.backend import Backend
from perfcourse.measure.ceilings import Ceilings, _summary
from perfcourse.measure.samples import Timing

CPU = Backend("numpy", np, False, "a test CPU", "test", cache_bytes=32 * 2**20)


def _fake(calls):
    def measure(*, progress, backend, cached):
        calls.append(cached)
        copy = Timing.from_samples([0.010, 0.011, 0.0105, 0.0102, 0.0108], name="copy", backend=backend.name,
                                   device=backend.device)
        return Ceilings(backend.device, backend.name, f"2026-01-0{len(calls)}T00:00:00+00:00",
                        copy_bandwidth=2e10 + len(calls), triad_bandwidth=1e10, stream_elements=1 << 20,
                        stream_dtype="float32", matmul_flops={"float32": 2e11}, timings={"copy": _summary(copy)})
    return measure


@pytest.fixture
def calls(monkeypatch, tmp_path):
    monkeypatch.setenv("PERFCOURSE_HOME", str(tmp_path))
    monkeypatch.delenv("PERFCOURSE_TIME_SCALE", raising=False)
    made = []
    monkeypatch.setattr(machine, "measure_ceilings", _fake(made))
    return made


def test_the_first_call_measures_and_every_later_one_reads_the_same_set(calls):
    first = machine.machine_ceilings(backend=CPU)
    again = machine.machine_ceilings(backend=CPU)
    assert len(calls) == 1
    assert again.copy_bandwidth == first.copy_bandwidth and again.date == first.date
    assert "just now" in machine.origin(first)
    kept = json.loads(machine.path().read_text())
    assert kept["format"] == machine.FORMAT and len(kept["machines"]) == 1


def test_the_kept_samples_rebuild_the_timing(calls):
    machine.machine_ceilings(backend=CPU)
    t = machine.machine_ceilings(backend=CPU).timing("copy")
    assert t.n == 5 and t.p50 == pytest.approx(0.0105) and t.device == "a test CPU"
    with pytest.raises(ValueError, match="copy"):
        machine.machine_ceilings(backend=CPU).timing("triad")


def test_remeasure_replaces_the_kept_set(calls):
    first = machine.machine_ceilings(backend=CPU)
    second = machine.machine_ceilings(backend=CPU, remeasure=True)
    assert len(calls) == 2 and calls[1] is False            # not this process's cached run either
    assert second.copy_bandwidth != first.copy_bandwidth
    assert machine.machine_ceilings(backend=CPU).copy_bandwidth == second.copy_bandwidth


def test_each_device_and_time_scale_keeps_its_own_set(calls, monkeypatch):
    machine.machine_ceilings(backend=CPU)
    other = Backend("numpy", np, False, "another CPU", "test")
    machine.machine_ceilings(backend=other)
    monkeypatch.setenv("PERFCOURSE_TIME_SCALE", "0.1")       # a shortened run is never read as a full one
    machine.machine_ceilings(backend=CPU)
    assert len(calls) == 3
    assert len(json.loads(machine.path().read_text())["machines"]) == 3


@pytest.mark.parametrize("text", ["not json", '{"format": 99, "machines": {}}', '[1, 2]',
                                  '{"format": 1, "machines": {"numpy | a test CPU | time scale 1": {"x": 1}}}'])
def test_a_damaged_file_is_measured_again(calls, text):
    machine.path().parent.mkdir(parents=True, exist_ok=True)
    machine.path().write_text(text)
    assert machine.machine_ceilings(backend=CPU).copy_bandwidth > 0
    assert len(calls) == 1


def test_a_folder_that_cannot_be_written_still_gives_the_set(calls, monkeypatch, tmp_path):
    blocker = tmp_path / "afile"
    blocker.write_text("")
    monkeypatch.setenv("PERFCOURSE_HOME", str(blocker / "inside"))
    assert machine.machine_ceilings(backend=CPU).copy_bandwidth > 0


def test_remeasure_must_be_a_bool(calls):
    with pytest.raises(TypeError, match="remeasure"):
        machine.machine_ceilings(remeasure="yes")
    with pytest.raises(TypeError, match="ceilings"):
        machine.origin({"copy_bandwidth": 1})


def test_two_processes_read_one_set(tmp_path):
    """Two lessons are two kernels: the second reads what the first measured (the real measurement, shortened)."""
    code = ("import perfcourse as pc; c = pc.hardware.machine_ceilings(progress=False); "
            "print(repr(c.copy_bandwidth), pc.hardware.ceilings_origin(c))")
    env = {"PERFCOURSE_HOME": str(tmp_path), "PERFCOURSE_TIME_SCALE": "0.02", "PERFCOURSE_BACKEND": "numpy",
           "PATH": "/usr/bin:/bin"}
    outs = [subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True,
                           timeout=300).stdout for _ in range(2)]
    assert outs[0].split()[0] == outs[1].split()[0]
    assert "just now" in outs[0] and "remeasure=True" in outs[1]


def test_a_noisy_set_is_measured_again_and_the_steadiest_kept(monkeypatch, tmp_path):
    monkeypatch.setenv("PERFCOURSE_HOME", str(tmp_path))
    monkeypatch.delenv("PERFCOURSE_TIME_SCALE", raising=False)
    spreads = iter([0.6, 0.3, 0.45])        # every try noisy: the second, the steadiest, is kept
    made = []

    def measure(*, progress, backend, cached):
        s = next(spreads)
        made.append(s)
        copy = Timing.from_samples([1 - s, 1, 1 + s, 1 - s / 2, 1 + s / 2], name="copy")
        return Ceilings(backend.device, backend.name, f"2026-01-0{len(made)}T00:00:00+00:00", 2e10, 1e10, 1 << 20,
                        "float32", timings={"copy": _summary(copy)})

    monkeypatch.setattr(machine, "measure_ceilings", measure)
    kept = machine.machine_ceilings(backend=CPU)
    assert made == [0.6, 0.3, 0.45] and kept.date == "2026-01-02T00:00:00+00:00"
    assert machine.machine_ceilings(backend=CPU).date == kept.date


def test_a_steady_set_is_measured_once(calls):
    machine.machine_ceilings(backend=CPU)
    assert len(calls) == 1


def test_a_verdict_against_a_noisy_ceiling_is_no_verdict(calls):
    from perfcourse.teach import verdicts

    ceil = machine.machine_ceilings(backend=CPU)
    copy, triad = ceil.kept("copy", "triad")
    assert triad is None and copy.p50 == pytest.approx(0.0105)          # only the copy's samples were kept
    steady = Timing.from_samples([1.00, 1.01, 0.99, 1.02, 1.00, 0.98], name="step")
    assert verdicts.judged("the copy bandwidth explains it", steady, copy, triad) == "the copy bandwidth explains it"
    loud = Timing.from_samples([0.010, 0.016, 0.007, 0.013, 0.009, 0.018], name="copy")
    noisy = Ceilings(**{**ceil.__dict__, "timings": {"copy": _summary(loud)}})
    said = verdicts.judged("the copy bandwidth explains it", steady, *noisy.kept("copy"))
    assert said.startswith("too noisy to judge: copy varied by IQR/median")


def test_the_origin_line_names_every_noisy_ceiling_and_no_steady_one(monkeypatch):
    loud = _summary(Timing.from_samples([0.010, 0.016, 0.007, 0.013, 0.009, 0.018], name="matmul float32"))
    louder = _summary(Timing.from_samples([0.010, 0.030, 0.005, 0.013, 0.009, 0.028], name="one small NumPy call"))
    steady = _summary(Timing.from_samples([0.010, 0.0101, 0.0099, 0.0100, 0.0102], name="copy"))
    c = Ceilings("a CPU", "numpy", "2026-01-02T03:04:05+00:00", 2e10, 1e10, 1024, "float32",
                 timings={"copy": steady, "matmul_float32": loud, "call": louder})
    line = machine.origin(c)            # each named as its timing is, not by the key it is kept under
    assert "one small NumPy call" in line and "matmul float32" in line and "copy" not in line.split("tries")[1]
    assert line.index("one small NumPy call") < line.index("matmul float32")      # the noisiest first
    quiet = Ceilings("a CPU", "numpy", "2026-01-02T03:04:05+00:00", 2e10, 1e10, 1024, "float32",
                     timings={"copy": steady})
    assert "uncertain" not in machine.origin(quiet)
    monkeypatch.setenv("PERFCOURSE_LANG", "zh")
    chinese = machine.origin(c)
    assert "一次小的 NumPy 调用（" in chinese and "matmul float32（" in chinese and "） 的" not in chinese
