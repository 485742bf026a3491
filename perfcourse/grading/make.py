"""``perfcourse make-exercises``: write ``exercises/`` from ``solutions/``, or check that it is current.

The solution notebooks ``solutions/NN_*.ipynb`` are the only source. In each code cell, the
lines from ``### BEGIN SOLUTION`` to ``### END SOLUTION`` (inclusive) become one line
``raise NotImplementedError()`` at the marker's indentation; every output and execution count
is cleared; everything else is kept as it is. Output is deterministic (nbformat's JSON, keys
sorted), so ``--check`` can compare files byte for byte and list stale, missing and extra ones.
"""

from __future__ import annotations

import copy
from pathlib import Path

__all__ = ["BEGIN", "END", "STUB", "strip_solutions", "make_exercise", "read_named", "plan", "check", "write"]

BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
STUB = "raise NotImplementedError()"


def strip_solutions(source, where="cell"):
    """Replace each marked solution block in ``source``; returns (new source, blocks replaced).

    Examples
    --------
    >>> code = "def f(x):\\n    ### BEGIN SOLUTION\\n    return 2 * x\\n    ### END SOLUTION\\n"
    >>> print(strip_solutions(code)[0])
    def f(x):
        raise NotImplementedError()
    <BLANKLINE>
    """
    out, inside, blocks = [], False, 0
    for number, line in enumerate(source.split("\n"), start=1):
        marker = line.strip()
        if marker == BEGIN:
            if inside:
                raise ValueError(f"{where}, line {number}: {BEGIN} inside another solution block")
            inside, blocks = True, blocks + 1
            out.append(line[: len(line) - len(line.lstrip())] + STUB)
        elif marker == END:
            if not inside:
                raise ValueError(f"{where}, line {number}: {END} without a {BEGIN} before it")
            inside = False
        elif not inside:
            out.append(line)
    if inside:
        raise ValueError(f"{where}: {BEGIN} without a matching {END}")
    return "\n".join(out), blocks


def make_exercise(solution, name="notebook"):
    """The exercise notebook for a solution notebook (a new object; the input is unchanged)."""
    import nbformat  # imported when used: it takes seconds, and `perfcourse --help` loads this module
    nb = copy.deepcopy(solution)
    blocks = 0
    for index, cell in enumerate(nb.cells, start=1):
        if cell.cell_type != "code":
            continue
        cell.source, found = strip_solutions(cell.source, f"{name}, cell {index}")
        blocks += found
        cell.outputs = []
        cell.execution_count = None
        cell.metadata.pop("execution", None)
    if blocks == 0:
        raise ValueError(f"{name} has no {BEGIN} ... {END} block, so there is nothing to turn into an exercise")
    nbformat.validate(nb)
    return nb


def _render(nb):
    import nbformat

    text = nbformat.writes(nb, version=4)
    return text if text.endswith("\n") else text + "\n"


def plan(solutions, exercises):
    """``{exercise path: file text}`` for every ``solutions/NN_*.ipynb``.

    Raises ``ValueError`` when the solutions folder is missing or holds no solution notebook.
    """
    solutions, exercises = Path(solutions), Path(exercises)
    if not solutions.is_dir():
        raise ValueError(f"solutions must be a folder of NN_*.ipynb notebooks; {str(solutions)!r} is not a folder")
    sources = sorted(solutions.glob("[0-9][0-9]_*.ipynb"))
    if not sources:
        raise ValueError(f"no solution notebooks (NN_*.ipynb) in {str(solutions)!r}")
    return {exercises / src.name: _render(make_exercise(read_named(src), str(src))) for src in sources}


def read_named(src):
    """A notebook read with nbformat; ``ValueError`` naming the file and what is wrong with it."""
    import nbformat

    try:
        return nbformat.read(src, as_version=4)
    except Exception as err:  # noqa: BLE001 - JSON, schema or encoding: the file's problem, named
        first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
        raise ValueError(f"{src} is not a notebook nbformat can read: {first[:200]}") from None


def check(wanted, exercises):
    """Lines naming stale, missing and extra exercise notebooks; empty when all is current."""
    problems = []
    for path, text in wanted.items():
        if not path.exists():
            problems.append(f"missing: {path}")
        elif path.read_text(encoding="utf-8") != text:
            problems.append(f"stale: {path} (differs from what its solution generates)")
    extra = sorted(set(Path(exercises).glob("*.ipynb")) - set(wanted))
    problems += [f"extra: {path} (no solution notebook generates it)" for path in extra]
    return problems


def write(wanted):
    """Write the notebooks that differ; returns how many were written."""
    written = 0
    for path, text in wanted.items():
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            written += 1
    return written
