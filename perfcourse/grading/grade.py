"""``perfcourse grade``: run submitted exercise notebooks and their checks, print a score table.

Give notebooks or folders (a folder per student works; folders are searched recursively).
Each notebook runs in a fresh kernel on a temporary copy, so the submission itself is never
changed, with a time limit, a memory limit and an output limit (see
:mod:`perfcourse.grading.kernel`). A notebook that fails scores 0 on the parts it affects,
with the reason, and grading goes on.

Exit status: 0 when grading completed, whatever the scores; 1 when the total is below
``--fail-under``; 2 when the grader itself failed (a path that does not exist, nothing to
grade, a kernel that would not start).

This is a teaching tool, not a security sandbox: a notebook can do anything the user
running the grader can. Grade untrusted work in a container or under a separate account.
"""

from __future__ import annotations

import re
import secrets
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from .. import __version__
from .._check import positive_int, real
from .checks import PART_TIMEOUT_S, exercises
from .report import gradebook, score, skipped

__all__ = ["find_notebooks", "exercise_of", "grade_notebook", "grade"]


def find_notebooks(paths):
    """``(shown name, path)`` for each notebook in ``paths``: files as given, folders searched.

    Checkpoint copies (``.ipynb_checkpoints``) are left out. The shown name is the path as
    given on the command line joined with the notebook's place inside a folder.
    """
    found = []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            for nb in sorted(path.rglob("*.ipynb")):
                if ".ipynb_checkpoints" not in nb.parts:
                    found.append((str(Path(given) / nb.relative_to(path)), nb))
        elif path.is_file():
            found.append((str(given), path))
        else:
            raise ValueError(f"PATH must be a notebook or a folder of notebooks; {given!r} does not exist")
    return found


def exercise_of(nb, path):
    """The exercise id of a notebook: ``metadata.perfcourse.exercise``, else its ``NN_`` file name.

    Examples
    --------
    >>> exercise_of({"metadata": {}}, Path("alice/03_amdahl.ipynb"))
    'ex03'
    >>> exercise_of({"metadata": {"perfcourse": {"exercise": "ex05"}}}, Path("x.ipynb"))
    'ex05'
    >>> exercise_of({"metadata": {}}, Path("notes.ipynb")) is None
    True
    """
    meta = nb.get("metadata", {}).get("perfcourse", {})
    wanted = meta.get("exercise") if isinstance(meta, dict) else None
    if wanted is None:
        match = re.match(r"^(\d\d)_", Path(path).name)
        wanted = f"ex{match.group(1)}" if match else None
    return wanted if wanted in exercises() else None


def grade_notebook(shown, path, *, timeout_s, memory_bytes, seed, part_timeout_s=PART_TIMEOUT_S):
    """Grade one notebook; the submission's record for the gradebook."""
    import nbformat  # imported here, with the kernel machinery, so that `perfcourse --help` stays quick

    from .kernel import NotebookRun, run_notebook

    try:
        nb = nbformat.read(path, as_version=4)
    except Exception as err:  # noqa: BLE001 - an unreadable file is the submission's problem, not the grader's
        nb, unreadable = nbformat.v4.new_notebook(), f"the notebook could not be read ({type(err).__name__})"
    else:
        unreadable = None
    exercise = exercise_of(nb, path)
    if exercise is None:
        return skipped(shown, unreadable or "not a perfcourse exercise (no metadata perfcourse.exercise, "
                                            "no NN_ file name)")
    if unreadable:
        run = NotebookRun(fatal=unreadable)
    else:
        run = run_notebook(path, nb, exercise, timeout_s=timeout_s, memory_bytes=memory_bytes, seed=seed,
                           part_timeout=part_timeout_s)
    parts = score(exercise, [c.source for c in nb.cells if c.cell_type == "code"], run)
    problems = [f.describe() for f in run.failures] + ([run.fatal] if run.fatal else [])
    return {"submission": shown, "exercise": exercise, "points": sum(p["points"] for p in parts),
            "max_points": sum(p["max_points"] for p in parts), "parts": parts, "problems": problems,
            "seconds": round(run.seconds, 3)}


def grade(paths, *, timeout_s=60.0, memory_mb=2048, seed=None, jobs=1, part_timeout_s=PART_TIMEOUT_S,
          progress=True):
    """Grade every notebook in ``paths``; the gradebook as a dict (see :func:`report.gradebook`).

    A grader failure on one notebook (for example a kernel that would not start) is recorded
    under ``"errors"`` and the others are still graded.
    """
    timeout_s = real("timeout_s", timeout_s, low=0, low_open=True)
    memory_mb = real("memory_mb", memory_mb, low=64)
    jobs = positive_int("jobs", jobs)
    seed = secrets.randbits(32) if seed is None else positive_int("seed", seed, low=0)
    found = find_notebooks(paths)
    part_timeout_s = real("part_timeout_s", part_timeout_s, low=0, low_open=True)
    options = {"timeout_s": timeout_s, "memory_bytes": int(memory_mb * 2**20), "seed": seed,
               "part_timeout_s": part_timeout_s}
    from tqdm.auto import tqdm

    records, errors = [None] * len(found), []
    with ThreadPoolExecutor(max_workers=jobs) as pool, \
            tqdm(total=len(found), desc="grading", unit="notebook", disable=not progress) as bar:
        futures = {pool.submit(grade_notebook, shown, path, **options): i
                   for i, (shown, path) in enumerate(found)}
        try:
            for future in as_completed(futures):
                i = futures[future]
                try:
                    records[i] = future.result()
                except Exception as err:  # noqa: BLE001 - one notebook's failure must not stop the class
                    errors.append(f"{found[i][0]}: the grader failed: {type(err).__name__}: {err}")
                    records[i] = skipped(found[i][0], "the grader failed on this notebook")
                bar.update(1)
        except KeyboardInterrupt:
            pool.shutdown(wait=False, cancel_futures=True)   # notebooks already running finish or time out
            raise
    book = gradebook(records, perfcourse=__version__, seed=seed, timeout_s=timeout_s,
                     memory_limit_mb=memory_mb, part_timeout_s=part_timeout_s)
    book["errors"] = errors
    return book
