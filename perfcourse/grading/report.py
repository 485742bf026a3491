"""Turn notebook runs into scores: merge cell failures into parts, print the table, build the JSON.

Every text that comes from a submission (file names, error names and messages, feedback)
goes through :func:`clean` before it is stored or printed: no control characters, no
terminal escape sequences, no bidirectional overrides, one line, bounded length.

The tables speak the learner's language (``PERFCOURSE_LANG``): their headings, totals and the
grader's own warnings; the parts' titles and feedback are the checks' own words, in English.
"""

from __future__ import annotations

import re
import unicodedata

from .._lang import _, lookup, ngettext, pad, width
from .checks import parts

__all__ = ["clean", "clean_name", "points_text", "score", "skipped", "table", "student_table", "gradebook",
           "percent"]

_UNSAFE_CHARS = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff"
                           "\ud800-\udfff]")


def clean(text, limit=1000):
    r"""``text`` safe to print: control and formatting characters become ``?``, at most ``limit`` characters.

    Examples
    --------
    >>> clean("ok\x1b[2J\rTotal: 7/7\nnext")
    'ok?[2J?Total: 7/7 next'
    """
    if not isinstance(limit, int) or limit < 4:
        raise ValueError(f"limit must be a whole number >= 4; got {limit!r}")
    text = str(text).replace("\r\n", " ").replace("\n", " ").replace("\t", " ")
    text = _UNSAFE_CHARS.sub("?", text)
    if not text.isascii():      # every other invisible or format character (categories Cc, Cf, Co, Cs, Zl, Zp)
        text = "".join("?" if unicodedata.category(c) in _INVISIBLE else c for c in text)
    return text if len(text) <= limit else text[: limit - 3] + "..."


_INVISIBLE = {"Cc", "Cf", "Co", "Cs", "Cn", "Zl", "Zp"}
_LOOKALIKE_SCRIPTS = ("CYRILLIC", "GREEK", "ARMENIAN", "CHEROKEE", "COPTIC", "FULLWIDTH", "MATHEMATICAL",
                      "LETTERLIKE", "MODIFIER", "SMALL CAPITAL", "LATIN LETTER SMALL CAPITAL")


def clean_name(text, limit=1000):
    r"""A submission's name safe to print and unambiguous: :func:`clean`, and look-alike letters shown as escapes.

    A letter that reads like a Latin one but is not (Cyrillic ``а``, Greek ``ο``, fullwidth or
    mathematical forms) is written ``\uXXXX`` when the name also holds Latin letters, so that
    ``аlice`` cannot pass for ``alice``. Names in one other script (``张伟``) are kept.

    Examples
    --------
    >>> clean_name("class/\u0430lice/03_amdahl.ipynb")
    'class/\\u0430lice/03_amdahl.ipynb'
    >>> clean_name("class/张伟/03_amdahl.ipynb"), clean_name("bob\u200b")
    ('class/张伟/03_amdahl.ipynb', 'bob?')
    """
    text = clean(text, limit)
    if text.isascii():
        return text
    def lookalike(c):
        return c.isalpha() and not c.isascii() and unicodedata.name(c, "").startswith(_LOOKALIKE_SCRIPTS)
    if not any(c.isascii() and c.isalpha() for c in text) and not any(
            unicodedata.name(c, "").startswith(("FULLWIDTH", "MATHEMATICAL")) for c in text):
        return text
    return "".join(f"\\u{ord(c):04x}" if lookalike(c) else c for c in text)


def _defining_cell(name, sources):
    """1-based number of the last code cell that defines ``name`` (def or assignment), or None.

    Examples
    --------
    >>> _defining_cell("f", ["x = 1", "def f(a):\\n    return a", "f(2)"])
    2
    """
    pattern = re.compile(rf"^[ \t]*(def[ \t]+{re.escape(name)}[ \t]*\(|{re.escape(name)}[ \t]*=[^=])", re.M)
    found = [i for i, src in enumerate(sources, start=1) if pattern.search(src)]
    return found[-1] if found else None


def _affected(needs, sources, failures):
    by_cell = {f.cell: f for f in failures}
    for name in needs:
        failure = by_cell.get(_defining_cell(name, sources))
        if failure is not None:
            return failure
    return None


def score(exercise, sources, run):
    """Part results of one submission: the checks' verdicts, zeroed where the notebook failed.

    A part scores 0 with the notebook's reason when the run stopped early (time limit, dead
    kernel) or when the code cell defining one of the part's functions failed.
    """
    specs = parts(exercise)
    fatal = run.fatal
    if fatal is None and (not isinstance(run.parts, list) or len(run.parts) != len(specs)):
        fatal = "the notebook was not checked"
    results = []
    for i, spec in enumerate(specs):
        if fatal is not None:
            points, feedback = 0.0, fatal
        else:
            points = min(max(float(run.parts[i]["points"]), 0.0), spec.points)
            feedback = run.parts[i]["feedback"]
            failure = _affected(spec.needs, sources, run.failures)
            if failure is not None and feedback != "not implemented":
                points, feedback = 0.0, failure.describe()
        results.append({"part": spec.title, "points": points, "max_points": spec.points, "feedback": clean(feedback)})
    return results


def skipped(submission, reason):
    """The record of a notebook the grader did not grade (not an exercise)."""
    return {"submission": clean_name(submission), "exercise": None, "points": 0.0, "max_points": 0.0,
            "parts": [], "problems": [clean(f"skipped: {reason}")], "seconds": 0.0}


def _notebooks(n):
    return ngettext("{n} graded notebook", "{n} graded notebooks", n).format(n=n)


def points_text(x):
    """Points as the tables print them: ``7``, ``2.5``.

    Examples
    --------
    >>> points_text(7.0), points_text(2.5)
    ('7', '2.5')
    """
    return f"{x:g}"


_fmt = points_text


def table(submissions, warnings=()):
    """The score table as text: one row per part, a total per submission, then the grand total.

    ``warnings`` are printed above and below the table (grading that was not contained).
    """
    rows = [(_("submission"), _("part"), _("points"), _("feedback"))]
    notes = []
    for sub in submissions:
        name = clean_name(sub["submission"])
        for r in sub["parts"]:
            rows.append((name, clean(r["part"]), f"{_fmt(r['points'])}/{_fmt(r['max_points'])}", clean(r["feedback"])))
        if sub["parts"]:
            rows.append((name, _("total"), f"{_fmt(sub['points'])}/{_fmt(sub['max_points'])}", ""))
        notes += [f"{name}: {clean(p)}" for p in sub["problems"]]
    widths = [max(width(row[k]) for row in rows) for k in range(3)]
    lines = ["  ".join(pad(cell, w) for cell, w in zip(row[:3], widths, strict=True)) + "  " + row[3]
             for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths) + "  --------")
    got, total = _totals(submissions)
    lines.append("\n" + _("Total: {got}/{total} points ({percent:.1f}%) over {notebooks}").format(
        got=_fmt(got), total=_fmt(total), percent=percent(got, total),
        notebooks=_notebooks(sum(1 for s in submissions if s["parts"]))))
    if notes:
        lines += ["", _("Notes:")] + [f"  {n}" for n in notes]
    warnings = [clean(lookup(w)) for w in warnings]     # the grader's own warnings, in the learner's language
    lines = warnings + lines + ([""] + warnings if warnings else [])
    return "\n".join(line.rstrip() for line in lines)


def student_table(students):
    """One line per student: points per exercise ("-" when not submitted), the total and the status."""
    from .classbook import late_text

    columns = list(students[0]["exercises"]) if students else []
    rows = [(_("student"), *columns, _("total"), "")]
    for s in students:
        cells = [_fmt(s["exercises"][ex]["points"]) if s["exercises"][ex] else "-" for ex in columns]
        status = "; ".join(x for x in ("" if s["status"] == "graded" else lookup(s["status"]),
                                       late_text(s.get("late", {}), lang=None)) if x)
        rows.append((clean_name(s["student"], 60), *cells, f"{_fmt(s['points'])}/{_fmt(s['max_points'])} "
                     f"({s['percent']:.1f}%)", status))
    widths = [max(width(row[k]) for row in rows) for k in range(len(rows[0]) - 1)]
    lines = ["  ".join(pad(c, w) for c, w in zip(row[:-1], widths, strict=True)) + "  " + row[-1] for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n" + "\n".join(line.rstrip() for line in lines)


def _totals(submissions):
    return sum(s["points"] for s in submissions), sum(s["max_points"] for s in submissions)


def percent(got, total):
    """Score as a percentage; 0 when there was nothing to score.

    Examples
    --------
    >>> percent(6, 8)
    75.0
    >>> percent(0, 0)
    0.0
    """
    return 100.0 * got / total if total else 0.0


def gradebook(submissions, **settings):
    """The JSON-ready gradebook: settings, every submission with its parts, and the totals."""
    got, total = _totals(submissions)
    return {**settings, "submissions": submissions, "points": got, "max_points": total,
            "percent": round(percent(got, total), 3)}
