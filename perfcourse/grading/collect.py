"""Find the submitted notebooks, read them safely, and pick one per exercise per learner.

Folders are searched (iteratively, at most :data:`MAX_DEPTH` levels and :data:`MAX_ENTRIES`
entries deep: what lies past is one note) without following symbolic links: a link (to a
classmate's notebook, to ``solutions/``) is reported and never graded. A notebook is read
once, before anything runs, through a descriptor opened without following links, at most
:data:`MAX_NOTEBOOK_BYTES`; it is never written. A learner is a folder's first level
(``submissions/alice/...``), or the folder itself for notebooks directly in it; a file named
on the command line is its own learner. A folder that holds no notebook and exactly one folder
(``class/`` above ``class/alice``, ``class/bob``) is passed through: its learners are a level
down. A learner gets one notebook graded per exercise. When most first-level folders hold one
exercise in several folders of their own (``sections/A/alice``, ``sections/A/bob``), the learners
are a level further down, and the search refuses, naming the folders to grade instead.

A ``zh/`` folder beside notebooks holds their Chinese edition (``exercises/zh/``): its
notebooks belong to the same learner as that folder's (in a class folder, which holds no notebook
of its own, a ``zh/`` is a student like any other), and a Chinese exercise grades like its
English twin (the same code). Of two twins the one with fewer ``raise NotImplementedError()``
stubs left is graded (the one the learner worked in; the English one when they tie), and a twin
with the same code as the one graded is not listed again.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from .._lang import EDITION, _
from .checks import exercises

__all__ = ["MAX_NOTEBOOK_BYTES", "MAX_DEPTH", "MAX_ENTRIES", "EDITION", "Entry", "Unreadable", "find_notebooks",
           "read_notebook", "exercise_of", "choose", "twins", "stubs"]

MAX_NOTEBOOK_BYTES = 16 << 20
MAX_DEPTH = 16            # folders below a given folder that are searched
MAX_ENTRIES = 100_000     # files and folders looked at in one learner's folders


@dataclass
class Entry:
    """One thing found: a notebook to read, or (``note``) a path that is reported and not graded."""

    shown: str
    path: Path
    learner: str
    note: str | None = None
    failure: bool = False      # counts as a failed path (exit 1): not a notebook


class Unreadable(ValueError):
    """A notebook that cannot be read; the message says why (with line and column for bad JSON)."""


def _walk(given, root):
    """Notebooks under ``root`` without recursion: at most :data:`MAX_DEPTH` folders deep and
    :data:`MAX_ENTRIES` entries looked at in each learner's folder (a first-level folder, or the
    notebooks beside them); what lies past either is one note, and the other learners are still searched."""
    found, empty, stack, seen = [], True, [(root, 0, None)], {}
    while stack:
        here, depth, owner = stack.pop()
        budget = MAX_ENTRIES - seen.get(owner, 0)
        try:
            with os.scandir(here) as it:      # never more than the budget (and one) in memory
                items = sorted(itertools.islice(it, budget + 1), key=lambda e: e.name)
        except OSError as err:
            found.append((here, f"a folder that cannot be read ({err.strerror}); not searched"))
            continue
        seen[owner] = seen.get(owner, 0) + len(items)
        if owner is not None and len(items) > budget:
            found.append((here, f"not searched: this learner's folders hold more than {MAX_ENTRIES} entries"))
            continue
        folders = []
        for item in items[:budget]:
            path = here / item.name
            if item.is_dir(follow_symlinks=False):
                if item.name == ".ipynb_checkpoints":
                    continue
                if depth + 1 > MAX_DEPTH:
                    found.append((path, f"a folder nested more than {MAX_DEPTH} levels deep; not searched"))
                else:
                    folders.append((path, depth + 1, owner if owner is not None else item.name))
            elif item.is_symlink() and item.is_dir():
                found.append((path, "a symbolic link to a folder; links are not followed"))
            elif item.name.endswith(".ipynb"):
                empty = False
                mode = os.lstat(path).st_mode
                found.append((path, "a symbolic link; links are not followed" if stat.S_ISLNK(mode) else
                              None if stat.S_ISREG(mode) else "not a regular file"))
        if owner is None and len(items) > budget:
            found.append((here, f"only the first {MAX_ENTRIES} entries of this folder were searched"))
        stack += reversed(folders)
    entries = []
    beside = any(len(p.relative_to(root).parts) == 1 and p.name.endswith(".ipynb") for p, _ in found)
    for path, note in found:
        rel = path.relative_to(root)
        own = len(rel.parts) > 1 and (rel.parts[0] != EDITION or not beside)   # zh/ beside notebooks: their edition
        own = own or (len(rel.parts) == 1 and note is not None and path.is_dir())   # a note on a learner's folder
        learner = str(Path(given) / rel.parts[0]) if own else str(given)
        entries.append(Entry(str(Path(given) / rel), path, learner, note))
    return entries, empty and not entries


def _through_single_folders(given, real):
    """``(given, real)`` moved down past folders that hold no notebook and one folder (not a ``zh/``)."""
    for _level in range(MAX_DEPTH):
        try:
            with os.scandir(real) as it:
                items = [e for e in itertools.islice(it, 1001) if e.name != ".ipynb_checkpoints"]
        except OSError:
            break
        folders = [e for e in items if e.is_dir(follow_symlinks=False)]
        if len(folders) != 1 or folders[0].name == EDITION or any(e.name.endswith(".ipynb") for e in items):
            break
        given, real = os.path.join(given, folders[0].name), real / folders[0].name
    return given, real


def _nested_learners(entries, root):
    """Why the first-level folders under ``root`` are not the learners (most hold an exercise in several
    folders of their own: ``A/alice/03_amdahl.ipynb``, ``A/bob/03_amdahl.ipynb``), or None."""
    where = {}
    for entry in entries:
        rel = Path(entry.shown).relative_to(root)
        if entry.note is None and entry.learner != str(root):
            inner = rel.parts[1] if len(rel.parts) > 2 and rel.parts[1] != EDITION else None
            where.setdefault(entry.learner, {}).setdefault(exercise_of({}, entry.path), set()).add(inner)
    nested = {learner: sorted(next(fs - {None} for ex, fs in held.items() if ex and len(fs - {None}) > 1))
              for learner, held in where.items()
              if any(ex and len(fs - {None}) > 1 for ex, fs in held.items())}
    if not nested or 2 * len(nested) <= len(where):
        return None
    first = min(nested)
    learners = ", ".join(str(Path(first) / f) for f in nested[first][:2])
    return (f"the learners are a level further down: {first} holds one exercise in the folders of several "
            f"learners ({learners}); grade {' '.join(sorted(nested)[:3])}{' ...' if len(nested) > 3 else ''} "
            "instead: the folders inside each are then its learners")


def find_notebooks(paths):
    """Entries for ``paths`` (files as given, folders searched) and the folders that held no notebook.

    Raises ``ValueError`` for a path that does not exist, or a folder whose learners are a level further down
    than its first.
    """
    if isinstance(paths, (str, bytes, os.PathLike)):
        raise TypeError("paths must be a list of notebook or folder paths, not one path")
    entries, empty = [], []
    for given in paths:
        path = Path(given)
        if path.is_dir():
            below, real = _through_single_folders(given, Path(os.path.realpath(path)))
            found, nothing = _walk(below, real)
            why = _nested_learners(found, below)
            if why:
                raise ValueError(why)
            entries += found
            empty += [str(given)] * nothing
        elif os.path.lexists(path):
            note = None if path.name.endswith(".ipynb") else "is not a notebook (an .ipynb file)"
            entries.append(Entry(str(given), Path(os.path.realpath(path)), str(given), note, failure=note is not None))
        else:
            raise ValueError(_("PATH must be a notebook or a folder of notebooks; {path!r} does not exist").format(
                path=str(given)))
    return entries, empty


def _json_error(err):
    r"""What is wrong with a notebook's JSON, and where (some of json's messages end in "at" themselves).

    Examples
    --------
    >>> try:
    ...     json.loads('{"a": "x\ty"}')
    ... except json.JSONDecodeError as err:
    ...     _json_error(err)
    'is not valid JSON: Invalid control character at line 1, column 9'
    """
    msg = err.msg[:-3] if err.msg.endswith(" at") else err.msg
    return f"is not valid JSON: {msg} at line {err.lineno}, column {err.colno}"


def read_notebook(path):
    """``(notebook, text)`` of the file at ``path``, opened without following links; :class:`Unreadable`."""
    import nbformat

    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a file path; got {type(path).__name__}")
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as err:
        raise Unreadable(f"cannot be opened ({err.strerror})") from None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise Unreadable("is not a regular file")
        data = f.read(MAX_NOTEBOOK_BYTES + 1)
    if len(data) > MAX_NOTEBOOK_BYTES:
        raise Unreadable(f"is larger than {MAX_NOTEBOOK_BYTES >> 20} MiB")
    try:
        text = data.decode("utf-8")
        json.loads(text)
        nb = nbformat.reads(text, as_version=4)
        sources = [c.source for c in nb.cells if c.cell_type == "code"]
    except UnicodeDecodeError:
        raise Unreadable("is not UTF-8 text") from None
    except json.JSONDecodeError as err:
        raise Unreadable(_json_error(err)) from None
    except Exception as err:  # noqa: BLE001 - any other malformation is the file's problem
        raise Unreadable(f"is not a notebook nbformat can read ({type(err).__name__})") from None
    if not all(isinstance(s, str) for s in sources):
        raise Unreadable("has a code cell whose source is not text")
    return nb, text


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
    meta = nb.get("metadata", {}).get("perfcourse", {}) if isinstance(nb, dict) else {}
    wanted = meta.get("exercise") if isinstance(meta, dict) else None
    if wanted is None:
        match = re.match(r"^(\d\d)_", Path(path).name)
        wanted = f"ex{match.group(1)}" if match else None
    return wanted if isinstance(wanted, str) and wanted in exercises() else None


def twins(a, b):
    """True when entries ``a`` and ``b`` are one notebook in two languages: ``X/name`` and ``X/zh/name``."""
    pa, pb = Path(a.shown), Path(b.shown)
    return pa.name == pb.name and EDITION in (pa.parent.name, pb.parent.name) and (
        pa.parent == pb.parent / EDITION or pb.parent == pa.parent / EDITION)


def stubs(nb):
    """How many code cells of a notebook still hold ``raise NotImplementedError()``."""
    return sum("raise NotImplementedError()" in c.get("source", "") for c in nb.get("cells", [])
               if c.get("cell_type") == "code")


def _depth(entry):
    parts = Path(entry.shown).parts
    return len(parts) - (len(parts) > 1 and parts[-2] == EDITION)    # a zh/ twin sits as near as its English


def choose(candidates, left=None):
    """Pick one per learner and exercise from ``(entry, exercise, payload)`` triples.

    Returns ``(chosen, passed)``: ``(entry, exercise, payload, how many there were)`` for each
    notebook to grade, ``(entry, exercise, payload, the entry chosen instead)`` for the others.
    The one with the fewest stubs left wins (``left(payload)``, when given: a finished copy beats
    an untouched original), then the notebook nearest the learner's folder (a ``zh/`` twin counts
    as near as its English one), then the one with the exercise's own file name, then the first
    by name.
    """
    groups = {}
    for entry, exercise, payload in candidates:
        groups.setdefault((entry.learner, exercise), []).append((entry, payload))
    chosen, passed = [], []
    for (_learner, exercise), group in groups.items():
        own = exercises()[exercise][2:] + ".ipynb"
        group.sort(key=lambda item: (left(item[1]) if left else 0, _depth(item[0]), item[0].path.name != own,
                                     item[0].shown))
        winner = group[0]
        chosen.append((winner[0], exercise, winner[1], len(group)))
        passed += [(entry, exercise, payload, winner[0]) for entry, payload in group[1:]]
    return chosen, passed
