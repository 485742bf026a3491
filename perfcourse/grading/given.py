"""The functions an exercise gives the learner, taken from the course's own notebook, not the submission.

Exercise 12's part C times the learner's two versions of one computation (``run_per_row`` and
``run_batched``, which the exercise defines) to test the card the learner made from them. A
submission could redefine them (a ``time.sleep`` that makes any speedup come true), so the grader
times the course's own: the cells of the exercise's solution notebook that import modules or
define a given name, and no cell with a solution block, run in a kernel of their own that no
learner's code ever enters.
"""

from __future__ import annotations

import ast
from pathlib import Path

from .parsing import parse

__all__ = ["given_cells", "notebook_of", "notebook_text"]


def _defines(tree):
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names |= {n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)}
    return names


def given_cells(sources, names, *, where="the notebook"):
    """The code cells of ``sources`` that the given ``names`` need: every cell of imports only, and each
    cell that defines one of them (which must hold no solution block).

    Examples
    --------
    >>> cells = ["import math", "def helper():\\n    return 1\\n", "X = 2\\ndef given(t):\\n    return X * t\\n",
    ...          "given(3)"]
    >>> given_cells(cells, ["given"])
    ['import math', 'X = 2\\ndef given(t):\\n    return X * t\\n']
    >>> given_cells(cells, ["other"])
    Traceback (most recent call last):
    ...
    ValueError: the notebook defines no other, which the exercise gives
    """
    from .make import BEGIN

    wanted, found, chosen = set(names), set(), []
    for source in sources:
        tree = parse(source)
        defined = _defines(tree) & wanted
        if defined and BEGIN in source:
            raise ValueError(f"{where}: the cell defining {', '.join(sorted(defined))} holds a solution block")
        if defined or (tree.body and all(isinstance(n, (ast.Import, ast.ImportFrom)) for n in tree.body)):
            chosen.append(source)
            found |= defined
    missing = sorted(wanted - found)
    if missing:
        raise ValueError(f"{where} defines no {', '.join(missing)}, which the exercise gives")
    return chosen


def notebook_of(solutions, exercise):
    """The solution notebook ``NN_*.ipynb`` of ``exercise`` in the folder ``solutions``."""
    found = sorted(Path(solutions).glob(f"{exercise[2:]}_*.ipynb"))
    if not found:
        raise ValueError(f"no solution notebook {exercise[2:]}_*.ipynb in {solutions}: the grader takes "
                         f"exercise {exercise[2:]}'s given functions from it")
    return found[0]


def notebook_text(cells):
    """A notebook's JSON text holding just ``cells`` (what the given kernel is started with)."""
    import nbformat

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    return nbformat.writes(nb)
