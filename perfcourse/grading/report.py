"""Turn notebook runs into scores: merge cell failures into parts, print the table, build the JSON."""

from __future__ import annotations

import re

from .checks import parts

__all__ = ["score", "skipped", "table", "gradebook"]


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


def _valid(result, spec):
    return (isinstance(result, dict) and result.get("part") == spec.title
            and isinstance(result.get("points"), (int, float)) and isinstance(result.get("feedback"), str))


def score(exercise, sources, run):
    """Part results of one submission: the checks' verdicts, zeroed where the notebook failed.

    A part scores 0 with the notebook's reason when the run stopped early (time limit, dead
    kernel) or when the code cell defining one of the part's functions failed.
    """
    specs = parts(exercise)
    fatal = run.fatal
    if fatal is None and (not isinstance(run.parts, list) or len(run.parts) != len(specs)
                          or not all(_valid(r, s) for r, s in zip(run.parts, specs, strict=True))):
        fatal = "the checks returned results the grader cannot read"
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
        results.append({"part": spec.title, "points": points, "max_points": spec.points, "feedback": feedback})
    return results


def skipped(submission, reason):
    """The record of a notebook the grader did not grade (not an exercise)."""
    return {"submission": submission, "exercise": None, "points": 0.0, "max_points": 0.0,
            "parts": [], "problems": [f"skipped: {reason}"], "seconds": 0.0}


def _fmt(x):
    return f"{x:g}"


def table(submissions):
    """The score table as text: one row per part, a total per submission, then the grand total."""
    rows = [("submission", "part", "points", "feedback")]
    notes = []
    for sub in submissions:
        for r in sub["parts"]:
            rows.append((sub["submission"], r["part"], f"{_fmt(r['points'])}/{_fmt(r['max_points'])}",
                         r["feedback"]))
        if sub["parts"]:
            rows.append((sub["submission"], "total", f"{_fmt(sub['points'])}/{_fmt(sub['max_points'])}", ""))
        notes += [f"{sub['submission']}: {p}" for p in sub["problems"]]
    widths = [max(len(row[k]) for row in rows) for k in range(3)]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row[:3], widths, strict=True)) + "  " + row[3]
             for row in rows]
    lines.insert(1, "  ".join("-" * w for w in widths) + "  --------")
    got, total = _totals(submissions)
    lines.append(f"\nTotal: {_fmt(got)}/{_fmt(total)} points ({percent(got, total):.1f}%) "
                 f"over {sum(1 for s in submissions if s['parts'])} graded notebook(s)")
    if notes:
        lines += ["", "Notes:"] + [f"  {n}" for n in notes]
    return "\n".join(line.rstrip() for line in lines)


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
