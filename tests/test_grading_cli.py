"""``perfcourse grade`` and ``make-exercises`` from the command line: exit codes and one-line reasons."""

import json
import os
from pathlib import Path

import nbformat
import pytest

from perfcourse import cli
from perfcourse.grading.sandbox import bwrap_path

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS, EXERCISES = ROOT / "solutions", ROOT / "exercises"
# Where bubblewrap is missing (a laptop), the course's own notebooks are graded without a sandbox.
UNSAFE = [] if bwrap_path() is not None or os.environ.get("PERFCOURSE_REQUIRE_BWRAP") == "1" else ["--unsafe"]


def _reason(capsys):
    err = capsys.readouterr().err.strip().splitlines()
    return err[-1] if err else ""


def test_a_gradebook_folder_that_does_not_exist_fails_before_grading(tmp_path, capsys):
    code = cli.main(["grade", str(SOLUTIONS / "05_roofline.ipynb"), "--json", str(tmp_path / "no" / "gb.json")])
    out = capsys.readouterr()
    assert code == 2 and out.out == ""                       # nothing graded, nothing printed
    assert out.err.strip() == f"perfcourse grade: cannot write --json {tmp_path / 'no' / 'gb.json'}: the folder " \
                               f"{tmp_path / 'no'} does not exist"
    assert not (tmp_path / "no").exists()


def test_a_path_that_is_not_a_notebook_fails_with_exit_1(capsys):
    assert cli.main(["grade", str(ROOT / "README.md"), *UNSAFE]) == 1
    out = capsys.readouterr()
    assert out.out == ""              # nothing was graded: the reason alone, no empty table
    readme = ROOT / "README.md"
    assert out.err.strip() == f"perfcourse grade: nothing graded: {readme} is not a notebook (an .ipynb file)"


def test_a_lesson_or_a_corrupt_notebook_alone_is_refused_in_one_line_and_writes_no_gradebook(tmp_path, capsys):
    corrupt, book = tmp_path / "notes.ipynb", tmp_path / "gb.json"
    corrupt.write_text("{")
    for path in (ROOT / "notebooks" / "00_start_here.ipynb", corrupt):
        assert cli.main(["grade", str(path), "--json", str(book), *UNSAFE]) == 1
        out = capsys.readouterr()
        assert out.out == "" and len(out.err.strip().splitlines()) == 1, out
        assert out.err.startswith(f"perfcourse grade: nothing graded: {path}") and not book.exists()


@pytest.mark.parametrize("value", ["150", "-1", "x"])
def test_fail_under_is_a_percentage(value, capsys):
    with pytest.raises(SystemExit) as stop:
        cli.main(["grade", str(ROOT / "solutions"), "--fail-under", value])
    err = capsys.readouterr().err.strip().splitlines()
    assert stop.value.code == 2 and len(err) == 1 and "from 0 to 100" in err[0]


def test_an_unreadable_notebook_fails_with_the_line_and_column(tmp_path, capsys):
    corrupt = tmp_path / "03_amdahl.ipynb"
    corrupt.write_text('{\n  "cells": [,]\n}')
    assert cli.main(["grade", str(corrupt), *UNSAFE]) == 1
    out = capsys.readouterr()
    assert "0/7" in out.out
    assert out.err.strip() == (f"perfcourse grade: {corrupt}: the notebook could not be read: it is not valid JSON: "
                               "Expecting value at line 2, column 13")


def test_an_empty_folder_says_so(tmp_path, capsys):
    (tmp_path / "alice").mkdir()
    assert cli.main(["grade", str(tmp_path)]) == 2
    assert _reason(capsys) == f"perfcourse grade: no notebooks (*.ipynb) in {tmp_path}"


def test_a_path_that_does_not_exist_is_a_usage_error(tmp_path, capsys):
    assert cli.main(["grade", str(tmp_path / "nowhere")]) == 2
    assert "does not exist" in _reason(capsys)


def test_a_lesson_handed_in_instead_of_the_exercise_gets_a_hint(tmp_path, capsys):
    lesson = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# 03 · Amdahl's law"),
                                             nbformat.v4.new_code_cell("import numpy as np\nspeedup = 1 / 0.3")])
    nbformat.write(lesson, tmp_path / "03_amdahl.ipynb")
    book = tmp_path / "gb.json"
    assert cli.main(["grade", str(tmp_path), "--json", str(book), *UNSAFE]) == 0
    parts = json.loads(book.read_text())["submissions"][0]["parts"]
    hint = ("this notebook defines none of exercise 03's functions (fit_serial_fraction, karp_flatt_series, "
            "workers_for_speedup): submit the exercise notebook 03_amdahl.ipynb (from exercises/), not a lesson")
    assert [p["feedback"] for p in parts] == [hint] * 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["03_amdahl.ipynb", book.name]   # nothing else written


def test_grade_takes_relative_paths_from_root_and_warns_when_not_contained(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    book = tmp_path / "gb.json"
    args = ["grade", "--root", str(ROOT), "solutions/05_roofline.ipynb", "--unsafe", "--json", str(book)]
    assert cli.main(args) == 0
    out = capsys.readouterr().out
    assert "Total: 7/7 points" in out and out.count("WARNING: graded with --unsafe") == 2
    data = json.loads(book.read_text())
    assert data["contained"] is False and data["warnings"][0].startswith("WARNING: graded with --unsafe")


def test_grading_without_bwrap_is_refused(monkeypatch, capsys):
    from perfcourse.grading import sandbox

    monkeypatch.setattr(sandbox, "bwrap_path", lambda: None)
    assert cli.main(["grade", str(SOLUTIONS / "05_roofline.ipynb")]) == 2
    reason = _reason(capsys)
    assert reason.startswith("perfcourse grade: bubblewrap (bwrap) is not installed") and "--unsafe" in reason


def test_make_exercises_finds_the_course_from_any_folder(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["make-exercises", "--check"]) == 0
    count = len(list(SOLUTIONS.glob("*.ipynb")))
    assert capsys.readouterr().out.strip() == (f"{EXERCISES}: {count} exercise notebooks, all current; the stored "
                                               "self-check cases too")
    course = tmp_path / "course"
    (course / "solutions").mkdir(parents=True)
    for path in sorted(SOLUTIONS.glob("0[12]_*.ipynb")):
        (course / "solutions" / path.name).write_bytes(path.read_bytes())
    assert cli.main(["make-exercises", "--root", str(course)]) == 0
    assert sorted(p.name for p in (course / "exercises").iterdir()) == ["01_latency_throughput.ipynb",
                                                                         "02_work_span.ipynb"]
    assert cli.main(["make-exercises", "--root", str(tmp_path / "nowhere")]) == 2
    assert _reason(capsys).startswith("perfcourse make-exercises: --root must be a course folder holding solutions/")


@pytest.mark.parametrize("argv", [["grade", "--jobs", "0", "x.ipynb"], ["grade", "--seed", "-1", "x.ipynb"]])
def test_bad_options_are_usage_errors(tmp_path, capsys, argv, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("x.ipynb").write_text("{}")
    assert cli.main(argv) == 2
    assert _reason(capsys).startswith("perfcourse grade: ")
