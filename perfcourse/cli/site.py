"""``perfcourse site``: the lessons as a static HTML site, readable without Python.

Each lesson of :data:`perfcourse.teach.lessons.LESSONS` is rendered from its notebook with its
stored outputs (and the widget state that execution stored in its metadata, so the widgets'
first views show without a kernel); nothing is run unless ``--execute`` is given. Links
between lessons point at the rendered pages, every page gets previous/next links, and
``index.html`` lists the lessons in order. The notebooks are read where they are: the
checkout, or the copy packaged with perfcourse.

The Chinese edition (``notebooks/zh/``, written by ``perfcourse translate``) is rendered into
``zh/`` beside the English pages, with its own index; every page of either language links to
the same page in the other, and declares its language (``<html lang="zh">`` on every Chinese page,
the index and the lessons alike).

The site needs no network: formulas are typeset by a copy of MathJax 2 written beside the
pages (``mathjax/``, the files the ``jupyter-server-mathjax`` package ships, with their
STIX web fonts), and the pages load no require.js, widget manager or diagram library from a
CDN. The folder written to must be new or empty, unless ``--force`` is given.
"""

from __future__ import annotations

import html
import importlib.util
import re
import shutil
from pathlib import Path

from .._lang import EDITION, _, ngettext
from ..grading.make import read_named
from ..teach.lessons import LESSONS
from . import CommandError, course
from .snapshots import WIDGET_STATE, WIDGET_VIEW, static_widgets  # noqa: F401 - part of this module's interface

_NB_LINK = re.compile(r'href="(\d\d_[a-z0-9_]+)\.ipynb"')
STYLE = ("<style>.pc-nav{font:15px system-ui,sans-serif;padding:8px 16px;background:#eef2f7;"
         "display:flex;gap:24px}.pc-nav a{text-decoration:none}.pc-nav .pc-lang{margin-left:auto}</style>")
ZH = EDITION
_LANG_NAMES = {"en": "English", "zh": "中文"}


MATHJAX_DIR = "mathjax"
# The lab template with nothing fetched from the network: no require.js, no widget manager, no
# diagram library, and MathJax from the copy beside the pages. The ``End`` hook marks the page
# (``<html data-mathjax="typeset">``) once every formula is typeset.
TEMPLATE = r"""{%- extends 'index.html.j2' -%}
{%- block html_head_js_requirejs -%}{%- endblock html_head_js_requirejs -%}
{%- block jupyter_widgets -%}{%- endblock jupyter_widgets -%}
{%- block html_head_js_mermaidjs -%}{%- endblock html_head_js_mermaidjs -%}
{%- block html_head_js_mathjax -%}
<script>
window.MathJax = {
  "HTML-CSS": {availableFonts: [], preferredFont: null, webFont: "STIX-Web", imageFont: null,
               linebreaks: {automatic: true}},
  TeX: {equationNumbers: {autoNumber: "AMS", useLabelIds: true}},
  tex2jax: {inlineMath: [["$", "$"], ["\\(", "\\)"]], displayMath: [["$$", "$$"], ["\\[", "\\]"]],
            processEscapes: true, processEnvironments: true},
  displayAlign: "center",
  messageStyle: "none",
  AuthorInit: function () {
    MathJax.Hub.Register.StartupHook("End", function () {
      document.documentElement.setAttribute("data-mathjax", "typeset");
    });
  }
};
</script>
<script src="MATHJAX_DIR/MathJax.js?config=TeX-AMS-MML_HTMLorMML-full,Safe"></script>
{%- endblock html_head_js_mathjax -%}
""".replace("MATHJAX_DIR", MATHJAX_DIR)


def mathjax_source():
    """The folder of MathJax's files that the ``jupyter-server-mathjax`` package ships.

    Raises ``FileNotFoundError`` (saying how to install it) when the package is missing.
    """
    spec = importlib.util.find_spec("jupyter_server_mathjax")
    folder = Path(spec.origin).parent / "static" if spec and spec.origin else None
    if folder is None or not (folder / "MathJax.js").is_file():
        raise FileNotFoundError(_("the static site needs MathJax's files from the jupyter-server-mathjax package; "
                                  "install it with  python -m pip install jupyter-server-mathjax"))
    return folder


def check_out(out, *, force=False):
    """Refuse a site folder ``out`` that is a file, or that holds anything unless ``force``; ``out`` as a Path."""
    if not isinstance(out, (str, Path)) or not str(out):
        raise TypeError(f"out must be a folder's path; got {out!r}")
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise ValueError(_("the site's folder {folder!r} is a file; name a new or empty folder").format(
            folder=str(out)))
    held = sorted(p.name for p in out.iterdir()) if out.is_dir() else []
    if held and not force:
        shown = ", ".join(held[:3]) + (_(" and {n} more").format(n=len(held) - 3) if len(held) > 3 else "")
        raise ValueError(_("the site's folder {folder!r} is not empty (it holds {shown}); name a new or empty "
                           "folder, or add --force to write the site over what is there").format(folder=str(out),
                                                                                                 shown=shown))
    return out


def lesson_paths(nbdir, lessons=LESSONS):
    """The notebook of each lesson in ``nbdir``, in lesson order; every one must be there."""
    nbdir = Path(nbdir)
    if not nbdir.is_dir():
        raise ValueError(_("nbdir must be a folder of lesson notebooks; {folder!r} is not a folder").format(
            folder=str(nbdir)))
    paths = [nbdir / x.notebook for x in lessons]
    missing = [p.name for p in paths if not p.is_file()]
    if missing:
        raise ValueError(ngettext("{folder!r} lacks lesson notebook {names}",
                                  "{folder!r} lacks lesson notebooks {names}",
                                  len(missing)).format(folder=str(nbdir), names=", ".join(missing)))
    return paths


def _nav(prev, nxt, lang="en", switch=None):
    """The bar atop a page: all lessons, previous, next, and ``switch`` (the same page in the other language)."""
    everything = html.escape(_("All lessons", lang))
    parts = [f'<a href="index.html">&#8962; {everything}</a>']
    if prev:
        parts.append(f'<a href="{prev[0]}.html">&larr; {html.escape(prev[1])}</a>')
    if nxt:
        parts.append(f'<a href="{nxt[0]}.html">{html.escape(nxt[1])} &rarr;</a>')
    return f'<nav class="pc-nav">{"".join(parts)}{_switch(lang, switch)}</nav>'


def _switch(lang, href):
    """The link to the same page in the other language ("" without one)."""
    other = "en" if lang == ZH else ZH
    return f'<a class="pc-lang" hreflang="{other}" href="{href}">{_LANG_NAMES[other]}</a>' if href else ""


_HTML_TAG = re.compile(r"<html\b[^>]*>", re.IGNORECASE)
_LANG_ATTR = re.compile(r"""\s(?:xml:)?lang\s*=\s*(?:"[^"]*"|'[^']*'|[^\s>]+)""", re.IGNORECASE)


def declare_language(page, lang):
    """``page`` with its ``<html>`` tag declaring ``lang`` (and no other language), whatever it said before.

    Examples
    --------
    >>> declare_language('<!DOCTYPE html>\\n<html lang="en">\\n<head>', "zh")
    '<!DOCTYPE html>\\n<html lang="zh">\\n<head>'
    >>> declare_language("<html><body>", "zh")
    '<html lang="zh"><body>'
    """
    def tag(match):
        rest = _LANG_ATTR.sub("", match.group(0)[len("<html"):])
        return f'<html lang="{lang}"{rest}'
    return _HTML_TAG.sub(tag, page, count=1)


def _page(body_html, nav, lang="en"):
    body_html = _NB_LINK.sub(r'href="\1.html"', body_html)
    body_html = body_html.replace("</head>", STYLE + "</head>", 1)
    body_html = declare_language(body_html, lang)
    return re.sub(r"(<body[^>]*>)", lambda m: m.group(1) + nav, body_html, count=1)


def _index(entries, lang="en", switch=None):
    items = "\n".join(f'<li><a href="{stem}.html">{html.escape(name)}</a></li>' for stem, name in entries)
    nav = f'<nav class="pc-nav">{_switch(lang, switch)}</nav>' if switch else ""
    title = html.escape(_("perfcourse: fundamentals of GPU and parallel performance", lang))
    return (f"<!DOCTYPE html><html lang='{lang}'><head><meta charset='utf-8'><title>perfcourse</title>{STYLE}</head>"
            f"<body style='font:16px system-ui,sans-serif;max-width:760px;margin:2em auto'>{nav}"
            f"<h1>{title}</h1>"
            "<p>" + html.escape(_("Count the work, the critical path and the bytes moved before you look at the "
                                  "hardware's peak. These pages show each lesson as last run; open the notebooks in "
                                  "JupyterLab to run them yourself.", lang)) +
            f"</p><ul class='pc-lessons' style='list-style:none;padding-left:0'>\n{items}\n</ul></body></html>")


def _exporter(mathjax=MATHJAX_DIR, lang="en"):
    import jinja2
    from nbconvert import HTMLExporter

    template = TEMPLATE.replace(f'src="{MATHJAX_DIR}/', f'src="{mathjax}/')
    return HTMLExporter(template_name="lab", template_file="perfcourse_site.html.j2", language_code=lang,
                        extra_loaders=[jinja2.DictLoader({"perfcourse_site.html.j2": template})])


def _heading(nb, fallback):
    """A notebook's first heading (``NN · title``, in its language), else ``fallback``."""
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            match = re.match(r"#\s+(.+)", cell.source.strip())
            return match.group(1).strip() if match else fallback
    return fallback


def chinese_lessons(nbdir, lessons=LESSONS):
    """The lessons of ``lessons`` whose Chinese notebook is in ``nbdir/zh``."""
    return [x for x in lessons if (Path(nbdir) / ZH / x.notebook).is_file()]


def _write_edition(notebooks, lessons, folder, lang, twins):
    """Write one language's pages and index into ``folder``; the paths, index first.

    ``twins``: the stems that have a page in the other language (each page links to its twin).
    """
    entries = [(x.stem, x.heading if lang == "en" else _heading(nb, x.heading))
               for x, nb in zip(lessons, notebooks, strict=True)]
    exporter = _exporter(MATHJAX_DIR if lang == "en" else f"../{MATHJAX_DIR}", lang)
    up = "" if lang == "en" else "../"
    down = f"{ZH}/" if lang == "en" else ""
    written = [folder / "index.html"]
    written[0].write_text(_index(entries, lang, f"{up}{down}index.html" if twins else None), encoding="utf-8")
    for i, nb in enumerate(notebooks):
        static_widgets(nb, lang)
        body, _resources = exporter.from_notebook_node(nb, resources={"metadata": {"name": entries[i][1]}})
        switch = f"{up}{down}{entries[i][0]}.html" if entries[i][0] in twins else None
        nav = _nav(entries[i - 1] if i else None, entries[i + 1] if i + 1 < len(entries) else None, lang, switch)
        target = folder / f"{entries[i][0]}.html"
        target.write_text(_page(body, nav, lang), encoding="utf-8")
        written.append(target)
    return written


def _execute(paths, notebooks, timeout, lang):
    from .runner import environment, execute_notebook

    with environment(PERFCOURSE_LANG=lang):        # the kernels started below inherit it
        for p, nb in zip(paths, notebooks, strict=True):
            execute_notebook(nb, p.parent, timeout)


def render(nbdir, out, *, execute=False, timeout=600, lessons=LESSONS, force=False):
    """Render ``lessons`` (default: the whole course) from ``nbdir`` to ``out``; the paths written, index first.

    The Chinese lessons found in ``nbdir/zh`` are rendered into ``out/zh`` (after the English pages).
    ``out`` must be a new or empty folder unless ``force`` (see :func:`check_out`); MathJax is copied into
    ``out/mathjax`` so that the pages need no network.
    """
    paths = lesson_paths(nbdir, lessons)
    out = check_out(out, force=force)
    mathjax = mathjax_source()
    chinese = chinese_lessons(nbdir, lessons)
    editions = [("en", lessons, paths), (ZH, chinese, [Path(nbdir) / ZH / x.notebook for x in chinese])]
    read = {lang: [read_named(p) for p in files] for lang, chosen, files in editions if chosen}   # before writing
    out.mkdir(parents=True, exist_ok=True)
    shutil.copytree(mathjax, out / MATHJAX_DIR, dirs_exist_ok=True)
    written = []
    for lang, chosen, files in editions:
        if not chosen:
            continue
        notebooks = read[lang]
        if execute:
            _execute(files, notebooks, timeout, lang)
        other = {x.stem for x in (chinese if lang == "en" else lessons)}
        folder = out if lang == "en" else out / ZH
        folder.mkdir(exist_ok=True)
        written += _write_edition(notebooks, chosen, folder, lang, other)
    return written


def add_arguments(parser):
    parser.add_argument("--out", default="site", help=_("folder to write the HTML into (default: ./site)"))
    parser.add_argument("--notebooks", default=None, metavar="DIR",
                        help=_("folder of lesson notebooks (default: the course's, checkout or packaged)"))
    parser.add_argument("--execute", action="store_true", help=_("run every notebook first instead of using "
                        "the outputs stored in it"))
    parser.add_argument("--force", action="store_true", help=_("write into --out even though it is not empty "
                        "(the site's pages and mathjax/ are replaced; nothing else is removed)"))


def run(args):
    try:
        nbdir = Path(args.notebooks) if args.notebooks else course.lessons_dir()
        lesson_paths(nbdir)
        check_out(args.out, force=args.force)
        mathjax_source()
    except FileNotFoundError as err:
        raise CommandError(str(err)) from None
    except ValueError as err:
        raise CommandError(str(err), code=2) from None
    try:
        written = render(nbdir, args.out, execute=args.execute, force=args.force)
    except ValueError as err:
        raise CommandError(str(err), code=2) from None
    except OSError as err:
        raise CommandError(_("cannot write the site to {folder}: {reason}").format(folder=args.out, reason=err)) \
            from None
    chinese = [p for p in written if p.parent.name == ZH and p.name != "index.html"]
    n = len(written) - 1 - (len(chinese) + 1 if chinese else 0)
    line = ngettext("wrote {n} lesson page and an index to {index}", "wrote {n} lesson pages and an index to {index}",
                    n).format(n=n, index=Path(args.out).resolve() / "index.html")
    if chinese:
        line += ngettext(", and {n} Chinese page to {index}", ", and {n} Chinese pages to {index}",
                         len(chinese)).format(n=len(chinese), index=Path(args.out).resolve() / ZH / "index.html")
    print(line)
    return 0
