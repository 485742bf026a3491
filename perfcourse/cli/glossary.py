"""``perfcourse glossary [TERM]``: look up a course term in English or Chinese, or list them all.

What it prints is in the learner's language (``PERFCOURSE_LANG``): the definitions come from the
glossary catalog (see :mod:`perfcourse.teach.glossary`).
"""

from __future__ import annotations

import difflib

from .._lang import _
from ..teach.glossary import TERMS, describe, lookup, table
from . import CommandError


def add_arguments(parser):
    parser.add_argument("term", nargs="*", help=_("a term or part of one, in English or Chinese "
                        "(several words are joined); leave out to list every term"))


def run(args):
    if not args.term:
        print(table())
        return 0
    text = " ".join(args.term)
    try:
        found = lookup(text)
    except ValueError as err:
        raise CommandError(str(err), code=2) from None
    if not found:
        names = [n for t in TERMS for n in (t.english, *t.chinese, *t.aliases)]
        close = difflib.get_close_matches(text, names, n=3, cutoff=0.6)
        hint = _(" Did you mean: {names}?").format(names=", ".join(close)) if close else ""
        raise CommandError(_("No glossary term matches {text!r}.{hint} Run `perfcourse glossary` with no term to "
                             "list all {n} terms.").format(text=text, hint=hint, n=len(TERMS)))
    print("\n".join(describe(t) for t in found))
    return 0
