"""An instructor's class: learners a level down, a roster, only the assigned exercises, one row per student."""

import csv
import io
import json
import os
import shutil
from pathlib import Path

import nbformat
import pytest

from perfcourse import cli
from perfcourse.grading import classbook
from perfcourse.grading.checks import parts
from perfcourse.grading.sandbox import bwrap_path

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS, EXERCISES = ROOT / "solutions", ROOT / "exercises"
UNSAFE = [] if bwrap_path() is not None or os.environ.get("PERFCOURSE_REQUIRE_BWRAP") == "1" else ["--unsafe"]
EX01, EX06 = "01_latency_throughput.ipynb", "06_littles_law.ipynb"


def _most(ex):
    return sum(p.points for p in parts(ex))


@pytest.fixture(scope="module")
def graded(tmp_path_factory):
    """A class of six under class/ (a folder the grader passes through), graded on ex01 and ex06."""
    top = tmp_path_factory.mktemp("term")
    cls = top / "class"
    for name in ("ada", "bo", "cy", "di", "ed", "fay"):
        (cls / name).mkdir(parents=True)
    shutil.copy(SOLUTIONS / EX01, cls / "ada" / EX01)               # ada: both solved
    shutil.copy(SOLUTIONS / EX06, cls / "ada" / EX06)
    shutil.copy(SOLUTIONS / EX01, cls / "bo" / EX01)                # bo: ex01 solved, ex06 untouched
    shutil.copy(EXERCISES / EX06, cls / "bo" / EX06)
    (cls / "cy" / "work").mkdir()                                   # cy: nested, a copy beside the finished one
    shutil.copy(SOLUTIONS / EX06, cls / "cy" / "work" / "06_littles_law-Copy1.ipynb")
    shutil.copy(EXERCISES / EX06, cls / "cy" / "work" / EX06)
    shutil.copy(SOLUTIONS / "03_amdahl.ipynb", cls / "cy" / "03_amdahl.ipynb")   # not assigned
    (cls / "di" / "answers.py").write_text("print('no notebook')\n")  # di: no notebook; ed: empty folder
    nb = nbformat.read(SOLUTIONS / EX01, as_version=4)                  # fay: a notebook that fails on import
    first = next(c for c in nb.cells if c.cell_type == "code")
    first.source = "import seaborn_is_not_installed_here\n" + first.source
    nbformat.write(nb, cls / "fay" / EX01)
    roster = top / "roster.csv"
    roster.write_text("student,section\nada,A\nbo,A\ncy,B\ndi,B\ned,B\nfay,B\ngus,A\n")
    regrades = top / "regrades.csv"
    first = parts("ex06")[0]
    regrades.write_text(f"student,exercise,part,points,reason\nbo,ex06,{first.title.split(':')[0]},{first.points:g},"
                        "answered on paper in class\nzed,ex01,A,1,no such student\n")
    due = 1767225600.0                              # 2026-01-01T00:00 UTC
    for path in cls.rglob("*.ipynb"):
        os.utime(path, (due - 3600, due - 3600))
    os.utime(cls / "cy" / "work" / "06_littles_law-Copy1.ipynb", (due + 7500, due + 7500))   # 2 h 5 min late
    books = tmp_path_factory.mktemp("books")        # outside the graded folder, as --feedback requires
    out_json, out_csv, letters = books / "gb.json", books / "gb.csv", books / "feedback"
    code = cli.main(["grade", str(top), "--exercises", "ex01,6", "--roster", str(roster), "--json", str(out_json),
                     "--csv", str(out_csv), "--feedback", str(letters), "--overrides", str(regrades),
                     "--seed", "918273", "--due", "2026-01-01T08:00+08:00", *UNSAFE])
    return code, json.loads(out_json.read_text()), out_csv.read_text(), letters


def test_every_student_is_listed_with_the_right_total(graded):
    code, book, _, _ = graded
    assert code == 0
    most = _most("ex01") + _most("ex06")
    got = {s["student"]: (s["points"], s["max_points"], s["status"]) for s in book["students"]}
    regraded = parts("ex06")[0].points     # bo's untouched ex06 part A, regraded to full marks
    fay = got.pop("fay")
    assert 0 < fay[0] < _most("ex01") and fay[1:] == (most, "graded"), "the parts the failed import broke score 0"
    assert got == {"ada": (most, most, "graded"), "bo": (_most("ex01") + regraded, most, "graded"),
                   "cy": (_most("ex06"), most, "graded"), "di": (0.0, most, "not submitted"),
                   "ed": (0.0, most, "not submitted"),
                   "gus": (0.0, most, "not submitted")}
    assert book["max_points"] == 7 * most and book["points"] == 2 * most + fay[0] + regraded
    assert [line.split(":")[0] for line in book["regrades"]] == ["applied", "not applied"]
    bo = next(s for s in book["submissions"] if s["learner"].endswith("bo") and s["exercise"] == "ex06")
    assert "[regraded from 0 to" in bo["parts"][0]["feedback"] and "answered on paper" in bo["parts"][0]["feedback"]


def test_the_finished_copy_wins_and_an_unassigned_exercise_is_not_graded(graded):
    _, book, _, _ = graded
    cy = next(s for s in book["students"] if s["student"] == "cy")
    assert cy["exercises"]["ex06"]["submission"].endswith("06_littles_law-Copy1.ipynb")
    assert "ex03" not in cy["exercises"]
    skipped = [s for s in book["submissions"] if s["submission"].endswith("03_amdahl.ipynb")]
    assert skipped and "not among the exercises assigned" in skipped[0]["problems"][0]
    graded_by = {Path(s["learner"]).name for s in book["submissions"] if s["exercise"] and s["parts"]}
    assert graded_by == {"ada", "bo", "cy", "fay"}, "the learners are the folders under class/, a level down"


def test_the_csv_has_a_row_per_student_in_canvas_s_layout_and_reads_back(graded):
    _, book, text, _ = graded
    rows = list(csv.DictReader(io.StringIO(text)))
    assert list(rows[0])[:5] == list(classbook.CANVAS_COLUMNS)
    assert rows[0]["Student"] == "Points Possible" and float(rows[0]["Total"]) == book["students"][0]["max_points"]
    by = {r["SIS Login ID"]: r for r in rows[1:]}
    assert list(by) == ["ada", "bo", "cy", "di", "ed", "fay", "gus"]
    for s in book["students"]:
        row = by[s["student"]]
        assert float(row["Total"]) == s["points"] and row["Status"] == s["status"]
        for ex in ("ex01", "ex06"):
            want = s["exercises"][ex]["points"] if s["exercises"][ex] else 0.0
            assert float(row[f"{ex} total"]) == want
            assert sum(float(row[f"{ex} {p.title.split(':')[0]}"]) for p in parts(ex)) == pytest.approx(want)


def test_rosters_and_exercise_lists_are_checked(tmp_path, capsys):
    empty = tmp_path / "r.txt"
    empty.write_text("# nobody\n\n")
    assert cli.main(["grade", str(SOLUTIONS / EX01), "--roster", str(empty)]) == 2
    assert capsys.readouterr().err.strip() == f"perfcourse grade: --roster {empty} lists no student"
    assert cli.main(["grade", str(SOLUTIONS / EX01), "--exercises", "ex01,ex99"]) == 2
    assert "'ex99' is no exercise" in capsys.readouterr().err
    bad = tmp_path / "r.csv"
    bad.write_text("name,section\nada,A\n")
    with pytest.raises(ValueError, match="needs a column named one of sis login id, login, username, student"):
        classbook.read_roster(bad)
    assert classbook.assigned("3, ex01,EX12") == ["ex01", "ex03", "ex12"]


def test_a_name_a_spreadsheet_would_run_is_written_as_text():
    book = classbook.students([{"learner": "=HYPERLINK(1)", "exercise": "ex01", "points": 1.0, "max_points": 2.0,
                                "parts": []}])
    row = list(csv.reader(io.StringIO(classbook.csv_text(book))))[2]
    assert row[0] == "'=HYPERLINK(1)" and row[3] == "'=HYPERLINK(1)"


def test_the_instructors_guide_lists_every_exercise_with_its_points():
    """The guide's "Course at a glance" is the registry's: lessons, their graded exercises, points, the total."""
    import re

    from perfcourse.grading.checks import exercises
    from perfcourse.teach.lessons import LESSONS

    guide = (ROOT / "docs" / "instructors.md").read_text(encoding="utf-8")
    table = guide[guide.index("## Course at a glance"):guide.index("## Lesson by lesson")]
    listed = {}
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 4 and cells[0].isdigit():
            listed[int(cells[0])] = re.findall(r"`(\d\d_\w+\.ipynb)` \((\d+(?:\.\d+)?) points\)", cells[3])
    want = {lesson.number: [(e, f"{_most('ex' + e[:2]):g}") for e in lesson.exercises] for lesson in LESSONS}
    assert listed == want
    total = sum(_most(ex) for ex in exercises())
    assert f"{len(exercises())} graded exercises, {total:g} points in all." in table
    workflow = (ROOT / "docs" / "autograde-workflow.yml").read_text(encoding="utf-8")
    last = sorted(e for lesson in LESSONS for e in lesson.exercises)[-1]
    assert last in workflow, "the workflow's header names the exercises handed out"


def test_each_student_gets_a_feedback_file_showing_the_cell_that_failed(graded):
    _, book, _, letters = graded
    files = sorted(p.name for p in letters.iterdir())
    assert files == [f"{s['student']}.md" for s in sorted(book["students"], key=lambda s: s["student"])]
    fay = (letters / "fay.md").read_text()
    points = next(s["points"] for s in book["students"] if s["student"] == "fay")
    assert fay.startswith(f"# fay: {points:g}/14 points ({100 * points / 14:.1f}%)")
    assert "your 1st code cell from the top" in fay and "import seaborn_is_not_installed_here" in fay
    assert "ModuleNotFoundError" in fay and "## ex06: not submitted" in fay
    ada = (letters / "ada.md").read_text()
    assert "| part | points | feedback |" in ada and "first cell that failed" not in ada
    assert "not submitted" in (letters / "gus.md").read_text()
    assert str(book["seed"]) not in fay, "the seed stays with the grader"
    assert not any("code" in (s.get("first_failure") or {}) for s in book["submissions"]), "no code in the book"


def test_feedback_cannot_be_broken_by_what_a_submission_holds():
    from perfcourse.grading.feedback import student_markdown

    sub = {"submission": "x/01_latency_throughput.ipynb", "learner": "x", "exercise": "ex01",
           "parts": [{"part": "A", "points": 0.0, "max_points": 1.0, "feedback": "a | b\n# not a heading"}],
           "problems": ["code cell 2 ('x') raised ValueError: v"],
           "first_failure": {"cell": 2, "reason": "raised ValueError: v", "code": "x = 1\n```\n# injected\n````"}}
    student = {"student": "x", "status": "graded", "points": 0.0, "max_points": 1.0, "percent": 0.0,
               "exercises": {"ex01": {"points": 0.0, "max_points": 1.0, "parts": sub["parts"],
                                      "submission": sub["submission"]}}}
    text = student_markdown(student, [sub])
    assert "| A | 0/1 | a \\| b \\# not a heading |" in text     # one cell, one line
    assert "`````python" in text and text.count("`````") == 2           # a fence longer than any inside
    assert "Also:" not in text                                          # the failing cell is not listed twice


def test_a_regrade_file_is_checked_before_grading(tmp_path, capsys):
    bad = tmp_path / "o.csv"
    bad.write_text("student,exercise,part,points,reason\nada,ex01,A,lots,why\n")
    assert cli.main(["grade", str(SOLUTIONS / EX01), "--overrides", str(bad)]) == 2
    assert capsys.readouterr().err.strip() == (f"perfcourse grade: --overrides {bad}, line 2: points must be a "
                                               "number; got 'lots'")
    bad.write_text("who,what\nada,1\n")
    with pytest.raises(ValueError, match="a CSV with the columns student, exercise, part, points, reason"):
        classbook.read_overrides(bad)


def test_a_notebook_modified_after_the_due_time_is_marked_late_and_scored_as_ever(graded):
    _, book, text, letters = graded
    late = {s["student"]: s["late"] for s in book["students"] if s["late"]}
    assert late == {"cy": {"ex06": 7500.0}} and book["due"] == "2026-01-01T08:00+08:00"
    row = next(r for r in csv.DictReader(io.StringIO(text)) if r["SIS Login ID"] == "cy")
    assert row["Late"] == "ex06 2 h 5 min late" and float(row["ex06 total"]) == _most("ex06")
    assert "Handed in 2 h 5 min late (after the due time)." in (letters / "cy.md").read_text()
    with pytest.raises(ValueError, match="--due must be a time such as"):
        from perfcourse.cli.grade import _due

        _due("tomorrow")


def _class(root, layout):
    """Folders of copies of exercise 01 and 03 (what they hold does not matter here)."""
    for folder in layout:
        (root / folder).mkdir(parents=True, exist_ok=True)
        for name in ("01_latency_throughput.ipynb", "03_amdahl.ipynb"):
            shutil.copy(EXERCISES / name, root / folder / name)


def test_a_folder_whose_learners_are_a_level_down_is_refused_naming_what_to_grade(tmp_path, capsys):
    from perfcourse.grading import collect

    _class(tmp_path / "sections", ["A/alice", "A/bob", "B/carol", "B/dan"])
    with pytest.raises(ValueError, match=r"a level further down") as err:
        collect.find_notebooks([tmp_path / "sections"])
    assert f"grade {tmp_path}/sections/A {tmp_path}/sections/B instead" in str(err.value)
    entries, _ = collect.find_notebooks([tmp_path / "sections" / "A", tmp_path / "sections" / "B"])
    assert sorted({Path(e.learner).name for e in entries}) == ["alice", "bob", "carol", "dan"]
    assert cli.main(["grade", str(tmp_path / "sections"), "--unsafe"]) != 0
    line = capsys.readouterr().err.strip().splitlines()
    assert len(line) == 1 and line[0].startswith("perfcourse grade: the learners are a level further down"), line


def test_one_learner_s_two_versions_do_not_make_the_class_ambiguous(tmp_path):
    from perfcourse.grading import collect

    _class(tmp_path / "cls", ["amy/v1", "amy/v2", "ben", "cai"])
    entries, _ = collect.find_notebooks([tmp_path / "cls"])
    assert sorted({Path(e.learner).name for e in entries}) == ["amy", "ben", "cai"]


def test_a_student_named_zh_is_a_student_where_no_notebook_lies_beside_the_folder(tmp_path):
    from perfcourse.grading import collect

    _class(tmp_path / "cls", ["zh", "amy"])
    entries, _ = collect.find_notebooks([tmp_path / "cls"])
    assert sorted({Path(e.learner).name for e in entries}) == ["amy", "zh"]
    _class(tmp_path / "mine", [".", "zh"])              # an exercises folder with its Chinese edition
    entries, _ = collect.find_notebooks([tmp_path / "mine"])
    assert {e.learner for e in entries} == {str(tmp_path / "mine")}
