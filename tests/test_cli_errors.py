"""The command line's error policy, case by case: one line `perfcourse <command>: <reason>` on stderr, exit 2
for a usage error and 1 for a failure; a traceback only for a bug (with a line asking to report it) or when
asked for with --debug / PERFCOURSE_DEBUG=1."""

from __future__ import annotations

import subprocess
import sys

import pytest

from perfcourse import backend, cli
from perfcourse.cli import doctor, glossary

ON_GPU = backend.get().on_gpu


def _one_line(err, start):
    assert err.startswith(start) and err.count("\n") == 1 and "Traceback" not in err, err
    return err


@pytest.fixture
def backend_setting(monkeypatch):
    """Set PERFCOURSE_BACKEND for one test; the backend chosen before it is chosen again after it."""
    yield lambda value: monkeypatch.setenv(backend.ENV_VAR, value)
    monkeypatch.delenv(backend.ENV_VAR, raising=False)
    backend.get(refresh=True)


def test_doctor_prints_its_whole_report_when_the_backend_setting_is_wrong(backend_setting, capsys):
    backend_setting("banana")
    assert cli.main(["doctor"]) == 1
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[0].startswith("python: ") and lines[-1].startswith("lessons: ")
    assert "PERFCOURSE_BACKEND: banana" in lines and "numpy: " + __import__("numpy").__version__ in lines
    assert "backend: PROBLEM: PERFCOURSE_BACKEND must be one of 'numpy', 'cupy' or unset; got 'banana'" in lines
    assert any(line.startswith("cpu: ") for line in lines)
    _one_line(err, "perfcourse doctor: 1 problem found: PERFCOURSE_BACKEND must be one of")


@pytest.mark.skipif(ON_GPU, reason="CuPy can be forced on this machine")
def test_doctor_and_bench_refuse_forced_cupy_without_a_gpu_in_one_line(backend_setting, capsys):
    backend_setting("cupy")
    assert cli.main(["doctor"]) == 1
    out, err = capsys.readouterr()
    assert "backend: PROBLEM: PERFCOURSE_BACKEND=cupy, but the GPU backend cannot be used" in out
    assert out.splitlines()[-1].startswith("lessons: ")
    _one_line(err, "perfcourse doctor: 1 problem found: PERFCOURSE_BACKEND=cupy, but the GPU backend cannot be used")
    assert cli.main(["bench", "--quick"]) == 1
    err = _one_line(capsys.readouterr().err, "perfcourse bench: PERFCOURSE_BACKEND=cupy, but the GPU backend")
    if "CuPy not installed" in err:
        assert 'python -m pip install -e ".[gpu]"' in err


def test_bench_refuses_an_unknown_backend_setting_as_a_usage_error(backend_setting, capsys):
    backend_setting("banana")
    assert cli.main(["bench", "--quick"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    _one_line(err, "perfcourse bench: PERFCOURSE_BACKEND must be one of 'numpy', 'cupy' or unset; got 'banana'")


def test_doctor_reports_a_package_without_lessons(monkeypatch, capsys):
    from perfcourse.cli import course

    monkeypatch.setattr(course, "checkout_root", lambda: None)
    monkeypatch.setattr(course, "packaged_root", lambda: None)
    lines, problems = doctor.examine()
    assert lines[-1].startswith("lessons: PROBLEM: missing") and len(problems) == 1
    assert cli.main(["doctor"]) == 1
    _one_line(capsys.readouterr().err, "perfcourse doctor: 1 problem found: lessons missing")


@pytest.mark.skipif(ON_GPU, reason="checks the refusal on a machine without a GPU")
def test_gpu_check_refusal_says_how_to_get_cupy(backend_setting, capsys, tmp_path):
    assert cli.main(["gpu-check", "--out", str(tmp_path / "r")]) == 1
    err = _one_line(capsys.readouterr().err, "perfcourse gpu-check: needs a usable NVIDIA GPU with CuPy; none here: ")
    if "CuPy not installed" in err:
        assert 'python -m pip install -e ".[gpu]"' in err
    backend_setting("numpy")
    assert cli.main(["gpu-check", "--out", str(tmp_path / "r")]) == 1
    assert "unset PERFCOURSE_BACKEND" in _one_line(capsys.readouterr().err, "perfcourse gpu-check: needs a usable")
    (tmp_path / "file").write_text("x")
    assert cli.main(["gpu-check", "--out", str(tmp_path / "file")]) == 2
    _one_line(capsys.readouterr().err, "perfcourse gpu-check: --out must be a folder;")
    assert not (tmp_path / "r").exists()


def test_a_wrong_argument_is_one_line_and_exit_2(capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(["present", "three"])
    assert stop.value.code == 2
    _one_line(capsys.readouterr().err, "perfcourse present: argument lesson: invalid int value: 'three' (see "
              "`perfcourse present --help`)")
    with pytest.raises(SystemExit) as stop:
        cli.main(["nosuchcommand"])
    assert stop.value.code == 2
    _one_line(capsys.readouterr().err, "perfcourse: argument COMMAND: invalid choice: 'nosuchcommand'")


@pytest.mark.parametrize("how", ["--debug first", "--debug after", "PERFCOURSE_DEBUG=1"])
def test_debug_adds_the_traceback_to_an_expected_failure(how, capsys, monkeypatch):
    argv = ["present", "99", "--dry-run"]
    if how == "--debug first":
        argv = ["--debug", *argv]
    elif how == "--debug after":
        argv = [*argv, "--debug"]
    else:
        monkeypatch.setenv("PERFCOURSE_DEBUG", "1")
    assert cli.main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "ValueError: no lesson 99" in err
    assert err.splitlines()[-1] == "perfcourse present: no lesson 99; the lessons are numbered 00 to 10"


def test_without_debug_an_expected_failure_has_no_traceback(capsys, monkeypatch):
    monkeypatch.setenv("PERFCOURSE_DEBUG", "0")
    assert cli.main(["present", "99", "--dry-run"]) == 2
    _one_line(capsys.readouterr().err, "perfcourse present: no lesson 99")


def test_a_bug_shows_its_traceback_and_asks_to_be_reported(capsys, monkeypatch):
    def broken(args):
        return {}["missing"]

    monkeypatch.setattr(glossary, "run", broken)
    assert cli.main(["glossary", "p99"]) == 1
    err = capsys.readouterr().err
    assert "Traceback (most recent call last)" in err and "in broken" in err
    last = err.splitlines()[-1]
    assert last.startswith("perfcourse glossary: KeyError: 'missing'; this is a bug in perfcourse; please report "
                           "it") and "traceback above" in last


def test_commands_fail_in_one_line_from_a_shell(tmp_path):
    """The installed entry point, as a learner types it: no traceback and the stated exit code."""
    (tmp_path / "a-file").write_text("not a folder")
    cases = [(["present", "99"], 2), (["site", "--out", str(tmp_path / "a-file")], 2)]
    for argv, code in cases:
        res = subprocess.run([sys.executable, "-m", "perfcourse", *argv], capture_output=True, text=True,
                             timeout=120, cwd=tmp_path)
        assert res.returncode == code, (argv, res.stderr)
        _one_line(res.stderr, f"perfcourse {argv[0]}: ")
