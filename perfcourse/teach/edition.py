"""The Chinese edition's notebooks, generated from the English ones and the catalogs.

``notebooks/zh/NN_slug.ipynb`` is ``notebooks/NN_slug.ipynb`` with every markdown cell
replaced by its translation (:func:`perfcourse.teach.catalog.translated`) and its code, cell
ids and metadata unchanged; ``exercises/zh/`` likewise from ``exercises/``. The generated
notebooks are never edited by hand: ``perfcourse translate`` writes them, and ``perfcourse
translate --check`` fails when one differs from what it would write (sources, cell ids, cell
types and metadata; not outputs, which come from running the Chinese lesson).

Relative links still work from the new folder (see :func:`relocate`). A lesson that is
generated again keeps the outputs of every code cell whose source did not change, so the
stored Chinese outputs survive until the lesson is run again; exercises carry no outputs.

Examples
--------
>>> relocate("../exercises/03_amdahl.ipynb", "lesson")
'../../exercises/zh/03_amdahl.ipynb'
>>> relocate("04_gustafson.ipynb#key-points", "lesson"), relocate("img/roof.png", "lesson")
('04_gustafson.ipynb#key-points', '../img/roof.png')
>>> relocate("../notebooks/03_amdahl.ipynb", "exercise"), relocate("https://example.org/x", "exercise")
('../../notebooks/zh/03_amdahl.ipynb', 'https://example.org/x')
"""

from __future__ import annotations

import re

from .._lang import EDITION
from .catalog import translated

__all__ = ["LANG", "KINDS", "relocate", "rewrite_links", "generate", "same_notebook", "render"]

LANG = EDITION      # the edition's language code is its folder's name
KINDS = {"lesson": ("../exercises/", "../../exercises/zh/"), "exercise": ("../notebooks/", "../../notebooks/zh/")}
_ABSOLUTE = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*:|/|#|\{)")
_INLINE = re.compile(r"(\]\(\s*<?)([^)\s>]+)")                       # [text](target "title")
_ATTRIBUTE = re.compile(r"""(\b(?:href|src)\s*=\s*["'])([^"']+)""")  # <a href="target">, <img src="target">
_REFERENCE = re.compile(r"^(\s{0,3}\[[^\]]+\]:\s*<?)(\S+?)(?=>?(\s|$))", re.M)   # [label]: target
_CODE = re.compile(r"(```.*?```|~~~.*?~~~|`[^`\n]*`)", re.S)      # code, where nothing is a link
_RUN_META = ("widgets", "language_info")     # notebook metadata that running the notebook writes
_CELL_RUN_META = ("execution",)


def relocate(target, kind):
    """A relative link ``target`` of an English ``kind`` notebook ("lesson" or "exercise"), seen from ``zh/``.

    A sibling notebook stays (its Chinese twin sits beside); a link into the other folder of
    notebooks goes to that folder's Chinese edition; any other relative path gets one more
    ``../``. URLs, absolute paths and anchors are left alone.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}")
    if _ABSOLUTE.match(target):
        return target
    path = target[2:] if target.startswith("./") else target
    other, twin = KINDS[kind]
    if path.startswith(other):
        return twin + path[len(other):]
    if "/" not in path.split("#", 1)[0].split("?", 1)[0] and ".ipynb" in path:
        return path
    return "../" + path


def rewrite_links(text, kind):
    """Markdown or HTML ``text`` with every relative link :func:`relocate`-d for ``kind`` (code left alone).

    Examples
    --------
    >>> rewrite_links("[ex](../exercises/03_amdahl.ipynb), `a[0](b)`", "lesson")
    '[ex](../../exercises/zh/03_amdahl.ipynb), `a[0](b)`'
    """
    def fix(match):
        return match.group(1) + relocate(match.group(2), kind)

    parts = _CODE.split(text)
    for i in range(0, len(parts), 2):          # the even parts are prose, the odd ones code
        for pattern in (_INLINE, _ATTRIBUTE, _REFERENCE):
            parts[i] = pattern.sub(fix, parts[i])
    return "".join(parts)


def _source(cell):
    return cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])


def generate(nb, po, kind, *, previous=None, source_name=""):
    """The Chinese notebook of English ``kind`` notebook ``nb`` with catalog ``po``.

    Raises ``ValueError`` (naming the paragraph) while the catalog is incomplete or fuzzy.
    ``previous``: the Chinese notebook written before, whose outputs are kept for every code
    cell of a lesson whose id and source are unchanged.
    """
    import nbformat

    out = nbformat.from_dict(translated(nb, po, LANG))
    for key in _RUN_META:
        out.metadata.pop(key, None)
    out.metadata["perfcourse"]["generated_from"] = source_name
    kept = {}
    if previous is not None and kind == "lesson":
        kept = {c.get("id"): c for c in previous.cells if c.cell_type == "code"}
        for key in _RUN_META:
            if key in previous.metadata:
                out.metadata[key] = previous.metadata[key]
    for cell in out.cells:
        if cell.cell_type == "markdown":
            cell.source = rewrite_links(_source(cell), kind)
        elif cell.cell_type == "code":
            old = kept.get(cell.get("id"))
            same = old is not None and _source(old) == _source(cell)
            cell.outputs = old.outputs if same else []
            cell.execution_count = old.execution_count if same else None
            for key in _CELL_RUN_META:
                cell.metadata.pop(key, None)
                if same and key in old.metadata:
                    cell.metadata[key] = old.metadata[key]
    return out


def _shape(nb):
    meta = {k: v for k, v in nb["metadata"].items() if k not in _RUN_META}
    cells = [(c["cell_type"], c.get("id"), _source(c),
              {k: v for k, v in c.get("metadata", {}).items() if k not in _CELL_RUN_META}) for c in nb["cells"]]
    return meta, cells


def same_notebook(a, b):
    """True when notebooks ``a`` and ``b`` have the same cells (types, ids, sources, metadata) and metadata.

    Outputs, execution counts and what running a notebook writes into its metadata are not compared.
    """
    return _shape(a) == _shape(b)


def render(nb):
    """The notebook's file text: nbformat's JSON, ending in a newline."""
    import nbformat

    text = nbformat.writes(nb, version=4)
    return text if text.endswith("\n") else text + "\n"
