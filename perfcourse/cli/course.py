"""Where the course's notebooks are, and the learner's working copy of them.

Two places can hold the lessons (``notebooks/``) and the graded exercises (``exercises/``), each
with its Chinese edition in ``zh/`` (``notebooks/zh/``, ``exercises/zh/``):

- a **checkout**: the package sits in a clone of the course's repository (an editable
  install), recognised by ``notebooks/00_start_here.ipynb`` beside the package folder;
- the **packaged copy**: a built wheel carries both folders under ``perfcourse/course/``.

``perfcourse site`` and ``perfcourse present`` read either directly. ``perfcourse lab`` opens
the checkout itself; otherwise it copies the packaged course into a working folder
(``./perfcourse-course`` by default) with :func:`sync` and opens that. The copy never
overwrites a file the learner has changed: the working folder keeps a manifest of the hash
of every file it wrote, a file still equal to what was written is updated, and a changed
file is kept (and named, when this version of the course brings a newer copy of it).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from .._course import FOLDERS, PACKAGED, checkout_root, course_notebooks, holds_course
from .._course import PACKAGE as _PACKAGE
from .._lang import EDITION, _, ngettext
from ..teach.lessons import FIRST

__all__ = ["FOLDERS", "EDITION", "MANIFEST", "WORK_DIR", "checkout_root", "packaged_root", "source_root", "lessons_dir",
           "default_work_dir", "Plan", "plan", "sync", "describe"]

MANIFEST = ".perfcourse-manifest.json"
WORK_DIR = "perfcourse-course"
_holds_course = holds_course


def packaged_root():
    """``perfcourse/course`` inside an installed wheel, or None when the package carries no lessons."""
    root = _PACKAGE / PACKAGED
    return root if _holds_course(root) else None


def source_root():
    """The folder holding ``notebooks/`` and ``exercises/``: the checkout, else the packaged copy.

    Raises ``FileNotFoundError`` when neither exists (a package built without its lessons).
    """
    root = checkout_root() or packaged_root()
    if root is None:
        raise FileNotFoundError(_("this perfcourse package has no lessons: neither a checkout of the course nor "
                                  "a packaged copy holds notebooks/{notebook}; reinstall it from a wheel or from "
                                  "the course's repository").format(notebook=FIRST.notebook))
    return root


def lessons_dir():
    """The ``notebooks/`` folder to read lessons from (see :func:`source_root`)."""
    return source_root() / "notebooks"


def default_work_dir(cwd=None):
    """The working folder ``perfcourse lab`` uses without ``--dir``.

    The current folder or one above it when it holds a manifest (the learner is inside a working
    folder already), else ``./perfcourse-course``.
    """
    here = Path(cwd or os.getcwd()).resolve()
    for folder in (here, *here.parents):
        if (folder / MANIFEST).is_file():
            return folder
    return here / WORK_DIR


def describe():
    """One line for ``perfcourse doctor``: where the lessons come from."""
    if checkout_root():
        return _("checkout at {folder}").format(folder=checkout_root())
    if packaged_root():
        return _("packaged with perfcourse ({folder}); perfcourse lab copies it into ./{work} or --dir").format(
            folder=packaged_root(), work=WORK_DIR)
    return _("missing: this package was built without its lessons")


def _sha256(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def _files(source):
    """``{relative path: absolute path}`` of the notebooks in the course folders of ``source`` and their ``zh/``."""
    return {rel.as_posix(): p for p, rel in course_notebooks(source, EDITION)}


def _read_manifest(work):
    try:
        data = json.loads((Path(work) / MANIFEST).read_text(encoding="utf-8"))
        files = data["files"]
    except (OSError, ValueError, KeyError, TypeError):
        return {}
    return {str(k): str(v) for k, v in files.items()} if isinstance(files, dict) else {}


@dataclass
class Plan:
    """What :func:`sync` does with each relative path.

    ``copy``: missing, written; ``update``: unchanged since written, replaced by a newer copy; ``keep``:
    changed (or not written by perfcourse) while a different copy is on offer, kept and named; ``yours``:
    changed by the learner, with no newer copy on offer, left alone; ``current``: equal to the source.
    """

    source: Path
    work: Path
    copy: list = field(default_factory=list)
    update: list = field(default_factory=list)
    keep: list = field(default_factory=list)
    yours: list = field(default_factory=list)
    current: list = field(default_factory=list)
    hashes: dict = field(default_factory=dict)
    written: dict = field(default_factory=dict)

    def summary(self):
        """Lines telling the learner what was (or would be) done; the kept files named."""
        lines = []
        if self.copy:
            lines.append(ngettext("copied {n} notebook into {work}", "copied {n} notebooks into {work}",
                                  len(self.copy)).format(n=len(self.copy), work=self.work))
        if self.update:
            lines.append(ngettext("updated {n} notebook you had not changed: {names}",
                                  "updated {n} notebooks you had not changed: {names}",
                                  len(self.update)).format(n=len(self.update), names=", ".join(self.update)))
        if self.keep:
            lines.append(ngettext("kept {n} notebook you changed, not replaced by this version's: {names} (rename or "
                                  "delete one and run perfcourse lab again to get a fresh copy)",
                                  "kept {n} notebooks you changed, not replaced by this version's: {names} (rename "
                                  "or delete one and run perfcourse lab again to get a fresh copy)",
                                  len(self.keep)).format(n=len(self.keep), names=", ".join(self.keep)))
        return lines


def plan(source, work):
    """Compare the course in ``source`` with the working folder ``work``; write nothing.

    A file missing from ``work`` is copied; one equal to the source is current; one still equal to
    what the last copy wrote (by the manifest's hash) is updated; any other is the learner's and is
    never written: ``yours`` when the source still holds what was written, else ``keep`` (named).
    """
    source, work = Path(source), Path(work)
    if not _holds_course(source):
        raise FileNotFoundError(_("source must be a course folder holding notebooks/{notebook}; {source!r} is "
                                  "not").format(notebook=FIRST.notebook, source=str(source)))
    if work.exists() and not work.is_dir():
        raise NotADirectoryError(_("the working folder must be a folder; {work!r} is a file").format(work=str(work)))
    written = _read_manifest(work)
    p = Plan(source, work, written=dict(written))
    for rel, src in _files(source).items():
        new = p.hashes[rel] = _sha256(src)
        target = work / rel
        if not target.is_file():
            p.copy.append(rel)
            continue
        now = _sha256(target)
        if now == new:
            p.current.append(rel)
        elif now == written.get(rel):
            p.update.append(rel)
        elif written.get(rel) == new:
            p.yours.append(rel)
        else:
            p.keep.append(rel)
    return p


def sync(source, work):
    """Bring the working folder ``work`` up to date with ``source`` (see :func:`plan`); the :class:`Plan`.

    The manifest records the hash of every file this copy wrote or found current; a kept file
    keeps the hash written before (if any), so it stays the learner's on the next run too.
    """
    p = plan(source, work)
    for rel in p.copy + p.update:
        target = p.work / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(target.name + ".perfcourse-tmp")
        tmp.write_bytes((p.source / rel).read_bytes())
        os.replace(tmp, target)
    manifest = dict(p.written)
    manifest.update({rel: p.hashes[rel] for rel in p.copy + p.update + p.current})
    p.work.mkdir(parents=True, exist_ok=True)
    tmp = p.work / (MANIFEST + ".tmp")
    tmp.write_text(json.dumps({"about": "hashes of the notebooks perfcourse lab copied here; a file that "
                                        "differs from its hash is yours and is never replaced",
                               "files": dict(sorted(manifest.items()))}, indent=1) + "\n", encoding="utf-8")
    os.replace(tmp, p.work / MANIFEST)
    return p
