"""The language the learner reads: English, or Chinese (``"zh"``) in the course's Chinese edition.

:func:`current` decides: ``PERFCOURSE_LANG`` when it is set (``en``, ``zh``, ``zh_CN`` or
``zh-CN``), else Chinese when the kernel runs for a notebook inside a folder named ``zh``
(``notebooks/zh/``, ``exercises/zh/``: the kernel's working folder, or the folder of the
notebook path Jupyter puts in ``JPY_SESSION_NAME``), else English.

:func:`_` returns the Chinese of an English message from the message catalog
``perfcourse/locale/zh/messages.po`` when the language is Chinese, and the message itself
otherwise (or when it has no translation yet). A message with values is translated as a
template and filled afterwards: ``_("{n} workers").format(n=n)``, never ``_(f"{n} workers")``,
so ``perfcourse translate`` finds the template in the source. :func:`text` looks up the other
catalogs (the question bank) by context. Catalogs are read once, when first needed; importing
this module changes nothing. ``PERFCOURSE_LOCALE`` names another folder of catalogs (one
holding ``zh/messages.po``), to try a translation before it is part of the package.

Examples
--------
>>> _("close (within {band:g}x)", lang="en").format(band=1.25)
'close (within 1.25x)'
>>> fields("speedup {psi:.3g}x on {n:g} workers") == fields("{n:g} 个 worker 上加速比 {psi:.3g}x")
True
"""

from __future__ import annotations

import os
import string
from pathlib import Path

__all__ = ["ENV", "EDITION", "ENV_LOCALE", "LANGUAGES", "LOCALE", "current", "resolve", "_", "N_", "lookup", "text",
           "fields", "catalog_path"]

ENV = "PERFCOURSE_LANG"
EDITION = "zh"      # the Chinese edition's folder beside each folder of notebooks: notebooks/zh/, exercises/zh/
LANGUAGES = ("en", "zh")
LOCALE = Path(__file__).resolve().parent / "locale"
_SPELLINGS = {"en": "en", "zh": "zh", "zh_cn": "zh", "zh-cn": "zh"}
_ALLOWED = "en, zh, zh_CN or zh-CN"
ENV_LOCALE = "PERFCOURSE_LOCALE"
_TABLES: dict[str, dict] = {}   # catalog file -> {(context, English): translation}


def resolve(name):
    """The language code (``"en"`` or ``"zh"``) that ``name`` spells; ``ValueError`` naming the spellings allowed.

    Examples
    --------
    >>> resolve("zh_CN"), resolve("en")
    ('zh', 'en')
    """
    if not isinstance(name, str):
        raise TypeError(f"language must be a string, one of {_ALLOWED}; got {name!r}")
    found = _SPELLINGS.get(name.strip().lower())
    if found is None:
        raise ValueError(f"language must be one of {_ALLOWED}; got {name!r}")
    return found


def current():
    """``"zh"`` or ``"en"``: ``PERFCOURSE_LANG``, else ``"zh"`` for a notebook in a ``zh`` folder, else ``"en"``."""
    chosen = os.environ.get(ENV, "").strip()
    if chosen:
        try:
            return resolve(chosen)
        except ValueError:
            raise ValueError(f"{ENV} must be one of {_ALLOWED} (or unset); got {chosen!r}") from None
    return "zh" if _in_zh_folder() else "en"


def _in_zh_folder():
    try:
        if Path.cwd().name == EDITION:
            return True
    except OSError:       # the working folder was removed
        pass
    session = os.environ.get("JPY_SESSION_NAME", "").strip()
    return bool(session) and Path(session).parent.name == EDITION


def catalog_path(name, lang="zh"):
    """The file of catalog ``name`` (``"messages"``, ``"questions"``) in ``lang`` (see ``PERFCOURSE_LOCALE``)."""
    folder = os.environ.get(ENV_LOCALE, "").strip()
    return (Path(folder) if folder else LOCALE) / lang / f"{name}.po"


def fields(template):
    """The replacement fields of a ``str.format`` template, sorted: ``[(name, spec, conversion), ...]``.

    ``None`` when the text is no valid template (unbalanced braces).
    """
    try:
        return sorted((name, spec or "", conv or "") for _lit, name, spec, conv in string.Formatter().parse(template)
                      if name is not None)
    except ValueError:
        return None


def _table(name, lang):
    """``{(context, English): translation}`` of a catalog: translated, not fuzzy, with the same fields."""
    path = catalog_path(name, lang)
    key = str(path)
    if key not in _TABLES:
        table = {}
        if path.is_file():
            import polib

            for e in polib.pofile(str(path), wrapwidth=0):
                if e.obsolete or "fuzzy" in e.flags or not e.msgstr.strip():
                    continue
                if fields(e.msgstr) != fields(e.msgid):   # a broken template would fail at .format: keep English
                    continue
                table[(e.msgctxt, e.msgid)] = e.msgstr
        _TABLES[key] = table
    return _TABLES[key]


def text(catalog, english, context=None, *, lang=None):
    """``english`` in ``lang`` (default: :func:`current`) from ``catalog`` under ``context``; else ``english``."""
    if not isinstance(english, str):
        raise TypeError(f"the text to translate must be a string; got {english!r}")
    lang = current() if lang is None else resolve(lang)
    if lang == "en":
        return english
    return _table(catalog, lang).get((context, english), english)


def _(message, lang=None):
    """The message in the learner's language (see :func:`current`); ``message`` must be a string literal.

    ``perfcourse translate`` collects every ``_("...")`` of the package into the message catalog;
    use :func:`lookup` for text that is not a literal here.
    """
    return text("messages", message, lang=lang)


# The same function for text held in a variable (a widget label a lesson passes in): ``perfcourse translate``
# collects only ``_("literal")`` calls, so a call through this name is translated but not collected.
lookup = _


def N_(message):
    """Mark a string literal for the message catalog without translating it now (a constant); returns it.

    Translate it where it is shown, with :func:`lookup`.
    """
    return message
