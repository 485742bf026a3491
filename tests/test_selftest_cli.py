import subprocess
import sys

import pytest

from perfcourse import cli, laws, selftest


def test_bank_has_lecture_questions_with_computed_references():
    bank = selftest.bank()
    assert bank["lecture-amdahl-1pct"].reference() == pytest.approx(laws.amdahl_limit(0.01))
    assert {"lecture-strong-scaling-worse", "lecture-throughput-vs-p99"} <= set(bank)


def test_check_numbers_within_tolerance(capsys):
    assert selftest.check("lecture-ex1-batch-throughput", 266.7)
    assert "Right" in capsys.readouterr().out
    assert not selftest.check("lecture-ex1-batch-throughput", 300)
    assert "266.667" in capsys.readouterr().out


def test_check_choices(capsys):
    assert selftest.check("lecture-throughput-vs-p99", "B")
    assert not selftest.check("lecture-throughput-vs-p99", "(a)")
    with pytest.raises(ValueError, match="letters"):
        selftest.check("lecture-throughput-vs-p99", "z")
    with pytest.raises(ValueError, match="no self-test question"):
        selftest.check("nope", 1)
    with pytest.raises(TypeError, match="answer"):
        selftest.check("lecture-ex3-little", "ten")


def test_answer_returns_reference(capsys):
    assert selftest.answer("lecture-ex3-little") == pytest.approx(10)
    assert "10" in capsys.readouterr().out


def test_help_lists_commands(capsys):
    assert cli.main([]) == 0
    out = capsys.readouterr().out
    for name, (module, _) in cli.COMMANDS.items():
        assert cli._exists(module), f"command {name} has no module {module}"
        assert name in out


def test_doctor_runs_as_a_command():
    res = subprocess.run([sys.executable, "-m", "perfcourse", "doctor"], capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    assert "backend:" in res.stdout and "numpy:" in res.stdout and "cpu:" in res.stdout


def test_lab_dry_run_points_at_first_lesson(capsys, monkeypatch, tmp_path):
    (tmp_path / "notebooks").mkdir()
    (tmp_path / "notebooks" / "00_start_here.ipynb").write_text("{}")
    monkeypatch.chdir(tmp_path)
    assert cli.main(["lab", "--dry-run", "--no-browser"]) == 0
    out = capsys.readouterr().out
    assert "00_start_here.ipynb" in out and "--no-browser" in out
    assert str(tmp_path / "notebooks") in out
