"""``perfcourse translate [--check] [--execute]``: the Chinese edition's catalogs and notebooks.

The catalogs live in ``perfcourse/locale/zh/LC_MESSAGES/`` (gettext's layout; ``.po`` files, see
:mod:`perfcourse.teach.catalog` and :mod:`perfcourse.teach.extract`):

- ``notebooks/NN_slug.po``: the markdown of ``notebooks/NN_slug.ipynb``, by cell id and paragraph;
- ``exercises/NN_slug.po``: the markdown of ``solutions/NN_slug.ipynb`` (the exercises' is the same);
- ``questions.po``: the question bank; ``glossary.po``: the glossary's Chinese terms and definitions;
- ``messages.po``: what the package prints, the widgets' and the figures' labels.

The package reads ``questions``, ``glossary`` and ``messages`` while it runs, compiled: each ``.po``
has its ``.mo`` beside it, written here (as ``msgfmt`` would) and read with the standard library.

``messages.po`` is a catalog of the gettext kind, so Babel extracts, merges and checks it (as
``pybabel extract``/``update`` and ``msgfmt --check`` would). The other catalogs are keyed by where
a paragraph stands (a cell id and its paragraph number, a question and its field), not by their
English: when a paragraph is rewritten its entry must stay in its place and turn fuzzy, where
``msgmerge`` would look for a similar English text anywhere in the file. No gettext tool keys a
catalog by place, so :mod:`perfcourse.teach.catalog` does that part.

Without ``--check`` the command brings every catalog in line with the English (new text gets an
empty entry, changed text turns fuzzy), then writes ``notebooks/zh/`` and ``exercises/zh/`` for
every notebook whose catalog is complete (see :mod:`perfcourse.teach.edition`). ``--execute``
then runs the Chinese lessons (``--lessons`` picks some) so that their stored outputs are the
Chinese ones. ``--check`` writes nothing and fails listing each missing or fuzzy entry, by
notebook, cell and paragraph, and each generated notebook that is missing, stale or extra.
"""

from __future__ import annotations

import io
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .._course import PACKAGE as _PACKAGE
from .._lang import EDITION, _, ngettext
from . import CommandError

LOCALE = Path("perfcourse", "locale", EDITION, "LC_MESSAGES")


def add_arguments(parser):
    parser.add_argument("--root", metavar="DIR", default=None,
                        help=_("the course's repository: notebooks/, solutions/, exercises/ and perfcourse/locale/ "
                             "(default: the checkout this perfcourse runs from)"))
    parser.add_argument("--check", action="store_true",
                        help=_("write nothing; exit 1 listing missing or fuzzy entries and stale Chinese notebooks"))
    parser.add_argument("--execute", action="store_true",
                        help=_("after writing, run the Chinese lessons (PERFCOURSE_LANG=zh) and store their outputs"))
    parser.add_argument("--lessons", type=int, nargs="+", metavar="N", default=None,
                        help=_("with --execute: only these lessons (e.g. 3 5)"))
    parser.add_argument("--timeout", type=float, default=600, metavar="S",
                        help=_("seconds each cell may run with --execute (default 600)"))


@dataclass(frozen=True)
class Unit:
    """One English notebook of the edition: where its text, its catalog and its Chinese twin are."""

    kind: str          # "lesson" or "exercise"
    text: Path         # the notebook the catalog is made from
    english: Path      # the notebook the Chinese one is generated from (the same markdown)
    catalog: Path
    target: Path

    def name(self, root):
        return self.text.relative_to(root).as_posix()


def units(root):
    """Every lesson and exercise of the course in ``root``, in order."""
    out = [Unit("lesson", p, p, root / LOCALE / "notebooks" / f"{p.stem}.po", root / "notebooks" / EDITION / p.name)
           for p in sorted((root / "notebooks").glob("[0-9][0-9]_*.ipynb"))]
    out += [Unit("exercise", p, root / "exercises" / p.name, root / LOCALE / "exercises" / f"{p.stem}.po",
                 root / "exercises" / EDITION / p.name)
            for p in sorted((root / "solutions").glob("[0-9][0-9]_*.ipynb"))]
    return out


def _root(given):
    if given is not None:
        root = Path(given)
        if not (root / "notebooks").is_dir():
            raise CommandError(_("--root must be the course's repository, holding notebooks/; {root!r} is not").format(
                root=given), code=2)
        return root
    from .course import checkout_root

    root = checkout_root()
    if root is None:
        raise CommandError(_("translate needs the course's repository (notebooks/ and perfcourse/locale/), and this "
                             "perfcourse is not installed from one: give --root DIR"), code=2)
    return root


def _read(path):
    import nbformat

    return nbformat.read(path, as_version=4)


def _catalog(path, source_name):
    import polib

    from ..teach.catalog import new_catalog

    return polib.pofile(str(path), wrapwidth=0) if path.is_file() else new_catalog(EDITION, source_name)


def _message_catalog(path):
    """The Babel catalog of the package's messages at ``path`` (an empty one when there is none yet)."""
    try:
        from babel.messages.pofile import read_po
    except ImportError:
        raise CommandError(_("the message catalog is extracted and merged with Babel: pip install babel")) from None

    from ..teach.extract import new_message_catalog

    if not path.is_file():
        return new_message_catalog(EDITION)
    with path.open("rb") as f:
        return read_po(f, locale=EDITION, abort_invalid=True)


def _message_text(catalog):
    from babel.messages.pofile import write_po

    out = io.BytesIO()
    # no previous-msgid ("#|") lines: Babel wraps a long one into lines it cannot read back
    write_po(out, catalog, width=0, omit_header=False, ignore_obsolete=True)
    return out.getvalue().decode("utf-8")


def _save(po, path):
    """Write ``po`` to ``path`` when its text changed; True when written."""
    text = str(po) if hasattr(po, "save") else _message_text(po)
    if path.is_file() and path.read_text(encoding="utf-8") == text:
        return False
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return True


def _compiled(po_path):
    """The ``.mo`` beside ``po_path`` and the bytes it should hold (see :func:`..teach.catalog.compiled`)."""
    import polib

    from ..teach.catalog import compiled

    data = compiled(polib.pofile(str(po_path), wrapwidth=0)) if po_path.is_file() else None
    return po_path.with_suffix(".mo"), data


def _compile(po_path):
    """Compile ``po_path`` to the ``.mo`` beside it, the file the package reads; True when written."""
    mo, data = _compiled(po_path)
    if data is None or (mo.is_file() and mo.read_bytes() == data):
        return False
    tmp = mo.with_name(mo.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, mo)
    return True


def _runtime_catalogs(root):
    """The catalogs the package reads while it runs (the others only generate the Chinese notebooks)."""
    return [root / LOCALE / f"{name}.po" for name, *_rest in _keyed()] + [root / LOCALE / "messages.po"]


def _messages(root):
    """``{English: places}``: the package's ``_()`` messages, its data tables' phrases and the lessons' widget
    labels."""
    from ..teach.extract import data_phrases, package_messages, widget_labels

    try:
        found = package_messages(_PACKAGE)
    except (ValueError, SyntaxError) as err:
        raise CommandError(str(err)) from None
    for msgid, places in data_phrases().items():
        found.setdefault(msgid, []).extend(places)
    for p in sorted((root / "notebooks").glob("[0-9][0-9]_*.ipynb")):
        try:
            labels = widget_labels(_read(p), p.relative_to(root).as_posix())
        except ValueError as err:
            raise CommandError(str(err)) from None
        for msgid, places in labels.items():
            found.setdefault(msgid, []).extend(places)
    return found


def _keyed():
    from ..teach.extract import keyed_catalogs

    return keyed_catalogs()


def update_catalogs(root):
    """Bring every catalog in ``root`` in line with the English; the lines to print."""
    from ..teach.catalog import update, update_entries
    from ..teach.extract import merge_messages

    lines = []
    for unit in units(root):
        po = _catalog(unit.catalog, unit.name(root))
        counts = update(po, _read(unit.text), unit.name(root))
        if _save(po, unit.catalog):
            lines.append(f"{unit.catalog.relative_to(root)}: {_counts(counts)}")
    for name, found, source, _place in _keyed():
        path = root / LOCALE / f"{name}.po"
        po = _catalog(path, name)
        counts = update_entries(po, found, source)
        if _save(po, path):
            lines.append(f"{path.relative_to(root)}: {_counts(counts)}")
    path = root / LOCALE / "messages.po"
    catalog = _message_catalog(path)
    counts = merge_messages(catalog, _messages(root))
    if _save(catalog, path):
        lines.append(f"{path.relative_to(root)}: {_counts(counts)}")
    for path in _runtime_catalogs(root):
        if _compile(path):
            lines.append(_("{path}: compiled").format(path=path.with_suffix(".mo").relative_to(root)))
    return lines


def _counts(counts):
    added, fuzzied, dropped = counts
    return f"{added} new, {fuzzied} fuzzy, {dropped} dropped"


def _expected(root, unit):
    """The Chinese notebook ``unit`` should have, or None with the catalog's first problems."""
    from ..teach.catalog import problems
    from ..teach.edition import generate

    if not unit.english.is_file():
        return None, [f"{unit.english.relative_to(root)} is missing: run  perfcourse make-exercises"]
    english = _read(unit.english)
    if not unit.catalog.is_file():
        return None, [f"{unit.name(root)}: no catalog {unit.catalog.relative_to(root)}; run  perfcourse translate"]
    po = _catalog(unit.catalog, unit.name(root))
    trouble = problems(po, english, unit.name(root))
    if trouble:
        return None, trouble
    previous = _read(unit.target) if unit.target.is_file() else None
    return generate(english, po, unit.kind, previous=previous,
                    source_name=unit.english.relative_to(root).as_posix()), []


def write_notebooks(root):
    """Write the Chinese notebook of every unit whose catalog is complete; ``(written, current, incomplete)``."""
    from ..teach.edition import render, same_notebook

    written, current, incomplete = [], [], []
    for unit in units(root):
        nb, trouble = _expected(root, unit)
        if nb is None:
            incomplete.append((unit, len(trouble)))
        elif unit.target.is_file() and same_notebook(nb, _read(unit.target)):
            current.append(unit)
        else:
            unit.target.parent.mkdir(parents=True, exist_ok=True)
            unit.target.write_text(render(nb), encoding="utf-8")
            written.append(unit)
    return written, current, incomplete


def check(root):
    """Every problem of the Chinese edition in ``root``, one line each; empty when it is complete and current."""
    from ..teach.catalog import entry_problems
    from ..teach.edition import same_notebook
    from ..teach.extract import message_problems

    out = []
    for unit in units(root):
        nb, trouble = _expected(root, unit)
        out += trouble
        if nb is not None and not unit.target.is_file():
            out.append(f"missing: {unit.target.relative_to(root)} (run  perfcourse translate)")
        elif nb is not None and not same_notebook(nb, _read(unit.target)):
            out.append(f"stale: {unit.target.relative_to(root)} (differs from what its English and catalog "
                       "generate; run  perfcourse translate)")
    twins = {u.target for u in units(root)}
    for folder in ("notebooks", "exercises"):
        out += [f"extra: {p.relative_to(root)} (no English notebook generates it)"
                for p in sorted((root / folder / EDITION).glob("*.ipynb")) if p not in twins]
    for name, found, _source, place in _keyed():
        path = root / LOCALE / f"{name}.po"
        out += entry_problems(_catalog(path, name), found, path.relative_to(root).as_posix(), place)
    messages = root / LOCALE / "messages.po"
    out += message_problems(_message_catalog(messages), _messages(root), messages.relative_to(root).as_posix())
    for path in _runtime_catalogs(root):
        mo, data = _compiled(path)
        if data is not None and not (mo.is_file() and mo.read_bytes() == data):
            out.append(_("stale: {path} (not compiled from its .po; run  perfcourse translate)").format(
                path=mo.relative_to(root)))
    return out


def execute(paths, timeout=600):
    """Run each Chinese lesson in ``paths`` in its folder with ``PERFCOURSE_LANG=zh``; store its outputs."""
    import nbformat

    from ..teach.edition import render
    from .runner import environment, execute_notebook

    with tempfile.TemporaryDirectory() as home, environment(PERFCOURSE_LANG=EDITION, PERFCOURSE_HOME=home):
        for path in paths:
            print(_("running {name} ...").format(name=path.name), flush=True)
            nb = execute_notebook(nbformat.read(path, as_version=4), path.parent, timeout)
            path.write_text(render(nb), encoding="utf-8")


def _to_run(root, lessons):
    from ..teach.lessons import lesson

    if lessons is None:
        return sorted((root / "notebooks" / EDITION).glob("[0-9][0-9]_*.ipynb"))
    try:
        paths = [root / "notebooks" / EDITION / lesson(n).notebook for n in lessons]
    except (ValueError, TypeError) as err:
        raise CommandError(str(err), code=2) from None
    missing = [p.name for p in paths if not p.is_file()]
    if missing:
        raise CommandError(_("no Chinese lesson {names} yet: its catalog is incomplete").format(
            names=", ".join(missing)))
    return paths


def run(args):
    root = _root(args.root)
    if not args.timeout > 0:
        raise CommandError(_("--timeout must be a positive number of seconds; got {timeout:g}").format(
            timeout=args.timeout), code=2)
    if args.check:
        if args.execute:
            raise CommandError(_("--check writes nothing, so it cannot be combined with --execute"), code=2)
        if args.lessons is not None:
            raise CommandError(_("--check checks every notebook; --lessons picks the lessons --execute runs"), code=2)
        problems = check(root)
        if problems:
            print("\n".join(problems), file=sys.stderr)
            raise CommandError(ngettext("{n} problem in the Chinese edition; run `perfcourse translate`, translate "
                                        "what is missing or fuzzy, and run it again", "{n} problems in the Chinese "
                                        "edition; run `perfcourse translate`, translate what is missing or fuzzy, and "
                                        "run it again", len(problems)).format(n=len(problems)))
        print(_("the Chinese edition is complete and current: {n} notebooks, every catalog translated").format(
            n=len(units(root))))
        return 0
    if args.lessons is not None and not args.execute:
        raise CommandError(_("--lessons picks the lessons --execute runs; add --execute"), code=2)
    for line in update_catalogs(root):
        print(line)
    written, current, incomplete = write_notebooks(root)
    print(_("Chinese notebooks: wrote {written}, {current} already current, {waiting} waiting for their "
            "catalogs").format(written=len(written), current=len(current), waiting=len(incomplete))
          + "".join(_("\n  {catalog}: {n} entries to translate").format(catalog=u.catalog.relative_to(root), n=n)
                    for u, n in incomplete))
    if args.execute:
        paths = _to_run(root, args.lessons)
        try:
            execute(paths, timeout=args.timeout)
        except Exception as err:  # noqa: BLE001 - a cell that fails: name it, as nbclient words it
            raise CommandError(_("running the Chinese lessons failed: {reason}").format(
                reason=str(err).strip().splitlines()[-1])) from err
    return 0
