"""Feedback a student can read: one Markdown file per student, from the class's gradebook.

Each file gives the student's total, then per exercise the notebook graded, each part's points and
the grader's message, and the first cell that failed shown by its own code (Jupyter does not number
code cells, so "code cell 3" alone is hard to find). The code is read again from the student's
notebook (the gradebook keeps no submission's code). Nothing goes in that the table does not show:
no hidden input, no seed. Everything from a submission is cleaned (:func:`report.clean`), table
cells cannot break the table, and a code block cannot be closed by the code inside it.
"""

from __future__ import annotations

import re
from pathlib import Path

from .report import clean

__all__ = ["student_markdown", "write_feedback", "file_name"]


def _cell(text):
    return clean(text, 400).replace("|", "\\|")


def _fmt(x):
    return f"{x:g}"


def _ordinal(n):
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


def _cell_code(submission, number):
    """The source of code cell ``number`` (1-based) of the notebook at ``submission``, or None."""
    from .collect import Unreadable, read_notebook

    try:
        nb, _ = read_notebook(Path(submission))
    except (Unreadable, TypeError):
        return None
    code = [c.source for c in nb.cells if c.cell_type == "code"]
    return code[number - 1][:4000] if 0 < number <= len(code) else None


def student_markdown(student, submissions, code_of=_cell_code):
    """The feedback page of one student record (see :func:`perfcourse.grading.classbook.students`).

    ``submissions``: the gradebook's, to find each graded notebook's problems and failing cell;
    ``code_of(submission, cell)`` gives that cell's code (default: read from the notebook).

    Examples
    --------
    >>> s = {"student": "ada", "status": "graded", "points": 0.0, "max_points": 7.0, "percent": 0.0,
    ...      "exercises": {"ex01": None}}
    >>> print(student_markdown(s, []).splitlines()[0])
    # ada: 0/7 points (0.0%)
    """
    by_path = {sub.get("submission"): sub for sub in submissions}
    lines = [f"# {clean(student['student'], 120)}: {_fmt(student['points'])}/{_fmt(student['max_points'])} points "
             f"({student['percent']:.1f}%)", ""]
    if student["status"] != "graded":
        lines += [f"Status: {student['status']}.", ""]
    for ex, row in student["exercises"].items():
        if row is None:
            lines += [f"## {ex}: not submitted", "", "No notebook of this exercise was found in your folder.", ""]
            continue
        sub = by_path.get(row["submission"], {})
        lines += [f"## {ex}: {_fmt(row['points'])}/{_fmt(row['max_points'])} points", "",
                  f"Graded: `{clean(row['submission'], 300).replace('`', '?')}`", "",
                  "| part | points | feedback |", "|---|---|---|"]
        for p in sub.get("parts", row["parts"]):
            lines.append(f"| {_cell(p['part'])} | {_fmt(p['points'])}/{_fmt(p['max_points'])} | "
                         f"{_cell(p.get('feedback', ''))} |")
        failure = sub.get("first_failure")
        if failure:
            code = code_of(row["submission"], failure["cell"])
            lines += ["", f"The first cell that failed is your {_ordinal(failure['cell'])} code cell from the top"]
            if code is not None:
                fence = "`" * max(3, 1 + max((len(m) for m in re.findall(r"`+", code)), default=0))
                lines[-1] += ":"
                lines += ["", f"{fence}python", code.rstrip(), fence]
            lines += ["", f"It {clean(failure['reason'], 600)}."]
        others = [p for p in sub.get("problems", []) if not p.startswith(f"code cell {failure['cell']} ")] \
            if failure else sub.get("problems", [])
        if others:
            lines += ["", "Also:"] + [f"- {clean(p, 600)}" for p in others]
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
    base = re.sub(r"[^A-Za-z0-9._-]", "_", str(student))[:80].strip(".") or "student"
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
