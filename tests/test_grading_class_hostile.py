"""A class folder built to break the gradebook: names, rosters, regrades, feedback and the handout."""

import csv
import io
import json
import os
import shutil
from pathlib import Path

import nbformat
import pytest

from perfcourse import cli
from perfcourse.grading import classbook, feedback
from perfcourse.grading.sandbox import bwrap_path

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS, EXERCISES = ROOT / "solutions", ROOT / "exercises"
UNSAFE = [] if bwrap_path() is not None or os.environ.get("PERFCOURSE_REQUIRE_BWRAP") == "1" else ["--unsafe"]
EX01 = "01_latency_throughput.ipynb"
NAMES = ("bob?", "bob\u200b", "<img src=x onerror=alert(1)>", "аlice", "=cmd|x")   # the 4th: a Cyrillic а


def _failing(path, first_line):
    nb = nbformat.read(SOLUTIONS / EX01, as_version=4)
    cell = next(c for c in nb.cells if c.cell_type == "code")
    cell.source = first_line + "\n" + cell.source
    nbformat.write(nb, path)


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    top = tmp_path_factory.mktemp("hostile") / "class"
    for name in NAMES:
        (top / name).mkdir(parents=True)
        shutil.copy(SOLUTIONS / EX01, top / name / EX01)
    _failing(top / "bob?" / EX01, "raise RuntimeError('**bold** [x](javascript:alert(1)) <script>')  # " + "y" * 5000)
    (top / "carol").mkdir()
    shutil.copy(SOLUTIONS / "03_amdahl.ipynb", top / "carol" / "03_amdahl.ipynb")       # only what was not assigned
    books = tmp_path_factory.mktemp("books")
    (books / "roster.txt").write_text("student\nаlice\n")
    code = cli.main(["grade", str(top), "--exercises", "1", "--roster", str(books / "roster.txt"), "--json",
                     str(books / "gb.json"), "--csv", str(books / "gb.csv"), "--feedback", str(books / "fb"),
                     "--seed", "3", *UNSAFE])
    # after grading, a notebook is swapped for a link to the solutions: the feedback must not show them
    shutil.rmtree(top / "bob?")
    (top / "bob?").symlink_to(SOLUTIONS)
    return code, json.loads((books / "gb.json").read_text()), books


def test_names_that_clean_alike_stay_two_students_and_a_roster_spells_names_as_folders(graded):
    code, book, _ = graded
    names = [s["student"] for s in book["students"]]
    assert code == 0 and len(names) == len(set(names)) == len(NAMES) + 1     # the five, and carol
    assert names[0] == "\\u0430lice" and book["students"][0]["status"] == "graded", "the roster matched her folder"
    assert "student" not in names, "a one-column roster's header is no student"
    carol = next(s for s in book["students"] if s["student"] == "carol")
    assert carol["status"] == "not submitted" and carol["points"] == 0.0


def test_the_json_holds_no_submission_code_and_is_strict_json(graded):
    _, book, books = graded
    text = (books / "gb.json").read_text()
    assert '"code":' not in text, "a failing cell's code stays out of the gradebook file"
    assert all("code" not in (s.get("first_failure") or {}) for s in book["submissions"])


def test_feedback_shows_the_code_as_graded_escaped_and_cut(graded):
    _, book, books = graded
    pages = {p.name: p.read_text() for p in (books / "fb").iterdir()}
    assert len(pages) == len(book["students"])
    bob = next(text for name, text in pages.items() if "bob" in name and "RuntimeError" in text)
    assert "raise RuntimeError(" in bob and "BEGIN SOLUTION" not in bob, "the code graded, not the linked solutions"
    assert "# ... (the cell goes on:" in bob
    assert "<script>" not in bob.split("```")[0] + bob.split("```")[-1], "HTML from a submission is escaped"
    img = next(text for text in pages.values() if "img src" in text.splitlines()[0])
    assert img.splitlines()[0].startswith("# &lt;img src=x onerror=alert\\(1\\)&gt;")
    assert all(name.endswith(".md") and "/" not in name for name in pages)


def test_the_csv_keeps_formula_names_as_text(graded):
    _, _, books = graded
    rows = list(csv.reader(io.StringIO((books / "gb.csv").read_text())))
    assert "'=cmd|x" in [row[0] for row in rows]


def test_regrades_that_are_not_numbers_or_name_no_one_exercise_are_refused(tmp_path):
    bad = tmp_path / "o.csv"
    for points, exercise, match in (("nan", "ex01", "finite number"), ("inf", "ex01", "finite number"),
                                    ("1", "ex99", "one exercise id"), ("1", '"ex03,ex01"', "one exercise id")):
        bad.write_text(f"student,exercise,part,points,reason\nada,{exercise},A,{points},why\n")
        with pytest.raises(ValueError, match=match):
            classbook.read_overrides(bad)
    bad.write_text('student,exercise,part,points,reason\n# a comment row,,,,\nada,ex01,A,1,"two\nlines"\n')
    assert classbook.read_overrides(bad) == [{"student": "ada", "exercise": "ex01", "part": "A", "points": 1.0,
                                              "reason": "two lines"}]
    assert classbook.assigned("1 3") == ["ex01", "ex03"]


def test_rosters_read_a_login_column_and_this_command_s_own_csv(tmp_path):
    canvas = tmp_path / "canvas.csv"
    canvas.write_text('Student,ID,SIS User ID,SIS Login ID,Section\n"Lovelace, Ada",1,,ada,A\n')
    assert classbook.read_roster(canvas) == ["ada"]
    own = tmp_path / "own.csv"
    own.write_text(classbook.csv_text(classbook.students([{"learner": "bo", "exercise": "ex01", "points": 1.0,
                                                           "max_points": 7.0, "parts": [{"part": "A", "points": 1,
                                                                                         "max_points": 2}]}])))
    assert classbook.read_roster(own) == ["bo"]


def test_feedback_and_the_handout_go_where_they_can_harm_nothing(tmp_path, capsys):
    (tmp_path / "class" / "ada").mkdir(parents=True)
    shutil.copy(SOLUTIONS / EX01, tmp_path / "class" / "ada" / EX01)
    assert cli.main(["grade", str(tmp_path / "class"), "--feedback", str(tmp_path / "class" / "fb")]) == 2
    assert "is inside the submissions" in capsys.readouterr().err
    link = tmp_path / "gone"
    link.symlink_to(tmp_path / "nothing-here")
    assert cli.main(["release", "--out", str(link)]) == 2
    assert "a symbolic link to nothing" in capsys.readouterr().err
    assert feedback.file_name("Ålice", set()) == "Ålice.md"
