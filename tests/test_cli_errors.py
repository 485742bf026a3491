"""The command line's error policy, case by case: one line `perfcourse <command>: <reason>` on stderr, exit 2
for a usage error and 1 for a failure; a traceback only for a bug (with a line asking to report it) or when
asked for with --debug / PERFCOURSE_DEBUG=1."""

from __future__ import annotations

import re
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
    assert err.splitlines()[-1] == "perfcourse present: no lesson 99; the lessons are numbered 00 to 11"


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


# --- bad input that was once a traceback or a silent exit 0: one line and a non-zero exit -----------------

def _bad_files(tmp_path):
    (tmp_path / "notes.txt").write_text("my notes\n")
    (tmp_path / "key.json").write_text('{"key": 5}\n')
    (tmp_path / "nb.ipynb").write_text('{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')
    (tmp_path / "afile").write_text("")
    (tmp_path / "folder").mkdir()
    return tmp_path


@pytest.mark.parametrize("argv, code, start", [
    (["predictions", "--log", "{t}/notes.txt"], 1, "perfcourse predictions: {t}/notes.txt is not a prediction log"),
    (["predictions", "--log", "{t}/key.json"], 1, "perfcourse predictions: {t}/key.json is not a prediction log"),
    (["predictions", "--log", "{t}/nb.ipynb"], 1, "perfcourse predictions: {t}/nb.ipynb is not a prediction log"),
    (["predictions", "--plot", "{t}/missing/dir/x.png"], 2, "perfcourse predictions: cannot write --plot"),
    (["predictions", "--plot", "{t}/plot.txt"], 2, "perfcourse predictions: --plot must end in one of"),
    (["bench", "--quick", "--json", "{t}/folder"], 2, "perfcourse bench: cannot write --json {t}/folder: it is a "),
    (["translate", "--check", "--lessons", "3"], 2, "perfcourse translate: --check checks every notebook"),
    (["translate", "--execute", "--timeout", "0"], 2, "perfcourse translate: --timeout must be a positive"),
])
def test_bad_input_is_one_line_and_a_non_zero_exit(tmp_path, capsys, argv, code, start):
    t = _bad_files(tmp_path)
    started = __import__("time").monotonic()
    assert cli.main([a.format(t=t) for a in argv]) == code
    _one_line(capsys.readouterr().err, start.format(t=t))
    assert __import__("time").monotonic() - started < 10        # refused before any work (bench measures nothing)


@pytest.mark.parametrize("command", [["glossary", "latency"], ["lab", "--dry-run"], ["predictions"],
                                     ["grade", "solutions"], ["site", "--out", "{t}/site"]])
def test_an_unknown_language_is_refused_by_every_command(tmp_path, monkeypatch, capsys, command):
    monkeypatch.setenv("PERFCOURSE_LANG", "fr")
    assert cli.main([a.format(t=tmp_path) for a in command]) == 2
    _one_line(capsys.readouterr().err, f"perfcourse {command[0]}: PERFCOURSE_LANG: language must be one of en, zh")
    assert not (tmp_path / "site").exists()


def test_the_doctor_files_a_wrong_language_under_its_own_line(monkeypatch, capsys):
    monkeypatch.setenv("PERFCOURSE_LANG", "fr")
    assert cli.main(["doctor"]) == 1
    out, err = capsys.readouterr()
    assert "PERFCOURSE_LANG: PROBLEM: language must be one of en, zh, zh_CN or zh-CN; got 'fr'" in out.splitlines()
    assert not any(line.startswith("backend: PROBLEM") for line in out.splitlines())
    _one_line(err, "perfcourse doctor: 1 problem found: PERFCOURSE_LANG:")


def test_a_records_home_that_is_a_file_is_refused(tmp_path, monkeypatch, capsys):
    (tmp_path / "afile").write_text("")
    monkeypatch.setenv("PERFCOURSE_HOME", str(tmp_path / "afile"))
    assert cli.main(["predictions"]) == 2
    _one_line(capsys.readouterr().err, "perfcourse predictions: PERFCOURSE_HOME must name a folder")


def test_make_exercises_and_site_name_the_corrupt_notebook_and_leave_nothing(tmp_path, capsys):
    import shutil

    from perfcourse.cli import course

    solutions, lessons = tmp_path / "solutions", tmp_path / "lessons"
    solutions.mkdir()
    (solutions / "04_broken.ipynb").write_text("{")
    assert cli.main(["make-exercises", "--solutions", str(solutions), "--exercises", str(tmp_path / "ex")]) == 2
    _one_line(capsys.readouterr().err, f"perfcourse make-exercises: {solutions / '04_broken.ipynb'} is not a notebook")
    assert not (tmp_path / "ex").exists()
    shutil.copytree(course.lessons_dir(), lessons)
    (lessons / "03_amdahl.ipynb").write_text("{")
    assert cli.main(["site", "--notebooks", str(lessons), "--out", str(tmp_path / "site")]) == 2
    _one_line(capsys.readouterr().err, f"perfcourse site: {lessons / '03_amdahl.ipynb'} is not a notebook")
    assert not (tmp_path / "site").exists()


# --- the same policy in Chinese: the prefix stays `perfcourse <command>:`, the reason is Chinese ---------------

CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture
def chinese(monkeypatch):
    """PERFCOURSE_LANG=zh with the package's own catalogs."""
    monkeypatch.setenv("PERFCOURSE_LANG", "zh")
    monkeypatch.delenv("PERFCOURSE_LOCALE", raising=False)


@pytest.mark.parametrize("argv, code, start, reason", [
    (["predictions", "--log", "{t}/missing.jsonl"], 1, "perfcourse predictions: ", "处没有预测记录"),
    (["predictions", "--log", "{t}/notes.txt"], 1, "perfcourse predictions: ", "不是预测记录：第 1 行不是一条记录"),
    (["predictions", "--plot", "{t}/plot.txt"], 2, "perfcourse predictions: ", "--plot 的扩展名必须是"),
    (["present", "42", "--dry-run"], 2, "perfcourse present: ", "没有第 42 课；课程编号从 00 到 11"),
    (["site", "--out", "{t}/afile"], 2, "perfcourse site: ", "是一个文件；请给出一个新的或空的文件夹"),
    (["glossary", "zzzz"], 1, "perfcourse glossary: ", "没有与 'zzzz' 匹配的术语"),
    (["lab", "--lang", "fr", "--dry-run"], 2, "perfcourse lab: ", "--lang：语言必须是"),
    (["translate", "--check", "--lessons", "3"], 2, "perfcourse translate: ", "--check 检查所有 notebook"),
    (["grade", "{t}/nothing-here"], 2, "perfcourse grade: ", "不存在"),
])
def test_error_lines_are_chinese_under_perfcourse_lang_zh(chinese, tmp_path, capsys, argv, code, start, reason):
    t = _bad_files(tmp_path)
    assert cli.main([a.format(t=t) for a in argv]) == code
    err = _one_line(capsys.readouterr().err, start)
    assert reason in err, err


@pytest.mark.parametrize("argv, start", [     # argparse's own words and the options' checks, through the catalog
    (["lab", "--port", "0"], "perfcourse lab: 参数 --port：必须是 1 到 65535 之间的整数；收到的是 '0'（见 "),
    (["grade", "--fail-under", "200", "x"], "perfcourse grade: 参数 --fail-under：必须是 0 到 100 之间的百分数"),
    (["present", "three"], "perfcourse present: 参数 lesson：无效的 int 值：'three'"),
    (["site", "--bogus"], "perfcourse: 无法识别的参数：--bogus"),
    (["nosuchcommand"], "perfcourse: 参数 COMMAND：无效的选项：'nosuchcommand'"),
])
def test_usage_errors_are_chinese_under_perfcourse_lang_zh(chinese, capsys, argv, start):
    with pytest.raises(SystemExit) as stop:
        cli.main(argv)
    assert stop.value.code == 2
    _one_line(capsys.readouterr().err, start)


def test_a_bug_is_reported_in_chinese_with_the_english_error(chinese, capsys, monkeypatch):
    def broken(args):
        return {}["missing"]

    monkeypatch.setattr(glossary, "run", broken)
    assert cli.main(["glossary", "p99"]) == 1
    last = capsys.readouterr().err.splitlines()[-1]
    assert last.startswith("perfcourse glossary: KeyError: 'missing'; 这是 perfcourse 的 bug"), last


def test_help_speaks_chinese_but_a_wrong_language_is_refused_in_english(chinese, capsys, monkeypatch):
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    out = capsys.readouterr().out
    assert out.startswith("用法：perfcourse") and "用英文或中文查找术语" in out and "显示此帮助信息并退出" in out
    monkeypatch.setenv("PERFCOURSE_LANG", "fr")      # no language to speak: English until the setting is refused
    with pytest.raises(SystemExit):
        cli.main(["lab", "--port", "0"])
    _one_line(capsys.readouterr().err, "perfcourse lab: argument --port: must be a whole number from 1 to 65535")
    assert cli.main(["lab", "--dry-run"]) == 2
    _one_line(capsys.readouterr().err, "perfcourse lab: PERFCOURSE_LANG: language must be one of en, zh")
