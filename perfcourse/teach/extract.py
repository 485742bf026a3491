"""What the Chinese edition translates besides the notebooks' markdown: messages and the question bank.

- **Messages** (``locale/zh/messages.po``): every ``_("...")`` literal in the package's source,
  found with :mod:`ast` (see :mod:`perfcourse._lang`), and the labels of the widgets the
  lessons build (the first argument of ``slider``, ``log_slider`` and ``dropdown`` and a
  dropdown's list of words), found in the lessons' code. An entry is keyed by its English
  (``msgid``), as gettext does; where it is used is kept as its occurrences.
- **The question bank** (``locale/zh/questions.po``): each question's prompt, explanation and
  choices, keyed ``"<question id>#prompt"``, ``"#why"`` and ``"#choice-a"``... like the
  notebooks' paragraphs (see :mod:`perfcourse.teach.catalog`).

Examples
--------
>>> found = source_messages('print(_("{n} workers").format(n=2))\\nx = _("Right.")', "demo.py")
>>> sorted(found)
['Right.', '{n} workers']
"""

from __future__ import annotations

import ast
import difflib
import re
from pathlib import Path

from .._lang import fields
from .catalog import FUZZY

__all__ = ["source_messages", "package_messages", "widget_labels", "question_entries", "update_messages",
           "message_problems", "WIDGET_MAKERS"]

WIDGET_MAKERS = ("slider", "log_slider", "dropdown")
_MAGIC = re.compile(r"^\s*[%!]")
_NAME = re.compile(r"^[A-Za-z]*\d[\w.]*$")     # float32, p99, H200: names, not words to translate


def source_messages(source, where):
    """``{English: [(where, ""), ...]}`` of the ``_("...")`` and ``N_("...")`` calls in Python ``source``.

    A ``_()`` whose argument is not one string literal is a ``ValueError`` naming its line: the
    catalog could not hold it (translate the template, then ``.format`` it).
    """
    found = {}
    for node in ast.walk(ast.parse(source, filename=where)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("_", "N_"):
            arg = node.args[0] if node.args else None
            if not (isinstance(arg, ast.Constant) and isinstance(arg.value, str)):
                raise ValueError(f"{where}, line {node.lineno}: _() must be given one string literal (a template "
                                 "filled with .format afterwards), not an expression or an f-string")
            found.setdefault(arg.value, []).append((where, ""))   # the file only: lines move with every edit
    return found


def package_messages(package):
    """Every ``_("...")`` message in the ``.py`` files under the folder ``package``, with where it is used."""
    package = Path(package)
    found = {}
    for path in sorted(package.rglob("*.py")):
        if "__pycache__" in path.parts:
            continue
        rel = path.relative_to(package.parent).as_posix()
        for msgid, places in source_messages(path.read_text(encoding="utf-8"), rel).items():
            found.setdefault(msgid, []).extend(places)
    return found


def _code(cell):
    source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
    return "\n".join("" if _MAGIC.match(line) else line for line in source.split("\n"))


def _strings(node):
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [node.value]
    if isinstance(node, (ast.List, ast.Tuple)):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def widget_labels(nb, where):
    """``{English: [(where, "")]}``: the labels of the widgets a notebook's code builds.

    The first argument of every ``slider``/``log_slider``/``dropdown`` call (the label) and, for a
    dropdown, the words of a literal list of options.
    """
    found = {}
    for cell in nb["cells"]:
        if cell["cell_type"] != "code":
            continue
        try:
            tree = ast.parse(_code(cell))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            func = node.func if isinstance(node, ast.Call) else None
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name not in WIDGET_MAKERS or not node.args:
                continue
            words = _strings(node.args[0])[:1]
            if name == "dropdown" and len(node.args) > 1:
                words += [w for w in _strings(node.args[1]) if not _NAME.match(w)]
            for word in words:
                found.setdefault(word, []).append((where, ""))
    return found


def question_entries(bank):
    """``[(msgctxt, English), ...]`` of the question bank ``{qid: Question}``: prompt, why, each choice."""
    out = []
    for qid, q in bank.items():
        out += [(f"{qid}#prompt", q.prompt), (f"{qid}#why", q.why)]
        out += [(f"{qid}#choice-{letter}", text) for letter, text in zip(q.letters(), q.choices, strict=True)]
    return out


def update_messages(po, found):
    """Bring the message catalog ``po`` in line with ``found`` (``{English: places}``); ``(added, fuzzied, dropped)``.

    A new message gets an empty entry, unless a dropped one is very like it: then it takes that
    one's translation, flagged fuzzy (as ``msgmerge`` does). Occurrences are refreshed.
    """
    import polib

    old = {e.msgid: e for e in po if not e.obsolete and not e.msgctxt}
    gone = {k: e for k, e in old.items() if k not in found and e.msgstr.strip()}
    fresh, added, fuzzied = [], 0, 0
    for msgid, places in found.items():
        entry = old.get(msgid)
        if entry is None:
            near = difflib.get_close_matches(msgid, list(gone), n=1, cutoff=0.8)
            if near:
                was = gone[near[0]]
                entry = polib.POEntry(msgid=msgid, msgstr=was.msgstr, flags=[FUZZY], previous_msgid=was.msgid)
                fuzzied += 1
            else:
                entry = polib.POEntry(msgid=msgid, msgstr="")
                added += 1
        if "{" in msgid and "python-brace-format" not in entry.flags:
            entry.flags.append("python-brace-format")
        entry.occurrences = sorted(set(places))
        fresh.append(entry)
    dropped = len(set(old) - set(found))
    po[:] = fresh
    return added, fuzzied, dropped


def message_problems(po, found, source_name):
    """One line per message of ``found`` that ``po`` lacks, has fuzzy, untranslated, or with other ``{fields}``."""
    have = {e.msgid: e for e in po if not e.obsolete and not e.msgctxt}
    out = []
    for msgid, places in found.items():
        entry = have.get(msgid)
        where = f"{source_name}: message {_short(msgid)!r} (used in {places[0][0]})"
        if entry is None:
            out.append(f"{where}: new; run  perfcourse translate  and translate it")
        elif FUZZY in entry.flags:
            out.append(f"{where}: fuzzy (the English changed since it was translated)")
        elif not entry.msgstr.strip():
            out.append(f"{where}: not translated yet")
        elif fields(entry.msgstr) != fields(msgid):
            out.append(f"{where}: the translation's {{fields}} differ from the English ones {fields(msgid)}")
    return out


def _short(text, width=60):
    return text if len(text) <= width else text[: width - 3] + "..."
