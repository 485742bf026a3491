"""What counts as an answer key: each solution block of ``solutions/`` and each reference in ``solutions/references/``.

:func:`answers_in` looks for each of them in a built wheel (or any zip of files): in its Python
modules line by line, and in its notebooks cell by cell, comparing code with blank lines, comments
(whole-line and inline) and indentation taken out, so a copy that was only re-indented is found too.
"""

from __future__ import annotations

import ast
import json
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SOLUTIONS = ROOT / "solutions"
REFERENCES = SOLUTIONS / "references"
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"


def _lines(code):
    out = []
    for line in code.splitlines():
        line = line.split("  #", 1)[0].strip()          # an inline comment is not code
        if line and not line.startswith("#"):
            out.append(" ".join(line.split()))
    return out


def solution_blocks():
    """``[(where, lines)]``: each solution block of each solution notebook, as compared lines."""
    blocks = []
    for path in sorted(SOLUTIONS.glob("*.ipynb")):
        for index, cell in enumerate(json.loads(path.read_text(encoding="utf-8"))["cells"]):
            if cell["cell_type"] != "code":
                continue
            inside = None
            for line in "".join(cell["source"]).splitlines():
                if line.strip() == BEGIN:
                    inside = []
                elif line.strip() == END:
                    blocks.append((f"{path.name} cell {index} solution", _lines("\n".join(inside))))
                    inside = None
                elif inside is not None:
                    inside.append(line)
    return blocks


def reference_bodies():
    """``[(where, lines)]``: the body of every function in ``solutions/references/`` (its docstring left out)."""
    bodies = []
    for path in sorted(REFERENCES.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef):
                body = node.body[1:] if ast.get_docstring(node) is not None else node.body
                code = "\n".join(ast.get_source_segment(text, stmt) for stmt in body)
                bodies.append((f"references/{path.name} {node.name}()", _lines(code)))
    return bodies


def _contains(haystack, needle):
    n = len(needle)
    return n > 0 and any(haystack[i:i + n] == needle for i in range(len(haystack) - n + 1))


def _files(where):
    where = Path(where)
    if where.is_dir():
        for path in sorted(where.rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                yield path.relative_to(where).as_posix(), path.read_bytes()
    else:
        with zipfile.ZipFile(where) as z:
            for name in z.namelist():
                yield name, z.read(name)


def _texts(where):
    """Each file as compared lines: a notebook's code cells one by one, any other text whole."""
    for name, data in _files(where):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        if name.endswith(".ipynb"):
            for cell in json.loads(text)["cells"]:
                if cell["cell_type"] == "code":
                    yield name, _lines("".join(cell["source"]))
        else:
            yield name, _lines(text)


def answers_in(where, keys=None):
    """``["<key> in <file>"]`` for every answer key (default: solutions and references) found in ``where``.

    ``where``: a wheel (any zip) or a folder, such as the package folder an editable install imports.
    """
    keys = solution_blocks() + reference_bodies() if keys is None else keys
    texts = list(_texts(where))
    return [f"{where} in {name}" for where, lines in keys for name, text in texts if _contains(text, lines)]
