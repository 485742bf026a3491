"""No answer key in what a learner installs: the package holds no solution block and no grader's reference."""

from __future__ import annotations

import json
import zipfile

from .answerkey import ROOT, answers_in, reference_bodies, solution_blocks


def test_the_package_an_editable_install_imports_holds_no_answer():
    assert solution_blocks() and reference_bodies()
    assert answers_in(ROOT / "perfcourse") == []


def _planted(tmp_path, files):
    archive = tmp_path / "planted.whl"
    with zipfile.ZipFile(archive, "w") as z:
        for name, text in files.items():
            z.writestr(name, text)
    return archive


def test_a_copied_reference_or_solution_is_found_even_reindented(tmp_path):
    where, lines = next((w, lines) for w, lines in reference_bodies() if len(lines) >= 3)
    module = "def helper(*args):\n" + "".join(f"        {line}  # copied\n" for line in lines)
    assert answers_in(_planted(tmp_path, {"pkg/mod.py": module})) == [f"{where} in pkg/mod.py"]

    block_where, block = next((w, lines) for w, lines in solution_blocks() if len(lines) >= 3)
    cell = {"cell_type": "code", "source": ["x = 1\n", *(f"{line}\n" for line in block)], "metadata": {},
            "outputs": [], "execution_count": None}
    nb = json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    found = answers_in(_planted(tmp_path, {"pkg/course/lesson.ipynb": nb}))
    assert f"{block_where} in pkg/course/lesson.ipynb" in found


def test_a_partial_copy_is_not_an_answer(tmp_path):
    where, lines = next((w, lines) for w, lines in reference_bodies() if len(lines) >= 3)
    module = "\n".join(lines[:-1]) + "\n"
    assert not [f for f in answers_in(_planted(tmp_path, {"pkg/mod.py": module})) if f.startswith(where + " in")]
