"""``perfcourse grade PATH...``: grade submitted exercise notebooks and print a score table.

Exit status: 0 when grading completed, whatever the scores; 1 when the total is below
``--fail-under``, or a path is not a notebook, or a notebook cannot be read; 2 when the
grader itself failed (a path that does not exist, nothing to grade, a gradebook that cannot
be written, no sandbox, a kernel that would not start). See :mod:`perfcourse.grading.grade`.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from .._lang import _, ngettext
from . import CommandError, language
from ._output import output_file

TAKES_PATHS = True    # a word that names a file or folder here is a path, even when it looks like an option


def _percent(text):
    """A percentage from 0 to 100, for ``--fail-under``."""
    import argparse

    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 <= value <= 100:
        raise argparse.ArgumentTypeError(_("must be a percentage from 0 to 100; got {text!r}", language()).format(
            text=text))
    return value


def add_arguments(parser):
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help=_("notebooks, or folders of them (searched recursively)"))
    parser.add_argument("--json", metavar="FILE", help=_("also write the scores as JSON (a gradebook)"))
    parser.add_argument("--csv", metavar="FILE",
                        help=_("also write one row per student, a column per exercise and part (Canvas or Moodle "
                               "import)"))
    parser.add_argument("--feedback", metavar="DIR",
                        help=_("also write one Markdown file per student: points, messages, the first failing cell"))
    parser.add_argument("--roster", metavar="FILE",
                        help=_("every student's id (a folder name), one per line or a CSV column: who handed in "
                             "nothing is listed too"))
    parser.add_argument("--overrides", metavar="FILE",
                        help=_("regrades: a CSV of student, exercise, part, points, reason, applied and reported"))
    parser.add_argument("--due", metavar="TIME", default=None,
                        help=_("the due time, e.g. 2026-12-01T23:59 (local time) or with +08:00: a notebook modified "
                             "after it is marked late, by how much; scores are not changed"))
    parser.add_argument("--exercises", metavar="LIST", default=None,
                        help=_("grade only these exercises, e.g. ex01,ex03; totals and --fail-under count only them"))
    parser.add_argument("--timeout", type=float, default=60.0, metavar="S",
                        help=_("seconds each notebook may run, all cells together (default 60)"))
    parser.add_argument("--memory", type=float, default=2048, metavar="MIB",
                        help=_("memory each notebook may allocate, MiB (default 2048)"))
    parser.add_argument("--part-timeout", type=float, default=None, metavar="S",
                        help=_("seconds each graded part may take on its test inputs (default 10)"))
    parser.add_argument("--fail-under", type=_percent, default=None, metavar="PCT",
                        help=_("exit 1 when the total score is below PCT percent"))
    parser.add_argument("--jobs", type=int, default=1, metavar="N", help=_("notebooks graded at once (default 1)"))
    parser.add_argument("--seed", type=int, default=None, help=_("seed of the random test inputs (default: fresh)"))
    parser.add_argument("--root", metavar="DIR", default=None,
                        help=_("the course folder: relative PATHs are read from it, the grader's answers from its "
                             "solutions/references/, and it is hidden from the submissions (default: the checkout "
                             "this perfcourse runs from)"))
    parser.add_argument("--unsafe", action="store_true",
                        help=_("grade without a sandbox when bubblewrap (bwrap) is missing: NOT contained"))


def _write_atomically(target, text, option):
    """Write ``text`` to a temporary file beside ``target``, then rename it into place."""
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.replace(tmp, target)
    except OSError as err:
        Path(tmp).unlink(missing_ok=True)
        reason = err.strerror or err
        raise CommandError(_("cannot write {option} {path}: {reason}").format(option=option, path=target,
                                                                            reason=reason), code=2) from None


def _due(text):
    """An aware datetime from ``--due`` (ISO 8601; without a zone, this machine's local time)."""
    import datetime as dt

    try:
        when = dt.datetime.fromisoformat(text.strip())
    except ValueError:
        raise ValueError(_("--due must be a time such as 2026-12-01T23:59 or 2026-12-01T23:59+08:00; got {text!r}")
                         .format(text=text)) from None
    return when if when.tzinfo is not None else when.astimezone()


def _feedback_folder(path, graded):
    """The folder for ``--feedback``: an existing folder, or a new one in a folder that exists, outside
    every folder graded (a student's files never land among the submissions)."""
    folder = Path(path).absolute()
    for given in graded:
        inside = Path(os.path.realpath(given))
        if Path(os.path.realpath(folder)).is_relative_to(inside):
            raise CommandError(_("--feedback {path} is inside the submissions {given}; write it elsewhere").format(
                path=path, given=given), code=2)
    if folder.exists() and not folder.is_dir():
        raise CommandError(_("cannot write --feedback {path}: it is a file, not a folder").format(path=path), code=2)
    if not folder.exists():
        output_file("--feedback", path)           # its parent must exist and be writable
    elif not os.access(folder, os.W_OK | os.X_OK):
        raise CommandError(_("cannot write --feedback {path}: the folder is not writable").format(path=path), code=2)
    return folder


def _course_root(root):
    if root is not None:
        if not Path(root).is_dir():
            raise CommandError(_("--root must be a folder; {root!r} is not").format(root=root), code=2)
        return Path(root)
    from .course import checkout_root

    return checkout_root()


def _final_status(book, fail_under):
    from ..grading.report import clean, percent

    if book["errors"]:
        raise CommandError(_("grader failures above"), code=2)
    if not book["submissions"]:
        where = ", ".join(book["empty"]) or _("the given paths")
        raise CommandError(_("no notebooks (*.ipynb) in {where}").format(where=where), code=2)
    if book["failures"]:
        more = _(" (and {n} more, listed above)").format(n=len(book["failures"]) - 1) if len(book["failures"]) > 1 \
            else ""
        raise CommandError(clean(book["failures"][0], 300) + more)
    if fail_under is not None and percent(book["points"], book["max_points"]) < fail_under:
        raise CommandError(_("total {percent} is below --fail-under {limit}").format(
            percent=f"{book['percent']:.1f}%", limit=f"{fail_under:g}%"))
    return 0


def run(args):
    from ..grading.checks import PART_TIMEOUT_S
    from ..grading.checks._answers import REFERENCES
    from ..grading.classbook import assigned, csv_text, few_takers, read_overrides, read_roster
    from ..grading.grade import grade, private
    from ..grading.report import clean, student_table, table
    from ..grading.sandbox import SandboxError

    target = output_file("--json", args.json) if args.json else None
    sheet = output_file("--csv", args.csv) if args.csv else None
    letters = _feedback_folder(args.feedback, args.paths) if args.feedback else None
    try:
        only = assigned(args.exercises) if args.exercises is not None else None
        roster = read_roster(args.roster) if args.roster is not None else None
        overrides = read_overrides(args.overrides) if args.overrides is not None else []
        due = _due(args.due) if args.due is not None else None
    except ValueError as err:
        raise CommandError(clean(err, 300), code=2) from None
    root = _course_root(args.root)
    paths = [p if args.root is None or Path(p).is_absolute() else str(Path(args.root) / p) for p in args.paths]
    try:
        book = grade(paths, timeout_s=args.timeout, memory_mb=args.memory, seed=args.seed, jobs=args.jobs,
                     part_timeout_s=PART_TIMEOUT_S if args.part_timeout is None else args.part_timeout,
                     progress=None, unsafe=args.unsafe, exercises=only, roster=roster, overrides=overrides, due=due,
                     references=None if root is None else Path(root) / REFERENCES,
                     hide=[p for p in (root, target.parent if target else None, sheet.parent if sheet else None,
                                       letters) if p is not None])
    except (ValueError, TypeError, SandboxError) as err:
        raise CommandError(clean(err, 500), code=2) from None
    if not any(sub["exercise"] for sub in book["submissions"]) and (book["failures"] or book["submissions"]):
        # nothing was graded: the reason alone, no empty table, and no gradebook written
        first = book["failures"][0] if book["failures"] else _("no exercise notebook among the given paths")
        raise CommandError(_("nothing graded: {reason}").format(reason=clean(first, 300)),
                           code=1 if book["failures"] else 2)
    contained = _("contained (bubblewrap)") if book["contained"] else _("NOT contained (--unsafe)")
    print("perfcourse grade: " + _("seed {seed}, time limit {limit:g} s per notebook, {contained}").format(
        seed=book["seed"], limit=book["timeout_s"], contained=contained))
    print(table(book["submissions"], book["warnings"]))
    for line in book["regrades"]:
        print(_("regrade {line}").format(line=clean(line, 300)))
    if len(book["students"]) > 1 or roster is not None or only is not None:
        print(student_table(book["students"]))
        if only is None:
            for line in few_takers(book["students"]):
                print(_("note: {note}").format(note=line))
    if target is not None:
        _write_atomically(target, json.dumps(private(book), indent=2, ensure_ascii=True, allow_nan=False) + "\n",
                          "--json")
        print(_("wrote {path}").format(path=clean(args.json)))
    if sheet is not None:
        _write_atomically(sheet, csv_text(book["students"]), "--csv")
        print(_("wrote {path}").format(path=clean(args.csv)))
    if letters is not None:
        from ..grading.feedback import write_feedback

        try:
            written = write_feedback(letters, book)
        except OSError as err:
            raise CommandError(_("cannot write {option} {path}: {reason}").format(
                option="--feedback", path=args.feedback, reason=err.strerror or err), code=2) from None
        print(ngettext("wrote {n} feedback file to {folder}", "wrote {n} feedback files to {folder}",
                       len(written)).format(n=len(written), folder=clean(args.feedback)))
    for line in book["errors"] + (book["failures"] if len(book["failures"]) > 1 else []):
        print(clean(line), file=sys.stderr)
    return _final_status(book, args.fail_under)
