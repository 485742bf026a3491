"""The language the learner reads: English, or Chinese (``"zh"``) in the course's Chinese edition.

:func:`current` decides: ``PERFCOURSE_LANG`` when it is set (``en``, ``zh``, ``zh_CN`` or
``zh-CN``), else Chinese when the kernel runs for a notebook inside a folder named ``zh``
(``notebooks/zh/``, ``exercises/zh/``: the kernel's working folder, or the folder of the
notebook path Jupyter puts in ``JPY_SESSION_NAME``), else English.

:func:`_` returns the Chinese of an English message from the message catalog
``perfcourse/locale/zh/LC_MESSAGES/messages.po`` when the language is Chinese, and the message
itself otherwise (or when it has no translation yet); :func:`ngettext` does the same for a message
whose words follow a count. The catalogs keep gettext's layout (``<language>/LC_MESSAGES/``), and
the package reads each one compiled (the ``.mo`` beside its ``.po``, written by ``perfcourse
translate``, which compiles only entries translated, not fuzzy and with the English's fields) with
the standard library's :mod:`gettext`, so it needs no catalog tool to run.
A message with values is translated as a template and filled afterwards:
``_("{n} workers").format(n=n)``, never ``_(f"{n} workers")``, so ``perfcourse translate``
finds the template in the source. :func:`text` looks up the other catalogs (the question bank)
by context. Catalogs are read once, when first needed; importing
this module changes nothing. ``PERFCOURSE_LOCALE`` names another folder of catalogs (one
holding ``zh/LC_MESSAGES/messages.mo``), to try a translation before it is part of the package.

Examples
--------
>>> _("close (within {band:g}x)", lang="en").format(band=1.25)
'close (within 1.25x)'
>>> ngettext("{n} worker", "{n} workers", 1, lang="en").format(n=1)
'1 worker'
>>> fields("speedup {psi:.3g}x on {n:g} workers") == fields("{n:g} 个 worker 上加速比 {psi:.3g}x")
True
"""

from __future__ import annotations

import gettext
import os
import re
import string
import unicodedata
from pathlib import Path

__all__ = ["ENV", "EDITION", "ENV_LOCALE", "LANGUAGES", "LOCALE", "current", "resolve", "_", "N_", "ngettext",
           "listing", "lookup", "phrase", "say", "text", "fields", "catalog_path", "width", "pad", "rpad", "tidy"]

ENV = "PERFCOURSE_LANG"
EDITION = "zh"      # the Chinese edition's folder beside each folder of notebooks: notebooks/zh/, exercises/zh/
LANGUAGES = ("en", "zh")
LOCALE = Path(__file__).resolve().parent / "locale"
_SPELLINGS = {"en": "en", "zh": "zh", "zh_cn": "zh", "zh-cn": "zh"}
_ALLOWED = "en, zh, zh_CN or zh-CN"
ENV_LOCALE = "PERFCOURSE_LOCALE"
_TABLES: dict[str, gettext.NullTranslations] = {}   # compiled catalog file -> its translations


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
    """The compiled file (``.mo``) of catalog ``name`` (``"messages"``, ``"questions"``) in ``lang``.

    ``perfcourse translate`` compiles it from the ``.po`` beside it (see ``PERFCOURSE_LOCALE``).
    """
    folder = os.environ.get(ENV_LOCALE, "").strip()
    return (Path(folder) if folder else LOCALE) / lang / "LC_MESSAGES" / f"{name}.mo"


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
    """The compiled catalog ``name`` in ``lang`` (``gettext.GNUTranslations``); an empty one when it has none.

    Read with the standard library alone: the package runs where no catalog tool is installed.
    """
    path = catalog_path(name, lang)
    key = str(path)
    if key not in _TABLES:
        if path.is_file():
            with path.open("rb") as f:
                _TABLES[key] = gettext.GNUTranslations(f)
        else:
            _TABLES[key] = gettext.NullTranslations()
    return _TABLES[key]


def text(catalog, english, context=None, *, lang=None):
    """``english`` in ``lang`` (default: :func:`current`) from ``catalog`` under ``context``; else ``english``."""
    if not isinstance(english, str):
        raise TypeError(f"the text to translate must be a string; got {english!r}")
    lang = current() if lang is None else resolve(lang)
    if lang == "en" or not english:     # gettext answers "" with the catalog's header: nothing to translate
        return english
    table = _table(catalog, lang)
    return table.gettext(english) if context is None else table.pgettext(context, english)


def _(message, lang=None):
    """The message in the learner's language (see :func:`current`); ``message`` must be a string literal.

    ``perfcourse translate`` collects every ``_("...")`` of the package into the message catalog;
    use :func:`lookup` for text that is not a literal here.
    """
    return text("messages", message, lang=lang)


# The same function for text held in a variable (a widget label a lesson passes in): ``perfcourse translate``
# collects only ``_("literal")`` calls, so a call through this name is translated but not collected.
lookup = _


def listing(names):
    """``names`` (strings) joined as the learner's language lists them: "a, b, c" in English, "a、b、c" in Chinese.

    Examples
    --------
    >>> listing(["workload", "batch", "shape"]), listing([])
    ('workload, batch, shape', '')
    """
    names = list(names)
    if not all(isinstance(n, str) for n in names):
        raise TypeError(f"listing() takes strings; got {names!r}")
    template = _("{earlier}, {name}")     # a list's separator: Chinese lists nouns with 、
    out = names[0] if names else ""
    for name in names[1:]:
        out = template.format(earlier=out, name=name)
    return out


def phrase(text):
    """A phrase the package itself holds (a published measurement's quantity or description, a datasheet's
    sources, a limit's name) in the learner's language; the English where the catalog has no translation.

    ``perfcourse translate`` collects these phrases from the data files themselves (see
    :func:`perfcourse.teach.extract.data_phrases`), so a lesson can print a table's row in either edition while
    the row is written once, in English.

    Examples
    --------
    >>> phrase("STREAM triad bandwidth")
    'STREAM triad bandwidth'
    >>> phrase(4.15)
    Traceback (most recent call last):
    ...
    TypeError: phrase() takes a phrase of the package's data as a string; got 4.15
    """
    if not isinstance(text, str):
        raise TypeError(f"phrase() takes a phrase of the package's data as a string; got {text!r}")
    return tidy(lookup(text))


def say(template, /, **values):
    """A lesson's sentence in the learner's language: ``template`` translated, then filled with ``values``.

    The lessons print their sentences through this (``pc.say``), so the same code prints English in the
    English edition and Chinese in the Chinese one. ``template`` is a ``str.format`` template written as a
    string literal in the lesson's code, where ``perfcourse translate`` collects it into the message
    catalog; the values are filled in after the translation is looked up, with the template's own format
    specs; a truth value is written in the learner's language (``True``/``False`` in English), and a text
    given a width (``{label:<12}``) is padded to that many columns of a terminal, where a Chinese
    character takes two, so a table's columns line up in both editions. Without a translation the English
    is printed.

    Examples
    --------
    >>> say("fastest at N = {n}: {t:.1f} ms", n=4, t=2.25)
    'fastest at N = 4: 2.2 ms'
    >>> say("{kind:<6}|{n:>3}|", kind="通信", n=7)      # two Chinese characters fill four columns
    '通信  |  7|'
    >>> say("{missing} workers")
    Traceback (most recent call last):
    ...
    ValueError: say(): the sentence '{missing} workers' needs a value for {missing}; given: none
    """
    if not isinstance(template, str):
        raise TypeError(f"say() takes the sentence as a string template; got {template!r}")
    translated = lookup(template)   # a lesson's literal, collected from the lessons by perfcourse translate
    values = {k: _yes_no(v) for k, v in values.items()}
    try:
        return tidy(_COLUMNS.vformat(translated, (), values))
    except KeyError as err:
        given = ", ".join(sorted(values)) or "none"
        raise ValueError(f"say(): the sentence {template!r} needs a value for {{{err.args[0]}}}; "
                         f"given: {given}") from None
    except IndexError:
        raise ValueError(f"say(): the sentence {template!r} has a field without a name; name every field, "
                         "as in {n}") from None


class _Columns(string.Formatter):
    """``str.format`` whose widths for text count columns of a terminal (:func:`width`), not characters."""

    _SPEC = re.compile(r"(?:(?P<fill>.)?(?P<align>[<>^]))?(?P<width>\d+)")

    def format_field(self, value, format_spec):
        found = self._SPEC.fullmatch(format_spec) if isinstance(value, str) else None
        if found is None:
            return super().format_field(value, format_spec)
        fill, align = found["fill"] or " ", found["align"] or "<"
        gap = max(int(found["width"]) - width(value), 0)
        left = {"<": 0, ">": gap, "^": gap // 2}[align]
        return fill * left + value + fill * (gap - left)


_COLUMNS = _Columns()


_BETWEEN_HAN = re.compile(r"(?<=[\u4e00-\u9fff\u3000-\u303f\uff01-\uff0f\uff1a-\uff1f]) (?! )"
                          r"(?=[\u4e00-\u9fff\u3000-\u303f\uff01-\uff0f\uff1a-\uff1f])")   # Chinese, its punctuation
_HAN_MEETS_LATIN = re.compile(r"(?<=[\u4e00-\u9fff])(?=[A-Za-z0-9])|(?<=[A-Za-z0-9])(?=[\u4e00-\u9fff])")
_BEFORE_ASIDE = re.compile(r"[，：；,:;] *(?=（)")   # a verdict's slot that got a bracketed aside (the noise note)


def tidy(text):
    """``text`` spaced as Chinese is: no lone space between two Chinese characters, one where Chinese meets Latin.

    A template puts a space around a field for the English or Latin words it usually holds (``读取 {what}``);
    when the field holds Chinese, that space would stand between two Chinese characters, where Chinese puts
    none. A template that holds none (``比{bound}``) gets one where its field brings a Latin word or a number,
    as the lecture writes "比 worker 数". Runs of spaces (a table's columns) are kept; English is unchanged.
    A full-width bracket (an aside, such as the noise note standing where a verdict would) takes the place
    of the comma or colon before it: Chinese puts no "，" or "：" in front of "（".

    Examples
    --------
    >>> tidy("读取 求和的数组（64 MiB）"), tidy("读取 W（64 MiB）"), tidy("模型  3.6 ms"), tidy("a b")
    ('读取求和的数组（64 MiB）', '读取 W（64 MiB）', '模型  3.6 ms', 'a b')
    >>> tidy("比worker 数所允许的低 1.79x"), tidy("快 3x以内"), tidy("plain English: 3x"), tidy("慢。 实测")
    ('比 worker 数所允许的低 1.79x', '快 3x 以内', 'plain English: 3x', '慢。实测')
    >>> tidy("实测 75 ms，（噪声太大）"), tidy("逐个累加：（噪声太大）"), tidy("batch 16: （噪声太大）")
    ('实测 75 ms（噪声太大）', '逐个累加（噪声太大）', 'batch 16（噪声太大）')
    """
    return _HAN_MEETS_LATIN.sub(" ", _BETWEEN_HAN.sub("", _BEFORE_ASIDE.sub("", text)))


def _yes_no(value):
    """A truth value (Python's or NumPy's) as the learner's language writes it; any other value as it is."""
    if type(value).__name__ in ("bool", "bool_"):      # Python's bool, NumPy's bool (numpy.bool_)
        return lookup(N_("True") if value else N_("False"))
    return value


def ngettext(singular, plural, n, lang=None):
    """``singular`` or ``plural`` as the count ``n`` asks, in the learner's language (gettext's ``ngettext``).

    Both must be string literals (templates, filled with ``.format`` afterwards); the catalog's
    ``Plural-Forms`` rule picks the form (Chinese has one).
    """
    if not (isinstance(singular, str) and isinstance(plural, str)):
        raise TypeError(f"ngettext takes two strings, the singular and the plural; got {singular!r}, {plural!r}")
    if isinstance(n, bool) or not isinstance(n, (int, float)) or n != n:
        raise TypeError(f"ngettext's count must be a number; got {n!r}")
    lang = current() if lang is None else resolve(lang)
    if lang == "en":
        return singular if n == 1 else plural
    return _table("messages", lang).ngettext(singular, plural, int(abs(n)))


def N_(message):
    """Mark a string literal for the message catalog without translating it now (a constant); returns it.

    Translate it where it is shown, with :func:`lookup`.
    """
    return message


def width(text):
    """How many columns of a terminal ``text`` takes: two for a wide (Chinese) character, one for others.

    Examples
    --------
    >>> width("span"), width("关键路径")
    (4, 8)
    """
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def pad(text, columns):
    """``text`` followed by spaces up to ``columns`` columns of a terminal (see :func:`width`).

    Examples
    --------
    >>> pad("课", 4) + "|"
    '课  |'
    """
    return text + " " * max(columns - width(text), 0)


def rpad(text, columns):
    """``text`` right-aligned in ``columns`` columns of a terminal: spaces first (see :func:`width`).

    Examples
    --------
    >>> "|" + rpad("课", 4)
    '|  课'
    """
    return " " * max(columns - width(text), 0) + text
