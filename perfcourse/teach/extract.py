"""What the Chinese edition translates besides the notebooks' markdown: messages and the question bank.

- **Messages** (``locale/zh/LC_MESSAGES/messages.po``): every ``_("...")``, ``N_("...")`` and
  ``ngettext("...", "...", n)`` literal in the package's source, found by Babel's Python extractor
  (see :mod:`perfcourse._lang`), and, found in the lessons' code, the labels of the widgets they
  build (the first argument of ``slider``, ``log_slider`` and ``dropdown`` and a dropdown's list of
  words) and the sentences they print with ``pc.say``. An entry is keyed by its English
  (``msgid``), as gettext does; where it is used is kept as its locations. :func:`merge_messages`
  brings the catalog in line as ``msgmerge`` does (Babel's ``Catalog.update``: a message very like
  a dropped one inherits its translation, fuzzy), and :func:`message_problems` adds Babel's own
  checks to ours.
- **The question bank** (``locale/zh/LC_MESSAGES/questions.po``): each question's prompt,
  explanation and choices, keyed ``"<question id>#prompt"``, ``"#why"`` and ``"#choice-a"``... like
  the notebooks' paragraphs (see :mod:`perfcourse.teach.catalog`).
- **The glossary** (``locale/zh/LC_MESSAGES/glossary.po``): each term, whose translation is its
  Chinese forms, and its definition, keyed ``"<term key>#names"`` and ``"#definition"``.

Examples
--------
>>> found = source_messages('print(_("{n} workers").format(n=2))\\nx = _("Right.")', "demo.py")
>>> sorted(found)
['Right.', '{n} workers']
>>> list(source_messages('ngettext("{n} step", "{n} steps", k)', "demo.py"))
[('{n} step', '{n} steps')]
"""

from __future__ import annotations

import ast
import io
import re
from pathlib import Path

from .._lang import fields

__all__ = ["source_messages", "package_messages", "data_phrases", "widget_labels", "question_entries",
           "glossary_entries", "keyed_catalogs", "merge_messages", "message_problems", "new_message_catalog",
           "WIDGET_MAKERS", "KEYWORDS"]

WIDGET_MAKERS = ("slider", "log_slider", "dropdown")
SAY = "say"             # pc.say("template", **values): a lesson's printed sentence
KEYWORDS = {"_": None, "N_": None, "ngettext": (1, 2)}   # Babel's keyword specs: which arguments are messages
TEAM = "perfcourse translators"
_MAGIC = re.compile(r"^\s*[%!]")
_NAME = re.compile(r"^[A-Za-z]*\d[\w.]*$")     # float32, p99, H200: names, not words to translate


def source_messages(source, where):
    """``{message: [(where, None), ...]}`` of the translated literals in Python ``source``.

    A message is its English, or ``(singular, plural)`` for an ``ngettext``. A call whose message
    is not a string literal is a ``ValueError`` naming its line: the catalog could not hold it
    (translate the template, then ``.format`` it).
    """
    from babel.messages.extract import extract_python

    calls = sorted((node.lineno, node.col_offset, isinstance(node.func, ast.Name))   # a SyntaxError names the line
                   for node in ast.walk(ast.parse(source, filename=where)) if isinstance(node, ast.Call)
                   and getattr(node.func, "id", getattr(node.func, "attr", None)) in KEYWORDS)
    results = list(extract_python(io.BytesIO(source.encode("utf-8")), list(KEYWORDS), [], {}))
    if len(results) != len(calls):    # Babel reads tokens: a call inside an f-string is no token of its own
        missed = next((c for c, r in zip(calls, results, strict=False) if r[1] is None), calls[len(results)] if
                      len(calls) > len(results) else calls[-1])
        raise ValueError(f"{where}, line {missed[0]}: a translated message inside an f-string is not extracted; "
                         "call _() outside the f-string and insert its result")
    found = {}
    for (line, _col, bare), (_lineno, func, messages, _comments) in zip(calls, results, strict=True):
        if not bare:        # gettext.ngettext(...): English chosen by count, for text that is never translated
            continue
        given = messages if isinstance(messages, tuple) else (messages,)
        wanted = given[:2] if func == "ngettext" else given[:1]
        if len(wanted) < (2 if func == "ngettext" else 1) or any(not isinstance(m, str) for m in wanted):
            raise ValueError(f"{where}, line {line}: {func}() must be given string literals (a template filled "
                             "with .format afterwards), not an expression or an f-string")
        key = tuple(wanted) if func == "ngettext" else wanted[0]
        found.setdefault(key, []).append((where, None))   # the file only: lines move with every edit
    return found


DATA_FIELDS = {"perfcourse/models/data/published.json": ("quantity", "what"),     # data phrases a lesson prints
               "perfcourse/models/data/datasheets.json": ("source",)}


def data_phrases():
    """``{phrase: [(data file, None)]}``: the phrases of the package's data tables a lesson prints through
    ``pc.phrase`` (a published measurement's quantity and description, a datasheet's sources with their notes),
    collected into the message catalog.

    Examples
    --------
    >>> "STREAM triad bandwidth" in data_phrases()
    True
    """
    from ..models import datasheets
    from ..models.published import table

    rows = {"perfcourse/models/data/published.json": table(),
            "perfcourse/models/data/datasheets.json": [datasheets.datasheet(n) for n in datasheets.names()]}
    found = {}
    for where, names in DATA_FIELDS.items():
        for row in rows[where]:
            for name in names:
                found.setdefault(getattr(row, name), []).append((where, None))
    return found


def package_messages(package):
    """Every translated message in the ``.py`` files under the folder ``package``, with where it is used."""
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
    """``{English: [(where, None)]}``: what a notebook's code shows through the catalog.

    The sentences it prints with ``say`` (the first argument, a template), the first argument of
    every ``slider``/``log_slider``/``dropdown`` call (the label) and, for a dropdown, the words of
    a literal list of options. A ``say`` whose sentence is not a string literal is a ``ValueError``
    naming the cell: the catalog could not hold it.
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
            if name == SAY:
                first = node.args[0] if node.args else None
                if not (isinstance(first, ast.Constant) and isinstance(first.value, str)):
                    raise ValueError(f"{where}, cell {cell.get('id', '?')}: say() must be given its sentence as a "
                                     "string literal (a template, with the values as keywords), not an f-string or "
                                     "an expression")
                found.setdefault(first.value, []).append((where, None))
                continue
            if name not in WIDGET_MAKERS or not node.args:
                continue
            words = _strings(node.args[0])[:1]
            if name == "dropdown" and len(node.args) > 1:
                words += [w for w in _strings(node.args[1]) if not _NAME.match(w)]
            for word in words:
                found.setdefault(word, []).append((where, None))
    return found


def question_entries(bank):
    """``[(msgctxt, English), ...]`` of the question bank ``{qid: Question}``: prompt, why, each choice."""
    out = []
    for qid, q in bank.items():
        out += [(f"{qid}#prompt", q.prompt), (f"{qid}#why", q.why)]
        out += [(f"{qid}#choice-{letter}", text) for letter, text in zip(q.letters(), q.choices, strict=True)]
    return out


def glossary_entries(terms):
    """``[(msgctxt, English), ...]`` of the glossary's terms: each term's name and its definition."""
    return [entry for t in terms for entry in ((f"{t.key}#names", t.english), (f"{t.key}#definition", t.definition))]


def keyed_catalogs():
    """The catalogs keyed by place that are no notebook's: ``[(name, [(msgctxt, English)], source, place)]``.

    ``name`` is the catalog's file name without ``.po``; ``source`` where its English is kept;
    ``place(msgctxt)`` names where an entry's English is (a question and its field, a term and its field).
    """
    from .glossary import TERMS
    from .selftest import bank

    def place(kind):
        def where(ctxt):
            unit, field = ctxt.rsplit("#", 1)
            return f"{kind} {unit!r}, {field}"
        return where

    return [("questions", question_entries(bank()), "perfcourse/teach/questions", place("question")),
            ("glossary", glossary_entries(TERMS), "perfcourse/teach/glossary.py", place("term"))]


def new_message_catalog(language):
    """An empty Babel catalog of the package's messages in ``language``, with its plural rule."""
    from babel.messages.catalog import Catalog

    return Catalog(locale=language, project="perfcourse messages", fuzzy=False, last_translator=TEAM,
                   language_team=TEAM, msgid_bugs_address=TEAM)


def merge_messages(catalog, found):
    """Bring the Babel ``catalog`` in line with ``found`` (``{message: places}``); ``(added, fuzzied, dropped)``.

    Babel's ``Catalog.update`` does what ``msgmerge`` does: a new message gets an empty entry, unless
    a dropped one is very like it, whose translation it then takes, flagged fuzzy. Dropped messages
    are forgotten, not kept as obsolete.
    """
    from babel.messages.catalog import Catalog

    template = Catalog(locale=catalog.locale, fuzzy=False)
    for msgid, places in found.items():
        braces = any("{" in m for m in (msgid if isinstance(msgid, tuple) else (msgid,)))
        template.add(msgid, locations=sorted(set(places)), flags=("python-brace-format",) if braces else ())
    before = {_key(m.id): m.fuzzy for m in catalog if m.id}
    catalog.update(template, update_header_comment=False, update_creation_date=False)
    catalog.obsolete.clear()
    dropped = len(set(before) - {_key(m.id) for m in catalog if m.id})   # one a new message took counts too
    added = sum(1 for m in catalog if m.id and _key(m.id) not in before and not m.fuzzy)
    fuzzied = sum(1 for m in catalog if m.id and m.fuzzy and not before.get(_key(m.id), False))
    return added, fuzzied, dropped


def _key(msgid):
    return tuple(msgid) if isinstance(msgid, (list, tuple)) else msgid


def message_problems(catalog, found, source_name):
    """One line per message of ``found`` that the Babel ``catalog`` lacks, has fuzzy, untranslated, or broken.

    Broken: other ``{fields}`` than the English, or what Babel's own checkers find (the number
    of plural forms, printf-style placeholders).
    """
    out = []
    for msgid, places in found.items():
        entry = catalog.get(msgid)
        shown = msgid[0] if isinstance(msgid, tuple) else msgid
        where = f"{source_name}: message {_short(shown)!r} (used in {places[0][0]})"
        strings = (entry.string if isinstance(entry.string, (list, tuple)) else (entry.string,)) if entry else ()
        english = msgid[-1] if isinstance(msgid, tuple) else msgid
        if entry is None:
            out.append(f"{where}: new; run  perfcourse translate  and translate it")
        elif entry.fuzzy:
            out.append(f"{where}: fuzzy (the English changed since it was translated)")
        elif not all(s and s.strip() for s in strings):
            out.append(f"{where}: not translated yet")
        elif any(fields(s) != fields(english) for s in strings):
            out.append(f"{where}: the translation's {{fields}} differ from the English ones {fields(english)}")
        else:
            out += [f"{where}: {err}" for err in entry.check(catalog)]
    return out


def _short(text, width=60):
    return text if len(text) <= width else text[: width - 3] + "..."
