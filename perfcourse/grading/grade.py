"""``perfcourse grade``: grade submitted exercise notebooks; the gradebook.

Give notebooks or folders (a folder per learner works; folders are searched recursively,
links are not followed, and each learner gets one notebook graded per exercise; see
:mod:`perfcourse.grading.collect`). Every notebook is read before anything runs, and never
written. Each runs in its own sandboxed kernel (:mod:`perfcourse.grading.sandbox`) and is
checked from this process (:mod:`perfcourse.grading.session`). A notebook that fails scores
0 on the parts it affects, with the reason, and grading goes on.

Without bubblewrap the grader refuses to run submissions unless ``unsafe=True``; the
gradebook then says that nothing was contained.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from .. import __version__
from .._check import positive_int, real
from .._lang import N_
from .checks import PART_TIMEOUT_S, parts
from .checks._answers import Answers
from .classbook import apply_overrides, students
from .collect import Unreadable, choose, exercise_of, find_notebooks, read_notebook, stubs, twins
from .report import clean, clean_name, gradebook, score, skipped

__all__ = ["PRIVATE_CODE", "private", "UNSAFE_WARNING", "MAX_LEARNER_BYTES", "MAX_LEARNER_NOTEBOOKS",
           "find_notebooks", "exercise_of", "grade"]

MAX_LEARNER_BYTES = 64 << 20      # notebooks read per learner, all together
PRIVATE_CODE = "code"             # a failing cell's code: for the feedback files, never the JSON
MAX_LEARNER_NOTEBOOKS = 200

UNCOMPILED_WARNING = N_("WARNING: kernels were simulated without being compiled for a GPU (no numba-cuda): a kernel "
                        "that is not CUDA may have scored")
UNSAFE_WARNING = N_("WARNING: graded with --unsafe: the notebooks ran as the grader's user, NOT contained (no "
                    "sandbox); their scores cannot be trusted and they could reach this machine's files")


def _zero(exercise, reason):
    return {"parts": [{"part": p.title, "points": 0.0, "max_points": p.points, "feedback": reason}
                      for p in parts(exercise)], "problems": [reason]}


def _load(entries, assigned=None):
    """Read every notebook once to choose what to grade: (notebooks to run, finished records by index, failures).

    Only a small summary of each is kept (the grader reads the chosen ones again when it grades them), and
    a learner's notebooks are read up to :data:`MAX_LEARNER_BYTES` and :data:`MAX_LEARNER_NOTEBOOKS`: past
    either, the rest are skipped with a note. A notebook to run is ``(entry, exercise, index, count)``.
    """
    records, failures, candidates, spent = {}, [], [], {}
    for i, entry in enumerate(entries):
        if entry.note:
            records[i] = skipped(entry.shown, entry.note)
            failures += [f"{entry.shown} {entry.note}"] if entry.failure else []
            continue
        used = spent.setdefault(entry.learner, [0, 0])
        size = _size(entry.path)
        if used[0] + size > MAX_LEARNER_BYTES or used[1] >= MAX_LEARNER_NOTEBOOKS:
            records[i] = skipped(entry.shown, f"not read: this learner's notebooks pass {MAX_LEARNER_BYTES >> 20} MiB "
                                              f"or {MAX_LEARNER_NOTEBOOKS} notebooks in all")
            continue
        used[0], used[1] = used[0] + size, used[1] + 1
        try:
            nb, _ = read_notebook(entry.path)
        except Unreadable as err:
            reason = f"the notebook could not be read: it {err}"
            failures.append(f"{entry.shown}: {reason}")
            exercise = exercise_of({}, entry.path)
            records[i] = (_record(entry.shown, exercise, _zero(exercise, reason)) if exercise
                          else skipped(entry.shown, reason))
            continue
        exercise = exercise_of(nb, entry.path)
        if exercise is not None and assigned is not None and exercise not in assigned:
            records[i] = skipped(entry.shown, f"{exercise} is not among the exercises assigned (--exercises)")
        elif exercise is None:
            why = "not a perfcourse exercise (no metadata perfcourse.exercise, no NN_ file name of an exercise)"
            records[i] = skipped(entry.shown, why)
            failures += [f"{entry.shown} is {why}"] if entry.shown == entry.learner else []    # named on its own
        else:
            candidates.append((entry, exercise, (i, stubs(nb), _digest(_code(nb)))))
        del nb
    chosen, passed = choose(candidates, left=lambda payload: payload[1])
    code = {entry.shown: payload[2] for entry, _, payload in candidates}
    silent = {}
    for entry, exercise, (i, _, _), winner in passed:
        if twins(entry, winner) and code[entry.shown] == code[winner.shown]:
            silent[winner.shown] = silent.get(winner.shown, 0) + 1
            continue            # the same exercise in the other language, with the same code: graded once
        records[i] = skipped(entry.shown, f"another notebook of this learner for {exercise} was graded instead: "
                                          f"{winner.shown} (one notebook per exercise per learner)")
    chosen = [(entry, exercise, i, count - silent.get(entry.shown, 0))
              for entry, exercise, (i, _, _), count in chosen]
    return chosen, records, failures


def _student_names(learners):
    """``{learner path: student name}``: a folder's own name (a file's, for a notebook named alone),
    cleaned, and made unique (``bob (2)``) when two learners would read the same."""
    names, taken = {}, set()
    for learner in learners:
        if learner in names:
            continue
        path = Path(learner)
        own = path.parent.name if path.suffix == ".ipynb" and path.parent.name else path.name   # a file named alone
        base = clean_name(own or str(learner), 200)
        name, k = base, 2
        while name.casefold() in taken:
            name, k = f"{base} ({k})", k + 1
        taken.add(name.casefold())
        names[learner] = name
    return names


def _stamp(records, entries, due):
    """Each graded notebook's modification time (UTC, ISO 8601), and how late it came after ``due``."""
    import datetime as dt

    for i, record in records.items():
        if not record.get("parts"):
            continue
        try:
            mtime = os.lstat(entries[i].path).st_mtime
        except OSError:
            continue
        record["modified"] = dt.datetime.fromtimestamp(mtime, dt.timezone.utc).isoformat(timespec="seconds")
        if due is not None:
            record["late_s"] = round(max(0.0, mtime - due.timestamp()), 1)


def private(book):
    """A copy of the gradebook without what only this process may use (the failing cells' code)."""
    out = dict(book, submissions=[dict(s) for s in book["submissions"]])
    for s in out["submissions"]:
        if "first_failure" in s:
            s["first_failure"] = {k: v for k, v in s["first_failure"].items() if k != PRIVATE_CODE}
    return out


def _digest(code):
    return hashlib.sha256(json.dumps(code).encode("utf-8", "surrogatepass")).hexdigest()


def _size(path):
    try:
        return os.lstat(path).st_size
    except OSError:
        return 0


def _compiler_for(chosen, unsafe):
    """True when the kernels of the chosen exercises will be compiled for a GPU before they are launched.

    Raises :class:`perfcourse.grading.sandbox.SandboxError` when kernel parts are to be graded without
    the compiler and not ``unsafe``: a kernel that is not CUDA must not score.
    """
    from ..cudacompile import missing
    from .sandbox import SandboxError

    kernel_exercises = sorted({exercise for _, exercise, _, _ in chosen if any(p.kernels for p in parts(exercise))})
    reason = missing() if kernel_exercises else None
    if reason and not unsafe:
        raise SandboxError(f"exercises {', '.join(e[2:] for e in kernel_exercises)} grade kernels, which must compile "
                           f"for a GPU first, and {reason}; or pass --unsafe to simulate them uncompiled")
    return reason is None


def _code(nb):
    return [c.source for c in nb.cells if c.cell_type == "code"]


def _record(shown, exercise, outcome, seconds=0.0):
    points = sum(p["points"] for p in outcome["parts"])
    return {"submission": clean_name(shown), "exercise": exercise, "points": points,
            "max_points": sum(p["max_points"] for p in outcome["parts"]), "parts": outcome["parts"],
            "problems": [clean(p) for p in outcome["problems"]], "seconds": round(seconds, 3)}


def _grade_one(sandbox, entry, exercise, count, options):
    from .session import run_submission

    try:
        nb, text = read_notebook(entry.path)        # read again: only the notebooks being graded are held
    except Unreadable as err:
        return _record(entry.shown, exercise, _zero(exercise, f"the notebook could not be read: it {err}"))
    if exercise_of(nb, entry.path) != exercise:
        return _record(entry.shown, exercise, _zero(exercise, "the notebook changed while the class was graded"))
    sources = [c.source for c in nb.cells if c.cell_type == "code"]
    options = {**options, "answers": options["answers"][exercise]}
    run = run_submission(sandbox, entry.path.name, text, sources, exercise, **options)
    problems = [f.describe() for f in run.failures] + ([run.fatal] if run.fatal else [])
    if count > 1:
        problems.append(f"chosen among {count} notebooks of this learner for {exercise}; the others were not graded")
    record = _record(entry.shown, exercise, {"parts": score(exercise, sources, run), "problems": problems},
                     run.seconds)
    if run.failures:                 # which cell, and its code as graded, for the learner's feedback
        first = run.failures[0]
        record["first_failure"] = {"cell": first.cell, "reason": clean(first.reason),
                                   PRIVATE_CODE: first.source}   # not in the JSON gradebook (see private())
    return record


def _run_all(chosen, records, options, jobs, progress, unsafe, hide):
    """Grade the chosen notebooks, ``jobs`` at a time; grader failures as lines. Every kernel is dead after."""
    from tqdm.auto import tqdm

    from .sandbox import Sandbox

    errors = []
    if not chosen:
        return errors
    sandbox = Sandbox(unsafe=unsafe, hide=hide)
    try:
        with ThreadPoolExecutor(max_workers=jobs) as pool, \
                tqdm(total=len(chosen), desc="grading", unit="notebook",
                     disable=None if progress is None else not progress) as bar:
            futures = {pool.submit(_grade_one, sandbox, entry, exercise, count, options): (i, entry)
                       for entry, exercise, i, count in chosen}
            try:
                for future in as_completed(futures):
                    i, entry = futures[future]
                    try:
                        records[i] = future.result()
                    except Exception as err:  # noqa: BLE001 - one notebook's failure must not stop the class
                        errors.append(clean(f"{entry.shown}: the grader failed: {type(err).__name__}: {err}"))
                        records[i] = skipped(entry.shown, "the grader failed on this notebook")
                    bar.update(1)
            except BaseException:
                pool.shutdown(wait=False, cancel_futures=True)
                sandbox.kill_all(stop=True)
                raise
    finally:
        sandbox.kill_all(stop=True)
        sandbox.close()
    return errors


def grade(paths, *, timeout_s=60.0, memory_mb=2048, seed=None, jobs=1, part_timeout_s=PART_TIMEOUT_S,
          progress=True, unsafe=False, hide=(), exercises=None, roster=None, overrides=(), due=None, references=None):
    """Grade every notebook in ``paths``; the gradebook as a dict (see :func:`report.gradebook`).

    ``progress``: show a progress bar (None: only on a terminal). ``hide``: more folders the
    submissions must not see (the course's own folder). Raises
    ``ValueError`` for a path that does not exist, and
    :class:`perfcourse.grading.sandbox.SandboxError` when the sandbox cannot be set up (no
    bubblewrap and not ``unsafe``). A grader failure on one notebook (a kernel that would not
    start) is recorded under ``"errors"`` and the others are still graded; unreadable
    notebooks and paths that are not notebooks are listed under ``"failures"``.

    ``exercises``: the ids assigned (others are skipped, and the totals count only these);
    ``roster``: every student's id, so that one who handed in nothing is listed. The book's
    ``"students"`` holds one record per student (see :mod:`perfcourse.grading.classbook`), and
    its totals are theirs: every student out of the same maximum. ``overrides``: regrades (see
    :func:`perfcourse.grading.classbook.read_overrides`), applied and listed under ``"regrades"``.
    ``due``: a time (an aware ``datetime``); a graded notebook whose file was last modified after it
    carries ``"late_s"``, the seconds it came late (judged from the file's modification time).
    ``references``: the folder of the grader's answers (default: ``solutions/references`` of the
    checkout perfcourse runs from); :class:`perfcourse.grading.checks._answers.NoAnswers` (a
    ``ValueError``) when it is not there, as in a learner's install.
    """
    if isinstance(paths, (str, bytes)) or not all(isinstance(p, (str, bytes)) or hasattr(p, "__fspath__")
                                                   for p in paths):
        raise TypeError("paths must be a list of notebook or folder paths")
    timeout_s = real("timeout_s", timeout_s, low=0, low_open=True)
    memory_mb = real("memory_mb", memory_mb, low=64)
    jobs = positive_int("jobs", jobs)
    seed = secrets.randbits(32) if seed is None else positive_int("seed", seed, low=0)
    part_timeout_s = real("part_timeout_s", part_timeout_s, low=0, low_open=True)
    entries, empty = find_notebooks(paths)
    chosen, records, failures = _load(entries, None if exercises is None else set(exercises))
    answers = {exercise: Answers(exercise, references) for exercise in sorted({e for _, e, _, _ in chosen})}
    from .kernelprobe import Compiled

    compiled = _compiler_for(chosen, unsafe)
    options = {"answers": answers, "timeout_s": timeout_s, "memory_bytes": int(memory_mb * 2**20), "seed": seed,
               "part_timeout": part_timeout_s, "compile_kernels": compiled, "compiled": Compiled()}
    errors = _run_all(chosen, records, options, jobs, progress, unsafe, [*paths, *hide])
    _stamp(records, entries, due)
    names = _student_names(entries[i].learner for i in sorted(records))
    for i, record in records.items():
        record["learner"], record["learner_path"] = names[entries[i].learner], clean_name(entries[i].learner)
    submissions = [records[i] for i in sorted(records)]
    regrades = apply_overrides(submissions, overrides)
    book = gradebook(submissions, perfcourse=__version__, seed=seed,
                     timeout_s=timeout_s, memory_limit_mb=memory_mb, part_timeout_s=part_timeout_s,
                     contained=not unsafe)
    book["students"] = students(submissions, exercises_=exercises, roster=roster)
    book["regrades"] = regrades
    book["due"] = None if due is None else due.isoformat(timespec="minutes")
    if exercises is not None or roster is not None or len(book["students"]) > 1:   # every student, one maximum
        book["points"] = sum(s["points"] for s in book["students"])
        book["max_points"] = sum(s["max_points"] for s in book["students"])
        book["percent"] = round(100.0 * book["points"] / book["max_points"], 3) if book["max_points"] else 0.0
    book.update(errors=errors, failures=[clean(f) for f in failures], empty=[clean(e) for e in empty],
                warnings=([UNSAFE_WARNING] if unsafe else []) + ([] if compiled else [UNCOMPILED_WARNING]))
    return book
