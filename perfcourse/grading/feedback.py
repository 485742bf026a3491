"""Feedback a student can read: one Markdown file per student, from the class's gradebook.

Each file gives the student's total, then per exercise the notebook graded, each part's points and
the grader's message, and the first cell that failed shown by its own code (Jupyter does not number
code cells, so "code cell 3" alone is hard to find): the code as it was graded, kept in memory by
the grader (the JSON gradebook holds no submission's code). Nothing goes in that the table does
not show: no seed, and of the test inputs only the failing case a part's message names. Everything
from a submission is cleaned (:func:`report.clean`), and escaped so that it reads as text, not as
Markdown or HTML; table cells cannot break the table, and a code block cannot be closed by the code
inside it.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from .classbook import late_text
from .grade import PRIVATE_CODE
from .report import clean
from .report import points_text as _fmt

__all__ = ["student_markdown", "write_feedback", "file_name"]


_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+!|~>-])")
CODE_LIMIT = 4000        # characters of a failing cell shown


def _text(text, limit=600):
    """Text from a submission as plain text in Markdown: cleaned, HTML and Markdown characters escaped."""
    return _MARKDOWN.sub(r"\\\1", html.escape(clean(text, limit), quote=False))


def _cell(text):
    return _text(text, 400)


def _code(source):
    """A cell's code for a fenced block: each line cleaned of control and bidi characters, bounded."""
    lines = [clean(line, 500) for line in source[:CODE_LIMIT].split("\n")]
    if len(source) > CODE_LIMIT:
        lines.append(f"# ... (the cell goes on: {len(source) - CODE_LIMIT} more characters)")
    return "\n".join(lines).rstrip()


def _ordinal(n):
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def student_markdown(student, submissions):
    """The feedback page of one student record (see :func:`perfcourse.grading.classbook.students`).

    ``submissions``: the gradebook's as graded (with each failing cell's code), to find each graded
    notebook's problems and failing cell.

    Examples
    --------
    >>> s = {"student": "ada", "status": "graded", "points": 0.0, "max_points": 7.0, "percent": 0.0,
    ...      "exercises": {"ex01": None}}
    >>> print(student_markdown(s, []).splitlines()[0])
    # ada: 0/7 points (0.0%)
    """
    mine = {sub["exercise"]: sub for sub in submissions if sub.get("learner") == student["student"]
            and sub.get("exercise") and sub.get("parts")}          # two paths may read alike once cleaned
    lines = [f"# {_text(student['student'], 120)}: {_fmt(student['points'])}/{_fmt(student['max_points'])} points "
             f"({student['percent']:.1f}%)", ""]
    if student["status"] != "graded":
        lines += [f"Status: {student['status']}.", ""]
    for ex, row in student["exercises"].items():
        if row is None:
            lines += [f"## {ex}: not submitted", "", "No notebook of this exercise was found in your folder.", ""]
            continue
        sub = mine.get(ex, {})
        lines += [f"## {ex}: {_fmt(row['points'])}/{_fmt(row['max_points'])} points", "",
                  f"Graded: {_text(row['submission'], 300)}", "",
                  *([f"Handed in {late_text({ex: row['late_s']}).split(' ', 1)[1]} (after the due time).", ""]
                    if row.get("late_s") else []),
                  "| part | points | feedback |", "|---|---|---|"]
        for p in sub.get("parts", row["parts"]):
            lines.append(f"| {_cell(p['part'])} | {_fmt(p['points'])}/{_fmt(p['max_points'])} | "
                         f"{_cell(p.get('feedback', ''))} |")
        failure = sub.get("first_failure")
        if failure:
            code = failure.get(PRIVATE_CODE)
            lines += ["", f"The first cell that failed is your {_ordinal(failure['cell'])} code cell from the top"]
            if code is not None:
                fence = "`" * max(3, 1 + max((len(m) for m in re.findall(r"`+", code)), default=0))
                lines[-1] += ":"
                lines += ["", f"{fence}python", _code(code), fence]
            lines += ["", f"It {_text(failure['reason'])}."]
        others = [p for p in sub.get("problems", []) if not p.startswith(f"code cell {failure['cell']} ")] \
            if failure else sub.get("problems", [])
        if others:
            lines += ["", "Also:"] + [f"- {_text(p)}" for p in others]
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def file_name(student, taken):
    """A file name for ``student`` that is safe anywhere and unique among ``taken`` (a set it adds to).

    Examples
    --------
    >>> taken = set()
    >>> file_name("ada", taken), file_name("../x y", taken), file_name("ada", taken)
    ('ada.md', '_x_y.md', 'ada-2.md')
    """
    base = re.sub(r"[^\w.-]", "_", clean(student, 200))[:80].strip(".") or "student"
    base = base if base not in ("", ".", "..") else "student"
    name, k = f"{base}.md", 2
    while name.lower() in taken:
        name, k = f"{base}-{k}.md", k + 1
    taken.add(name.lower())
    return name


def write_feedback(folder, book):
    """One ``<student>.md`` per student of the gradebook ``book`` into ``folder`` (made if missing)."""
    folder = Path(folder)
    folder.mkdir(exist_ok=True)
    taken, written = set(), []
    for student in book["students"]:
        path = folder / file_name(student["student"], taken)
        path.write_text(student_markdown(student, book["submissions"]), encoding="utf-8")
        written.append(path)
    return written
