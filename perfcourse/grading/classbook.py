"""A class's gradebook: one row per student, a column per exercise and per part, a roster.

The grader scores notebooks; an instructor grades students. :func:`students` turns the scored
notebooks into one record per student (a learner folder, see :mod:`perfcourse.grading.collect`):
every exercise of the class (the assigned ones, or every exercise anyone handed in), its points
and its parts, and a total out of the same maximum for everyone. An exercise a student did not
hand in scores 0 and reads "not submitted"; so does every exercise of a student on the roster who
handed in nothing.

:func:`csv_text` writes the table in the layout Canvas's gradebook import reads (the columns
``Student``, ``ID``, ``SIS User ID``, ``SIS Login ID``, ``Section``, then one column per
assignment, a ``Points Possible`` row first) and Moodle's CSV grade import maps (an identifier
column, here ``SIS Login ID``, the student's folder name, and one column per grade item).

Examples
--------
>>> subs = [{"learner": "a", "exercise": "ex01", "points": 4.0, "max_points": 7.0,
...          "parts": [{"part": "A", "points": 4.0, "max_points": 7.0}]}]
>>> book = students(subs, roster=["a", "b"])      # exercise 01 is worth 7 points
>>> [(s["student"], s["points"], s["max_points"], s["status"]) for s in book]
[('a', 4.0, 7.0, 'graded'), ('b', 0.0, 7.0, 'not submitted')]
"""

from __future__ import annotations

import csv
import io
import math
import re
from pathlib import Path

from .._lang import N_, _
from .checks import exercises, parts
from .report import clean, clean_name
from .report import points_text as _fmt

__all__ = ["students", "read_roster", "read_overrides", "apply_overrides", "csv_text", "assigned", "few_takers",
           "late_text", "CANVAS_COLUMNS"]

CANVAS_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
_ROSTER_COLUMNS = ("sis login id", "login", "username", "student", "id")   # a login before a display name


def assigned(text):
    """The exercise ids of ``--exercises ex01,ex03`` (``3`` and ``03`` work too), in course order.

    Examples
    --------
    >>> assigned("ex03, 1")
    ['ex01', 'ex03']
    """
    if not isinstance(text, str) or not text.strip():
        raise ValueError(_("--exercises must list exercise ids, e.g. ex01,ex03"))
    known, out = exercises(), set()
    for word in re.split(r"[,\s]+", text.strip().strip(",")):
        number = re.fullmatch(r"(?:ex)?(\d{1,2})", word, re.IGNORECASE)
        ex = f"ex{int(number.group(1)):02d}" if number else word
        if ex not in known:
            raise ValueError(_("--exercises: {word!r} is no exercise; the exercises are {known}").format(
                word=word, known=", ".join(known)))
        out.add(ex)
    return [ex for ex in known if ex in out]


def read_roster(path):
    """Student ids from a roster file: one per line, or a CSV whose header names a student or login column.

    Blank lines and lines starting with ``#`` are skipped; ``ValueError`` names what is wrong.
    """
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as err:
        raise ValueError(_("{option} {path}: cannot be read ({reason})").format(
            option="--roster", path=path, reason=getattr(err, "strerror", None) or err)) from None
    lines = [line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    if not lines:
        raise ValueError(_("--roster {path} lists no student").format(path=path))
    if "," in lines[0] or lines[0].strip().lower() in _ROSTER_COLUMNS:
        rows = list(csv.reader(lines))
        header = [h.strip().lower() for h in rows[0]]
        column = next((header.index(c) for c in _ROSTER_COLUMNS if c in header), None)
        if column is None:
            raise ValueError(_("--roster {path}: a CSV roster needs a column named one of {names}").format(
                path=path, names=", ".join(_ROSTER_COLUMNS)))
        ids = [row[column].strip() for row in rows[1:] if len(row) > column and row[column].strip()
               and row[0].strip() != "Points Possible"]      # this command's own --csv, read back as a roster
    else:
        ids = [line.strip() for line in lines]
    if not ids:
        raise ValueError(_("--roster {path} lists no student").format(path=path))
    return list(dict.fromkeys(clean_name(i, 200) for i in ids))     # spelled as the grader spells folder names


def students(submissions, *, exercises_=None, roster=None):
    """One record per student, in roster order then by name: every exercise, its parts, the total.

    ``exercises_``: the class's exercises (default: every exercise graded for anyone). ``roster``:
    every student's id (a learner folder's name); a student not on it who handed work in is
    listed too, marked ``"not on the roster"``.
    """
    graded = [s for s in submissions if s.get("exercise") and s.get("parts")]
    columns = list(exercises_) if exercises_ else [ex for ex in exercises() if any(s["exercise"] == ex
                                                                                    for s in graded)]
    by_student = {}
    for s in graded:
        if s["exercise"] in columns:
            by_student.setdefault(s.get("learner", s.get("submission", "")), {})[s["exercise"]] = s
    seen = {s.get("learner", s.get("submission", "")) for s in submissions}     # handed in anything at all
    names = list(roster or []) + sorted(n for n in seen if n not in set(roster or []))
    most = sum(sum(p.points for p in parts(ex)) for ex in columns)
    out = []
    for name in names:
        done = by_student.get(name, {})
        rows = {ex: ({"points": done[ex]["points"], "max_points": done[ex]["max_points"],
                      "parts": [{"part": p["part"], "points": p["points"], "max_points": p["max_points"]}
                                for p in done[ex]["parts"]], "submission": done[ex].get("submission"),
                      "late_s": done[ex].get("late_s")}
                     if ex in done else None) for ex in columns}
        got = float(sum(r["points"] for r in rows.values() if r))
        status = (N_("not submitted") if not done else N_("not on the roster") if roster and name not in roster
                  else "graded")     # the words as stored; the score tables show them translated
        late = {ex: r["late_s"] for ex, r in rows.items() if r and r.get("late_s")}
        out.append({"student": name, "status": status, "points": got, "max_points": most,
                    "percent": round(100.0 * got / most, 3) if most else 0.0, "exercises": rows, "late": late})
    return out


def csv_text(book):
    """The class as CSV: Canvas's five identity columns, a column per exercise and per part, the total."""
    columns = list(book[0]["exercises"]) if book else []
    heads, possible = [], []
    for ex in columns:
        heads.append(f"{ex} total")
        possible.append(_fmt(sum(p.points for p in parts(ex))))
        for p in parts(ex):
            heads.append(f"{ex} {_letter(p.title)}")
            possible.append(_fmt(p.points))
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*CANVAS_COLUMNS, *heads, "Total", "Percent", "Status", "Late"])
    writer.writerow(["Points Possible", "", "", "", "", *possible,
                     _fmt(book[0]["max_points"]) if book else "0", "100", "", ""])
    for s in book:
        cells = []
        for ex in columns:
            row = s["exercises"][ex]
            cells.append(_fmt(row["points"]) if row else "0")
            got = {p["part"]: p["points"] for p in row["parts"]} if row else {}
            cells += [_fmt(got.get(p.title, 0.0)) for p in parts(ex)]
        writer.writerow([_safe(s["student"]), "", "", _safe(s["student"]), "", *cells, _fmt(s["points"]),
                         f"{s['percent']:.1f}", s["status"], late_text(s.get("late", {}))])
    return out.getvalue()


def late_text(late, lang="en"):
    """``ex03 2 h 5 min late; ex05 10 min late`` from ``{exercise: seconds}``; empty when nothing was late.

    In English by default (the gradebook's CSV); ``lang=None`` words it in the learner's language.

    Examples
    --------
    >>> late_text({"ex03": 7500.0, "ex05": 30.0})
    'ex03 2 h 5 min late; ex05 1 min late'
    """
    def span(seconds):
        minutes = max(1, math.ceil(seconds / 60))
        days, rest = divmod(minutes, 24 * 60)
        hours, minutes = divmod(rest, 60)
        return " ".join(f"{v} {u}" for v, u in ((days, "d"), (hours, "h"), (minutes, "min")) if v) or "0 min"

    return "; ".join(_("{exercise} {span} late", lang).format(exercise=ex, span=span(s)) for ex, s in late.items()
                     if s)


def _letter(title):
    """A part's letter: ``A`` of ``A: fit the serial fraction``."""
    return title.split(":", 1)[0].strip()


def few_takers(book):
    """Lines for the exercises fewer than half the students handed in, which still count in everyone's maximum."""
    if len(book) < 2:
        return []
    out = []
    for ex in book[0]["exercises"]:
        took = sum(1 for s in book if s["exercises"][ex])
        if took < len(book) / 2:
            out.append(_("{exercise} was handed in by {took} of {n} students and counts in everyone's maximum; give "
                         "--exercises to grade only what was assigned").format(exercise=ex, took=took, n=len(book)))
    return out


def _safe(text):
    """A cell a spreadsheet will not run as a formula (a folder named ``=cmd|...``)."""
    text = str(text)
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def read_overrides(path):
    """Regrades from a CSV with the columns ``student``, ``exercise``, ``part``, ``points`` and ``reason``.

    ``part`` is a part's letter (``A``) or its whole title; a row whose first cell starts with ``#`` is
    a comment. ``ValueError`` names the file, the line and what is wrong.
    """
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as err:
        raise ValueError(_("{option} {path}: cannot be read ({reason})").format(
            option="--overrides", path=path, reason=getattr(err, "strerror", None) or err)) from None
    reader = csv.DictReader(io.StringIO(text))
    need = ("student", "exercise", "part", "points", "reason")
    if reader.fieldnames is None or any(k not in reader.fieldnames for k in need):
        raise ValueError(_("--overrides {path}: a CSV with the columns {names} and one row per regrade").format(
            path=path, names=", ".join(need)))
    out = []
    for row in reader:
        where = _("--overrides {path}, line {number}").format(path=path, number=reader.line_num)
        first = (row.get(reader.fieldnames[0]) or "").strip()
        if not any((v or "").strip() for v in row.values() if isinstance(v, str)) or first.startswith("#"):
            continue
        try:
            points = float(row["points"])
        except (TypeError, ValueError):
            raise ValueError(_("{where}: points must be a number; got {value!r}").format(
                where=where, value=row["points"])) from None
        if not math.isfinite(points):
            raise ValueError(_("{where}: points must be a finite number; got {value!r}").format(
                where=where, value=row["points"]))
        try:
            exercise = assigned(row["exercise"] or "")
        except ValueError:
            exercise = []
        if len(exercise) != 1:
            raise ValueError(_("{where}: exercise must be one exercise id such as ex03; got {value!r}").format(
                where=where, value=row["exercise"]))
        if not all((row[k] or "").strip() for k in ("student", "part", "reason")):
            raise ValueError(_("{where}: student, part and reason must not be empty").format(where=where))
        out.append({"student": clean_name(row["student"].strip(), 200), "exercise": exercise[0],
                    "part": row["part"].strip(), "points": points, "reason": clean(row["reason"].strip(), 300)})
    return out


def apply_overrides(submissions, overrides):
    """Set each regraded part's points (within 0 and the part's maximum) on the student's graded notebook.

    The part's feedback says it was regraded, and why; returns one line per regrade, applied or not.
    """
    lines = []
    for o in overrides:
        sub = next((s for s in submissions if s.get("exercise") == o["exercise"] and s.get("parts")
                    and s.get("learner") == o["student"]), None)
        part = None if sub is None else next((p for p in sub["parts"] if p["part"] == o["part"]
                                               or p["part"].split(":", 1)[0].strip() == o["part"]), None)
        if part is None:
            lines.append(f"not applied: {o['student']} {o['exercise']} part {o['part']!r}: no such graded part")
            continue
        was, part["points"] = part["points"], min(max(o["points"], 0.0), part["max_points"])
        part["feedback"] = f"{part['feedback']} [regraded from {was:g} to {part['points']:g}: {o['reason']}]"
        sub["points"] = sum(p["points"] for p in sub["parts"])
        held = "" if part["points"] == o["points"] else f", {o['points']:g} held to the part's 0-{part['max_points']:g}"
        lines.append(f"applied: {o['student']} {o['exercise']} {part['part'].split(':', 1)[0]}: {was:g} -> "
                     f"{part['points']:g}{held} ({o['reason']})")
    return lines
