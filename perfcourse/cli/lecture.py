"""A lesson for a lecture hall: its widgets and results, its headings, the class's guesses, big figures.

:func:`lecture_notebook` makes, from a lesson notebook, the one ``perfcourse present NN --lecture``
shows: every markdown cell is cut to its headings (the prose is the lecturer's to say), the
self-test cells are left out (their "No answer yet" would only echo on the screen), each
``my_guess_... = None`` takes the class's guess given with ``--guess``, and a first cell makes the
figures larger. The code is hidden by Voila as ever; what runs is the lesson's own code.

Examples
--------
>>> import nbformat
>>> nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("## Predict\\n\\nLong prose."),
...                                      nbformat.v4.new_code_cell("my_guess_ms = None  # your guess"),
...                                      nbformat.v4.new_code_cell('pc.selftest.ask("l03-x")')])
>>> out = lecture_notebook(nb, {"my_guess_ms": 2.5})
>>> print([c.source for c in out.cells][1:])
['## Predict', "my_guess_ms = 2.5  # the class's guess"]
"""

from __future__ import annotations

import copy
import re

from .._lang import _

__all__ = ["lecture_notebook", "guess_names", "parse_guesses", "FIGURES"]

_GUESS = re.compile(r"^(my_guess_\w+)\s*=\s*None\b.*$", re.MULTILINE)
_SELFTEST = re.compile(r"\bpc\.(selftest|quiz)\.")
FIGURES = ('import matplotlib\n'
           'matplotlib.rcParams.update({"figure.dpi": 140, "font.size": 12})   # figures for a projector')


def guess_names(nb):
    """The names of the lesson's guesses (``my_guess_...``), in order."""
    return [m.group(1) for c in nb.cells if c.cell_type == "code" for m in _GUESS.finditer(c.source)]


def parse_guesses(items, names):
    """``{name: value}`` from ``--guess NAME=VALUE`` items; ``ValueError`` naming what is wrong and allowed."""
    out = {}
    for item in items or ():
        name, sep, value = item.partition("=")
        name = name.strip()
        name = name if name.startswith("my_guess_") else f"my_guess_{name}"
        if not sep or name not in names:
            raise ValueError(_("--guess must be NAME=VALUE with NAME one of this lesson's guesses ({names}); got "
                               "{item!r}").format(names=", ".join(names) or _("none"), item=item))
        try:
            number = float(value)
        except ValueError:
            number = float("nan")
        if not number > 0 or number == float("inf"):
            raise ValueError(_("--guess {name}: the guess must be a number > 0; got {value!r}").format(
                name=name, value=value))
        out[name] = number
    return out


def lecture_notebook(nb, guesses=None):
    """The lecture version of lesson notebook ``nb`` (a new notebook; ``nb`` is unchanged)."""
    import nbformat

    guesses = guesses or {}
    out = copy.deepcopy(nb)
    cells = [nbformat.v4.new_code_cell(FIGURES)]
    for cell in out.cells:
        if cell.cell_type == "markdown":
            headings = [line for line in cell.source.split("\n") if line.startswith("#")]
            if headings:
                cells.append(nbformat.v4.new_markdown_cell("\n".join(headings)))
        elif cell.cell_type == "code" and not _SELFTEST.search(cell.source):
            cell.source = _GUESS.sub(lambda m: (f"{m.group(1)} = {guesses[m.group(1)]:g}  # the class's guess"
                                                if m.group(1) in guesses else m.group(0)), cell.source)
            cells.append(cell)
    out.cells = cells
    return out
