"""Translation catalogs of notebooks: gettext ``.po`` files keyed by markdown cell id and paragraph.

Every markdown cell of an English notebook is cut into paragraphs (blank lines apart; a
fenced code block or a ``$$`` display formula stays whole). Each paragraph is one catalog
entry: ``msgctxt`` is ``"<cell id>#<paragraph number>"``, ``msgid`` the English text,
``msgstr`` the translation. :func:`update` brings a catalog in line with its notebook: a new
paragraph gets an empty entry, a changed one keeps its old translation but turns *fuzzy*
(with the previous English kept as ``#| msgid``), a removed one is dropped. :func:`problems`
lists what is missing or fuzzy, naming the cell; :func:`translated` builds the translated
notebook: the same cells and code, the markdown replaced.

The files are plain gettext catalogs (read and written with ``polib``), so translators can
use Poedit, Weblate or any text editor.

Examples
--------
>>> paragraphs("# Title\\n\\nOne.\\nStill one.\\n\\n```\\na = 1\\n\\nb = 2\\n```")
['# Title', 'One.\\nStill one.', '```\\na = 1\\n\\nb = 2\\n```']
"""

from __future__ import annotations

import copy
import re

__all__ = ["paragraphs", "entries", "new_catalog", "compiled", "update", "update_entries", "problems", "entry_problems",
           "paragraph_place", "translated", "FUZZY"]

FUZZY = "fuzzy"
_FENCE = re.compile(r"^\s*(```|~~~)")


def paragraphs(text):
    """The paragraphs of a markdown text: blank-line separated, fenced code and ``$$`` blocks whole."""
    if not isinstance(text, str):
        raise TypeError(f"text must be a str (a markdown cell's source); got {type(text).__name__}")
    out, current, fenced, display = [], [], False, False
    for line in text.split("\n"):
        if _FENCE.match(line):
            fenced = not fenced
        elif line.strip() == "$$":
            display = not display
        if not line.strip() and not fenced and not display:
            if current:
                out.append("\n".join(current).strip("\n"))
                current = []
            continue
        current.append(line)
    if current:
        out.append("\n".join(current).strip("\n"))
    return [p for p in out if p.strip()]


def entries(nb):
    """``[(msgctxt, msgid), ...]`` of a notebook's markdown cells, in order."""
    found = []
    for index, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "markdown":
            continue
        cell_id = cell.get("id")
        if not cell_id:
            raise ValueError(f"markdown cell {index + 1} has no id; save the notebook with nbformat >= 4.5 first")
        source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
        found += [(f"{cell_id}#{k}", text) for k, text in enumerate(paragraphs(source))]
    return found


def new_catalog(language, source_name):
    """An empty catalog for ``source_name`` (e.g. ``notebooks/03_amdahl.ipynb``) in ``language``."""
    import polib

    po = polib.POFile(wrapwidth=0)
    po.metadata = {"Project-Id-Version": f"perfcourse {source_name}", "Language": language,
                   "MIME-Version": "1.0", "Content-Type": "text/plain; charset=UTF-8",
                   "Content-Transfer-Encoding": "8bit"}
    return po


def compiled(po):
    """The ``.mo`` bytes of catalog ``po`` that the package reads at run time (with :mod:`gettext`).

    Only usable entries go in: translated, not fuzzy, not obsolete, and with the same replacement
    fields as their English (else filling the template would fail; the English is shown instead).
    The order is fixed (by context and English), so the same catalog always compiles to the same bytes.
    """
    import polib

    from .._lang import fields

    out = polib.POFile(wrapwidth=0)
    out.metadata = {"Content-Type": "text/plain; charset=UTF-8", **po.metadata}
    for e in po:
        if e.obsolete or FUZZY in e.flags:
            continue
        if e.msgid_plural:
            forms = [e.msgstr_plural[k] for k in sorted(e.msgstr_plural)]
            usable = bool(forms) and all(f.strip() and fields(f) == fields(e.msgid_plural) for f in forms)
        else:
            usable = bool(e.msgstr.strip()) and fields(e.msgstr) == fields(e.msgid)
        if usable:
            out.append(polib.POEntry(msgctxt=e.msgctxt, msgid=e.msgid, msgstr=e.msgstr, msgid_plural=e.msgid_plural,
                                     msgstr_plural=dict(e.msgstr_plural)))
    return out.to_binary()


def _cell(ctxt):
    return ctxt.rsplit("#", 1)[0]


def update(po, nb, source_name):
    """Bring catalog ``po`` in line with notebook ``nb``; returns ``(added, fuzzied, dropped)`` counts."""
    return update_entries(po, entries(nb), source_name)


def update_entries(po, found, source_name):
    """Bring ``po`` in line with ``found``, ``[(msgctxt, English), ...]``; ``(added, fuzzied, dropped)``.

    A context is ``"<unit>#<part>"`` (a cell and its paragraph, a question and its field): a text
    that moved to another part of the same unit keeps its translation.
    """
    import polib

    old = {e.msgctxt: e for e in po if not e.obsolete}
    by_cell_text = {(_cell(e.msgctxt), e.msgid): e for e in old.values() if e.msgstr and FUZZY not in e.flags}
    fresh, added, fuzzied = [], 0, 0
    for ctxt, msgid in found:
        same = old.get(ctxt)
        if same is not None and same.msgid == msgid:
            entry = same
        elif (_cell(ctxt), msgid) in by_cell_text:           # a paragraph that moved inside its cell
            moved = by_cell_text[(_cell(ctxt), msgid)]
            entry = polib.POEntry(msgctxt=ctxt, msgid=msgid, msgstr=moved.msgstr)
        elif same is not None:                               # the English changed: keep the old text, flag it
            entry = polib.POEntry(msgctxt=ctxt, msgid=msgid, msgstr=same.msgstr, flags=[FUZZY],
                                  previous_msgid=same.msgid if FUZZY not in same.flags else same.previous_msgid)
            fuzzied += 1
        else:
            entry = polib.POEntry(msgctxt=ctxt, msgid=msgid, msgstr="")
            added += 1
        entry.occurrences = [(source_name, _cell(ctxt))]
        fresh.append(entry)
    dropped = len(set(old) - {e.msgctxt for e in fresh})
    po[:] = fresh
    return added, fuzzied, dropped


def paragraph_place(ctxt):
    """Where a notebook entry's text is, in words: ``markdown cell 'ab12', paragraph 2``."""
    return f"markdown cell {_cell(ctxt)!r}, paragraph {int(ctxt.rsplit('#', 1)[1]) + 1}"


def problems(po, nb, source_name):
    """What keeps ``po`` from translating ``nb``: one line per missing, fuzzy or stale paragraph."""
    return entry_problems(po, entries(nb), source_name)


def entry_problems(po, found, source_name, place=paragraph_place):
    """One line per entry of ``found`` (``[(msgctxt, English)]``) that ``po`` lacks, has fuzzy or untranslated.

    ``place(msgctxt)`` names where the text is (default: a notebook's cell and paragraph).
    """
    have = {e.msgctxt: e for e in po if not e.obsolete}
    out = []
    for ctxt, msgid in found:
        entry = have.get(ctxt)
        where = f"{source_name}: {place(ctxt)}"
        if entry is None or entry.msgid != msgid:
            out.append(f"{where}: the English is new or changed; run  perfcourse translate  and translate it")
        elif FUZZY in entry.flags:
            out.append(f"{where}: fuzzy (the English changed since it was translated)")
        elif not entry.msgstr.strip():
            out.append(f"{where}: not translated yet")
    return out


def translated(nb, po, language):
    """A copy of ``nb`` with every markdown cell in ``language``, code and outputs untouched.

    Raises ``ValueError`` naming the first paragraph :func:`problems` finds.
    """
    trouble = problems(po, nb, "the notebook")
    if trouble:
        raise ValueError(trouble[0])
    text = {e.msgctxt: e.msgstr for e in po if not e.obsolete}
    out = copy.deepcopy(nb)
    for cell in out["cells"]:
        if cell["cell_type"] == "markdown":
            source = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
            count = len(paragraphs(source))
            cell["source"] = "\n\n".join(text[f"{cell['id']}#{k}"] for k in range(count))
    out["metadata"].setdefault("perfcourse", {})["lang"] = language
    return out
