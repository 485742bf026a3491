"""The self-check's stored answers, ``checks/cases/exNN.json``: recorded while the solutions are checked.

A learner's install carries no reference code, so the notebook's self-check replays answers
stored for one seed (:mod:`perfcourse.grading.checks._answers`). ``perfcourse make-exercises``
writes them: it runs each solution notebook in this process (the course's own, trusted code), grades
it with the references in ``solutions/references/`` behind a recorder, and keeps every answer the
checks asked for. A file carries a stamp of the checks and references it came from, so
``make-exercises --check`` finds a stale one without running anything.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from .checks import exercises, grade_namespace
from .checks._answers import Answers, Recorder, case_file, cases_text, load_cases, references_folder, stamp

__all__ = ["SEED", "solution_namespace", "record", "stale", "refresh"]

SEED = 20261202          # the seed of every stored case: the self-check's inputs are always these


def solution_namespace(path):
    """Run a solution notebook's code cells here, as Jupyter would (``In`` is its history), but its self-check."""
    import nbformat

    namespace, history = {"__name__": "__notebook__"}, []
    namespace["In"] = history
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        for cell in nbformat.read(path, as_version=4).cells:
            if cell.cell_type == "code" and "self_check(" not in cell.source:
                history.append(cell.source)
                exec(compile(cell.source, str(path), "exec"), namespace)  # noqa: S102 - the course's own solution
    return namespace


def record(exercise, namespace, folder=None, seed=SEED):
    """The cases file text of ``exercise``: its solution's ``namespace`` graded with recorded references.

    Raises ``ValueError`` when the solution does not score full marks (its answers would be wrong).
    """
    recorder = Recorder(Answers(exercise, folder))
    results = grade_namespace(exercise, namespace, seed=seed, ref=recorder)
    short = [r for r in results if r["points"] != r["max_points"]]
    if short:
        raise ValueError(f"the solution of {exercise} scores {short[0]['points']:g}/{short[0]['max_points']:g} on "
                         f"{short[0]['part']!r} ({short[0]['feedback']}): its answers would not be stored")
    return cases_text(exercise, seed, stamp(exercise, references_folder(folder)), recorder.records)


def stale(folder=None):
    """``{exercise: why}`` for each exercise whose stored cases are missing or older than its checks or references."""
    folder = references_folder(folder)
    found = {}
    for exercise in exercises():
        try:
            _, digest, _ = load_cases(exercise)
        except ValueError:
            found[exercise] = f"missing: {case_file(exercise)}"
            continue
        if digest != stamp(exercise, folder):
            found[exercise] = f"stale: {case_file(exercise)} (its checks or references changed since it was recorded)"
    return found


def refresh(solutions, folder=None, *, everything=False):
    """Record the stale cases files (or ``everything``) from the notebooks in ``solutions``; the exercises done."""
    folder = references_folder(folder)
    wanted = list(exercises()) if everything else list(stale(folder))
    for exercise in wanted:
        found = sorted(Path(solutions).glob(f"{exercise[2:]}_*.ipynb"))
        if not found:
            raise ValueError(f"no solution notebook {exercise[2:]}_*.ipynb in {solutions} to record {exercise} from")
        text = record(exercise, solution_namespace(found[0]), folder)
        case_file(exercise).parent.mkdir(parents=True, exist_ok=True)
        case_file(exercise).write_text(text, encoding="utf-8")
    return wanted
