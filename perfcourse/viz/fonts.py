"""Chinese in the course's figures: the labels' language, and a font with Chinese glyphs for them.

In the Chinese edition every label a plot of :mod:`perfcourse.viz` draws (titles, axis labels,
legends, notes beside points) is Chinese, taken from the message catalog through :func:`_`; the
lessons' code is the same in both editions. Matplotlib's own font, DejaVu Sans, has no Chinese
glyphs, so the first time a Chinese label is asked for, :func:`chinese_font` registers
WenQuanYi Micro Hei (Apache License 2.0), the font file that the ``paperang-p2-fonts-cjk``
package installs with the course, and puts it first in ``font.sans-serif``. First, because
matplotlib resolves a generic family such as ``sans-serif`` to one font only, when it draws: so the
labels of axes made before (a lesson's own figure, an explorer's) are drawn with it too. It has
Latin letters, digits and the usual symbols as well; ``font.family`` becomes that font then DejaVu
Sans, so that a symbol it lacks is drawn from DejaVu Sans in every figure made afterwards. A
Chinese font that matplotlib already knows (Noto Sans CJK, Source Han Sans, ...) serves as well.
Nothing is changed when this module is imported, nor ever in the English edition.

Without such a font a Chinese label would be drawn as empty boxes: the figures keep their English
labels instead, and one line on stderr says why and how to install the font.
"""

from __future__ import annotations

import sys
from pathlib import Path

from .._lang import N_, current, lookup

__all__ = ["_", "chinese_font", "figure_language", "font_file", "FONT_PACKAGE", "KNOWN_FAMILIES"]

FONT_PACKAGE = "paperang-p2-fonts-cjk"      # on PyPI: WenQuanYi Micro Hei (wqy-microhei.ttc), about 5 MB installed
# Chinese fonts matplotlib may know already (a system's fonts), used when the package's file is missing
KNOWN_FAMILIES = ("WenQuanYi Micro Hei", "Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC",
                  "Source Han Sans CN", "WenQuanYi Zen Hei", "Microsoft YaHei", "PingFang SC", "SimHei")
NO_FONT = N_("perfcourse: no font with Chinese glyphs was found, so the figures keep their English labels; "
             "install one with  python -m pip install paperang-p2-fonts-cjk")
_FOUND: dict[str, str | None] = {}    # "family": the registered family's name, or None, once looked for


def font_file():
    """The Chinese font file installed with the course (``paperang-p2-fonts-cjk``), or None."""
    try:
        import paperang_p2_fonts_cjk
    except ImportError:
        return None
    path = Path(paperang_p2_fonts_cjk.__file__).parent / "fonts" / "wqy-microhei.ttc"
    return path if path.is_file() else None


def _register():
    """Register a Chinese font with matplotlib and add it to ``font.sans-serif``; its family's name, or None."""
    import matplotlib
    from matplotlib import font_manager

    family = None
    path = font_file()
    if path is not None:
        try:
            font_manager.fontManager.addfont(str(path))
            family = font_manager.FontProperties(fname=str(path)).get_name()
        except (OSError, RuntimeError, ValueError):    # an unreadable file: look for a font matplotlib knows
            family = None
    if family is None:
        known = {f.name for f in font_manager.fontManager.ttflist}
        family = next((name for name in KNOWN_FAMILIES if name in known), None)
    if family is not None:
        names = list(matplotlib.rcParams["font.sans-serif"])
        matplotlib.rcParams["font.sans-serif"] = [family] + [n for n in names if n != family]
        # named families, not the generic one: matplotlib falls back glyph by glyph only along this list, so a
        # symbol the Chinese font lacks (such as the ring operator) is drawn from DejaVu Sans, not as a box
        matplotlib.rcParams["font.family"] = [family, "DejaVu Sans"]
    return family


def chinese_font():
    """The name of a font family with Chinese glyphs that matplotlib draws with, or None when there is none.

    The first call registers it (see the module's docstring); later calls only return it.
    """
    if "family" not in _FOUND:
        _FOUND["family"] = _register()
    return _FOUND["family"]


def figure_language():
    """The language of the figures' labels: the learner's (see :mod:`perfcourse._lang`), or English for a
    Chinese learner whose matplotlib has no font with Chinese glyphs (said once, in one line on stderr)."""
    lang = current()
    if lang == "en":
        return lang
    if chinese_font() is None:
        if not _FOUND.get("said"):
            _FOUND["said"] = "yes"
            print(lookup(NO_FONT, lang), file=sys.stderr)
        return "en"
    return lang


def _(message):
    """A figure's label in the figures' language (:func:`figure_language`); a string literal, like ``_lang._``."""
    return lookup(message, figure_language())
