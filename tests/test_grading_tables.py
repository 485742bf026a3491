"""The score tables `perfcourse grade` prints, in the learner's language, with their columns lined up.

Made from plain records (no notebook is run): the headings, the totals, the grader's own warnings and
the students' statuses are translated; names, parts' titles and feedback are printed as they are.
"""

from __future__ import annotations

import pytest

from perfcourse import _lang
from perfcourse.grading import grade, report

SUBMISSIONS = [
    {"submission": "class/张伟/03_amdahl.ipynb", "exercise": "ex03", "points": 5.0, "max_points": 7.0,
     "parts": [{"part": "A: fit the serial fraction", "points": 3.0, "max_points": 4.0, "feedback": "ok"},
               {"part": "B: the limit", "points": 2.0, "max_points": 3.0, "feedback": "2x too high"}],
     "problems": ["cell 4 raised ZeroDivisionError"]},
    {"submission": "class/bob/03_amdahl.ipynb", "exercise": "ex03", "points": 7.0, "max_points": 7.0,
     "parts": [{"part": "A: fit the serial fraction", "points": 4.0, "max_points": 4.0, "feedback": "ok"},
               {"part": "B: the limit", "points": 3.0, "max_points": 3.0, "feedback": "ok"}],
     "problems": []},
]
STUDENTS = [
    {"student": "张伟", "status": "graded", "points": 5.0, "max_points": 14.0, "percent": 35.714,
     "exercises": {"ex03": {"points": 5.0}, "ex05": None}, "late": {"ex03": 7500.0}},
    {"student": "bob", "status": "not submitted", "points": 0.0, "max_points": 14.0, "percent": 0.0,
     "exercises": {"ex03": None, "ex05": None}, "late": {}},
]


@pytest.fixture
def lang(monkeypatch):
    def choose(value):
        monkeypatch.setenv(_lang.ENV, value)
        monkeypatch.delenv(_lang.ENV_LOCALE, raising=False)
    return choose


def _columns(lines, marker):
    """The terminal column where ``marker`` starts on each line that holds it."""
    return {_lang.width(line[:line.index(marker)]) for line in lines if marker in line}


def test_the_score_table_in_english(lang):
    lang("en")
    text = report.table(SUBMISSIONS, [grade.UNSAFE_WARNING])
    lines = text.splitlines()
    assert lines[0].startswith("WARNING: graded with --unsafe") and lines[1].split()[:4] == [
        "submission", "part", "points", "feedback"]
    assert "Total: 12/14 points (85.7%) over 2 graded notebooks" in text and "Notes:" in text
    assert len(_columns(lines, "A: fit")) == 1 and len(_columns(lines, "2x too high")) == 1
    assert _columns(lines[1:2], "points") == _columns(lines, "3/4") == _columns(lines, "7/7")


def test_the_score_tables_in_chinese_line_up_by_terminal_columns(lang):
    lang("zh")
    text = report.table(SUBMISSIONS, [grade.UNSAFE_WARNING])
    lines = text.splitlines()
    assert lines[0].startswith("警告：这次用 --unsafe 评分") and lines[-1] == lines[0]
    assert lines[1].split()[:4] == ["提交", "部分", "得分", "反馈"]
    assert "总计：12/14 分（85.7%），共 2 个已评分的 notebook" in text and "备注：" in text
    assert sum(line.split()[1:2] == ["合计"] for line in lines) == 2
    assert len(_columns(lines, "A: fit")) == 1          # a Chinese name is two columns a character wide
    points = _columns(lines[1:2], "得分")
    assert len(points) == 1 and _columns(lines, "3/4") == _columns(lines, "5/7") == _columns(lines, "7/7") == points
    students = report.student_table(STUDENTS).splitlines()
    assert students[1].split()[0] == "学员" and "合计" in students[1]
    assert students[3].endswith("ex03 迟交 2 h 5 min") and students[4].endswith("未提交")
    assert _columns(students[1:2], "合计") == _columns(students, "5/14") == _columns(students, "0/14")


def test_the_gradebook_keeps_its_words_in_english(lang):
    """What is stored (the CSV's status and lateness) does not change with the language the tables speak."""
    from perfcourse.grading.classbook import late_text

    lang("zh")
    assert late_text({"ex03": 7500.0}) == "ex03 2 h 5 min late"
    assert late_text({"ex03": 7500.0}, lang=None) == "ex03 迟交 2 h 5 min"
