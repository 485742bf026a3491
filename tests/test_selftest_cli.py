import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from perfcourse import cli, laws, selftest

ROOT = Path(__file__).resolve().parent.parent


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
    with pytest.raises(ValueError, match=r"answer to lecture-ex3-little must be a number \(unit: requests\); "
                       "got 'ten'"):
        selftest.check("lecture-ex3-little", "ten")
    with pytest.raises(TypeError, match="answer to lecture-ex3-little must be one number"):
        selftest.check("lecture-ex3-little", [10, 11])


def test_check_reads_a_number_written_as_a_string(capsys):
    assert selftest.check("lecture-amdahl-1pct", "100")
    assert "Right." in capsys.readouterr().out
    assert selftest.check("lecture-amdahl-1pct", " 1e2 ", quiet=True)
    assert not selftest.check("lecture-amdahl-1pct", "50", quiet=True)
    with pytest.raises(ValueError, match="finite"):
        selftest.check("lecture-amdahl-1pct", "nan")
    assert selftest.score({"lecture-amdahl-1pct": "100", "lecture-ex3-little": "ten"}) == (1, 2)
    assert "could not read: lecture-ex3-little (answer to lecture-ex3-little must be a number" in \
        capsys.readouterr().out


@pytest.mark.parametrize("qid, hint", [
    ("l03-limit-5pc", "did you mean l03-limit-5pct?"),                   # a typo: the close id
    ("amdahl-1pct", "did you mean lecture-amdahl-1pct?"),                # a part of an id
    ("l03-speedup", "the l03- questions are l03-limit-5pct, "),          # nothing close in l03-: its ids, not
                                                                         # l00-p99-speedup from another lesson
    ("nope", "question ids start with one of l00-, "),                   # nothing at all: where to look
])
def test_unknown_question_ids_suggest_related_ones(qid, hint):
    with pytest.raises(ValueError) as err:
        selftest.get(qid)
    message = str(err.value)
    assert message.startswith(f"no self-test question {qid!r}; {hint}"), message
    if qid == "l03-speedup":
        ids = message.split("are ", 1)[1].split(", ")
        assert ids == [k for k in selftest.bank() if k.startswith("l03-")]


def test_answer_returns_reference(capsys):
    assert selftest.answer("lecture-ex3-little") == pytest.approx(10)
    assert "10" in capsys.readouterr().out


def test_help_lists_commands(capsys):
    assert cli.main([]) == 0
    out = capsys.readouterr().out
    for name, (module, _) in cli.COMMANDS.items():
        assert module.startswith("perfcourse.cli."), f"command {name} lives outside perfcourse.cli: {module}"
        assert importlib.util.find_spec(module), f"command {name} has no module {module}"
        assert name in out


@pytest.mark.parametrize("name", list(cli.COMMANDS))
def test_every_command_has_help(name, capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main([name, "--help"])
    assert stop.value.code == 0
    assert f"perfcourse {name}" in capsys.readouterr().out


def test_doctor_runs_as_a_command():
    res = subprocess.run([sys.executable, "-m", "perfcourse", "doctor"], capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    assert "backend:" in res.stdout and "numpy:" in res.stdout and "cpu:" in res.stdout
    assert f"lessons: checkout at {ROOT}" in res.stdout


def test_lab_dry_run_opens_the_checkout_at_the_first_lesson(capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)        # any folder: an editable install opens its checkout
    assert cli.main(["lab", "--dry-run", "--no-browser", "--port", "8899"]) == 0
    out = capsys.readouterr().out
    assert f"--ServerApp.root_dir={ROOT} " in out
    assert "--LabApp.default_url=/lab/tree/notebooks/00_start_here.ipynb" in out
    assert "--no-browser" in out and "--port=8899" in out
    assert not list(tmp_path.iterdir()), "a dry run wrote files"


def test_lab_dry_run_with_dir_plans_a_copy(capsys, tmp_path):
    work = tmp_path / "mine"
    assert cli.main(["lab", "--dry-run", "--no-browser", "--dir", str(work)]) == 0
    out = capsys.readouterr().out
    n = sum(len(list((ROOT / folder).glob("*.ipynb"))) for folder in ("notebooks", "exercises", "notebooks/zh",
                                                                        "exercises/zh"))
    assert f"would copy {n} and update 0 notebooks into {work}" in out
    assert f"--ServerApp.root_dir={work} " in out and not work.exists()


@pytest.mark.parametrize("argv, code, message", [
    (["present", "42", "--dry-run"], 2, "perfcourse present: no lesson 42"),
    (["present", "99"], 2, "perfcourse present: no lesson 99; the lessons are numbered 00 to 11"),
    (["present", "12"], 2, "perfcourse present: no lesson 12; the lessons are numbered 00 to 11"),
    (["present", "-1"], 2, "perfcourse present: no lesson -1; the lessons are numbered 00 to 11"),
    (["glossary", "zzzz"], 1, "perfcourse glossary: No glossary term matches 'zzzz'"),
    (["site", "--notebooks", "/nonexistent-folder", "--out", "x"], 2, "perfcourse site: nbdir must be a folder"),
    (["make-exercises", "--solutions", "/nonexistent-folder"], 2, "perfcourse make-exercises: solutions must be"),
])
def test_expected_failures_are_one_line(argv, code, message, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli.main(argv) == code
    err = capsys.readouterr().err
    assert err.startswith(message) and err.count("\n") == 1, err
